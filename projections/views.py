"""Keep the read models up to date: sheets, rulings, the event log and HP timelines.

Each batch of new events is folded in memory and written with the tracking position in one transaction,
so a crash leaves either the old views or the new ones, and catching up again is idempotent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import delete, insert, select, update

from ledger.sheet import SHEET_EFFECTS, Sheet, apply_effect
from projections.db import VIEW_TABLES, RawEvent, ReadSide, hp_timeline, log, rulings, sheets, tracking

VIEWS = "views"
BATCH = 5000
BOOKKEEPING = frozenset({"RulingChained", "Touched"})
_ENVELOPE = ("timestamp", "originator_topic", "ruling")

Progress = Callable[[int, int], None]


def position(conn: Any) -> int:
    """The last event position the views include."""
    row = conn.execute(select(tracking.c.position).where(tracking.c.name == VIEWS)).first()
    return int(row[0]) if row else 0


class Batch:
    """The view changes of one batch of events, folded in memory before one write."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.sheets: dict[str, dict[str, Any]] = {}
        self.new_sheets: set[str] = set()
        self.rulings: dict[int, dict[str, Any]] = {}
        self.ruling_updates: dict[str, dict[str, Any]] = {}
        self.log_rows: list[dict[str, Any]] = []
        self.hp_rows: list[dict[str, Any]] = []

    def sheet_row(self, cid: str) -> dict[str, Any] | None:
        """A sheet row, from this batch or the table."""
        if cid not in self.sheets:
            row = self.conn.execute(select(sheets).where(sheets.c.character_id == cid)).mappings().first()
            if row is None:
                return None
            self.sheets[cid] = dict(row)
        return self.sheets[cid]

    def apply(self, e: RawEvent) -> None:
        """Fold one event into the views."""
        kind, name, st = e.aggregate, e.type, e.state
        ruling = st.get("ruling", 0)
        character = None
        if kind == "Character":
            character = self._character(e, ruling)
        elif kind == "Ruling":
            character = self._ruling(e, ruling)
        data = st.get("data") if isinstance(st.get("data"), dict) else {k: v for k, v in st.items() if k not in _ENVELOPE}
        at = st.get("timestamp", {}).get("_data_", "") if isinstance(st.get("timestamp"), dict) else ""
        self.log_rows.append(
            {
                "seq": e.seq,
                "ruling": ruling,
                "type": name,
                "aggregate": kind,
                "character": character,
                "data": data,
                "at": at[:19] + "Z" if at else "",
                "bookkeeping": name in BOOKKEEPING,
            }
        )

    def _character(self, e: RawEvent, ruling: int) -> str | None:
        st = e.state
        if e.type == "CharacterAdded":
            sheet = st["sheet"]
            self.sheets[e.originator_id] = {
                "character_id": e.originator_id,
                "key": sheet["name"].casefold(),
                "name": sheet["name"],
                "active": True,
                "hp": sheet["hp"],
                "max_hp": sheet["max_hp"],
                "sheet": sheet,
                "added": ruling,
                "ruling": ruling,
            }
            self.new_sheets.add(e.originator_id)
            self._hp_point(e, ruling)
            return str(sheet["name"])
        row = self.sheet_row(e.originator_id)
        if row is None:
            return None
        before = row["hp"]
        if e.type == "StateRestored":
            if st["sheet"] is not None:
                row["sheet"] = st["sheet"]
            row["active"] = st["active"]
        elif e.type in SHEET_EFFECTS:
            row["sheet"] = apply_effect(Sheet.from_dict(row["sheet"]), e.type, st["data"]).to_dict()
        row["hp"], row["max_hp"], row["ruling"] = row["sheet"]["hp"], row["sheet"]["max_hp"], ruling
        if row["hp"] != before or e.type == "StateRestored":
            self._hp_point(e, ruling)
        return str(row["name"])

    def _hp_point(self, e: RawEvent, ruling: int) -> None:
        row = self.sheets[e.originator_id]
        at = e.state.get("timestamp", {}).get("_data_", "")
        self.hp_rows.append(
            {
                "seq": e.seq,
                "character_id": e.originator_id,
                "ruling": ruling,
                "hp": row["hp"] if row["active"] else row["hp"],
                "max_hp": row["max_hp"],
                "at": at[:19] + "Z" if at else "",
            }
        )

    def _ruling(self, e: RawEvent, ruling: int) -> str | None:
        st = e.state
        if e.type == "RulingRecorded":
            self.rulings[ruling] = {
                "number": ruling,
                "aggregate_id": e.originator_id,
                "kind": st["kind"],
                "command": st["command"],
                "intent": st["intent"],
                "actor": st["actor"],
                "session": st["session"],
                "at": st["at"],
                "targets": st["targets"],
                "retracted_by": None,
                "retracted_actor": None,
                "retracted_at": None,
            }
            return None
        if e.type == "RulingRetracted":
            self._mark(e.originator_id, {"retracted_by": ruling, "retracted_actor": st["actor"], "retracted_at": st["at"]})
        elif e.type == "RulingReinstated":
            self._mark(e.originator_id, {"retracted_by": None, "retracted_actor": None, "retracted_at": None})
        data = st.get("data") or {}
        return data.get("for") or data.get("character")

    def _mark(self, aggregate_id: str, values: dict[str, Any]) -> None:
        for r in self.rulings.values():
            if r["aggregate_id"] == aggregate_id:
                r.update(values)
                return
        self.ruling_updates.setdefault(aggregate_id, {}).update(values)

    def write(self, last: int) -> None:
        """Write every change of the batch and the new tracking position."""
        c = self.conn
        for cid, row in self.sheets.items():
            if cid in self.new_sheets:
                c.execute(insert(sheets).values(**row))
            else:
                c.execute(update(sheets).where(sheets.c.character_id == cid).values(**row))
        if self.rulings:
            c.execute(insert(rulings), list(self.rulings.values()))
        for aid, values in self.ruling_updates.items():
            c.execute(update(rulings).where(rulings.c.aggregate_id == aid).values(**values))
        if self.log_rows:
            c.execute(insert(log), self.log_rows)
        if self.hp_rows:
            c.execute(insert(hp_timeline), self.hp_rows)
        if c.execute(update(tracking).where(tracking.c.name == VIEWS).values(position=last)).rowcount == 0:
            c.execute(insert(tracking).values(name=VIEWS, position=last))


def catch_up(read: ReadSide, progress: Progress | None = None) -> int:
    """Bring every view up to the newest event; returns how many events were applied."""
    from sqlalchemy.exc import IntegrityError

    read.ensure_tables()
    done = 0
    while True:
        try:
            with read.engine.begin() as conn:
                start = position(conn)
                events = read.read_events(conn, start, BATCH)
                if not events:
                    return done
                batch = Batch(conn)
                for e in events:
                    batch.apply(e)
                batch.write(events[-1].seq)
        except IntegrityError:
            continue  # another process caught up the same events first: read the new position
        done += len(events)
        if progress:
            progress(done, len(events))


def rebuild(read: ReadSide, progress: Progress | None = None) -> int:
    """Empty every view and fold the whole log again."""
    read.ensure_tables()
    with read.engine.begin() as conn:
        for t in reversed(VIEW_TABLES):
            conn.execute(delete(t))
        conn.execute(delete(tracking).where(tracking.c.name == VIEWS))
    return catch_up(read, progress)


def is_behind(read: ReadSide) -> bool:
    """Whether events exist that the views don't include yet."""
    with read.engine.connect() as conn:
        return read.max_seq(conn) > position(conn)
