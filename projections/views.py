"""Keep the read models up to date: sheets, rulings, the event log, HP timelines, sheet histories, sessions, encounters.

Each batch of new events (whole rulings only) is folded in memory and written with the tracking position in
one transaction, so a crash leaves either the old views or the new ones, and catching up again is idempotent.
Rows go in through one executemany per table (`bulk_insert`): a rebuild is bound by decoding, not by the ORM.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import delete, insert, select, update

from ledger.sheet import SHEET_EFFECTS, Sheet, apply_effect_dict
from projections.db import (
    VIEW_TABLES,
    RawEvent,
    ReadSide,
    amendments,
    bulk_insert,
    dumps,
    hp_timeline,
    log,
    rulings,
    sheet_events,
    sheets,
    topic_names,
    tracking,
)
from projections.fold import EncounterFold, SessionFold

VIEWS = "views"
BATCH = 20000  # events per transaction (whole rulings); a rebuild is a few large writes
CHAIN = "RulingChained"
BOOKKEEPING = frozenset({CHAIN, "Touched"})
_ENVELOPE = frozenset(("timestamp", "originator_topic", "ruling"))
_TOPICS: dict[str, tuple[str, str]] = {}

Progress = Callable[[int, int], None]


def position(conn: Any) -> int:
    """The last event position the views include."""
    row = conn.execute(select(tracking.c.position).where(tracking.c.name == VIEWS)).first()
    return int(row[0]) if row else 0


def stamp(state: dict[str, Any]) -> str:
    """An event's time, to the second, as the views show it."""
    ts = state.get("timestamp")
    at = ts.get("_data_", "") if isinstance(ts, dict) else ""
    return at[:19] + "Z" if at else ""


class Batch:
    """The view changes of one batch of events, folded in memory before one write."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.sheets: dict[str, dict[str, Any]] = {}  # character_id -> row, with the live Sheet under "obj"
        self.new_sheets: set[str] = set()
        self.rulings: dict[int, dict[str, Any]] = {}
        self.ruling_ids: dict[str, int] = {}
        self.ruling_updates: dict[str, dict[str, Any]] = {}
        self.log_rows: list[tuple[Any, ...]] = []
        self.hp_rows: list[tuple[Any, ...]] = []
        self.sheet_rows: list[tuple[Any, ...]] = []
        self.amend_rows: list[tuple[Any, ...]] = []
        self.sessions = SessionFold(conn)
        self.encounters = EncounterFold(conn)

    def sheet_row(self, cid: str) -> dict[str, Any] | None:
        """A sheet row, from this batch or the table."""
        row = self.sheets.get(cid)
        if row is None:
            found = self.conn.execute(select(sheets).where(sheets.c.character_id == cid)).mappings().first()
            if found is None:
                return None
            row = self.sheets[cid] = {**found, "obj": found["sheet"]}
        return row

    def apply(self, e: RawEvent) -> None:
        """Fold one event into the views."""
        names = _TOPICS.get(e.topic)
        if names is None:
            names = _TOPICS[e.topic] = topic_names(e.topic)
        kind, name = names
        st = e.state
        ruling = st.get("ruling", 0)
        character = None
        data = st.get("data")
        if type(data) is not dict:
            data = {k: v for k, v in st.items() if k not in _ENVELOPE}
        ts = st.get("timestamp")
        at = ts["_data_"][:19] + "Z" if type(ts) is dict and ts.get("_data_") else ""
        if kind == "Character":
            character = self._character(e, name, ruling, at)
        elif kind == "Ruling":
            character = self._ruling(e, name, ruling, data)
        elif kind == "Campaign":
            self.sessions.event(name, st)
        self.log_rows.append((e.seq, ruling, name, kind, character, dumps(data), at, name in BOOKKEEPING))
        self.encounters.event(e.seq, kind, name, st)

    def _character(self, e: RawEvent, name: str, ruling: int, at: str) -> str | None:
        st, cid = e.state, e.originator_id
        if name == "CharacterAdded":
            sheet = Sheet.from_dict(st["sheet"]).to_dict()  # complete every field once
            self.sheets[cid] = {
                "character_id": cid, "key": sheet["name"].casefold(), "name": sheet["name"], "active": True,
                "hp": sheet["hp"], "max_hp": sheet["max_hp"], "added": ruling, "ruling": ruling, "obj": sheet,
            }
            self.new_sheets.add(cid)
            self.sheet_rows.append((e.seq, cid, ruling))
            self.hp_rows.append((e.seq, cid, ruling, sheet["hp"], sheet["max_hp"], at))
            return str(sheet["name"])
        row = self.sheet_row(cid)
        if row is None:
            return None
        before = row["hp"]
        if name == "StateRestored":
            if st["sheet"] is not None:
                row["obj"] = st["sheet"]
            row["active"] = st["active"]
        elif name in SHEET_EFFECTS:
            row["obj"] = apply_effect_dict(row["obj"], name, st["data"])
        else:
            return str(row["name"])
        sheet = row["obj"]
        row["hp"], row["max_hp"], row["ruling"] = sheet["hp"], sheet["max_hp"], ruling
        self.sheet_rows.append((e.seq, cid, ruling))
        if sheet["hp"] != before or name == "StateRestored":
            self.hp_rows.append((e.seq, cid, ruling, sheet["hp"], sheet["max_hp"], at))
        return str(row["name"])

    def _ruling(self, e: RawEvent, name: str, ruling: int, data: dict[str, Any]) -> str | None:
        st = e.state
        if name == "RulingRecorded":
            self.rulings[ruling] = {
                "number": ruling, "aggregate_id": e.originator_id, "kind": st["kind"], "command": st["command"],
                "intent": st["intent"], "actor": st["actor"], "session": st["session"], "at": st["at"],
                "targets": st["targets"], "retracted_by": None, "retracted_actor": None, "retracted_at": None,
            }
            self.ruling_ids[e.originator_id] = ruling
            self.encounters.ruling(st["kind"])
            return None
        if name == "RulingRetracted":
            self._mark(e.originator_id, {"retracted_by": ruling, "retracted_actor": st["actor"], "retracted_at": st["at"]})
        elif name == "RulingReinstated":
            self._mark(e.originator_id, {"retracted_by": None, "retracted_actor": None, "retracted_at": None})
        elif name == "OutcomeAmended":
            self.amend_rows.append((e.seq, st["target"], ruling, dumps(st["records"])))
        return data.get("for") or data.get("character")

    def _mark(self, aggregate_id: str, values: dict[str, Any]) -> None:
        number = self.ruling_ids.get(aggregate_id)
        if number is not None:
            self.rulings[number].update(values)
        else:
            self.ruling_updates.setdefault(aggregate_id, {}).update(values)

    def write(self, last: int) -> None:
        """Write every change of the batch and the new tracking position."""
        c = self.conn
        for cid, row in self.sheets.items():
            values = {k: v for k, v in row.items() if k != "obj"}
            values["sheet"] = row["obj"]
            if cid in self.new_sheets:
                c.execute(insert(sheets).values(**values))
            else:
                c.execute(update(sheets).where(sheets.c.character_id == cid).values(**values))
        bulk_insert(c, rulings, [_ruling_tuple(r) for r in self.rulings.values()])
        for aid, values in self.ruling_updates.items():
            c.execute(update(rulings).where(rulings.c.aggregate_id == aid).values(**values))
        bulk_insert(c, log, self.log_rows)
        bulk_insert(c, hp_timeline, self.hp_rows)
        bulk_insert(c, sheet_events, self.sheet_rows)
        bulk_insert(c, amendments, self.amend_rows)
        self.sessions.write()
        self.encounters.write()
        if c.execute(update(tracking).where(tracking.c.name == VIEWS).values(position=last)).rowcount == 0:
            c.execute(insert(tracking).values(name=VIEWS, position=last))


def _ruling_tuple(r: dict[str, Any]) -> tuple[Any, ...]:
    return (
        r["number"], r["aggregate_id"], r["kind"], r["command"], dumps(r["intent"]), r["actor"], r["session"], r["at"],
        dumps(r["targets"]), r["retracted_by"], r["retracted_actor"], r["retracted_at"],
    )


def whole_rulings(events: list[RawEvent], full: bool) -> list[RawEvent] | None:
    """The events up to the last ruling's chain link; None if a full batch holds no complete ruling."""
    for i in range(len(events) - 1, -1, -1):
        if topic_names(events[i].topic)[1] == CHAIN:
            return events[: i + 1]
    return None if full else events  # a log ending in a partial ruling (verify reports it): fold what is there


@contextmanager
def no_gc() -> Iterator[None]:
    """Fold without the cyclic garbage collector: a batch allocates many small dicts and frees them all at once."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def catch_up(read: ReadSide, progress: Progress | None = None) -> int:
    """Bring every view up to the newest event, whole rulings at a time; returns how many events were applied."""
    from sqlalchemy.exc import IntegrityError

    read.ensure_tables()
    done, limit = 0, BATCH
    while True:
        try:
            with read.engine.begin() as conn:
                start = position(conn)
                events = read.read_events(conn, start, limit)
                if not events:
                    return done
                chunk = whole_rulings(events, len(events) == limit)
                if chunk is None:
                    limit *= 2
                    continue
                batch = Batch(conn)
                with no_gc():
                    for e in chunk:
                        batch.apply(e)
                batch.write(chunk[-1].seq)
        except IntegrityError:
            continue  # another process caught up the same events first: read the new position
        done += len(chunk)
        if progress:
            progress(done, len(chunk))


def rebuild(read: ReadSide, progress: Progress | None = None) -> int:
    """Empty every view and fold the whole log again (secondary indexes dropped meanwhile, built once at the end)."""
    read.ensure_tables()
    indexes = [ix for t in VIEW_TABLES for ix in t.indexes]
    with read.engine.begin() as conn:
        for t in reversed(VIEW_TABLES):
            conn.execute(delete(t))
        conn.execute(delete(tracking).where(tracking.c.name == VIEWS))
        for ix in indexes:
            ix.drop(conn, checkfirst=True)
    try:
        return catch_up(read, progress)
    finally:
        with read.engine.begin() as conn:
            for ix in indexes:
                ix.create(conn, checkfirst=True)


def is_behind(read: ReadSide) -> bool:
    """Whether events exist that the views don't include yet."""
    with read.engine.connect() as conn:
        return read.max_seq(conn) > position(conn)
