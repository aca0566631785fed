"""The statistics store: every trial of every drill and match, in one SQLite file.

One row per trial (a card answered or touched): which drill or match, the
card, the answer, right or wrong, the reaction in ms (negative = anticipated
the kimariji), the fault kind, the voice, and when. The spaced-repetition
state of each card lives in the same file (see ``trainer.stats.srs``).

Durability: WAL journal, ``synchronous=FULL``, one transaction per trial. A
crash or SIGKILL in the middle of a drill loses at most the trial whose
``record`` had not returned yet. A drill makes a trial every second or so, so
the fsync per commit costs nothing a player could notice.

Damage: at open the file is checked: the SQLite header, the file size against
the header's page count (a truncated file), the application id, the schema
version, every table and its columns, and ``PRAGMA quick_check`` (reads every
page). quick_check costs about 0.5 s for a million trials, so above
``DEEP_CHECK_MAX_BYTES`` it runs only when a previous session met a SQLite
corruption error (a marker file next to the database) or when asked
(``verify()``, ``karuta stats check``).

Only the app's own database may ever be set aside: a regular file in the app's
data folder that starts with the SQLite header and carries our application id,
and only when it is really damaged. It is renamed with a timestamp (never
deleted), a fresh store is started, every readable row is salvaged into it
(``trainer.stats.salvage``), and ``store.recovery_message`` holds a sentence
the UI shows to the player. Any other file -- one the user named, a foreign
database, a file that is not SQLite at all -- is never renamed, replaced or
written: opening it fails with a ``StatsError`` saying why.

Not damage: a file locked by another program (open waits up to ``BUSY_WAIT_S``,
then says it is in use), a file from a newer version of the trainer, or a
read-only data folder: both open read-only, with ``store.read_only_reason``.

Summaries: ``daily`` (per day and kind) and ``card_totals`` (per card and
kind) keep counts and sums, updated in the same transaction as the trial, so
the dashboard never scans the million trials.
"""
from __future__ import annotations

import csv
import os
import sqlite3
import stat
import struct
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Iterable, Iterator

APPLICATION_ID = 0x4B525441  # "KRTA": marks the file as ours (PRAGMA application_id)
SCHEMA_VERSION = 2
DB_NAME = "stats.sqlite3"
SQLITE_MAGIC = b"SQLite format 3\x00"
DEEP_CHECK_MAX_BYTES = 32 * 1024 * 1024  # ~250,000 trials: quick_check under ~0.15 s
BUSY_WAIT_S = 10.0       # how long open waits for another program to release the file
BUSY_TIMEOUT_S = 5.0     # SQLite's own wait on a lock, for each statement once open

# SQLite result codes (primary, the low byte of the extended code) that mean
# the file's content is bad; every other error is about access, not damage.
_DAMAGE_CODES = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}
_BUSY_CODES = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}

# Kinds of trial written by the drills and the match engine; the floor races of the Games
# tab (issue 27) each have their own, named as the game is in the registry.
RACE_KINDS = ("chirashi", "sakasama", "genpei", "relay", "shimonoku")
KINDS = ("fuda_nagashi", "kami_to_torifuda", "listening_reflex", "kimariji_henka",
         "positional", "match", "mubeyama", *RACE_KINDS, "online")
""""online": a read of an online kyōgi race the person played (``docs/online-races.md``)."""

_SCHEMA = """
CREATE TABLE trials (
    id          INTEGER PRIMARY KEY,
    at          REAL    NOT NULL,             -- unix time, seconds
    day         INTEGER NOT NULL,             -- local calendar day (date.toordinal) of `at`
    kind        TEXT    NOT NULL,             -- drill name or 'match'
    session     INTEGER REFERENCES sessions(id),
    card        INTEGER NOT NULL CHECK (card BETWEEN 0 AND 100),
    answer      TEXT,
    correct     INTEGER NOT NULL CHECK (correct IN (0, 1)),
    reaction_ms REAL,                         -- from the kimariji mark (or card shown); < 0 = anticipation
    fault       TEXT,                         -- e.g. 'otetsuki', 'karafuda'; NULL = none
    voice       TEXT,
    disturbed   TEXT                          -- why the sound did not leave on time in this race; NULL = it did
);
CREATE INDEX trials_card ON trials(card, id);
CREATE INDEX trials_card_kind ON trials(card, kind, id);
CREATE INDEX trials_session ON trials(session);
CREATE INDEX trials_fault ON trials(fault, kind) WHERE fault IS NOT NULL;

CREATE TABLE sessions (
    id       INTEGER PRIMARY KEY,
    kind     TEXT NOT NULL,
    started  REAL NOT NULL,
    settings TEXT                               -- JSON, the drill's options
);
CREATE INDEX sessions_kind ON sessions(kind, id);

CREATE TABLE daily (
    day       INTEGER NOT NULL,
    kind      TEXT    NOT NULL,
    n         INTEGER NOT NULL,
    n_correct INTEGER NOT NULL,
    n_faults  INTEGER NOT NULL,
    rt_n      INTEGER NOT NULL,                 -- correct trials with a reaction time
    rt_sum    REAL    NOT NULL,
    PRIMARY KEY (day, kind)
) WITHOUT ROWID;

CREATE TABLE card_totals (
    card      INTEGER NOT NULL,
    kind      TEXT    NOT NULL,
    n         INTEGER NOT NULL,
    n_correct INTEGER NOT NULL,
    n_faults  INTEGER NOT NULL,
    rt_n      INTEGER NOT NULL,
    rt_sum    REAL    NOT NULL,
    last_at   REAL    NOT NULL,
    PRIMARY KEY (card, kind)
) WITHOUT ROWID;

CREATE TABLE srs_cards (
    card        INTEGER PRIMARY KEY CHECK (card BETWEEN 1 AND 100),
    state       INTEGER NOT NULL,
    step        INTEGER,
    stability   REAL,
    difficulty  REAL,
    due         REAL NOT NULL,                  -- unix time
    last_review REAL
);
"""

# What the open-time check expects: every table with its columns, in order.
TRIAL_COLUMNS_V1 = ("id", "at", "day", "kind", "session", "card", "answer", "correct",
                    "reaction_ms", "fault", "voice")
_EXPECTED_COLUMNS = {
    "trials": (*TRIAL_COLUMNS_V1, "disturbed"),
    "sessions": ("id", "kind", "started", "settings"),
    "daily": ("day", "kind", "n", "n_correct", "n_faults", "rt_n", "rt_sum"),
    "card_totals": ("card", "kind", "n", "n_correct", "n_faults", "rt_n", "rt_sum", "last_at"),
    "srs_cards": ("card", "state", "step", "stability", "difficulty", "due", "last_review"),
}

CSV_COLUMNS = ("id", "time", "kind", "session", "card", "answer", "correct",
               "reaction_ms", "fault", "voice", "disturbed")

# Schema migrations: user_version N -> N + 1, each one transaction, run at open before
# anything else writes. Only additions: every row a database holds is kept as it was.
_MIGRATIONS: dict[int, tuple[str, ...]] = {
    # 1 -> 2 (issue 23): a race in which the sound stuttered is kept, with the reason,
    # but left out of means, charts, weakest cards and spaced repetition. Old trials are
    # not disturbed (NULL), so the summaries stay as they are.
    1: ("ALTER TABLE trials ADD COLUMN disturbed TEXT",),
}
# What each older version's tables look like (the check at open before migrating).
_COLUMNS_OF_VERSION = {1: {"trials": TRIAL_COLUMNS_V1}}


class StatsError(Exception):
    """The store cannot do what was asked; the message is fit for the player."""


class StatsBadPath(StatsError):
    """The path given is not something a database can be (a folder, a device, '')."""


class StatsBusy(StatsError):
    """Another program holds the database locked for longer than we wait."""


class StatsDamaged(StatsError):
    """The database is damaged and was left as it is (read-only open, or not ours to move)."""


class StatsReadOnly(StatsError):
    """A write to a store opened read-only (newer schema, read-only folder, ``read_only=True``)."""


class DamagedDatabase(Exception):
    """Raised internally by the open-time check; carries the reason."""


class _NotOurs(DamagedDatabase):
    """Internal: a SQLite file, but someone else's."""


class _Busy(Exception):
    """Internal: the file is locked right now."""


class _CannotWrite(Exception):
    """Internal: the file is fine but cannot be written here (read-only file or folder)."""


class _NewerSchema(Exception):
    """Internal: the file is ours, from a newer version of the trainer."""


@dataclass(frozen=True)
class Trial:
    """One answered or touched card.

    kind: drill name, 'match', 'mubeyama', a floor race's game or 'online' (see KINDS). card: poem number (0 = joka).
    reaction_ms: from the kimariji mark (touch drills, matches) or from the
    moment the card was shown (answer drills); None when not timed.
    at: unix time; None = now.
    """

    kind: str
    card: int
    correct: bool
    answer: str | None = None
    reaction_ms: float | None = None
    fault: str | None = None
    voice: str | None = None
    session: int | None = None
    at: float | None = None
    disturbed: str | None = None   # the sound stuttered in this race (why): kept, not counted


def default_path() -> Path:
    from trainer.paths import data_dir
    return data_dir() / DB_NAME


def local_day(at: float) -> int:
    return datetime.fromtimestamp(at).toordinal()


class StatsStore:
    """The open statistics database. Use ``StatsStore.open()``.

    Thread-safe: one connection behind a lock, so a UI worker thread may write
    while the GUI thread reads.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path, recovery_message: str | None,
                 read_only_reason: str | None = None):
        self._conn = conn
        self._lock = threading.RLock()
        self._depth = 0   # nesting of transaction(): inner ones are savepoints
        self.path = path
        #: Set when a damaged file was set aside at open, or the store could only be
        #: opened read-only: a sentence for the player.
        self.recovery_message = recovery_message
        #: Where the damaged file went, if one was set aside.
        self.set_aside_path: Path | None = None
        #: Why this store refuses writes (None = writable): a sentence for the player.
        self.read_only_reason = read_only_reason

    @property
    def read_only(self) -> bool:
        return self.read_only_reason is not None

    # --- opening ---------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | os.PathLike | None = None, *,
             deep_check: bool | None = None, read_only: bool = False) -> "StatsStore":
        """Open (or create) the store.

        deep_check runs ``PRAGMA quick_check`` (reads every page: catches a
        truncated or scribbled file that still has a valid header). None = when
        the file is small or was flagged by an earlier corruption error.

        read_only: never create, write, rename or flag anything (``karuta stats
        summary|check|export``); a damaged file raises ``StatsDamaged``. A
        missing file is an empty store when it is the default one.

        Writable (the app): our own damaged database in the data folder is set
        aside and its readable rows salvaged into a fresh one; a locked file is
        waited for (``StatsBusy`` after ``BUSY_WAIT_S``); a newer schema or a
        read-only folder opens read-only with ``read_only_reason`` set.
        """
        db_path = Path(path) if path is not None else default_path()
        _check_db_path(db_path)
        if deep_check is None:
            deep_check = _marker(db_path).exists() or (
                db_path.exists() and db_path.stat().st_size <= DEEP_CHECK_MAX_BYTES)
        if read_only:
            return cls._open_read_only(db_path, deep_check, None, missing_ok=path is None)
        try:
            db_path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StatsError(f"cannot create the folder {db_path.parent}: "
                             f"{exc.strerror or exc}") from exc
        try:
            conn = _retry_while_busy(db_path, lambda: _open_checked(db_path, deep_check))
        except _NewerSchema as exc:
            return cls._open_read_only(db_path, False, str(exc), tell=True)
        except _CannotWrite as exc:
            return cls._open_read_only(db_path, deep_check, str(exc), tell=True)
        except DamagedDatabase as exc:
            return cls._replace_damaged(db_path, str(exc))
        if deep_check:
            _marker(db_path).unlink(missing_ok=True)
        return cls(conn, db_path, None)

    @classmethod
    def _open_read_only(cls, db_path: Path, deep_check: bool, reason: str | None, *,
                        missing_ok: bool = True, tell: bool = False) -> "StatsStore":
        """tell: the app wanted to write; the player is told once (``recovery_message``)."""
        told = (f"The statistics database is open read-only: {reason}. Everything saved so "
                "far is shown; new results will not be saved.") if tell else None
        reason = reason or "opened read-only"
        if not db_path.exists() or db_path.stat().st_size == 0:
            if not db_path.exists() and not missing_ok:
                raise StatsBadPath(f"there is no statistics database at {db_path}")
            return cls(_empty_memory_store(), db_path, told, reason)
        if not _is_sqlite(db_path):
            raise StatsBadPath(f"{db_path} is not a statistics database "
                               "(the file is not a SQLite database)")
        problem = _header_problem(db_path)
        if problem:
            raise StatsDamaged(f"the statistics database {db_path} is damaged ({problem})")
        try:
            conn = _retry_while_busy(db_path, lambda: _open_read_only_checked(db_path, deep_check))
        except _NotOurs:
            raise StatsBadPath(f"{db_path} is not a karuta statistics database (it is another "
                               "program's SQLite file)") from None
        except DamagedDatabase as exc:
            raise StatsDamaged(f"the statistics database {db_path} is damaged ({exc})") from None
        return cls(conn, db_path, told, reason)

    @classmethod
    def _replace_damaged(cls, db_path: Path, reason: str) -> "StatsStore":
        """Set our own damaged file aside, start afresh and salvage what can be read."""
        if not _may_set_aside(db_path):
            if _is_sqlite(db_path):
                advice = (f"if it holds trials, `karuta stats recover {db_path} NEW_FILE` "
                          "salvages them into a new database")
            else:
                advice = "move it away and the trainer starts a new database"
            raise StatsDamaged(f"{db_path} cannot be used as the statistics database "
                               f"({reason}); it was left as it is: {advice}")
        aside = _set_aside(db_path)
        assert aside is not None, "_may_set_aside found the file"
        _marker(db_path).unlink(missing_ok=True)
        conn = _open_checked(db_path, deep_check=False)
        store = cls(conn, db_path, None)
        store.set_aside_path = aside
        from trainer.stats.salvage import salvage_into
        try:
            report = salvage_into(aside, store)
            saved = (f" {report.trials:,} trials were recovered from it"
                     if report.trials else " Nothing could be recovered from it")
            if report.lost:
                saved += f"; {report.lost:,} of the {report.known:,} it held could not be read"
        except (StatsError, sqlite3.Error) as exc:
            saved = f" Recovering its trials failed ({exc})"
        store.recovery_message = (
            f"The statistics database was damaged ({reason}). It was set aside as "
            f"{aside.name} (nothing was deleted) and a new one was started.{saved}.")
        return store

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> "StatsStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error), under the store's lock.

        Nested calls (on the same thread) are savepoints of the outer
        transaction, so a caller can make several writes -- a trial and its
        FSRS review -- one atomic unit.
        """
        if self.read_only_reason is not None:
            raise StatsReadOnly(f"results cannot be saved: {self.read_only_reason}")
        with self._lock, self._damage_noted():
            conn = self._conn
            begin, commit, rollback = (
                ("BEGIN IMMEDIATE", "COMMIT", "ROLLBACK") if self._depth == 0 else
                ("SAVEPOINT nested", "RELEASE nested", "ROLLBACK TO nested"))
            conn.execute(begin)
            self._depth += 1
            try:
                yield conn
            except BaseException:
                self._depth -= 1
                _rollback(conn, rollback, nested=self._depth > 0)
                raise
            self._depth -= 1
            try:
                conn.execute(commit)
            except BaseException:
                _rollback(conn, rollback, nested=self._depth > 0)
                raise

    def query(self, sql: str, params: Iterable = ()) -> list[tuple]:
        """Read-only helper for the aggregates."""
        with self._lock, self._damage_noted():
            return self._conn.execute(sql, tuple(params)).fetchall()

    @contextmanager
    def _damage_noted(self) -> Iterator[None]:
        """Turn SQLite's errors into a StatsError with a sentence for the player.

        A corruption error also flags the file for a full check at the next
        open (which sets it aside if it is really damaged). Busy, full disk and
        read-only errors are not damage: the store stays usable and the caller
        (a drill, a match) shows the message and goes on.
        """
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, (sqlite3.IntegrityError, sqlite3.ProgrammingError)):
                raise
            code = _code(exc)
            if code in _DAMAGE_CODES:
                _flag_for_check(self.path)
                raise StatsError(f"the statistics database looks damaged ({exc}); it will be "
                                 "checked and, if need be, set aside when the trainer "
                                 "restarts") from exc
            raise _access_error(exc, self.path) from exc

    def verify(self) -> str | None:
        """Full integrity check (``PRAGMA quick_check``). None = fine, else the problem.

        Slow on a big store (about 0.5 s per million trials): run it off the GUI thread.
        A problem flags our own file so the next open sets it aside.
        """
        try:
            result = self.query("PRAGMA quick_check(1)")[0][0]
        except StatsError as exc:
            return str(exc)
        if result != "ok":
            _flag_for_check(self.path)
            return _one_line(result)
        return None

    # --- writing ---------------------------------------------------------------------

    def begin_session(self, kind: str, settings_json: str | None = None,
                      at: float | None = None) -> int:
        """A drill run or a match: trials carry its id so runs can be compared."""
        _check_kind(kind)
        with self.transaction() as conn:
            cur = conn.execute("INSERT INTO sessions (kind, started, settings) VALUES (?, ?, ?)",
                               (kind, time.time() if at is None else at, settings_json))
            return _new_row_id(cur)

    def record(self, trial: Trial) -> int:
        """Write one trial and commit it; returns its id. Durable once this returns."""
        row = _trial_row(trial)
        with self.transaction() as conn:
            trial_id = _new_row_id(conn.execute(_INSERT_TRIAL, row))
            _add_to_daily(conn, [row])
            _add_to_card_totals(conn, [row])
        return trial_id

    def record_many(self, trials: Iterable[Trial]) -> int:
        """Bulk insert in one transaction (imports, benchmarks). Returns the count."""
        rows = [_trial_row(t) for t in trials]
        with self.transaction() as conn:
            conn.executemany(_INSERT_TRIAL, rows)
            _add_to_daily(conn, rows)
            _add_to_card_totals(conn, rows)
        return len(rows)

    def bulk_load_rows(self, rows: Iterable[tuple]) -> int:
        """Fastest bulk path: raw rows (at, day, kind, session, card, answer, correct,
        reaction_ms, fault, voice[, disturbed]), inserted in one transaction; the summaries
        are rebuilt from the trials afterwards."""
        with self.transaction() as conn:
            n = conn.executemany(_INSERT_TRIAL, (r if len(r) == 11 else (*r, None) for r in rows)).rowcount
            _rebuild_summaries(conn)
        return n

    def rebuild_summaries(self) -> None:
        with self.transaction() as conn:
            _rebuild_summaries(conn)

    # --- reading ---------------------------------------------------------------------

    def trial_ids(self) -> list[int]:
        return [r[0] for r in self.query("SELECT id FROM trials ORDER BY id")]

    def count(self) -> int:
        return int(self.query("SELECT count(*) FROM trials")[0][0])

    def export_csv(self, dest: str | os.PathLike) -> int:
        """Write every trial to a CSV file (UTF-8, header row). Returns the row count.

        Only a new file or an existing regular file is a target (never a
        device, a folder or the database itself). Written to a temporary file
        in the same folder first and renamed over the target, so a failed
        export never leaves half a file, nor a stray temporary one.
        """
        dest = Path(dest)
        _check_export_target(dest, self.path)
        try:
            fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part",
                                            dir=dest.parent)
        except OSError as exc:
            raise StatsBadPath(f"cannot write {dest}: {exc.strerror or exc}") from exc
        tmp = Path(tmp_name)
        n = 0
        try:
            with open(fd, "w", newline="", encoding="utf-8") as f:
                out = csv.writer(f)
                out.writerow(CSV_COLUMNS)
                with self._lock, self._damage_noted():
                    cur = self._conn.execute(
                        "SELECT id, at, kind, session, card, answer, correct, reaction_ms, "
                        "fault, voice, disturbed FROM trials ORDER BY id")
                    for row in cur:
                        out.writerow(_csv_row(row))
                        n += 1
                f.flush()
                os.fsync(f.fileno())
            _keep_mode(dest, tmp)
            os.replace(tmp, dest)
        except OSError as exc:
            raise StatsError(f"cannot write {dest}: {exc.strerror or exc}") from exc
        finally:
            tmp.unlink(missing_ok=True)
        return n


# --- putting a recovered database in place ------------------------------------------------

def install_database(new: str | os.PathLike, target: str | os.PathLike | None = None) -> Path | None:
    """``karuta stats install``: make the sound database `new` the statistics database.

    `new` is only read (checked whole first: ours, undamaged, closed cleanly). The
    database in place, if any, is set aside with its -wal and -shm (renamed, never
    deleted): a -wal left by a crash would otherwise be applied to the new file and
    damage it. The copy is made under a temporary name and linked into place, which
    fails rather than replace a file that appeared meanwhile. Returns where the old
    database went (None if there was none). Call it with the trainer closed
    (`trainer.instance_lock`).
    """
    new, target = Path(new), Path(target) if target is not None else default_path()
    check_installable(new, target)
    return _install_checked(new, target)


def check_installable(new: Path, target: Path) -> None:
    """StatsBadPath / StatsDamaged unless `new` can be installed in place of `target`."""
    _check_db_path(new)
    if not new.exists():
        raise StatsBadPath(f"there is no database at {new}")
    if new.resolve() == target.resolve():
        raise StatsBadPath(f"{new} is already the statistics database")
    wal = new.with_name(new.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise StatsBadPath(f"{new} has a -wal file beside it (it is open in another program, or "
                           "was not closed cleanly); close that program and try again")
    with StatsStore.open(new, read_only=True, deep_check=True) as store:
        problem = store.verify()
    if problem:
        raise StatsDamaged(f"{new} is damaged ({problem}); it was not installed")
    _check_db_path(target)


def _install_checked(new: Path, target: Path) -> Path | None:
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    except OSError as exc:
        raise StatsError(f"cannot write in {target.parent}: {exc.strerror or exc}") from exc
    tmp = Path(tmp_name)
    try:
        with open(new, "rb") as src, os.fdopen(fd, "wb") as out:
            while chunk := src.read(1 << 20):
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        _keep_mode(target, tmp)
        aside = _set_aside(target, label="replaced", reason="replaced")
        try:
            os.link(tmp, target)      # fails if a database appeared meanwhile: never replaces
        except OSError as exc:
            raise StatsError(f"cannot put {new} in place of {target}: {exc.strerror or exc}; "
                             f"the old database is kept as {aside}") from exc
    except OSError as exc:
        raise StatsError(f"cannot copy {new}: {exc.strerror or exc}; nothing was changed") from exc
    finally:
        tmp.unlink(missing_ok=True)
    _marker(target).unlink(missing_ok=True)
    return aside


# --- helpers -------------------------------------------------------------------------------

def _check_kind(kind: str) -> None:
    if not kind or not isinstance(kind, str):
        raise ValueError("a trial needs a kind (drill name or 'match')")


def _trial_row(t: Trial) -> tuple:
    _check_kind(t.kind)
    if not isinstance(t.card, int) or not 0 <= t.card <= 100:
        raise ValueError(f"card must be a poem number 0..100, not {t.card!r}")
    at = time.time() if t.at is None else float(t.at)
    rt = None if t.reaction_ms is None else float(t.reaction_ms)
    return (at, local_day(at), t.kind, t.session, t.card, t.answer, int(bool(t.correct)),
            rt, t.fault, t.voice, t.disturbed)


_INSERT_TRIAL = ("INSERT INTO trials (at, day, kind, session, card, answer, correct, "
                 "reaction_ms, fault, voice, disturbed) VALUES (?,?,?,?,?,?,?,?,?,?,?)")


def _counted(rows: list[tuple]) -> list[tuple]:
    """The rows the summaries count: a disturbed race's time says nothing of the player."""
    return [r for r in rows if len(r) < 11 or r[10] is None]


def _new_row_id(cur: sqlite3.Cursor) -> int:
    """The rowid the INSERT just run on `cur` made (sqlite3 says None only before any insert)."""
    row_id = cur.lastrowid
    assert row_id is not None, "an INSERT that returned sets lastrowid"
    return row_id


def _add_to_daily(conn: sqlite3.Connection, rows: list[tuple]) -> None:
    sums: dict[tuple[int, str], list] = {}
    for _at, day, kind, _s, _c, _a, correct, rt, fault, *_ in _counted(rows):
        acc = sums.setdefault((day, kind), [0, 0, 0, 0, 0.0])
        acc[0] += 1
        acc[1] += correct
        acc[2] += fault is not None
        if correct and rt is not None:
            acc[3] += 1
            acc[4] += rt
    conn.executemany(
        "INSERT INTO daily (day, kind, n, n_correct, n_faults, rt_n, rt_sum) "
        "VALUES (?,?,?,?,?,?,?) ON CONFLICT (day, kind) DO UPDATE SET "
        "n = n + excluded.n, n_correct = n_correct + excluded.n_correct, "
        "n_faults = n_faults + excluded.n_faults, rt_n = rt_n + excluded.rt_n, "
        "rt_sum = rt_sum + excluded.rt_sum",
        [(day, kind, *acc) for (day, kind), acc in sums.items()])


def _add_to_card_totals(conn: sqlite3.Connection, rows: list[tuple]) -> None:
    sums: dict[tuple[int, str], list] = {}
    for at, _day, kind, _s, card, _a, correct, rt, fault, *_ in _counted(rows):
        acc = sums.setdefault((card, kind), [0, 0, 0, 0, 0.0, at])
        acc[0] += 1
        acc[1] += correct
        acc[2] += fault is not None
        if correct and rt is not None:
            acc[3] += 1
            acc[4] += rt
        acc[5] = max(acc[5], at)
    conn.executemany(
        "INSERT INTO card_totals (card, kind, n, n_correct, n_faults, rt_n, rt_sum, last_at) "
        "VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (card, kind) DO UPDATE SET "
        "n = n + excluded.n, n_correct = n_correct + excluded.n_correct, "
        "n_faults = n_faults + excluded.n_faults, rt_n = rt_n + excluded.rt_n, "
        "rt_sum = rt_sum + excluded.rt_sum, last_at = max(last_at, excluded.last_at)",
        [(card, kind, *acc) for (card, kind), acc in sums.items()])


def _rebuild_summaries(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM daily")
    conn.execute(
        "INSERT INTO daily (day, kind, n, n_correct, n_faults, rt_n, rt_sum) "
        "SELECT day, kind, count(*), sum(correct), count(fault), "
        "sum(correct AND reaction_ms IS NOT NULL), "
        "coalesce(sum(CASE WHEN correct THEN reaction_ms END), 0) "
        "FROM trials WHERE disturbed IS NULL GROUP BY day, kind")
    conn.execute("DELETE FROM card_totals")
    conn.execute(
        "INSERT INTO card_totals (card, kind, n, n_correct, n_faults, rt_n, rt_sum, last_at) "
        "SELECT card, kind, count(*), sum(correct), count(fault), "
        "sum(correct AND reaction_ms IS NOT NULL), "
        "coalesce(sum(CASE WHEN correct THEN reaction_ms END), 0), max(at) "
        "FROM trials WHERE disturbed IS NULL GROUP BY card, kind")


def _csv_row(row: tuple) -> list:
    trial_id, at, kind, session, card, answer, correct, rt, fault, voice, disturbed = row
    when = datetime.fromtimestamp(at).isoformat(timespec="milliseconds")
    return [trial_id, when, kind, "" if session is None else session, card,
            answer or "", correct, "" if rt is None else f"{rt:.1f}", fault or "", voice or "",
            disturbed or ""]


def _marker(path: Path) -> Path:
    return path.with_name(path.name + ".needs-check")


def _flag_for_check(path: Path) -> None:
    """Ask for a full check at the next open -- only for our own database, and only if we can."""
    if _in_data_dir(path):
        try:   # O_NOFOLLOW: touch() would create or stamp the target of a planted link
            from trainer.safe_files import open_no_follow
            os.close(open_no_follow(_marker(path), os.O_WRONLY | os.O_CREAT))
        except OSError:
            pass


def _in_data_dir(path: Path) -> bool:
    from trainer.paths import DataDirError, data_dir
    try:
        return path.parent.resolve() == data_dir().resolve()
    except (OSError, DataDirError):
        return False


def _may_set_aside(path: Path) -> bool:
    """Only the app's own database: a regular file (not a link) in the data folder that
    starts with the SQLite header and carries our application id."""
    try:
        st = path.lstat()
        with open(path, "rb") as f:
            header = f.read(100)
    except OSError:
        return False
    return (stat.S_ISREG(st.st_mode) and _in_data_dir(path) and header[:16] == SQLITE_MAGIC
            and len(header) == 100 and struct.unpack(">I", header[68:72])[0] == APPLICATION_ID)


def _is_sqlite(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(16) == SQLITE_MAGIC
    except OSError:
        return False


def _check_db_path(path: Path) -> None:
    """A database path must be a regular file or not exist yet."""
    if str(path) in ("", "."):
        raise StatsBadPath("the database file name is empty")
    _check_side_files(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StatsBadPath(f"cannot use {path}: {exc.strerror or exc}") from exc
    if stat.S_ISDIR(st.st_mode):
        raise StatsBadPath(f"{path} is a folder, not a database file")
    if not stat.S_ISREG(st.st_mode):
        raise StatsBadPath(f"{path} is not a regular file (a device or a pipe?)")


def _check_side_files(path: Path) -> None:
    """SQLite writes the -wal and -shm beside the database (beside its real path) and
    follows a link planted there: refuse, writing nothing."""
    real = Path(os.path.realpath(path))
    for side in (real.with_name(real.name + "-wal"), real.with_name(real.name + "-shm")):
        if side.is_symlink():
            raise StatsBadPath(f"{side} is a symbolic link; SQLite would write through it. "
                               "Remove it (nothing was changed)")


def _check_export_target(dest: Path, db_path: Path) -> None:
    if str(dest) in ("", "."):
        raise StatsBadPath("the CSV file name is empty")
    try:
        st = dest.stat()
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise StatsBadPath(f"cannot write {dest}: {exc.strerror or exc}") from exc
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise StatsBadPath(f"{dest} is a folder; give a file name for the CSV")
        if not stat.S_ISREG(st.st_mode):
            raise StatsBadPath(f"{dest} is not a regular file (a device or a pipe?); "
                               "export writes only to ordinary files")
        for own in (db_path, db_path.with_name(db_path.name + "-wal"),
                    db_path.with_name(db_path.name + "-shm")):
            if own.exists() and os.path.samefile(dest, own):
                raise StatsBadPath(f"{dest} is the statistics database itself; "
                                   "choose another file for the CSV")
    if not dest.parent.is_dir():
        raise StatsBadPath(f"cannot write {dest}: the folder {dest.parent} does not exist")


def _keep_mode(dest: Path, tmp: Path) -> None:
    """The new file gets the permissions of the one it replaces (mkstemp makes it 0600)."""
    try:
        mode = stat.S_IMODE(dest.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    os.chmod(tmp, mode)


def _umask() -> int:
    """The process umask, read without setting it (os.umask would race other threads)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def _one_line(text) -> str:
    """SQLite's check reports span lines ('*** in database main ***\nPage 4: ...')."""
    return " ".join(str(text).replace("*** in database main ***", "").split())


def _code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def _access_error(exc: sqlite3.Error, path: Path) -> StatsError:
    """A StatsError for an error that is about access, not damage."""
    code = _code(exc)
    if code in _BUSY_CODES:
        return StatsBusy(f"the statistics database {path} is in use by another program; "
                         "this result could not be saved")
    if code == sqlite3.SQLITE_FULL:
        return StatsError(f"the disk is full: the statistics database {path} cannot grow; "
                          "this result could not be saved")
    if code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_CANTOPEN):
        return StatsReadOnly(f"the statistics database {path} cannot be written ({exc}); "
                             "this result could not be saved")
    return StatsError(f"the statistics database {path} could not be used ({exc})")


def _rollback(conn: sqlite3.Connection, statement: str, *, nested: bool) -> None:
    """Undo what the failed transaction did, if SQLite has not already (a full disk may)."""
    if not conn.in_transaction:
        return
    try:
        conn.execute(statement)
        if nested:
            conn.execute("RELEASE nested")
    except sqlite3.Error:
        pass


def _connect(path: Path, timeout: float = 0.5) -> sqlite3.Connection:
    return sqlite3.connect(str(path), isolation_level=None, check_same_thread=False,
                           timeout=timeout)


def _connect_read_only(path: Path, *, immutable: bool = False) -> sqlite3.Connection:
    from urllib.parse import quote
    uri = f"file:{quote(str(path.absolute()))}?mode=ro" + ("&immutable=1" if immutable else "")
    return sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False,
                           timeout=0.5)


def _retry_while_busy(path: Path, attempt):
    """Run ``attempt`` until the file is not locked by another program (``BUSY_WAIT_S``)."""
    deadline = time.monotonic() + BUSY_WAIT_S
    while True:
        try:
            return attempt()
        except _Busy:
            if time.monotonic() >= deadline:
                raise StatsBusy(f"the statistics database {path} is in use by another program "
                                f"(still locked after {BUSY_WAIT_S:g} s); try again when it "
                                "is closed") from None
            time.sleep(0.1)


def _classify(exc: sqlite3.Error) -> Exception:
    """What an error met while opening and checking means: damage, busy or no access."""
    code = _code(exc)
    if code in _BUSY_CODES:
        return _Busy()
    if code in _DAMAGE_CODES:
        return DamagedDatabase(f"SQLite reports: {exc}")
    if code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM,
                sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_AUTH):
        return _CannotWrite(f"it cannot be written here ({exc})")
    return StatsError(f"cannot open the statistics database: {exc}")


def _header_problem(path: Path) -> str | None:
    """Cheap checks on the raw file, before SQLite sees it. None = looks fine."""
    try:
        size = path.stat().st_size
        if size == 0:
            return None  # an empty file is an empty database: nothing to lose
        with open(path, "rb") as f:
            header = f.read(100)
    except OSError as exc:
        raise StatsError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if len(header) < 100:
        return "the file is truncated"
    if header[:16] != SQLITE_MAGIC:
        return "the file is not a SQLite database"
    page_size = struct.unpack(">H", header[16:18])[0]
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        return "the file header is corrupt"
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        return None  # the WAL may legitimately hold pages the main file lacks
    change_counter, = struct.unpack(">I", header[24:28])
    n_pages, = struct.unpack(">I", header[28:32])
    valid_for, = struct.unpack(">I", header[92:96])
    if size % page_size:
        return "the file is truncated"
    if n_pages and change_counter == valid_for and size < n_pages * page_size:
        return "the file is truncated"
    return None


def _open_checked(path: Path, deep_check: bool) -> sqlite3.Connection:
    if path.exists():
        problem = _header_problem(path)
        if problem:
            raise DamagedDatabase(problem)
        if not os.access(path, os.W_OK):
            raise _CannotWrite(f"the file {path} is read-only")
        _check_with_wal_read_only(path, deep_check)
    try:
        conn = _connect(path)
    except sqlite3.Error as exc:
        raise _classify(exc) from exc
    try:
        _configure_and_check(conn, deep_check)
    except sqlite3.Error as exc:
        conn.close()
        raise _classify(exc) from exc
    except BaseException:
        conn.close()
        raise
    return conn


def _check_with_wal_read_only(path: Path, deep_check: bool) -> None:
    """With a -wal beside the file, check through a read-only connection first. A
    writable one that finds damage checkpoints the WAL into the file as it closes: the
    file would be changed just before it is set aside (a -wal left by another database,
    applied to this one, is damage that must not be written in)."""
    wal = path.with_name(path.name + "-wal")
    try:
        if not wal.exists() or wal.stat().st_size == 0:
            return
    except OSError:
        return
    try:
        conn = _connect_read_only(path)
    except sqlite3.Error:
        return   # no read-only view here (e.g. no -shm can be made): the writable check decides
    try:
        _check_schema(conn, deep_check, read_only=True)
    except sqlite3.Error as exc:
        err = _classify(exc)
        if isinstance(err, DamagedDatabase):
            raise err from exc
    finally:
        conn.close()


def _open_read_only_checked(path: Path, deep_check: bool) -> sqlite3.Connection:
    """Read without leaving a trace. With no -wal beside the file no program has it open
    (a WAL writer always keeps one), so it is read as immutable: no -wal/-shm side files
    are made. Otherwise mode=ro reads the WAL too; immutable again if the folder
    does not let SQLite make its shared-memory file."""
    last: Exception | None = None
    wal = path.with_name(path.name + "-wal")
    for immutable in ((True,) if not wal.exists() else (False, True)):
        conn = None
        try:
            conn = _connect_read_only(path, immutable=immutable)
            if _check_schema(conn, deep_check, read_only=True) == "empty":
                conn.close()
                return _empty_memory_store()
            conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
            _read_older(conn)
            return conn
        except sqlite3.Error as exc:
            if conn is not None:
                conn.close()
            last = _classify(exc)
            if not isinstance(last, _CannotWrite):
                raise last from exc
        except BaseException:
            if conn is not None:
                conn.close()
            raise
    raise StatsError(f"cannot read the statistics database {path}: {last}")


def _empty_memory_store() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    _create_schema(conn)
    return conn


def _configure_and_check(conn: sqlite3.Connection, deep_check: bool) -> None:
    _check_schema(conn, deep_check)  # before anything writes: the file may not be ours
    mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise _CannotWrite(f"it cannot be written here (no WAL journal: got {mode})")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    if conn.execute("PRAGMA application_id").fetchone()[0] == 0:
        _create_schema(conn)
    else:
        _migrate(conn)
    conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")


def _check_schema(conn: sqlite3.Connection, deep_check: bool, *,
                  read_only: bool = False) -> str:
    """'empty' (a new database), 'ok' (one of our stores) or an exception:
    DamagedDatabase, or _NewerSchema (read_only=False only)."""
    tables = {r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type='table'")}
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if not tables and app_id == 0 and version == 0:
        return "empty"
    if app_id != APPLICATION_ID:
        raise _NotOurs("the file is not a karuta statistics database")
    if version < 1:
        raise DamagedDatabase(f"unknown schema version {version}")
    newer = version > SCHEMA_VERSION
    if newer and not read_only:
        raise _NewerSchema(f"it was made by a newer version of the trainer (schema {version})")
    expected = {**_EXPECTED_COLUMNS, **_COLUMNS_OF_VERSION.get(version, {})}
    for table, columns in expected.items():
        found = tuple(r[1] for r in conn.execute(f"PRAGMA table_info({table})"))
        # A newer schema may add columns; it must keep the ones we read.
        if found != columns and not (newer and set(columns) <= set(found)):
            raise DamagedDatabase(f"table {table!r} has the wrong columns")
    if deep_check:
        result = conn.execute("PRAGMA quick_check(1)").fetchone()[0]
        if result != "ok":
            raise DamagedDatabase(f"integrity check failed: {_one_line(result)}")
    return "ok"


def _create_schema(conn: sqlite3.Connection) -> None:
    # Statement by statement: executescript() would COMMIT behind our back.
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in _split_sql(_SCHEMA):
            conn.execute(statement)
        conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _migrate(conn: sqlite3.Connection) -> None:
    """Bring one of our databases from an older schema version to SCHEMA_VERSION, a step
    at a time, each in its own transaction (an interrupted upgrade resumes at the next open)."""
    while (version := conn.execute("PRAGMA user_version").fetchone()[0]) < SCHEMA_VERSION:
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _MIGRATIONS[version]:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version={version + 1}")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")


def _read_older(conn: sqlite3.Connection) -> None:
    """A database of an older version opened read-only cannot be migrated: temporary views
    (found before the file's own tables) give its trials the columns of this version."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == 1:
        conn.execute("CREATE TEMP VIEW trials AS SELECT *, NULL AS disturbed FROM main.trials")


def _split_sql(script: str) -> list[str]:
    lines = [line.split("--", 1)[0] for line in script.splitlines()]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def _set_aside(path: Path, label: str = "damaged", reason: str = "is damaged") -> Path | None:
    """Rename the file (and its -wal/-shm) with a timestamp: ``stats.LABEL-TAG.sqlite3``.
    Never deletes, never replaces. None if there was nothing to set aside."""
    sides = [path.with_name(path.name + extra) for extra in ("-wal", "-shm")]
    if not any(os.path.lexists(p) for p in (path, *sides)):
        return None
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    stem, suffix = path.stem, path.suffix
    k = 0
    while True:
        tag = f"{stamp}" if k == 0 else f"{stamp}-{k}"
        aside = path.with_name(f"{stem}.{label}-{tag}{suffix}")
        if not any(os.path.lexists(aside.with_name(aside.name + extra)) for extra in ("", "-wal", "-shm")):
            break
        k += 1
    try:
        if os.path.lexists(path):
            os.rename(path, aside)
        for side in sides:
            if os.path.lexists(side):
                os.rename(side, aside.with_name(aside.name + side.name[len(path.name):]))
    except OSError as exc:
        raise StatsError(f"the statistics database {path} {reason} and could not be "
                         f"set aside: {exc.strerror or exc}") from exc
    return aside
