"""The server's database: users, their session tokens, tables and each table's action log.

SQLAlchemy Core over SQLite (a file in the data folder, the default: no set-up)
or PostgreSQL (``postgresql://…``, driven by psycopg 3). The schema is made and
upgraded by Alembic migrations (`trainer/server/migrations`), run at every
start. A table is stored as its game, variant, seed, options and seats plus its
action log; sessions are seeded and deterministic, so replaying the log
restores the table exactly (`trainer.server.tables.LiveTable.restore`).

Passwords are kept only as argon2 hashes, tokens only as their SHA-256.
"""
from __future__ import annotations

import hashlib
import json
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from trainer.server.ratings import Skill, new_skill, rated

METADATA = sa.MetaData()

USERS = sa.Table(
    "users", METADATA,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(32), nullable=False, unique=True),
    sa.Column("password_hash", sa.String(200), nullable=True),
    sa.Column("guest", sa.Boolean, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
)
TOKENS = sa.Table(
    "tokens", METADATA,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("expires", sa.Float, nullable=False),
)
TABLES = sa.Table(
    "tables", METADATA,
    sa.Column("id", sa.String(16), primary_key=True),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("variant", sa.String(32), nullable=False),
    sa.Column("seed", sa.String(64), nullable=False),
    sa.Column("options", sa.Text, nullable=False),
    sa.Column("seats", sa.Text, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("private", sa.Boolean, nullable=False),
    sa.Column("code", sa.String(32), nullable=True),
    sa.Column("host", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("owner", sa.String(40), nullable=True),
    sa.Index("tables_status", "status"),
)
SERVERS = sa.Table(
    "servers", METADATA,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("started", sa.Float, nullable=False),
    sa.Column("beat", sa.Float, nullable=False),
)
ACTIONS = sa.Table(
    "actions", METADATA,
    sa.Column("table_id", sa.String(16), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("action", sa.Text, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
)
RATINGS = sa.Table(
    "ratings", METADATA,
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("game", sa.String(32), primary_key=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("updated", sa.Float, nullable=False),
    sa.Index("ratings_game", "game"),
)
RATED_MATCHES = sa.Table(
    "rated_matches", METADATA,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("first_user", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("second_user", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("winner", sa.Integer, nullable=True),
    sa.Column("by", sa.String(16), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
)
"""Each match whose ratings were applied, by its id: the key that lets a match count once."""
RACE_TABLES = sa.Table(
    "race_tables", METADATA,
    sa.Column("id", sa.String(16), primary_key=True),
    sa.Column("owner", sa.String(40), nullable=False),
    sa.Column("url", sa.String(200), nullable=True),
    sa.Column("summary", sa.Text, nullable=False),
    sa.Column("private", sa.Boolean, nullable=False),
    sa.Column("members", sa.Text, nullable=False),
    sa.Column("updated", sa.Float, nullable=False),
)
"""A race table not over, written by the process that holds it (races live in one process's
memory, timed there): what every process's lobby lists, and where a client of another
process is sent. Only the lobby's summary: no seed, no code, nothing of the reading order."""

TOKEN_DAYS = 30
MIGRATIONS = Path(__file__).with_name("migrations")


class StoreError(Exception):
    """The database cannot be used (one line: which and why)."""


class SeqTaken(Exception):
    """Another process recorded this table's next action first (the caller catches up and retries)."""


@dataclass(frozen=True)
class User:
    id: int
    name: str
    guest: bool


@dataclass(frozen=True)
class StoredAction:
    seq: int
    seat: int
    kind: str
    """``"act"`` (a person's action) or ``"timeout"`` (the turn ran out; the stand-in played)."""
    action: dict[str, Any] | None


def database_url(url: str | None) -> str:
    """The SQLAlchemy URL for `url` (None: the SQLite file in the data folder)."""
    if not url:
        from trainer.paths import data_dir
        return f"sqlite:///{data_dir() / 'server.sqlite'}"
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            url = "postgresql+psycopg://" + url[len(prefix):]
    if url.startswith("postgresql+psycopg://"):
        _need_psycopg()
        return url
    if url.startswith("sqlite:///"):
        return url
    raise StoreError("the database is sqlite:///FILE or postgresql://USER@HOST/NAME")


def _need_psycopg() -> None:
    """The standalone build leaves the PostgreSQL driver out (its wheel carries libpq and
    OpenSSL without their licences): say so rather than fail on an import."""
    import importlib.util
    if importlib.util.find_spec("psycopg") is None:
        raise StoreError("PostgreSQL needs its driver, which this installation lacks: "
                         "pip install 'psycopg[binary]' into the trainer's environment (the "
                         "'postgresql' extra; the standalone build serves on SQLite only)")


def _hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Store:
    """The database (see the module docstring). Calls are short and synchronous."""

    def __init__(self, url: str | None = None):
        self.url = database_url(url)
        try:
            self.engine: Engine = sa.create_engine(self.url, future=True)
        except Exception as exc:  # noqa: BLE001 - a bad URL or a missing driver: one line
            raise StoreError(f"cannot open the database: {type(exc).__name__}") from None
        if self.engine.dialect.name == "sqlite":
            sa.event.listen(self.engine, "connect", _sqlite_pragmas)
        from argon2 import PasswordHasher
        self._hasher = PasswordHasher()
        self._lock_fd: int | None = None

    def migrate(self) -> None:
        """Bring the schema to the newest migration (Alembic), creating it on a new database."""
        from alembic import command
        from alembic.config import Config
        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        try:
            with self.engine.begin() as conn:
                if self.shared:
                    # two processes starting together: one migrates, the other waits for it
                    conn.execute(sa.text("SELECT pg_advisory_xact_lock(872301)"))
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, "head")
        except sa.exc.OperationalError as exc:
            raise StoreError(f"cannot open the database {self.engine.url.render_as_string()}: "
                             f"{str(exc.orig).splitlines()[0] if exc.orig else 'unreachable'}") from None

    @property
    def shared(self) -> bool:
        """Whether several server processes may share this database (PostgreSQL; SQLite serves one)."""
        return self.engine.dialect.name == "postgresql"

    def dsn(self) -> str:
        """The PostgreSQL address as psycopg takes it (for LISTEN/NOTIFY)."""
        return self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)

    def claim_file(self) -> None:
        """SQLite serves one process: hold an advisory lock on the database file for this
        process's life (released by the kernel even after kill -9), or StoreError in one line."""
        if self.shared or self._lock_fd is not None:
            return
        import fcntl
        import os
        path = self.engine.url.database
        if not path or path == ":memory:":
            return
        try:    # read-only, never through a planted link, never blocking on a FIFO
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError as exc:
            raise StoreError(f"cannot use the database {path}: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise StoreError(f"another karuta serve is using {path}; SQLite serves one process "
                             "(use --db postgresql://… for several)") from None
        self._lock_fd = fd

    def close(self) -> None:
        self.engine.dispose()
        if self._lock_fd is not None:
            import os
            os.close(self._lock_fd)
            self._lock_fd = None

    # -- users and tokens ----------------------------------------------------------------------
    def sign_up(self, name: str, password: str) -> User | None:
        """A new account, or None when the name is taken."""
        digest = self._hasher.hash(password)
        try:
            with self.engine.begin() as conn:
                uid = _new_id(conn.execute(USERS.insert().values(name=name, password_hash=digest, guest=False,
                                                                 created=time.time())))
        except sa.exc.IntegrityError:
            return None
        return User(int(uid), name, False)

    def log_in(self, name: str, password: str) -> User | None:
        from argon2.exceptions import Argon2Error
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(USERS).where(USERS.c.name == name)).first()
        if row is None or row.password_hash is None:
            self._hasher.hash(password)   # the same time whether or not the name exists
            return None
        try:
            self._hasher.verify(row.password_hash, password)
        except Argon2Error:
            return None
        return User(row.id, row.name, False)

    def guest(self) -> User:
        for _ in range(20):
            name = f"guest-{secrets.randbelow(10**6):06d}"
            try:
                with self.engine.begin() as conn:
                    uid = _new_id(conn.execute(USERS.insert().values(name=name, password_hash=None, guest=True,
                                                                     created=time.time())))
                return User(int(uid), name, True)
            except sa.exc.IntegrityError:
                continue
        raise StoreError("no free guest name")

    def new_token(self, user: User) -> str:
        token = secrets.token_urlsafe(32)
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(TOKENS.insert().values(token_hash=_hash_token(token), user_id=user.id,
                                                created=now, expires=now + TOKEN_DAYS * 86400))
        return token

    def user_for_token(self, token: str) -> User | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(USERS).join(TOKENS, TOKENS.c.user_id == USERS.c.id)
                .where(TOKENS.c.token_hash == _hash_token(token), TOKENS.c.expires > time.time())).first()
        return None if row is None else User(row.id, row.name, bool(row.guest))

    # -- tables --------------------------------------------------------------------------------
    def add_table(self, row: dict[str, Any]) -> None:
        values = dict(row, options=json.dumps(row["options"]), seats=json.dumps(row["seats"]),
                      created=time.time())
        with self.engine.begin() as conn:
            conn.execute(TABLES.insert().values(**values))

    def update_table(self, table_id: str, **values: Any) -> None:
        if "seats" in values:
            values["seats"] = json.dumps(values["seats"])
        with self.engine.begin() as conn:
            conn.execute(TABLES.update().where(TABLES.c.id == table_id).values(**values))

    def add_action(self, table_id: str, seq: int, seat: int, kind: str,
                   action: dict[str, Any] | None) -> None:
        """One confirmed action, committed before anybody hears of it; `SeqTaken` when another
        process recorded this `seq` first (the key (table, seq) lets only one of them win)."""
        try:
            with self.engine.begin() as conn:
                conn.execute(ACTIONS.insert().values(table_id=table_id, seq=seq, seat=seat, kind=kind,
                                                     action=json.dumps(action), created=time.time()))
        except sa.exc.IntegrityError:
            raise SeqTaken(f"{table_id}/{seq}") from None

    def table_row(self, table_id: str) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(TABLES).where(TABLES.c.id == table_id)).mappings().first()
        return None if row is None else _table_dict(row)

    def change_seats(self, table_id: str, change: Any) -> tuple[list[dict[str, Any]], str]:
        """Seats and status changed by `change(seats, status) -> (seats, status)` under the row's
        lock, so two processes seating people at one table never give one seat twice. Whatever
        `change` raises leaves the row as it was."""
        with self.engine.begin() as conn:
            query = sa.select(TABLES.c.seats, TABLES.c.status).where(TABLES.c.id == table_id)
            row = conn.execute(query.with_for_update() if self.shared else query).first()
            if row is None:
                raise KeyError(table_id)
            seats, status = change(json.loads(row.seats), row.status)
            conn.execute(TABLES.update().where(TABLES.c.id == table_id)
                         .values(seats=json.dumps(seats), status=status))
        return seats, status

    # -- several processes ---------------------------------------------------------------------
    def beat(self, server: str) -> None:
        """This process is alive (its heartbeat row, made on the first call)."""
        now = time.time()
        with self.engine.begin() as conn:
            if not conn.execute(SERVERS.update().where(SERVERS.c.id == server).values(beat=now)).rowcount:
                conn.execute(SERVERS.insert().values(id=server, started=now, beat=now))
            conn.execute(SERVERS.delete().where(SERVERS.c.beat < now - 86400))

    def leave(self, server: str) -> None:
        """A clean stop: the heartbeat row goes, so another process takes the tables at once."""
        with self.engine.begin() as conn:
            conn.execute(SERVERS.delete().where(SERVERS.c.id == server))

    def claim(self, server: str, lease: float) -> list[str]:
        """Take every unfinished table whose owner is gone (no heartbeat within `lease` s);
        one UPDATE, so of two processes claiming at once each table goes to exactly one."""
        alive = sa.select(SERVERS.c.id).where(SERVERS.c.beat > time.time() - lease)
        with self.engine.begin() as conn:
            rows = conn.execute(
                TABLES.update().where(TABLES.c.status != "over",
                                      sa.or_(TABLES.c.owner.is_(None), TABLES.c.owner.not_in(alive)))
                .values(owner=server).returning(TABLES.c.id)).all()
        return [r.id for r in rows]

    # -- race tables, held by one process each --------------------------------------------------
    def race_put(self, table_id: str, owner: str, url: str | None, summary: dict[str, Any],
                 private: bool, members: list[int]) -> None:
        """A race table's lobby row, as its owning process now has it (made or replaced)."""
        values = {"owner": owner, "url": url, "summary": json.dumps(summary), "private": private,
                  "members": json.dumps(members), "updated": time.time()}
        with self.engine.begin() as conn:
            if not conn.execute(RACE_TABLES.update().where(RACE_TABLES.c.id == table_id)
                                .values(**values)).rowcount:
                conn.execute(RACE_TABLES.insert().values(id=table_id, **values))

    def race_drop(self, table_id: str) -> None:
        """A race table ended: out of every lobby."""
        with self.engine.begin() as conn:
            conn.execute(RACE_TABLES.delete().where(RACE_TABLES.c.id == table_id))

    def races(self, lease: float) -> list[dict[str, Any]]:
        """Every race table whose process is alive (beat within `lease` s): id, owner, url,
        summary, private, members. Rows of a process gone an hour are deleted on the way."""
        now = time.time()
        alive = sa.select(SERVERS.c.id).where(SERVERS.c.beat > now - lease)
        with self.engine.begin() as conn:
            conn.execute(RACE_TABLES.delete().where(RACE_TABLES.c.owner.not_in(alive),
                                                    RACE_TABLES.c.updated < now - 3600))
            rows = conn.execute(sa.select(RACE_TABLES).where(RACE_TABLES.c.owner.in_(alive))).all()
        return [{"id": r.id, "owner": r.owner, "url": r.url, "summary": json.loads(r.summary),
                 "private": r.private, "members": json.loads(r.members)} for r in rows]

    def race_where(self, table_id: str, lease: float) -> tuple[str, str | None, bool] | None:
        """Which process holds a race table: (owner, its address, whether it is alive), or None."""
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(RACE_TABLES.c.owner, RACE_TABLES.c.url)
                               .where(RACE_TABLES.c.id == table_id)).first()
            if row is None:
                return None
            beat = conn.execute(sa.select(SERVERS.c.beat).where(SERVERS.c.id == row.owner)).scalar()
        return row.owner, row.url, beat is not None and beat > time.time() - lease

    def owners(self) -> dict[str, tuple[str | None, int, str]]:
        """Every unfinished table: its owner, how many actions its log holds, its status."""
        live = sa.select(TABLES.c.id).where(TABLES.c.status != "over")
        counts = (sa.select(ACTIONS.c.table_id, sa.func.count().label("n"))
                  .where(ACTIONS.c.table_id.in_(live))      # finished tables' logs are never read
                  .group_by(ACTIONS.c.table_id).subquery())
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(TABLES.c.id, TABLES.c.owner, counts.c.n, TABLES.c.status)
                                .outerjoin(counts, counts.c.table_id == TABLES.c.id)
                                .where(TABLES.c.status != "over")).all()
        return {r.id: (r.owner, int(r.n or 0), r.status) for r in rows}

    def live_tables(self) -> list[tuple[dict[str, Any], list[StoredAction]]]:
        """Every table not finished, with its action log in order (what a start restores)."""
        out = []
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(TABLES).where(TABLES.c.status != "over")
                                .order_by(TABLES.c.created)).mappings().all()
        for row in rows:
            out.append((_table_dict(row), self.actions_of(row["id"])))
        return out

    def actions_of(self, table_id: str, since: int = 0) -> list[StoredAction]:
        """A table's action log in order, from record `since` on."""
        with self.engine.connect() as conn:
            acts = conn.execute(sa.select(ACTIONS).where(ACTIONS.c.table_id == table_id, ACTIONS.c.seq >= since)
                                .order_by(ACTIONS.c.seq)).mappings().all()
        return [StoredAction(a["seq"], a["seat"], a["kind"], json.loads(a["action"])) for a in acts]


    # -- ratings (trainer.server.ratings) ---------------------------------------------------------
    def rating_of(self, user_id: int, game: str) -> Skill:
        """A user's rating at `game` (a new account's when they have played no rated match)."""
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(RATINGS).where(RATINGS.c.user_id == user_id,
                                                        RATINGS.c.game == game)).first()
        return new_skill() if row is None else Skill(row.mu, row.sigma, row.games)

    def rate_match(self, match: str, game: str, users: tuple[int, int], winner: int | None,
                   by: str) -> list[tuple[Skill, Skill]] | None:
        """Both players' ratings (before, after) for the match `match` (`winner`: 0, 1 or None
        for a draw), stored with the match's record in one transaction; None when that match
        was rated already (its record's key lets it count once, whatever replays or restarts)."""
        for _ in range(3):
            now = time.time()
            try:
                with self.engine.begin() as conn:
                    conn.execute(RATED_MATCHES.insert().values(
                        id=match, game=game, first_user=users[0], second_user=users[1], winner=winner,
                        by=by, created=now))
                    query = sa.select(RATINGS).where(RATINGS.c.game == game, RATINGS.c.user_id.in_(users))
                    rows = {r.user_id: Skill(r.mu, r.sigma, r.games)
                            for r in conn.execute(query.with_for_update() if self.shared else query)}
                    before = [rows.get(uid, new_skill()) for uid in users]
                    after = rated(before[0], before[1], winner)
                    for uid, skill in zip(users, after):
                        values = dict(mu=skill.mu, sigma=skill.sigma, games=skill.games, updated=now)
                        if uid in rows:
                            conn.execute(RATINGS.update().where(RATINGS.c.user_id == uid, RATINGS.c.game == game)
                                         .values(**values))
                        else:
                            conn.execute(RATINGS.insert().values(user_id=uid, game=game, **values))
                return list(zip(before, after))
            except sa.exc.IntegrityError:
                with self.engine.connect() as conn:
                    if conn.execute(sa.select(RATED_MATCHES.c.id).where(RATED_MATCHES.c.id == match)).first():
                        return None
                # another match of a new player made their first rating row meanwhile: again
        raise StoreError(f"the ratings of match {match} could not be stored")

    def leaderboard(self, game: str, limit: int) -> list[tuple[str, Skill]]:
        """The `limit` best rated accounts at `game`, best first (the shown number, then more
        games, then the name), with their ratings."""
        order = RATINGS.c.mu - 3 * RATINGS.c.sigma     # what the shown number scales
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(USERS.c.name, RATINGS.c.mu, RATINGS.c.sigma, RATINGS.c.games)
                                .join(USERS, USERS.c.id == RATINGS.c.user_id)
                                .where(RATINGS.c.game == game, USERS.c.guest.is_(False))
                                .order_by(order.desc(), RATINGS.c.games.desc(), USERS.c.name)
                                .limit(limit)).all()
        return [(r.name, Skill(r.mu, r.sigma, r.games)) for r in rows]


def _table_dict(row: Any) -> dict[str, Any]:
    return dict(row, options=json.loads(row["options"]), seats=json.loads(row["seats"]))


def _new_id(result: Any) -> int:
    key = result.inserted_primary_key
    assert key is not None
    return int(key[0])


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()
