"""The ledger's own schema, checked: anything in its database that the ledger never makes (a trigger, a view, a rule,
a row policy, an index on the log) can drop, change or hide rows, so verify reports it and writes refuse.

On PostgreSQL the sequence behind the log's positions is checked against the log's head too: a sequence set back
makes every insert collide with a row already there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ledger.errors import StoreError
from ledger.model.bounds import safe

SQLITE_LOG_TABLES = ("stored_events", "stored_snapshots")
PG_LOG_TABLES = ("ledger_events", "ledger_snapshots")
PG_LOG_INDEXES = {"ledger_events_pkey", "ledger_events_notification_id_idx", "ledger_snapshots_pkey"}


@dataclass(frozen=True)
class Survey:
    """What one look at the database's catalogue found: the marker row of the tables' release (PostgreSQL, when asked
    for), one phrase per object the ledger never makes, and a sentence when the log's position sequence is behind."""

    marker: str | None
    found: list[str]
    sequence: str | None


def _rows(recorder: Any, sql: str) -> list[tuple[Any, ...]]:
    """One query's rows (on PostgreSQL one round trip: an autocommit statement, no BEGIN/ROLLBACK around it)."""
    if _is_sqlite(recorder):
        with recorder.datastore.transaction(commit=False) as cur:
            cur.execute(sql)
            return [tuple(r) for r in cur.fetchall()]
    with recorder.datastore.get_connection() as conn, conn.cursor() as cur:
        cur.execute(sql)
        return [tuple(r.values()) if isinstance(r, dict) else tuple(r) for r in cur.fetchall()]


def _is_sqlite(recorder: Any) -> bool:
    return type(recorder).__module__.endswith("sqlite")


def survey(recorder: Any, *, marker: bool = False) -> Survey:
    """The whole check in one query: on SQLite the schema table; on PostgreSQL the catalogue's triggers, rules, views,
    row policies and log indexes, the position sequence against the log's head and (`marker`) the tables' marker row
    (the query fails when the log or the marker table is not there yet: ledger/storage/pg.py makes them)."""
    if _is_sqlite(recorder):
        return Survey(None, _sqlite(recorder), None)
    return _postgres(_rows(recorder, _postgres_sql(marker)))


def foreign_objects(recorder: Any) -> list[str]:
    """One phrase per object in the ledger's database that the ledger never makes (empty when there is none)."""
    return survey(recorder).found


def _sqlite(recorder: Any) -> list[str]:
    out = []
    for kind, name, table in _rows(recorder, "SELECT type, name, tbl_name FROM sqlite_master ORDER BY type, name"):
        name, table = safe(str(name))[:60], safe(str(table))[:60]
        if kind in ("trigger", "view"):
            out.append(f"a {kind} '{name}'" + (f" on {table}" if kind == "trigger" else ""))
        elif kind == "index" and table in SQLITE_LOG_TABLES and not str(name).startswith("sqlite_autoindex_"):
            out.append(f"an index '{name}' on {table}")
    return out


MARKER_TABLE = "ledger_schema"  # ledger/storage/pg.py makes it with the log's tables


def _postgres_sql(marker: bool) -> str:
    here = "= current_schema()"
    tables = ", ".join(f"'{t}'" for t in PG_LOG_TABLES)
    parts = [  # (kind, name, table, FROM ... WHERE ...), in the order problems are named
        (
            "trigger",
            "t.tgname",
            "c.relname",
            "pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace s ON s.oid = c.relnamespace "
            f"WHERE NOT t.tgisinternal AND s.nspname {here}",
        ),
        ("rule", "rulename", "tablename", f"pg_rules WHERE schemaname {here}"),
        ("view", "viewname", "NULL", f"pg_views WHERE schemaname {here}"),
        ("view", "matviewname", "NULL", f"pg_matviews WHERE schemaname {here}"),
        ("row policy", "policyname", "tablename", f"pg_policies WHERE schemaname {here}"),
        ("index", "indexname", "tablename", f"pg_indexes WHERE schemaname {here} AND tablename IN ({tables})"),
        (
            "sequence",
            "CASE WHEN is_called THEN last_value ELSE last_value - 1 END",
            "(SELECT COALESCE(MAX(notification_id), 0) FROM ledger_events)",
            "ledger_events_notification_id_seq",
        ),
    ]
    if marker:
        parts.insert(0, ("marker", "version", "NULL", f"{MARKER_TABLE} WHERE name = 'store'"))
    return (
        " UNION ALL ".join(
            f"(SELECT {rank} AS rank, '{kind}' AS kind, ({name})::text AS name, ({table})::text AS tbl FROM {source})"
            for rank, (kind, name, table, source) in enumerate(parts)
        )
        + " ORDER BY 1, 3"
    )


def _postgres(rows: list[tuple[Any, ...]]) -> Survey:
    mark, found, behind = None, [], None
    for _, kind, name, table in rows:
        if kind == "marker":
            mark = name
        elif kind == "sequence":
            issued, head = int(name), int(table)
            if issued < head:
                behind = f"the sequence ledger_events_notification_id_seq is at {issued}, behind the log's head {head}"
        elif kind == "index" and name in PG_LOG_INDEXES:
            continue
        else:
            article = "an" if kind == "index" else "a"
            found.append(safe(f"{article} {kind} '{name}'" + (f" on {table}" if table is not None else ""))[:120])
    return Survey(mark, found, behind)


def sequence_problem(recorder: Any) -> str | None:
    """On PostgreSQL, a sentence when the log's position sequence is behind the log's head (None when it is not)."""
    if _is_sqlite(recorder):
        return None
    return survey(recorder).sequence


def sequence_fix() -> str:
    """The one statement that puts the sequence back at the log's head."""
    return (
        "run in psql: SELECT setval('ledger_events_notification_id_seq', "
        "(SELECT MAX(notification_id) FROM ledger_events));"
    )


def schema_problems(recorder: Any, found: Survey | None = None) -> list[tuple[str, str]]:
    """(problem, fix) for every foreign object and a sequence behind the log's head (`found`: a survey just made)."""
    found = found or survey(recorder)
    out = [
        (f"the ledger's database holds {o}, which the ledger never makes", "remove it, then run: ledger verify")
        for o in found.found
    ]
    if found.sequence:
        out.append((found.sequence + ": every write would collide", sequence_fix()))
    return out


def require_sound_schema(recorder: Any, found: Survey | None = None) -> None:
    """Refuse a write, in one line naming the first problem, when the schema is not the ledger's own (`found`: the
    survey the store made as it opened, a moment ago; else one is made now)."""
    try:
        problems = schema_problems(recorder, found)
    except StoreError:
        raise
    except Exception as e:  # noqa: BLE001 - a catalogue that can't be read: the write below reports its own failure
        if "no such table" in str(e) or "does not exist" in str(e):
            return
        raise
    if problems:
        problem, fix = problems[0]
        raise StoreError(f"{problem}: nothing was appended", fix)


def insert_checked(recorder: Any, stored: list[Any]) -> list[int]:
    """Insert a ruling's stored events in one transaction that commits only when every row is there as written
    (count, content and positions read back); else roll back and refuse in one line.

    On PostgreSQL the insert and the read-back go to the server together, with the table lock before them, in one
    round trip (ledger/storage/pg.py `insert_ruling`), and the commit in a second."""
    if not _is_sqlite(recorder):
        return list(recorder.insert_ruling(stored, lambda ids, found: _landed(stored, ids, found)))
    with recorder.datastore.transaction(commit=True) as cur:
        ids = list(recorder._insert_events(cur, stored) or [])
        found = []
        if ids:
            marks = ",".join("?" * len(ids))
            cur.execute(
                "SELECT rowid, originator_id, originator_version, topic, state FROM stored_events"
                f" WHERE rowid IN ({marks})",
                ids,
            )
            found = [tuple(r) for r in cur.fetchall()]
        _landed(stored, ids, found)
        return ids


def _landed(stored: list[Any], ids: list[int], rows: list[tuple[Any, ...]]) -> None:
    """Refuse (StoreError) unless the rows read back are the ruling's rows as written, at the positions the insert
    gave them."""
    found = sorted(rows)
    want = [(_hex(s.originator_id), s.originator_version, s.topic, bytes(s.state)) for s in stored]
    got = [(_hex(oid), v, t, bytes(st)) for _, oid, v, t, st in found]
    if len(ids) != len(stored) or got != want or [r[0] for r in found] != sorted(ids):
        kept = sum(1 for g in got if g in want)
        raise StoreError(
            f"the database kept {kept} of the ruling's {len(stored)} rows as written (a trigger or rule at work?): "
            "nothing was appended",
            "run: ledger verify",
        )


def _hex(oid: Any) -> str:
    return oid.hex if hasattr(oid, "hex") and not isinstance(oid, (str, bytes)) else str(oid).replace("-", "")
