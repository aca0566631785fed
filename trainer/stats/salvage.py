"""Salvage: every readable row of a damaged statistics database, into a sound one.

A few bad pages must not cost a player years of trials. SQLite reads a table
through its b-tree; a corrupt page makes every query that crosses it fail, so
instead of one full scan the rows are read by key range: a range that fails
is split until the failing part is as small as one key, and only rows that
SQLite cannot read are left behind. A damaged interior page hides every row
below it without an error; when the indexes or the per-day counts say trials
are missing, the file's table leaf pages are read directly (`raw_rows`), as
``sqlite3 .recover`` does. Pure Python over the ``sqlite3`` module.

Rows are copied with ``INSERT OR IGNORE``, so a row whose bytes survived but
whose values break the schema's checks is dropped, not copied. A trial whose
session row was lost keeps its result with no session. The per-day and
per-card summaries are rebuilt from the trials that were saved.

The source is opened read-only and never written.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from trainer.stats import store as S

CHUNK = 4096        # keys per query while nothing fails
SPLIT = 16          # a failing range is cut into this many parts


@dataclass
class SalvageReport:
    trials: int = 0           # trials copied
    sessions: int = 0
    cards: int = 0            # spaced-repetition card states copied
    unreadable: int = 0       # keys whose rows (if any) could not be read
    highest_id: int = 0       # the largest trial id seen (in the table or an index)
    known: int = 0            # trials the file held, as far as any source tells
    lost: int = 0             # of those, trials whose row could not be read

    def summary(self) -> str:
        lost = ""
        if self.lost:
            lost = f"; {self.lost:,} of the {self.known:,} trials it held could not be read"
        return (f"{self.trials:,} trials, {self.sessions:,} sessions and {self.cards} card "
                f"schedules recovered{lost}")


def read_rows(source: Path) -> tuple[dict[str, list[tuple]], SalvageReport]:
    """Every readable row of the tables we keep, from ``source`` opened read-only.

    With a -wal beside it the file is also read without the WAL: a -wal another
    database left (a recovered file put in place of a crashed one) turns a sound file
    into a damaged one. The file alone is kept if it is sound and the two together are
    not, or if it gives more trials."""
    rows, report, sound = _read_rows(source, ignore_wal=False)
    if report.lost:
        _add_raw_rows(source, rows, report)
    if source.with_name(source.name + "-wal").exists():
        try:
            alone, alone_report, alone_sound = _read_rows(source, ignore_wal=True)
        except S.StatsError:
            return rows, report
        if alone_report.lost:
            _add_raw_rows(source, alone, alone_report)
        if (alone_sound and not sound) or len(alone["trials"]) > len(rows["trials"]):
            return alone, alone_report
    return rows, report


def _read_rows(source: Path, ignore_wal: bool) -> tuple[dict[str, list[tuple]], SalvageReport, bool]:
    """The rows, and whether SQLite finds the file sound (quick_check)."""
    try:
        conn = (_schema_readable(S._connect_read_only(source, immutable=True)) if ignore_wal
                else _open_source(source))
    except sqlite3.Error as exc:
        raise S.StatsError(f"{source} cannot be read at all ({exc})") from exc
    try:
        rows, report = _read_all(conn)
        try:
            sound = conn.execute("PRAGMA quick_check(1)").fetchone()[0] == "ok"
        except sqlite3.Error:
            sound = False
        return rows, report, sound
    except sqlite3.Error as exc:   # the schema itself unreadable past the first page
        raise S.StatsError(f"{source} cannot be read ({exc})") from exc
    finally:
        conn.close()


def _read_all(conn: sqlite3.Connection) -> tuple[dict[str, list[tuple]], SalvageReport]:
    report = SalvageReport()
    tables = _tables(conn)
    rows: dict[str, list[tuple]] = {}
    for table, key in (("sessions", "id"), ("trials", "id"), ("srs_cards", "card")):
        columns = S._EXPECTED_COLUMNS[table]
        if table == "trials" and table in tables and "disturbed" not in _columns(conn, table):
            columns = S.TRIAL_COLUMNS_V1          # schema 1: no race was marked disturbed
        if table not in tables or not set(columns) <= _columns(conn, table):
            rows[table] = []
            continue
        rows[table], unreadable = _read_table(conn, table, key, columns,
                                              _upper(conn, table, key))
        if table == "trials":
            report.unreadable = unreadable
            rows[table] = [_full_trial(r) for r in rows[table]]
    _count_the_lost(conn, rows["trials"], report)
    return rows, report


def _count_the_lost(conn: sqlite3.Connection, trials: list[tuple], report: SalvageReport) -> None:
    """How many trials the file held and how many of them were not read. A damaged
    interior page of the table hides every row below it without an error, so the table
    alone cannot say: the indexes (their own b-trees) list the ids of the trials, and
    the per-day summary counts them."""
    read = {r[0] for r in trials}
    indexed = _index_ids(conn)
    try:
        counted = int(conn.execute("SELECT coalesce(sum(n), 0) FROM daily").fetchone()[0])
    except sqlite3.Error:
        counted = 0
    report.highest_id = max(max(read, default=0), max(indexed, default=0))
    report.known = max(len(read | indexed), counted)
    report.lost = max(0, report.known - len(read))


def _index_ids(conn: sqlite3.Connection) -> set[int]:
    """Trial ids listed by the trials' indexes, card by card (a bad index page costs one card)."""
    ids: set[int] = set()
    for index in ("trials_card", "trials_card_kind"):
        for card in range(0, 101):
            try:
                ids.update(r[0] for r in conn.execute(
                    f"SELECT id FROM trials INDEXED BY {index} WHERE card = ?", (card,)))
            except sqlite3.Error:
                continue
    return ids


# --- the last source: the table's leaf pages, read byte by byte ------------------------------

def _add_raw_rows(source: Path, rows: dict[str, list[tuple]], report: SalvageReport) -> None:
    """Add the trials and sessions found on leaf pages that the b-trees did not reach."""
    try:
        raw = raw_rows(source, skip={r[0] for r in rows["trials"]})
    except OSError:
        return
    for table in ("trials", "sessions"):
        have = {r[0] for r in rows[table]}
        extra = sorted((r for r in raw[table] if r[0] not in have), key=lambda r: r[0])
        rows[table] = sorted(rows[table] + _first_of_each(extra), key=lambda r: r[0])
    read = len(rows["trials"])
    report.known = max(report.known, read)
    report.lost = max(0, report.known - read)
    report.highest_id = max(report.highest_id, max((r[0] for r in rows["trials"]), default=0))


def _first_of_each(rows: list[tuple]) -> list[tuple]:
    seen: set[int] = set()
    out = []
    for r in rows:
        if r[0] not in seen:
            seen.add(r[0])
            out.append(r)
    return out


def raw_rows(source: Path, skip: frozenset[int] | set[int] = frozenset()) -> dict[str, list[tuple]]:
    """Trials and sessions on every table leaf page of the file (not its WAL), whatever
    the b-tree above them. A row is taken only if every value has its column's type:
    other tables' rows (and scribbles) do not fit. Trials are never deleted, so an old
    copy of a row left on a free page is the same row. Cells whose rowid is in `skip`
    (trials already read) are not decoded."""
    out: dict[str, list[tuple]] = {"trials": [], "sessions": []}
    with open(source, "rb") as f:
        header = f.read(100)
        if len(header) < 100:
            return out
        page_size = int.from_bytes(header[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        if page_size < 512 or page_size & (page_size - 1):
            return out
        usable = page_size - header[20]
        f.seek(0)
        first = True
        while page := f.read(page_size):
            start = 100 if first else 0
            first = False
            if len(page) == page_size and page[start] == 0x0D:   # a table b-tree leaf
                for rowid, values in _leaf_cells(page, start, usable, skip):
                    row = _as_trial(rowid, values) or _as_session(rowid, values)
                    if row is not None:
                        out["trials" if len(row) == TRIAL_WIDTH else "sessions"].append(row)
    return out


def _leaf_cells(page: bytes, start: int, usable: int, skip):
    """(rowid, values) of every cell of a table leaf page held whole on the page, but
    those whose rowid is in `skip` (a session's rowid may be a trial's: 4 columns are
    cheap to decode, so only 11-column trials are worth skipping by id)."""
    n = int.from_bytes(page[start + 3:start + 5], "big")
    for k in range(min(n, (usable - start - 8) // 2)):
        at = int.from_bytes(page[start + 8 + 2 * k:start + 10 + 2 * k], "big")
        try:
            size, at = _varint(page, at)
            rowid, at = _varint(page, at)
            if size > usable - 35 or at + size > usable:   # spills to overflow pages: not here
                continue
            if rowid in skip and _record_width(page, at) in (11, TRIAL_WIDTH):
                continue
            values = _record(page[at:at + size])
        except (IndexError, ValueError, UnicodeDecodeError):
            continue
        if values is not None:
            yield rowid, values


def _record_width(page: bytes, at: int) -> int:
    """How many values the record at `at` holds (its header's serial types)."""
    header_size, i = _varint(page, at)
    n = 0
    while i < at + header_size:
        _, i = _varint(page, i)
        n += 1
    return n


def _varint(buf: bytes, at: int) -> tuple[int, int]:
    value = 0
    for i in range(9):
        byte = buf[at + i]
        if i == 8:
            return (value << 8) | byte, at + 9
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    raise ValueError("varint")


_INT_SIZES = {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8}


def _record(payload: bytes) -> list | None:
    import struct
    header_size, at = _varint(payload, 0)
    if not 1 <= header_size <= len(payload):
        return None
    types = []
    while at < header_size:
        t, at = _varint(payload, at)
        types.append(t)
    values: list = []
    at = header_size
    for t in types:
        if t == 0:
            values.append(None)
        elif t in _INT_SIZES:
            n = _INT_SIZES[t]
            values.append(int.from_bytes(payload[at:at + n], "big", signed=True))
            at += n
        elif t == 7:
            values.append(struct.unpack(">d", payload[at:at + 8])[0])
            at += 8
        elif t in (8, 9):
            values.append(t - 8)
        elif t >= 12:
            n = (t - 12) // 2
            chunk = payload[at:at + n]
            values.append(chunk.decode("utf-8") if t % 2 else bytes(chunk))
            at += n
        else:
            return None
        if at > len(payload):
            return None
    return values


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _text_or_none(v) -> bool:
    return v is None or isinstance(v, str)


TRIAL_WIDTH = len(S._EXPECTED_COLUMNS["trials"])


def _full_trial(row: tuple) -> tuple:
    """A trial row with every column of this schema (a schema-1 row was not disturbed)."""
    return row + (None,) * (TRIAL_WIDTH - len(row))


def _as_trial(rowid: int, v: list) -> tuple | None:
    """A trials row (id, at, day, kind, session, card, answer, correct, reaction_ms, fault, voice,
    disturbed). A row written before the disturbed column was added has 11 values on disk."""
    if len(v) not in (11, TRIAL_WIDTH) or v[0] is not None or not rowid > 0:
        return None
    _, at, day, kind, session, card, answer, correct, reaction, fault, voice, disturbed = \
        _full_trial(tuple(v))
    if not _text_or_none(disturbed):
        return None
    if not (_number(at) and isinstance(day, int) and kind in S.KINDS
            and (session is None or isinstance(session, int)) and isinstance(card, int)
            and 0 <= card <= 100 and _text_or_none(answer) and correct in (0, 1)
            and (reaction is None or _number(reaction)) and _text_or_none(fault)
            and _text_or_none(voice)):
        return None
    return (rowid, float(at), day, kind, session, card, answer, correct,
            None if reaction is None else float(reaction), fault, voice, disturbed)


def _as_session(rowid: int, v: list) -> tuple | None:
    if len(v) != 4 or v[0] is not None or not rowid > 0:
        return None
    _, kind, started, settings = v
    if kind not in S.KINDS or not _number(started) or not _text_or_none(settings):
        return None
    return (rowid, kind, float(started), settings)


def salvage_into(source: Path, store: "S.StatsStore") -> SalvageReport:
    """Copy what can be read from ``source`` into ``store`` (one transaction)."""
    rows, report = read_rows(source)
    sessions = rows["sessions"]
    known = {r[0] for r in sessions}
    trials = [r if r[4] is None or r[4] in known else r[:4] + (None,) + r[5:]
              for r in rows["trials"]]
    with store.transaction() as conn:
        report.sessions = _insert(conn, "sessions", S._EXPECTED_COLUMNS["sessions"], sessions)
        report.trials = _insert(conn, "trials", S._EXPECTED_COLUMNS["trials"], trials)
        report.cards = _insert(conn, "srs_cards", S._EXPECTED_COLUMNS["srs_cards"],
                               rows["srs_cards"])
        S._rebuild_summaries(conn)
    return report


# --- reading around bad pages ----------------------------------------------------------------

def _open_source(source: Path) -> sqlite3.Connection:
    if not source.with_name(source.name + "-wal").exists():   # nothing beside it: leave no trace
        return _schema_readable(S._connect_read_only(source, immutable=True))
    try:
        return _schema_readable(S._connect_read_only(source))
    except sqlite3.Error as exc:
        if S._code(exc) not in (sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY):
            raise
    return _schema_readable(S._connect_read_only(source, immutable=True))  # a read-only folder


def _schema_readable(conn: sqlite3.Connection) -> sqlite3.Connection:
    # writable_schema: a bad entry (an index whose root page was lost) must not
    # stop SQLite from reading the tables that are still whole. Read-only all the same.
    conn.execute("PRAGMA writable_schema=ON")
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    return conn


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}


def _upper(conn: sqlite3.Connection, table: str, key: str) -> int:
    """One past the largest key, or a bound from the file size if that page is unreadable."""
    try:
        top = conn.execute(f"SELECT max({key}) FROM {table}").fetchone()[0]
        return (top or 0) + 1
    except sqlite3.DatabaseError:
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        return pages * size // 16 + 1      # no trial row takes fewer than 16 bytes


def _read_table(conn, table: str, key: str, columns, upper: int) -> tuple[list[tuple], int]:
    select = f"SELECT {', '.join(columns)} FROM {table} WHERE {key} >= ? AND {key} < ? ORDER BY {key}"
    one = f"SELECT {', '.join(columns)} FROM {table} WHERE {key} = ?"
    rows: list[tuple] = []
    unreadable = 0
    pending = [(lo, min(lo + CHUNK, upper)) for lo in range(-1, upper, CHUNK)]
    pending.reverse()
    while pending:
        lo, hi = pending.pop()
        try:
            if hi - lo == 1:   # a point lookup: a range scan would step on into the next
                rows.extend(conn.execute(one, (lo,)).fetchall())   # page, maybe a bad one
            else:
                rows.extend(conn.execute(select, (lo, hi)).fetchall())
        except sqlite3.DatabaseError:
            if hi - lo <= 1:
                unreadable += 1
                continue
            step = max(1, -(-(hi - lo) // SPLIT))
            parts = [(a, min(a + step, hi)) for a in range(lo, hi, step)]
            pending.extend(reversed(parts))
    try:   # keys below the scan's start (never made by the store, but kept if there)
        rows[:0] = conn.execute(
            f"SELECT {', '.join(columns)} FROM {table} WHERE {key} < -1 ORDER BY {key}").fetchall()
    except sqlite3.DatabaseError:
        pass
    return rows, unreadable


def _insert(conn: sqlite3.Connection, table: str, columns, rows: list[tuple]) -> int:
    before = conn.total_changes
    conn.executemany(f"INSERT OR IGNORE INTO {table} ({', '.join(columns)}) "
                     f"VALUES ({', '.join('?' * len(columns))})", rows)
    return conn.total_changes - before


def _foreign(source: Path) -> bool:
    """Another program's SQLite file: another application id in its header, or tables
    of which none is ours. A header or schema damage cannot tell: then it is not foreign."""
    import struct
    try:
        with open(source, "rb") as f:
            header = f.read(100)
    except OSError:
        return False
    app_id = struct.unpack(">I", header[68:72])[0] if len(header) == 100 else 0
    if app_id:
        return app_id != S.APPLICATION_ID
    try:
        conn = S._connect_read_only(source, immutable=True)
        try:
            tables = _tables(conn)
        finally:
            conn.close()
    except sqlite3.Error:
        return False
    return bool(tables) and not tables & set(S._EXPECTED_COLUMNS)


def recover_to_new_file(source: Path, dest: Path) -> SalvageReport:
    """``karuta stats recover``: salvage ``source`` into the new database ``dest``.

    The source is only read. The destination must not exist: it is built as a
    temporary file in its folder and linked into place, which fails rather
    than overwrite a file that appeared meanwhile.
    """
    import os
    import stat
    import tempfile
    try:
        st = source.stat()
    except OSError as exc:
        raise S.StatsBadPath(f"cannot read {source}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise S.StatsBadPath(f"{source} is not a regular file")
    try:
        with open(source, "rb") as f:
            magic = f.read(16)
    except OSError as exc:
        raise S.StatsBadPath(f"cannot read {source}: {exc.strerror or exc}") from None
    if magic != S.SQLITE_MAGIC:
        raise S.StatsBadPath(f"{source} is not a SQLite database (its header is not "
                             "SQLite's); there is nothing to recover from it")
    if _foreign(source):
        raise S.StatsBadPath(f"{source} is not a karuta statistics database (it is another "
                             "program's SQLite file); there is nothing to recover from it")
    if os.path.lexists(dest):
        raise S.StatsBadPath(f"{dest} already exists; recover never overwrites a file, "
                             "give a new file name")
    if not dest.parent.is_dir():
        raise S.StatsBadPath(f"the folder {dest.parent} does not exist")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    except OSError as exc:
        raise S.StatsBadPath(f"cannot write in {dest.parent}: {exc.strerror or exc}") from None
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        store = S.StatsStore.open(tmp, deep_check=False)
        try:
            report = salvage_into(source, store)
            store.query("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            store.close()
        os.chmod(tmp, 0o644)
        try:
            os.link(tmp, dest)          # fails if dest appeared: never overwrites
        except FileExistsError:
            raise S.StatsBadPath(f"{dest} already exists; recover never overwrites a file") from None
        except OSError as exc:
            raise S.StatsError(f"cannot write {dest}: {exc.strerror or exc}") from None
        return report
    finally:
        for leftover in (tmp, tmp.with_name(tmp.name + "-wal"), tmp.with_name(tmp.name + "-shm")):
            leftover.unlink(missing_ok=True)
