"""Folds for the session and encounter read models, used by `views.Batch` within its one transaction.

The encounter log takes every event of a ruling made while an encounter runs (and of the ruling that starts
one), each with the round and whose turn it was (a turn change is logged in the turn it ends); undo and redo
rulings are left out, and the Encounter's own absolute-valued events (restorations included) keep the round
and the turn right through undo and redo.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select

from ledger.model.event_names import (
    CAMPAIGN_RESTORED,
    ENCOUNTER_ENDED,
    ENCOUNTER_RESTORED,
    ENCOUNTER_STARTED,
    OPENED,
    RULING_CHAINED,
    RULING_RECORDED,
    SESSION_ENDED,
    SESSION_STARTED,
    TOUCHED,
)
from projections.db import bulk_insert, dumps, encounter_log, encounters, sessions

META_KINDS = frozenset({"undo", "redo"})
SKIPPED = frozenset({TOUCHED, RULING_RECORDED, OPENED})  # the ruling's command comes from the rulings view


class SessionFold:
    """Play sessions: number, title, when they started and ended; an undo restores the campaign's list."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.rows: dict[int, list[Any]] | None = None
        self.dirty = False

    def _load(self) -> dict[int, list[Any]]:
        if self.rows is None:
            found = self.conn.execute(select(sessions).order_by(sessions.c.number)).all()
            self.rows = {r[0]: list(r) for r in found}
        return self.rows

    def event(self, name: str, st: dict[str, Any]) -> None:
        """Fold one campaign event."""
        if name == SESSION_STARTED:
            self._load()[st["number"]] = [st["number"], st["title"], st["at"], None]
        elif name == SESSION_ENDED:
            row = self._load().get(st["number"])
            if row is not None:
                row[3] = st["at"]
        elif name == CAMPAIGN_RESTORED:
            listed = st["domain"].get("sessions", [])
            self.rows = {s["number"]: [s["number"], s["title"], s["started"], s.get("ended")] for s in listed}
        else:
            return
        self.dirty = True

    def write(self) -> None:
        """Replace the table's rows (sessions are few)."""
        if self.dirty and self.rows is not None:
            self.conn.execute(delete(sessions))
            bulk_insert(self.conn, sessions, [tuple(r) for r in self.rows.values()])


class EncounterFold:
    """Encounters (one row each, as it stands) and the encounter log (one row per event, with its turn)."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.loaded = False
        self.state: dict[str, Any] | None = None
        self.rows: dict[int, dict[str, Any]] = {}
        self.floor: int | None = None
        self.pending: list[
            tuple[Any, ...]
        ] = []  # this ruling's events in a running encounter: (seq, number, round, actor)
        self.loose: list[int] = []  # this ruling's events while no encounter runs
        self.meta = False
        self.started: int | None = None
        self.log_rows: list[tuple[Any, ...]] = []

    def _current(self) -> dict[str, Any] | None:
        if not self.loaded:
            row = self.conn.execute(select(encounters).order_by(encounters.c.number.desc()).limit(1)).mappings().first()
            self.state = dict(row) if row is not None else None
            self.loaded = True
        return self.state

    def ruling(self, kind: str) -> None:
        """A new ruling begins; undo and redo rulings stay out of the encounter log."""
        self.pending = []
        self.loose = []
        self.started = None
        self.meta = kind in META_KINDS

    def chained(self) -> None:
        """The ruling's chain link: its events are all in; log them with their encounter, if any."""
        if self.pending or self.started is not None:  # else none of this ruling's events belong to an encounter
            self._flush()

    def event(self, seq: int, kind: str, name: str, st: dict[str, Any]) -> None:
        """Fold one event into the log (an encounter's own events in the turn they end), then into the encounter."""
        if name == RULING_CHAINED:
            self.chained()
            return
        if name in SKIPPED:
            return
        if not self.meta:
            cur = self.state if self.loaded else self._current()
            if cur is not None and cur["active"]:
                self.pending.append((seq, cur["number"], cur["round"], cur["current"]))
            else:
                self.loose.append(seq)  # kept only if this ruling belongs to an encounter (it starts or ends one)
        if kind == "Encounter":
            self._encounter(name, st)

    def _flush(self) -> None:
        number = next((p[1] for p in self.pending), None)
        if number is None and self.started is not None:  # a start whose every event came before the first turn
            number = self.started
        if number is not None:
            rows = self.pending + [(seq, number, 0, None) for seq in self.loose]  # the starting ruling's initiative
            self.log_rows += sorted(rows) if self.loose and self.pending else rows
        self.pending = []
        self.loose = []

    def _encounter(self, name: str, st: dict[str, Any]) -> None:
        cur = self._current()
        if name == ENCOUNTER_STARTED:
            order = st["order"]
            self.started = st["number"]
            cur = {
                "number": st["number"],
                "system": st["system"],
                "started": st["started"],
                "ended": None,
                "active": True,
                "round": st["round"],
                "current": order[st["turn"]]["name"],
                "order": order,
            }
        elif name == ENCOUNTER_RESTORED:
            s = st["state"]
            self.rows = {n: r for n, r in self.rows.items() if n <= s["number"]}
            self.floor = min(self.floor or s["number"] + 1, s["number"] + 1)
            if not s["number"]:
                self.state = None
                return
            cur = {
                "number": s["number"],
                "system": s["system"],
                "started": s["started"],
                "ended": s["ended"],
                "active": s["active"],
                "round": s["round"],
                "current": _turn_name(s),
                "order": s["order"],
            }
        elif cur is not None and name == ENCOUNTER_ENDED:  # before the test below: it carries no order
            cur = {**cur, "active": False, "ended": st["ended"]}
        elif cur is None or name == OPENED or "order" not in st:
            return  # no encounter yet, or an event that leaves order and round alone (ActionTaken: a round's tally)
        else:
            cur = {**cur, "order": st["order"], "current": st["order"][st["turn"]]["name"]}
            if "round" in st:
                cur["round"] = st["round"]
        self.state = cur
        self.rows[cur["number"]] = cur
        self.floor = min(self.floor or cur["number"], cur["number"])

    def write(self) -> None:
        """Replace the encounter rows this batch changed (and any an undo removed); append the log rows."""
        if self.floor is not None:
            self.conn.execute(delete(encounters).where(encounters.c.number >= self.floor))
            bulk_insert(self.conn, encounters, [_row(r) for n, r in sorted(self.rows.items()) if n >= self.floor])
        bulk_insert(self.conn, encounter_log, self.log_rows)


def _turn_name(state: dict[str, Any]) -> str | None:
    order = state["order"]
    return order[state["turn"]]["name"] if order else None


def _row(r: dict[str, Any]) -> tuple[Any, ...]:
    return (
        r["number"],
        r["system"],
        r["started"],
        r["ended"],
        r["active"],
        r["round"],
        r["current"],
        dumps(r["order"]),
    )
