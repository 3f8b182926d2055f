"""The PostgreSQL store: eventsourcing's recorders, asking the server only what a command needs.

A command on PostgreSQL pays a round trip to the server for every statement it sends, so here:

- connections are autocommit and prepare nothing (psycopg's `prepare=True` costs a round trip of its own the first
  time a query runs on a connection, and a one-shot command runs each query once); the idle-in-transaction timeout is
  given when the connection is made, not SET afterwards;
- the composite type's lookup (psycopg's CompositeInfo.fetch) is made only when eventsourcing's own insert needs it
  (a snapshot, an import); a ruling's insert passes plain arrays (ledger/storage/schema.py `insert_checked`);
- an aggregate is read in one query, its newest snapshot and the events after it together (`select_folding`);
- the tables, the type and the insert function are made (CREATE ... IF NOT EXISTS) only when the marker row in
  `ledger_schema` says this database has not got this release's yet: `open_postgres` reads the marker in the same
  query as the schema survey that writes need (ledger/storage/schema.py), and creates and marks only when it differs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from uuid import UUID

import psycopg
import psycopg_pool
from eventsourcing.persistence import StoredEvent
from eventsourcing.postgres import (
    PostgresAggregateRecorder,
    PostgresApplicationRecorder,
    PostgresDatastore,
    PostgresFactory,
)

from ledger.aggregates import CAMPAIGN_ID
from ledger.storage import schema

MARKER_TABLE = schema.MARKER_TABLE
STORE_SCHEMA = "1 eventsourcing 9.5.6"
"""What the marker row says once this release has made the log's tables: bump the number whenever the ledger asks for
other tables, columns or functions, and name the eventsourcing release pinned in pyproject.toml (whose CREATE
statements these are; tests/integration/test_store_marker.py checks it is the one installed)."""
MARKER_DDL = f"CREATE TABLE IF NOT EXISTS {MARKER_TABLE} (name VARCHAR(40) PRIMARY KEY, version TEXT NOT NULL)"


class LedgerDatastore(PostgresDatastore):
    """eventsourcing's datastore, with connections that cost no round trip before their first statement."""

    types_wanted = False  # set by the first insert through eventsourcing's composite type

    @classmethod
    def like(cls, ds: PostgresDatastore) -> LedgerDatastore:
        """This class's datastore with every setting of `ds` (made by eventsourcing's factory from the environment)."""
        pool: Any = ds.pool
        kw = pool.kwargs
        return cls(
            dbname=kw["dbname"],
            host=kw["host"],
            port=kw["port"],
            user=kw["user"],
            password=kw["password"],
            connect_timeout=pool.timeout,
            idle_in_transaction_session_timeout=ds.idle_in_transaction_session_timeout,
            pool_size=pool.min_size,
            max_overflow=pool.max_size - pool.min_size,
            max_waiting=pool.max_waiting,
            conn_max_age=pool.max_lifetime,
            pre_ping=ds.pre_ping,
            lock_timeout=ds.lock_timeout,
            schema=ds.schema,
            get_password_func=pool.get_password_func,
            single_row_tracking=ds.single_row_tracking,
            originator_id_type=ds.originator_id_type,
            enable_db_functions=ds.enable_db_functions,
        )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        ms = int(self.idle_in_transaction_session_timeout * 1000)
        self.pool.kwargs["options"] = f"-c idle_in_transaction_session_timeout={ms}"  # type: ignore[index]

    def after_connect_func(self) -> Any:
        """Autocommit and no prepared statements: set on the client, nothing sent."""

        def after_connect(conn: Any) -> None:
            conn.autocommit = True
            conn.prepare_threshold = None

        return after_connect

    def open_pool(self) -> None:
        """Open the pool and wait for its first connection, once (a pool asked for a connection before its first is
        ready makes a second one). Only here: waiting in every `get_connection` would stall a thread asking while
        another holds the one connection."""
        pool: Any = self.pool
        try:
            pool.open(wait=True, timeout=pool.timeout)
        except psycopg_pool.PoolTimeout:
            psycopg.connect(**pool.kwargs, connect_timeout=max(1, int(pool.timeout))).close()  # the server's reason
            raise

    def register_type_adapters(self) -> None:
        """Look the composite types up only once an insert through them wants them (not on every open)."""
        if self.types_wanted:
            super().register_type_adapters()


class _Folding:
    """What both recorders add: the composite type looked up before eventsourcing's own insert uses it."""

    def insert_events(self, stored_events: Any, **kwargs: Any) -> Any:
        """eventsourcing's insert, its composite type registered first (before a connection is taken for it)."""
        ds: Any = getattr(self, "datastore")  # noqa: B009 - the recorder's, typed by the class this mixes into
        if not ds.types_wanted:
            ds.types_wanted = True
            ds.register_type_adapters()
        return super().insert_events(stored_events, **kwargs)  # type: ignore[misc]


class LedgerSnapshotRecorder(_Folding, PostgresAggregateRecorder):
    """The snapshots' recorder."""


class LedgerEventRecorder(_Folding, PostgresApplicationRecorder):
    """The log's recorder, which also reads an aggregate's newest snapshot and later events in one query."""

    snapshots_table_name = "ledger_snapshots"

    def select_folding(
        self, originator_id: UUID, lte: int | None
    ) -> tuple[StoredEvent | None, StoredEvent | None, list[StoredEvent]]:
        """In one query: the newest snapshot at or below `lte` (or None), the campaign's chain link its `link` names
        (the one that vouches for it, ledger/snapshots.py; None when there is none), and the events after the
        snapshot at or below `lte`. A snapshot whose state can't be read makes the query fail: the caller then
        loads the careful way."""
        q = f'"{self.datastore.schema}"'
        upto = "" if lte is None else " AND originator_version <= %(lte)s"
        sql = (
            f"WITH s AS (SELECT originator_version, topic, state FROM {q}.{self.snapshots_table_name} "
            f"WHERE originator_id = %(id)s{upto} ORDER BY originator_version DESC LIMIT 1) "
            "SELECT 0 AS part, originator_version, topic, state FROM s UNION ALL "
            f"SELECT 1, originator_version, topic, state FROM {q}.{self.events_table_name} "
            "WHERE originator_id = %(campaign)s AND originator_version = "
            "(SELECT (convert_from(state, 'UTF8')::json ->> 'link')::bigint FROM s) UNION ALL "
            f"SELECT 2, originator_version, topic, state FROM {q}.{self.events_table_name} "
            f"WHERE originator_id = %(id)s{upto} "
            "AND originator_version > COALESCE((SELECT originator_version FROM s), 0)"
        )
        with self.datastore.get_connection() as conn, conn.cursor() as cur:
            cur.execute(sql, {"id": originator_id, "lte": lte, "campaign": CAMPAIGN_ID})
            rows = cur.fetchall()
        found: list[list[StoredEvent]] = [[], [], []]
        for r in rows:
            oid = CAMPAIGN_ID if r["part"] == 1 else originator_id
            found[r["part"]].append(StoredEvent(oid, r["originator_version"], r["topic"], bytes(r["state"])))
        found[2].sort(key=lambda e: e.originator_version)
        return (found[0][0] if found[0] else None), (found[1][0] if found[1] else None), found[2]

    def insert_ruling(self, stored: list[StoredEvent], check: Callable[[list[int], list[Any]], None]) -> list[int]:
        """Insert a ruling's rows in one transaction, as eventsourcing's insert does (the table locked first, so
        positions commit in order; the channel notified), and read them back in the same round trip; `check` (ids,
        rows read back) raises to roll back. Then the commit: two round trips in all."""
        ds = self.datastore
        values = (
            [s.originator_id for s in stored],
            [s.originator_version for s in stored],
            [s.topic for s in stored],
            [bytes(s.state) for s in stored],
        )
        insert = (
            f'INSERT INTO "{ds.schema}"."{self.events_table_name}" (originator_id, originator_version, topic, state) '
            "SELECT * FROM unnest(%s::uuid[], %s::bigint[], %s::text[], %s::bytea[]) RETURNING notification_id"
        )
        back = (
            "SELECT notification_id, originator_id, originator_version, topic, state FROM ledger_events "
            "WHERE (originator_id, originator_version) IN (SELECT * FROM unnest(%s::uuid[], %s::bigint[]))"
        )
        failure: Exception | None = None
        ids: list[int] = []
        with ds.get_connection() as conn:
            with conn.pipeline() as pipe, conn.cursor() as cur, conn.cursor() as rows:
                cur.execute("BEGIN")  # sent with the rest (psycopg's own transaction() would wait for it)
                self._lock_table(cur)
                self._notify_channel(cur)
                cur.execute(insert, values)
                rows.execute(back, values[:2])
                try:
                    pipe.sync()
                    ids = [r["notification_id"] for r in cur.fetchall()]
                    check(ids, [tuple(r.values()) for r in rows.fetchall()])
                except Exception as e:  # noqa: BLE001 - raised below, once the transaction is rolled back
                    failure = e
                cur.execute("ROLLBACK" if failure is not None else "COMMIT")  # the pipeline's end waits for it
            if failure is not None:
                raise failure  # inside get_connection: a duplicate key becomes eventsourcing's IntegrityError
        return ids


class LedgerPostgresFactory(PostgresFactory):
    """eventsourcing's PostgreSQL factory with the datastore and recorders above."""

    aggregate_recorder_class = LedgerSnapshotRecorder
    application_recorder_class = LedgerEventRecorder

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        made = self.datastore
        self.datastore = LedgerDatastore.like(made)
        made.close()  # never opened: nothing to close but the object


FACTORY_TOPIC = f"{__name__}:{LedgerPostgresFactory.__qualname__}"


def open_postgres(store: Any) -> None:
    """Make sure the log's tables are this release's, in one round trip when they are: the marker read with the
    schema survey (kept on the store for the first write, `EventStore.fresh_survey`); else make them, mark them and
    survey again."""
    store.recorder.datastore.open_pool()
    try:
        survey = schema.survey(store.recorder, marker=True)
    except Exception as e:  # noqa: BLE001 - no marker table, no log yet: made below
        if not _missing(e):
            raise
        survey = None
    if survey is None or survey.marker != STORE_SCHEMA:
        _create(store)
        survey = schema.survey(store.recorder, marker=True)
    store.survey = survey
    store.surveyed = time.monotonic()


def _missing(e: Exception) -> bool:
    text = str(e)
    return "does not exist" in text or "UndefinedTable" in type(e).__name__


def _create(store: Any) -> None:
    """eventsourcing's CREATE statements for the log and the snapshots, then the marker; retried while another process
    makes the same objects at the same moment (PostgreSQL refuses one with "tuple concurrently updated")."""
    recorders = [store.recorder] + ([store.snapshots.recorder] if store.snapshots is not None else [])
    for attempt in range(5):
        try:
            for recorder in recorders:
                recorder.create_table()
            with store.recorder.datastore.transaction(commit=True) as cur:
                cur.execute(MARKER_DDL)
                cur.execute(
                    f"INSERT INTO {MARKER_TABLE} (name, version) VALUES ('store', %s) "
                    "ON CONFLICT (name) DO UPDATE SET version = EXCLUDED.version",
                    (STORE_SCHEMA,),
                )
            return
        except Exception as e:
            text = str(e)
            racing = "concurrently" in text or "pg_type_typname" in text or "duplicate" in text
            if attempt == 4 or not racing:
                raise
            time.sleep(0.05 * (attempt + 1))
