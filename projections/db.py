"""The read side's tables (SQLAlchemy Core) on the ledger's own database, and raw access to the event log."""

from __future__ import annotations

import atexit
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, NamedTuple
from urllib.parse import quote

import orjson
from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    column,
    create_engine,
    event,
    insert,
    inspect,
    table,
    text,
    update,
)
from sqlalchemy.dialects import registry
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.schema import CreateIndex, CreateTable, DropTable

from ledger.errors import StoreError
from ledger.model.event_names import UNVIEWED
from ledger.storage.target import Target

metadata = MetaData()
# 64-bit on PostgreSQL (its INTEGER is 32-bit); SQLite's INTEGER is already 64-bit and stays the rowid alias
Big = BigInteger().with_variant(Integer(), "sqlite")
FOLDS = 5  # the version of the folds (views.py, fold.py): bump it whenever a fold changes what a view holds, and
# every ledger's views are folded again on next use (verify compares the views with a fresh fold of today's code)
TABLES = 1  # the version of the view tables' layout, kept in the tracking row "tables" once `ensure_tables` has made
# (or upgraded) them: bump it with the upgrade in `ensure_tables` whenever a table, column or index changes
registry.register("postgresql.ledger", "projections.pgdialect", "LedgerDialect")  # psycopg's, set up in one query

tracking = Table(
    "ledger_tracking",
    metadata,
    Column("name", String(40), primary_key=True),
    Column("position", Big, nullable=False),
)

sheets = Table(
    "ledger_sheets",
    metadata,
    Column("character_id", String(32), primary_key=True),
    Column("key", Text, nullable=False, index=True),
    Column("name", Text, nullable=False),
    Column("active", Boolean, nullable=False),
    Column("hp", Big, nullable=False),
    Column("max_hp", Big, nullable=False),
    Column("sheet", JSON, nullable=False),
    Column("added", Big, nullable=False),
    Column("ruling", Big, nullable=False),
)

rulings = Table(
    "ledger_rulings",
    metadata,
    Column("number", Big, primary_key=True),
    Column("aggregate_id", String(32), nullable=False, index=True),  # not unique: a rebuild drops it while it writes
    Column("kind", String(16), nullable=False),
    Column("command", String(40), nullable=False),
    Column("intent", JSON, nullable=False),
    Column("actor", Text, nullable=False),
    Column("session", Big),
    Column("at", String(40), nullable=False),
    Column("targets", JSON, nullable=False),
    Column("retracted_by", Big),
    Column("retracted_actor", Text),
    Column("retracted_at", String(40)),
)

log = Table(
    "ledger_log",
    metadata,
    Column("seq", Big, primary_key=True, autoincrement=False),
    Column("ruling", Big, nullable=False, index=True),
    Column("type", String(40), nullable=False),
    Column("aggregate", String(20), nullable=False),
    Column("character", Text, index=True),
    Column("data", JSON, nullable=False),
    Column("at", String(40), nullable=False),
    Column("bookkeeping", Boolean, nullable=False),
)

hp_timeline = Table(
    "ledger_hp",
    metadata,
    Column("seq", Big, primary_key=True, autoincrement=False),
    Column("character_id", String(32), nullable=False, index=True),
    Column("ruling", Big, nullable=False),
    Column("hp", Big, nullable=False),
    Column("max_hp", Big, nullable=False),
    Column("at", String(40), nullable=False),
)

sheet_events = Table(  # which log rows changed which character's sheet (the data is the log row's)
    "ledger_sheet_events",
    metadata,
    Column("seq", Big, primary_key=True, autoincrement=False),
    Column("character_id", String(32), nullable=False, index=True),
    Column("ruling", Big, nullable=False),
)

sessions = Table(
    "ledger_sessions",
    metadata,
    Column("number", Big, primary_key=True, autoincrement=False),
    Column("title", Text, nullable=False),
    Column("started", String(40), nullable=False),
    Column("ended", String(40)),
)

encounters = Table(
    "ledger_encounters",
    metadata,
    Column("number", Big, primary_key=True, autoincrement=False),
    Column("system", String(8), nullable=False),
    Column("started", Big, nullable=False),
    Column("ended", Big),
    Column("active", Boolean, nullable=False),
    Column("round", Big, nullable=False),
    Column("current", Text),
    Column("order", JSON, nullable=False),
)

encounter_log = Table(  # which log rows belong to which encounter, round and turn (the event is the log row)
    "ledger_encounter_log",
    metadata,
    Column("seq", Big, primary_key=True, autoincrement=False),
    Column("encounter", Big, nullable=False, index=True),
    Column("round", Big, nullable=False),
    Column("actor", Text),
)

amendments = Table(  # a retraction's re-derived outcome of an earlier ruling (OutcomeAmended)
    "ledger_amendments",
    metadata,
    Column("seq", Big, primary_key=True, autoincrement=False),
    Column("ruling", Big, nullable=False, index=True),
    Column("by", Big, nullable=False),
    Column("records", JSON, nullable=False),
)

VIEW_TABLES = (sheets, rulings, log, hp_timeline, sheet_events, sessions, encounters, encounter_log, amendments)


class RawEvent(NamedTuple):
    """One stored event as the read side sees it: position, aggregate, type name and decoded state."""

    seq: int
    originator_id: str
    version: int
    topic: str
    state: dict[str, Any]

    @property
    def type(self) -> str:
        """The event's class name (DamageApplied, DiceRolled, ...)."""
        return topic_names(self.topic)[1]

    @property
    def aggregate(self) -> str:
        """The aggregate's class name (Campaign, Ruling, Character, Encounter)."""
        return topic_names(self.topic)[0]


@lru_cache(maxsize=256)
def topic_names(topic: str) -> tuple[str, str]:
    """(aggregate class name, event class name) of an event topic such as
    `ledger.aggregates:Character.DamageApplied`."""
    path = topic.split(":", 1)[-1]
    return path.split(".", 1)[0], path.rsplit(".", 1)[-1]


BY_REFERENCE = "null"
"""A log row's data as stored by the fold: the event's own, read from the event log by position when queried."""
ENVELOPE = frozenset(("timestamp", "originator_topic", "ruling"))
BOOKKEEPING_PATTERNS = tuple(
    f"%.{n}" for n in sorted(UNVIEWED)
)  # their topics (SQL LIKE): chain links, then touched lists


def event_data(state: dict[str, Any]) -> dict[str, Any]:
    """What the log shows as an event's data: its `data` field, or else every field but the envelope."""
    data = state.get("data")
    if type(data) is dict:
        return data
    return {k: v for k, v in state.items() if k not in ENVELOPE}


def stamp(state: dict[str, Any]) -> str:
    """An event's time, to the second, as the views show it."""
    ts = state.get("timestamp")
    at = ts.get("_data_", "") if isinstance(ts, dict) else ""
    return at[:19] + "Z" if at else ""


def resolve_data(data: Any, state: Any) -> Any:
    """A log row's data: as stored, or (by reference) decoded from its event's stored state."""
    if data is not None:
        return data
    return event_data(orjson.loads(bytes(state))) if state is not None else {}


def dumps(value: Any) -> str:
    """JSON text for a JSON column, exactly as the engine's own serializer writes it."""
    return orjson.dumps(value).decode()


ROW_VALUES = 999  # bound values per INSERT statement: the oldest SQLite's limit (PostgreSQL's is 65,535)


def bulk_insert(conn: Any, table: Table, rows: Sequence[Sequence[Any]]) -> None:
    """Insert many rows given as tuples in column order, JSON columns already dumped: no per-row ORM work.

    The rows go in as multi-row INSERTs (as many rows per statement as ROW_VALUES allows) through the driver's own
    executemany: a fifth quicker than one row per statement for a rebuild's rows (benchmarks/rebuild.py).
    """
    if not rows:
        return
    pg = conn.dialect.name == "postgresql"
    marks = ", ".join(("%s::json" if isinstance(c.type, JSON) else "%s") if pg else "?" for c in table.columns)
    cols = ", ".join(f'"{c.name}"' for c in table.columns)
    per = max(1, ROW_VALUES // len(table.columns))
    whole = len(rows) - len(rows) % per  # rows in statements of `per` rows; the rest go in one shorter statement
    cur = conn.connection.driver_connection.cursor()  # the driver's own executemany: no per-row work in between
    try:
        for size, start, stop in ((per, 0, whole), (len(rows) - whole, whole, len(rows))):
            if start < stop:
                sql = f"INSERT INTO {table.name} ({cols}) VALUES " + ", ".join([f"({marks})"] * size)
                cur.executemany(sql, [[v for row in rows[i : i + size] for v in row] for i in range(start, stop, size)])
    finally:
        cur.close()


class Look(NamedTuple):
    """What `ReadSide.look` found: the log's newest position and the views' position."""

    head: int
    views: int


def mark_tables(conn: Any) -> None:
    """The tracking row saying the view tables are this release's (TABLES)."""
    if conn.execute(update(tracking).where(tracking.c.name == "tables").values(position=TABLES)).rowcount == 0:
        conn.execute(insert(tracking).values(name="tables", position=TABLES))


class ReadSide:
    """The projections' database connection and the raw event log it reads."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.kind = target.kind
        options: dict[str, Any]
        if target.kind == "sqlite":
            url, options = target.sqlalchemy_url, {"connect_args": {"timeout": 30}}
        else:  # prepared statements cost a round trip each the first time (a one-shot command runs each once)
            url = target.sqlalchemy_url.replace("postgresql+psycopg://", "postgresql+ledger://", 1)
            options = {"connect_args": {"prepare_threshold": None}, "pool_pre_ping": False, "use_native_hstore": False}
        try:
            self.engine: Engine = create_engine(
                url,
                json_serializer=lambda o: orjson.dumps(o).decode(),
                json_deserializer=orjson.loads,
                **options,
            )
        except (SQLAlchemyError, ImportError) as e:
            raise StoreError(f"can't open the read side at {target.describe()}: {e}") from None
        if target.kind == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        self.events_table = "stored_events" if target.kind == "sqlite" else "ledger_events"
        self.id_column = "rowid" if target.kind == "sqlite" else "notification_id"
        self._ensured = False
        self.folds_checked = False  # views.refold_outdated has compared the folds' version (once per ReadSide)
        self.trusted = False  # a fresh fold of the log (projections/trust.py): nothing in it to check
        self.on_forged: Callable[[str], ReadSide] | None = None  # the reader's answer to rows that differ from the log

    def ensure_tables(self) -> None:
        """Create the view tables if this database has none yet, and replace an older layout (once per ReadSide).

        Read models of the first release on PostgreSQL have 32-bit number columns: they are dropped and the
        views are folded again from the log (they are only ever a fold of it).
        """
        if not self._ensured:
            if self.kind == "postgres":
                self._upgrade_layout()
            metadata.create_all(self.engine, checkfirst=True)
            self._mark_tables()
            self._ensured = True

    def reading(self) -> Any:
        """A connection for reads only: on PostgreSQL outside a transaction (no BEGIN and ROLLBACK round trips around
        the reads; each statement sees the database as it stands, as it does in a READ COMMITTED transaction)."""
        conn = self.engine.connect()
        return conn.execution_options(isolation_level="AUTOCOMMIT") if self.kind == "postgres" else conn

    def _mark_tables(self) -> None:
        """Record that this release's `ensure_tables` made the view tables (`look` then skips it); a read-only file
        keeps no mark (the next look makes sure again)."""
        try:
            with self.engine.begin() as conn:
                mark_tables(conn)
        except SQLAlchemyError:
            pass

    def look(self) -> Look | None:
        """One query for what every read asks first: the log's head, the views' position, and whether the view
        tables are all there as this release made them (`ensure_tables` is then skipped) and folded by today's folds
        (views.refold_outdated is then skipped). None when it can't be answered (no log, no tracking table yet): the
        reader then asks each question on its own, as before."""
        names = ", ".join(f"'{t.name}'" for t in (tracking, *VIEW_TABLES))
        present = (
            f"SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ({names})"
            if self.kind == "sqlite"
            else f"SELECT COUNT(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename IN ({names})"
        )
        track = "SELECT position FROM ledger_tracking WHERE name = "
        sql = (
            f"SELECT (SELECT MAX({self.id_column}) FROM {self.events_table}), ({track}'tables'), ({track}'folds'), "
            f"({track}'views'), ({present})"
        )
        try:
            with self.reading() as conn:
                head, tables, folds, views, found = conn.exec_driver_sql(sql).one()
        except SQLAlchemyError:
            return None
        if tables == TABLES and found == len(VIEW_TABLES) + 1:
            self._ensured = True
        if folds == FOLDS and self._ensured:
            self.folds_checked = True
        return Look(int(head or 0), int(views or 0))

    def _upgrade_layout(self) -> None:
        try:
            columns = {c["name"]: c["type"] for c in inspect(self.engine).get_columns("ledger_sheets")}
        except SQLAlchemyError:
            return  # no read models yet
        if columns and not isinstance(columns.get("hp"), BigInteger):
            with self.engine.begin() as conn:
                for t in reversed((tracking, *VIEW_TABLES)):
                    t.drop(conn, checkfirst=True)

    def make_afresh(self, conn: Any) -> None:
        """The tracking table and every view table dropped and created again, empty and without their secondary
        indexes (`make_indexes` builds them once the rows are in): for a rebuild.

        The statements as they stand, not `create_all(checkfirst=True)`, which asks the database about each table
        and index first: that asking was about a twelfth of a rebuild of 12,000 events (benchmarks/rebuild.py).
        """
        for t in reversed((tracking, *VIEW_TABLES)):
            conn.execute(DropTable(t, if_exists=True))
        for t in (tracking, *VIEW_TABLES):
            conn.execute(CreateTable(t))
        mark_tables(conn)
        self._ensured = True

    def make_indexes(self, conn: Any) -> None:
        """The view tables' secondary indexes, those not there yet (after `make_afresh` and the rows)."""
        for t in VIEW_TABLES:
            for ix in t.indexes:
                conn.execute(CreateIndex(ix, if_not_exists=True))

    def max_seq(self, conn: Any) -> int:
        """The newest event's position (0 for an empty log)."""
        try:
            row = conn.execute(text(f"SELECT MAX({self.id_column}) FROM {self.events_table}")).first()
        except SQLAlchemyError:
            conn.rollback()
            return 0
        return int(row[0] or 0)

    def read_events(self, conn: Any, after: int, limit: int, until: int | None = None) -> list[RawEvent]:
        """Events after position `after`, in order, decoded with orjson (read on the driver's own cursor: no row
        objects)."""
        mark = "?" if self.kind == "sqlite" else "%s"
        stop = "" if until is None else f" AND {self.id_column} <= {mark}"
        sql = (
            f"SELECT {self.id_column}, originator_id, originator_version, topic, state FROM {self.events_table} "
            f"WHERE {self.id_column} > {mark}{stop} ORDER BY {self.id_column} LIMIT {mark}"
        )
        params = (after, limit) if until is None else (after, until, limit)
        cur = conn.connection.driver_connection.cursor()
        try:
            cur.execute(sql, params)
            rows = cur.fetchall()
        finally:
            cur.close()
        loads = orjson.loads
        try:
            if self.kind == "sqlite":  # ids are already hex text, states already bytes
                return [RawEvent(r[0], r[1], r[2], r[3], loads(r[4])) for r in rows]
            return [RawEvent(r[0], _hex(r[1]), r[2], r[3], loads(bytes(r[4]))) for r in rows]
        except (orjson.JSONDecodeError, TypeError):
            bad = next((r[0] for r in rows if not _decodes(r[4])), rows[0][0] if rows else 0)
            raise StoreError(
                f"event {bad} of the log can't be read: the ledger is damaged", "run: ledger verify"
            ) from None

    def read_rows(self, conn: Any, after: int, limit: int) -> list[tuple[Any, ...]]:
        """Stored rows after position `after`, undecoded: (position, aggregate id as hex, topic, state bytes).

        A bookkeeping event's state (chain links, touched lists: half the log) is left in the database (None):
        the views keep nothing of it.
        """
        mark = "?" if self.kind == "sqlite" else "%s"
        sql = (
            f"SELECT {self.id_column}, originator_id, topic, "
            f"CASE WHEN topic LIKE {mark} OR topic LIKE {mark} THEN NULL ELSE state END FROM {self.events_table} "
            f"WHERE {self.id_column} > {mark} ORDER BY {self.id_column} LIMIT {mark}"
        )
        cur = conn.connection.driver_connection.cursor()
        try:
            cur.execute(sql, (*BOOKKEEPING_PATTERNS, after, limit))
            rows = cur.fetchall()
        finally:
            cur.close()
        if self.kind == "sqlite":  # ids are already hex text, states already bytes
            return rows
        return [(r[0], _hex(r[1]), r[2], None if r[3] is None else bytes(r[3])) for r in rows]

    def damaged(self, rows: list[tuple[Any, ...]]) -> None:
        """Raise the error for the first stored row whose state can't be decoded."""
        bad = next((r[0] for r in rows if r[-1] is not None and not _decodes(r[-1])), None)
        if bad is not None:
            raise StoreError(f"event {bad} of the log can't be read: the ledger is damaged", "run: ledger verify")

    def stored_states(self) -> tuple[Any, Any, Any]:
        """The event log as a table to join the log view to: (table, position column, state column); the table's
        `topic` and `originator_id` columns name each event's type and aggregate (projections/shown.py checks them)."""
        t = table(self.events_table, column(self.id_column), column("state"), column("topic"), column("originator_id"))
        return t, t.c[self.id_column], t.c.state

    def bookkeeping(self, conn: Any) -> list[tuple[int, str, Any]]:
        """The ledger's own bookkeeping events (chain links, touched lists), straight from the event log: (position,
        topic, state)."""
        sql = text(
            f"SELECT {self.id_column}, topic, state FROM {self.events_table} "
            f"WHERE topic LIKE :chain OR topic LIKE :touched ORDER BY {self.id_column}"
        )
        chain, touched = BOOKKEEPING_PATTERNS
        return [tuple(r) for r in conn.execute(sql, {"chain": chain, "touched": touched}).all()]

    def close(self) -> None:
        """Dispose of the engine's connections."""
        self.engine.dispose()


def private_copy(target: Target) -> Target:
    """A consistent copy of a read-only SQLite ledger in a private temporary folder (removed at exit), to fold views
    into."""
    folder = tempfile.mkdtemp(prefix="ledger-readonly-")
    atexit.register(shutil.rmtree, folder, True)
    copy = os.path.join(folder, os.path.basename(target.path))
    wal = target.path + "-wal"
    waiting = os.path.exists(wal) and os.path.getsize(wal) > 0
    error: Exception = StoreError("no way to read it")
    for mode in ("mode=ro", "immutable=1"):  # immutable: a file whose WAL index can't even be opened for reading
        if mode == "immutable=1" and waiting:  # immutable would skip the writes waiting in the -wal file:
            try:  # copy the file and its -wal instead; SQLite replays the -wal when it opens the copy
                shutil.copyfile(target.path, copy)
                shutil.copyfile(wal, copy + "-wal")
                sqlite3.connect(copy).execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
                return Target("sqlite", path=copy)
            except (OSError, sqlite3.Error) as e:
                error = e
                break
        try:
            src = sqlite3.connect(f"file:{quote(target.path)}?{mode}", uri=True)
            dst = sqlite3.connect(copy)
            try:
                src.backup(dst)
            finally:
                src.close()
                dst.close()
            return Target("sqlite", path=copy)
        except sqlite3.Error as e:
            error = e
    raise StoreError(f"can't read the ledger at {target.describe()}: {error}", "check the file's permissions")


def _decodes(state: Any) -> bool:
    try:
        orjson.loads(state if isinstance(state, (bytes, str)) else bytes(state))
    except (orjson.JSONDecodeError, TypeError):
        return False
    return True


def _hex(oid: Any) -> str:
    return oid.hex if hasattr(oid, "hex") and not isinstance(oid, str) else str(oid).replace("-", "")


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA cache_size=-32000")  # 32 MB: a rebuild's batch of index pages stays in memory
    # Debian's SQLite zeroes every page it frees (SECURE_DELETE): a rebuild dropping the views then wrote each of their
    # pages twice (benchmarks/rebuild.py: about an eighth of its CPU time). The views hold nothing the log does not: no
    # secret to wipe (the read side never deletes from the log, nor from the dice secrets)
    cur.execute("PRAGMA secure_delete=OFF")
    cur.close()
