"""The ledger's own schema, checked: anything in its database that the ledger never makes (a trigger, a view, a rule,
a row policy, an index on the log) can drop, change or hide rows, so verify reports it and writes refuse.

On PostgreSQL the sequence behind the log's positions is checked against the log's head too: a sequence set back
makes every insert collide with a row already there.
"""

from __future__ import annotations

from typing import Any

from ledger.errors import StoreError
from ledger.model.bounds import safe

SQLITE_LOG_TABLES = ("stored_events", "stored_snapshots")
PG_LOG_TABLES = ("ledger_events", "ledger_snapshots")
PG_LOG_INDEXES = {"ledger_events_pkey", "ledger_events_notification_id_idx", "ledger_snapshots_pkey"}


def _rows(recorder: Any, sql: str) -> list[tuple[Any, ...]]:
    with recorder.datastore.transaction(commit=False) as cur:
        cur.execute(sql)
        return [tuple(r.values()) if isinstance(r, dict) else tuple(r) for r in cur.fetchall()]


def foreign_objects(recorder: Any) -> list[str]:
    """One phrase per object in the ledger's database that the ledger never makes (empty when there is none)."""
    if type(recorder).__module__.endswith("sqlite"):
        return _sqlite(recorder)
    return _postgres(recorder)


def _sqlite(recorder: Any) -> list[str]:
    out = []
    for kind, name, table in _rows(recorder, "SELECT type, name, tbl_name FROM sqlite_master ORDER BY type, name"):
        name, table = safe(str(name))[:60], safe(str(table))[:60]
        if kind in ("trigger", "view"):
            out.append(f"a {kind} '{name}'" + (f" on {table}" if kind == "trigger" else ""))
        elif kind == "index" and table in SQLITE_LOG_TABLES and not str(name).startswith("sqlite_autoindex_"):
            out.append(f"an index '{name}' on {table}")
    return out


def _postgres(recorder: Any) -> list[str]:
    here = "= current_schema()"
    out = [
        f"a trigger '{n}' on {t}"
        for n, t in _rows(
            recorder,
            "SELECT t.tgname, c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            f"JOIN pg_namespace s ON s.oid = c.relnamespace WHERE NOT t.tgisinternal AND s.nspname {here} ORDER BY 1",
        )
    ]
    out += [
        f"a rule '{n}' on {t}"
        for n, t in _rows(recorder, f"SELECT rulename, tablename FROM pg_rules WHERE schemaname {here} ORDER BY 1")
    ]
    out += [f"a view '{n}'" for (n,) in _rows(recorder, f"SELECT viewname FROM pg_views WHERE schemaname {here}")]
    out += [f"a view '{n}'" for (n,) in _rows(recorder, f"SELECT matviewname FROM pg_matviews WHERE schemaname {here}")]
    out += [
        f"a row policy '{n}' on {t}"
        for n, t in _rows(recorder, f"SELECT policyname, tablename FROM pg_policies WHERE schemaname {here}")
    ]
    tables = ", ".join(f"'{t}'" for t in PG_LOG_TABLES)
    out += [
        f"an index '{n}' on {t}"
        for n, t in _rows(
            recorder, f"SELECT indexname, tablename FROM pg_indexes WHERE schemaname {here} AND tablename IN ({tables})"
        )
        if n not in PG_LOG_INDEXES
    ]
    return [safe(p)[:120] for p in out]


def sequence_problem(recorder: Any) -> str | None:
    """On PostgreSQL, a sentence when the log's position sequence is behind the log's head (None when it is not)."""
    if type(recorder).__module__.endswith("sqlite"):
        return None
    rows = _rows(
        recorder,
        "SELECT (SELECT last_value FROM ledger_events_notification_id_seq), "
        "(SELECT is_called FROM ledger_events_notification_id_seq), "
        "(SELECT COALESCE(MAX(notification_id), 0) FROM ledger_events)",
    )
    last, called, head = rows[0]
    issued = last if called else last - 1
    if issued >= head:
        return None
    return f"the sequence ledger_events_notification_id_seq is at {issued}, behind the log's head {head}"


def sequence_fix() -> str:
    """The one statement that puts the sequence back at the log's head."""
    return (
        "run in psql: SELECT setval('ledger_events_notification_id_seq', "
        "(SELECT MAX(notification_id) FROM ledger_events));"
    )


def schema_problems(recorder: Any) -> list[tuple[str, str]]:
    """(problem, fix) for every foreign object and a sequence behind the log's head."""
    found = [
        (f"the ledger's database holds {o}, which the ledger never makes", "remove it, then run: ledger verify")
        for o in foreign_objects(recorder)
    ]
    seq = sequence_problem(recorder)
    if seq:
        found.append((seq + ": every write would collide", sequence_fix()))
    return found


def require_sound_schema(recorder: Any) -> None:
    """Refuse a write, in one line naming the first problem, when the schema is not the ledger's own."""
    try:
        found = schema_problems(recorder)
    except StoreError:
        raise
    except Exception as e:  # noqa: BLE001 - a catalogue that can't be read: the write below reports its own failure
        if "no such table" in str(e) or "does not exist" in str(e):
            return
        raise
    if found:
        problem, fix = found[0]
        raise StoreError(f"{problem}: nothing was appended", fix)


def insert_checked(recorder: Any, stored: list[Any]) -> list[int]:
    """Insert a ruling's stored events in one transaction that commits only when every row is there as written
    (count, content and the last position read back); else roll back and refuse in one line."""
    sqlite = type(recorder).__module__.endswith("sqlite")
    with recorder.datastore.transaction(commit=True) as cur:
        if sqlite:
            ids = list(recorder._insert_events(cur, stored) or [])
            marks = ",".join("?" * len(ids))
            sql = (
                "SELECT rowid, originator_id, originator_version, topic, state FROM stored_events"
                f" WHERE rowid IN ({marks})"
            )
            params: Any = ids
        else:
            recorder._insert_stored_events(cur, stored)
            ids = [r["notification_id"] for r in cur.fetchall()]
            sql = (
                "SELECT notification_id, originator_id, originator_version, topic, state FROM ledger_events "
                "WHERE notification_id = ANY(%s)"
            )
            params = (ids,)
        found = []
        if ids:
            cur.execute(sql, params)
            found = sorted(tuple(r.values()) if isinstance(r, dict) else tuple(r) for r in cur.fetchall())
        want = [(_hex(s.originator_id), s.originator_version, s.topic, bytes(s.state)) for s in stored]
        got = [(_hex(oid), v, t, bytes(st)) for _, oid, v, t, st in found]
        if len(ids) != len(stored) or got != want or (found and found[-1][0] != max(ids)):
            kept = sum(1 for g in got if g in want)
            raise StoreError(
                f"the database kept {kept} of the ruling's {len(stored)} rows as written (a trigger or rule at work?): "
                "nothing was appended",
                "run: ledger verify",
            )
        return ids


def _hex(oid: Any) -> str:
    return oid.hex if hasattr(oid, "hex") and not isinstance(oid, (str, bytes)) else str(oid).replace("-", "")
