"""What a read shows, checked against the events it is made from before it is shown, at a cost that follows what is
shown (never the history's length): each log row against its own event (read by position), a character's HP timeline
and sheet history against a fold of that character's own events, an encounter and its turn-by-turn log against a fold
of the events of that encounter's span, a retraction's amended outcomes against that retraction's own events.

A difference raises `Forged`; a reader wrapped in `checked` then answers again from the read side's `on_forged` (the
command's answer: a fresh fold of the log, projections/trust.py), never from the edited rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextvars import ContextVar
from functools import wraps
from typing import Any, TypeVar, cast
from uuid import UUID

import orjson
from sqlalchemy import func, select

from ledger.model.event_names import (
    CHARACTER_ADDED,
    ENCOUNTER_STARTED,
    OUTCOME_AMENDED,
    RULING_RECORDED,
    RULING_REINSTATED,
    RULING_RETRACTED,
)
from projections.db import BOOKKEEPING_PATTERNS, ReadSide, sessions, stamp, topic_names
from projections.fold import EncounterFold
from projections.trust import fold_from_log
from projections.views import BOOKKEEPING, CHAIN, Batch

F = TypeVar("F", bound=Callable[..., Any])
_DEPTH: ContextVar[int] = ContextVar("ledger_checked_depth", default=0)


class Forged(Exception):
    """A read-model row shown differs from the events it is made from (the message names the table)."""


def checked(fn: F) -> F:
    """A reader whose rows are checked: on `Forged`, the outermost checked reader answers again from the log."""

    @wraps(fn)
    def run(read: ReadSide, *args: Any, **kwargs: Any) -> Any:
        token = _DEPTH.set(_DEPTH.get() + 1)
        try:
            return fn(read, *args, **kwargs)
        except (Forged, orjson.JSONDecodeError) as e:  # a row that differs from its events, or doesn't parse
            if _DEPTH.get() > 1 or read.trusted:
                raise
            why = str(e) if isinstance(e, Forged) else "a row can't be read (JSONDecodeError)"
            fresh = read.on_forged(why) if read.on_forged is not None else fold_from_log(read.target)
            return fn(fresh, *args, **kwargs)
        finally:
            _DEPTH.reset(token)

    return cast(F, run)


def _mark(read: ReadSide) -> str:
    return "?" if read.kind == "sqlite" else "%s"


def _oid(read: ReadSide, cid: str) -> Any:
    """An aggregate id as the event table stores it (hex text on SQLite, a UUID on PostgreSQL)."""
    return cid if read.kind == "sqlite" else UUID(cid)


def _fetch(read: ReadSide, conn: Any, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    cur = conn.connection.driver_connection.cursor()
    try:
        cur.execute(sql, tuple(params))
        return list(cur.fetchall())
    finally:
        cur.close()


def _state(raw: Any) -> dict[str, Any]:
    try:
        found = orjson.loads(raw if isinstance(raw, (bytes, str)) else bytes(raw))
    except (orjson.JSONDecodeError, TypeError):
        raise Forged("an event of the log can't be read") from None
    if not isinstance(found, dict):
        raise Forged("an event of the log can't be read")
    return found


# -- the log's rows --------------------------------------------------------------------------------------------------
def character_of(kind: str, name: str, st: dict[str, Any], names: dict[str, str], oid: str) -> str | None:
    """What the log view says an event is about: a Character event's character, a ruling event's `for`/`character`."""
    if kind == "Character":
        return names.get(oid)
    if kind == "Ruling" and name != RULING_RECORDED:
        data = st.get("data")
        if type(data) is not dict:
            data = st
        return data.get("for") or data.get("character")
    return None


def names_of(read: ReadSide, conn: Any, oids: Iterable[str]) -> dict[str, str]:
    """Characters' names as their own first event (CharacterAdded) gives them, by aggregate id (hex)."""
    known: dict[str, str] = read.__dict__.setdefault("_names", {})
    wanted = sorted({o for o in oids if o not in known})
    mark = _mark(read)
    for i in range(0, len(wanted), 500):
        part = wanted[i : i + 500]
        rows = _fetch(
            read,
            conn,
            f"SELECT originator_id, topic, state FROM {read.events_table} WHERE originator_version = 1 AND "
            f"originator_id IN ({', '.join([mark] * len(part))})",
            [_oid(read, o) for o in part],
        )
        for oid, topic, raw in rows:
            if topic_names(str(topic))[1] == CHARACTER_ADDED:
                known[_hex(oid)] = str((_state(raw).get("sheet") or {}).get("name"))
    return known


def log_rows(read: ReadSide, conn: Any, rows: Sequence[Any]) -> None:
    """Each log row shown against its own event, read by position: the event is there, and the row's aggregate, type,
    ruling, character and time are the event's, its data kept by reference (never a copy that could say otherwise).

    Each row carries the log columns and the joined event's `event_topic`, `event_origin` and `event_state`.
    """
    if read.trusted:
        return
    pending = [r for r in rows if "event_topic" in r]  # not the bookkeeping events read from the log itself
    characters = {
        _hex(r["event_origin"])
        for r in pending
        if r["event_origin"] is not None and topic_names(str(r["event_topic"]))[0] == "Character"
    }
    names = names_of(read, conn, characters) if characters else {}
    for r in pending:
        topic, raw = r["event_topic"], r["event_state"]
        if topic is None or raw is None:
            raise Forged(f"ledger_log: row {r['seq']} names no event of the log")
        kind, name = topic_names(str(topic))
        if (
            name in BOOKKEEPING
            or (r.get("aggregate", kind), r["type"]) != (kind, name)
            or r["data"] is not None
            or r.get("bookkeeping", False)
        ):
            raise Forged(f"ledger_log: row {r['seq']} differs from its event")
        st = _state(raw)
        want = (st.get("ruling", 0), stamp(st), character_of(kind, name, st, names, _hex(r["event_origin"])))
        if (r["ruling"], r["at"], r["character"]) != want:
            raise Forged(f"ledger_log: row {r['seq']} differs from its event")


def log_complete(read: ReadSide, conn: Any, rows: int, upto: int) -> None:
    """The whole log as read holds one row per event the views keep, up to the views' position `upto`."""
    if read.trusted:
        return
    mark = _mark(read)
    found = _fetch(
        read,
        conn,
        f"SELECT COUNT(*) FROM {read.events_table} WHERE {read.id_column} <= {mark} AND topic NOT LIKE {mark} "
        f"AND topic NOT LIKE {mark}",
        [upto, *BOOKKEEPING_PATTERNS],
    )
    if int(found[0][0]) != rows:
        raise Forged(f"ledger_log holds {rows} rows for {found[0][0]} events")


def tail_complete(read: ReadSide, conn: Any, first: int, seqs: Iterable[int], upto: int) -> None:
    """The log's last rulings as read, from ruling `first` on, against the events from that ruling's first to the views'
    position `upto`: every event the views keep is there, and nothing else."""
    if read.trusted:
        return
    # lazy: the ruling ids (ledger.aggregates imports eventsourcing); kept out of `character list`
    from ledger.aggregates import ruling_id

    found = _fetch(
        read,
        conn,
        f"SELECT {read.id_column} FROM {read.events_table} WHERE originator_id = {_mark(read)} "
        "AND originator_version = 1",
        [_oid(read, ruling_id(first).hex)],
    )
    if not found:
        raise Forged(f"ledger_log: ruling {first} is not in the log")
    kept = [
        int(r[0]) for r in _span(read, conn, int(found[0][0]), upto) if topic_names(str(r[2]))[1] not in BOOKKEEPING
    ]
    if kept != sorted(seqs):
        raise Forged("ledger_log: the last rulings' rows differ from the log")


def character_complete(
    read: ReadSide, conn: Any, name: str, cids: Iterable[str], seqs: Iterable[int], upto: int
) -> None:
    """A character's log as read (`log --character`: the rows naming `name` exactly) holds a row for every event of the
    character's own, up to the views' position `upto` (the rulings' events that name them are checked row by row,
    `log_rows`). Of the characters `cids` (every one that ever had the name, in any case), those whose CharacterAdded
    gives another spelling (a retired `Ann` when `ANN` is shown) have rows of their own, not shown here."""
    if read.trusted:
        return
    shown = set(seqs)
    cids = list(cids)
    names = names_of(read, conn, cids)
    for cid in cids:
        if cid in names and names[cid] != name:
            continue
        rows = _fetch(
            read,
            conn,
            f"SELECT {read.id_column}, topic FROM {read.events_table} WHERE originator_id = {_mark(read)} "
            f"AND {read.id_column} <= {_mark(read)}",
            [_oid(read, cid), upto],
        )
        if any(int(s) not in shown for s, topic in rows if topic_names(str(topic))[1] not in BOOKKEEPING):
            raise Forged("ledger_log: a row of the character's own events is missing")


def rulings_complete(
    read: ReadSide, conn: Any, numbers: Sequence[int], seqs: Iterable[int], session: int, tail: int | None = None
) -> None:
    """A play session's rulings and log rows as read, against the events of the span they cover (from the first
    ruling's first event to the last one's chain link): every ruling recorded in that session is there, and every
    event the views keep of theirs (`tail`: of the session's last `tail` rulings only, `log --session N -n N`), nothing
    else."""
    if read.trusted:
        return
    if not numbers:  # every session holds at least the ruling that started it
        held = conn.execute(select(func.count()).select_from(sessions).where(sessions.c.number == session)).scalar()
        if held:
            raise Forged(f"ledger_rulings: the rulings of session {session} differ from the log")
        return
    # lazy: the ruling ids (ledger.aggregates imports eventsourcing); kept out of `character list`
    from ledger.aggregates import ruling_id

    mark = _mark(read)

    def recorded(n: int) -> tuple[int, dict[str, Any]] | None:
        found = _fetch(
            read,
            conn,
            f"SELECT {read.id_column}, state FROM {read.events_table} WHERE originator_id = {mark} "
            "AND originator_version = 1",
            [_oid(read, ruling_id(n).hex)],
        )
        return (int(found[0][0]), _state(found[0][1])) if found else None

    first, after, before = recorded(min(numbers)), recorded(max(numbers) + 1), recorded(min(numbers) - 1)
    if first is None:
        raise Forged(f"ledger_rulings: ruling {min(numbers)} is not in the log")
    if any(r is not None and r[1].get("session") == session for r in (before, after)):  # a session's rulings run on
        raise Forged(f"ledger_rulings: the rulings of session {session} differ from the log")
    lo, hi = first[0], after[0] - 1 if after is not None else read.max_seq(conn)
    wanted = set(numbers)
    rows_of = wanted if tail is None else set(sorted(wanted)[-tail:])
    want_seqs, want_rulings = [], []
    for seq, _, topic, raw in _span(read, conn, lo, hi):
        name = topic_names(str(topic))[1]
        if name in BOOKKEEPING:
            continue
        st = _state(raw)
        if name == RULING_RECORDED and st.get("session") == session:
            want_rulings.append(int(st.get("ruling", 0)))
        if st.get("ruling", 0) in rows_of:
            want_seqs.append(int(seq))
    if sorted(want_rulings) != sorted(wanted):
        raise Forged(f"ledger_rulings: the rulings of session {session} differ from the log")
    if sorted(want_seqs) != sorted(seqs):
        raise Forged(f"ledger_log: the rows of session {session} differ from the log")


ENVELOPE = ("kind", "command", "intent", "actor", "session", "at", "targets")


def envelope_rows(read: ReadSide, conn: Any, shown: dict[int, dict[str, Any]]) -> None:
    """Each ruling's envelope as shown (ruling number -> some of its rulings-view columns: kind, command, intent, actor,
    session, at, targets) against its own RulingRecorded event, read by its aggregate's id."""
    if read.trusted or not shown:
        return
    # lazy: the ruling ids (ledger.aggregates imports eventsourcing); kept out of `character list`
    from ledger.aggregates import ruling_id

    ids = {ruling_id(int(n)).hex: int(n) for n in shown}
    mark = _mark(read)
    found: dict[int, dict[str, Any]] = {}
    wanted = sorted(ids)
    for i in range(0, len(wanted), 500):
        part = wanted[i : i + 500]
        for oid, topic, raw in _fetch(
            read,
            conn,
            f"SELECT originator_id, topic, state FROM {read.events_table} WHERE originator_version = 1 AND "
            f"originator_id IN ({', '.join([mark] * len(part))})",
            [_oid(read, o) for o in part],
        ):
            if topic_names(str(topic))[1] == RULING_RECORDED:
                found[ids[_hex(oid)]] = _state(raw)
    for number, said in shown.items():
        st = found.get(int(number))
        if st is None or any(said[k] != st.get(k) for k in said):
            raise Forged(f"ledger_rulings: ruling {number} differs from its event")


def retraction_rows(read: ReadSide, conn: Any, shown: dict[int, tuple[Any, Any, Any]]) -> None:
    """Each retraction shown (ruling -> by, actor, at) against the retracted ruling's own events (the last
    RulingRetracted or RulingReinstated of its Ruling aggregate)."""
    if read.trusted or not shown:
        return
    # lazy: the ruling ids (ledger.aggregates imports eventsourcing); kept out of `character list`
    from ledger.aggregates import ruling_id

    mark = _mark(read)
    for number, said in shown.items():
        found = _fetch(
            read,
            conn,
            f"SELECT topic, state FROM {read.events_table} WHERE originator_id = {mark} ORDER BY originator_version",
            [_oid(read, ruling_id(int(number)).hex)],
        )
        want: tuple[Any, Any, Any] = (None, None, None)
        for topic, raw in found:
            name = topic_names(str(topic))[1]
            if name == RULING_RETRACTED:
                st = _state(raw)
                want = (st.get("ruling"), st.get("actor"), st.get("at"))
            elif name == RULING_REINSTATED:
                want = (None, None, None)
        if tuple(said) != want:
            raise Forged(f"ledger_rulings: ruling {number}'s retraction differs from the log")


# -- a character's HP timeline and sheet history ---------------------------------------------------------------------
def character_rows(read: ReadSide, conn: Any, cid: str) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The HP timeline rows and sheet-history rows the views' fold makes of one character's own events."""
    mark = _mark(read)
    rows = _fetch(
        read,
        conn,
        f"SELECT {read.id_column}, topic, state FROM {read.events_table} WHERE originator_id = {mark} "
        "ORDER BY originator_version",
        [_oid(read, cid)],
    )
    batch = Batch(None)
    for seq, topic, raw in rows:
        name = topic_names(str(topic))[1]
        if not batch.sheets and name != CHARACTER_ADDED:
            raise Forged(f"ledger_hp: the character {cid} has no CharacterAdded event")
        st = _state(raw)
        try:
            at = st["timestamp"]["_data_"][:19] + "Z"
        except (KeyError, TypeError):
            at = ""
        try:
            batch._character(seq, cid, st, name, st.get("ruling", 0), at)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            raise Forged(f"an event of {cid} can't be folded") from None
    return batch.hp_rows, batch.sheet_rows


def timeline_rows(read: ReadSide, conn: Any, cid: str, hp: Sequence[Any] | None, history: Sequence[Any] | None) -> None:
    """A character's HP timeline rows (seq, ruling, hp, max_hp, at) and sheet-history rows (seq, ruling) as read,
    against the fold of the character's own events (None: not read)."""
    if read.trusted:
        return
    want_hp, want_history = character_rows(read, conn, cid)
    if hp is not None and sorted(tuple(r) for r in hp) != sorted((s, n, h, m, a) for s, _, n, h, m, a in want_hp):
        raise Forged("ledger_hp differs from the character's events")
    if history is not None and sorted(tuple(r) for r in history) != sorted((s, n) for s, _, n in want_history):
        raise Forged("ledger_sheet_events differs from the character's events")


# -- amendments --------------------------------------------------------------------------------------------------------
def amendment_rows(read: ReadSide, conn: Any, rows: Sequence[Any], retractions: Iterable[int]) -> None:
    """The amended outcomes as read (seq, ruling, by, records) against the OutcomeAmended events of each retraction
    they name and of each retraction the rulings view records (its `retracted_by`)."""
    if read.trusted:
        return
    # lazy: the ruling ids (ledger.aggregates imports eventsourcing); kept out of `character list`
    from ledger.aggregates import ruling_id

    have = sorted((int(s), int(n), int(b), orjson.dumps(rec).decode()) for s, n, b, rec in rows)
    want: list[tuple[int, int, int, str]] = []
    mark = _mark(read)
    for by in sorted({int(r[2]) for r in rows} | {int(b) for b in retractions}):
        found = _fetch(
            read,
            conn,
            f"SELECT {read.id_column}, topic, state FROM {read.events_table} WHERE originator_id = {mark}",
            [_oid(read, ruling_id(by).hex)],
        )
        for seq, topic, raw in found:
            if topic_names(str(topic))[1] == OUTCOME_AMENDED:
                st = _state(raw)
                want.append(
                    (int(seq), int(st["target"]), int(st.get("ruling", 0)), orjson.dumps(st["records"]).decode())
                )
    if have != sorted(want):
        raise Forged("ledger_amendments differs from the retractions' events")


# -- encounters --------------------------------------------------------------------------------------------------------
def encounter_numbers(read: ReadSide, conn: Any) -> list[int]:
    """The number of every encounter ever started, from the Encounter aggregate's own events."""
    return sorted({n for _, n in _starts(read, conn)})


def _starts(read: ReadSide, conn: Any) -> list[tuple[int, int]]:
    """(position, number) of every EncounterStarted event, in order."""
    # lazy: the encounter's fixed id (ledger.encounter imports eventsourcing); kept out of `character list`
    from ledger.encounter import ENCOUNTER_ID

    own = _fetch(
        read,
        conn,
        f"SELECT {read.id_column}, topic, state FROM {read.events_table} WHERE originator_id = {_mark(read)} "
        "ORDER BY originator_version",
        [_oid(read, ENCOUNTER_ID.hex)],
    )
    return [
        (int(seq), int(_state(raw).get("number", 0)))
        for seq, topic, raw in own
        if topic_names(str(topic))[1] == ENCOUNTER_STARTED
    ]


def encounter_truth(read: ReadSide, conn: Any, number: int) -> tuple[tuple[Any, ...] | None, list[tuple[Any, ...]]]:
    """Encounter `number`'s row and turn-by-turn log rows as the views' fold makes them of the events of its span: from
    the ruling that first started it to the next encounter's start (or the log's head)."""
    starts = _starts(read, conn)
    first = next((s for s, n in starts if n == number), None)
    if first is None:
        return None, []
    after = next((s for s, n in starts if n > number and s > first), None)
    lo = _ruling_start(read, conn, first)
    hi = _ruling_start(read, conn, after) - 1 if after is not None else read.max_seq(conn)
    fold = EncounterFold(None)
    fold.loaded = True
    for seq, _, topic, raw in _span(read, conn, lo, hi):
        kind, name = topic_names(str(topic))
        if name in BOOKKEEPING:
            if name == CHAIN:
                fold.chained()
            continue
        st = _state(raw)
        if name == RULING_RECORDED:
            fold.ruling(str(st.get("kind")))
        try:
            fold.event(int(seq), kind, name, st)
        except (KeyError, TypeError, ValueError, IndexError):
            raise Forged(f"an event of encounter {number} can't be folded") from None
    found = fold.rows.get(number)
    row = None
    if found is not None:
        row = (
            found["number"],
            found["system"],
            found["started"],
            found["ended"],
            bool(found["active"]),
            found["round"],
            found["current"],
            found["order"],
        )
    return row, [r for r in fold.log_rows if r[1] == number]


def encounter_rows(read: ReadSide, conn: Any, number: int, row: Any | None, log: Sequence[Any] | None) -> None:
    """Encounter `number`'s row and log rows (seq, encounter, round, actor) as read, against its span's fold."""
    if read.trusted:
        return
    want_row, want_log = encounter_truth(read, conn, number)
    if row is not None:
        have = tuple(row[c] for c in ("number", "system", "started", "ended", "active", "round", "current", "order"))
        if (*have[:4], bool(have[4]), *have[5:]) != want_row:
            raise Forged("ledger_encounters differs from the encounter's events")
    if log is not None and sorted(tuple(r) for r in log) != sorted(want_log):
        raise Forged("ledger_encounter_log differs from the encounter's events")


def _ruling_start(read: ReadSide, conn: Any, seq: int) -> int:
    """The position of the first event of the ruling holding event `seq` (just after the previous chain link)."""
    mark = _mark(read)
    before = seq
    while before > 1:
        found = _fetch(
            read,
            conn,
            f"SELECT {read.id_column}, topic FROM {read.events_table} WHERE {read.id_column} < {mark} "
            f"ORDER BY {read.id_column} DESC LIMIT 64",
            [before],
        )
        if not found:
            break
        for position, topic in found:
            if topic_names(str(topic))[1] == CHAIN:
                return int(position) + 1
        before = int(found[-1][0])
    return 1


def _span(read: ReadSide, conn: Any, lo: int, hi: int) -> list[tuple[Any, ...]]:
    """Stored rows from position lo to hi (bookkeeping states left out), in order."""
    out: list[tuple[Any, ...]] = []
    after = lo - 1
    while after < hi:
        rows = [r for r in read.read_rows(conn, after, 20000) if r[0] <= hi]
        if not rows:
            break
        out += rows
        after = rows[-1][0]
    return out


def _hex(oid: Any) -> str:
    return oid.hex if hasattr(oid, "hex") and not isinstance(oid, str) else str(oid).replace("-", "")
