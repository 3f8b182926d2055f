"""Folds for the session and encounter read models, used by `views.Batch` within its one transaction.

The encounter log takes every event of a ruling made while an encounter runs (and of the ruling that starts
one), each with the round and whose turn it was (a turn change is logged in the turn it ends); undo and redo
rulings are left out, and the Encounter's own absolute-valued events (restorations included) keep the round
and the turn right through undo and redo.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select

from ledger.aggregates import apply_campaign_domain
from ledger.encounter import blank_encounter, fold_encounter, round_tallies
from ledger.model.event_names import (
    ACTION_TAKEN,
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

META_KINDS = frozenset({"undo", "redo", "ask"})
SKIPPED = frozenset({TOUCHED, RULING_RECORDED, OPENED})  # the ruling's command comes from the rulings view


class SessionFold:
    """Play sessions: number, title, when they started and ended; an undo restores the campaign's list."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.rows: dict[int, list[Any]] | None = None
        self.dirty = False

    def _load(self) -> dict[int, dict[str, Any]]:
        if self.rows is None:
            found = self.conn.execute(select(sessions).order_by(sessions.c.number)).all()
            self.rows = {r[0]: list(r) for r in found}
        return {n: {"number": n, "title": r[1], "started": r[2], "ended": r[3]} for n, r in self.rows.items()}

    def event(self, name: str, st: dict[str, Any]) -> None:
        """Fold one campaign event, by the domain's own fold of sessions (ledger.aggregates)."""
        if name in (SESSION_STARTED, SESSION_ENDED):
            domain: dict[str, Any] = {"sessions": list(self._load().values()), "roster": {}, "open_session": None}
            apply_campaign_domain(domain, name, st)
        elif name == CAMPAIGN_RESTORED:
            domain = st["domain"]
        else:
            return
        self.rows = {s["number"]: [s["number"], s["title"], s["started"], s.get("ended")] for s in domain["sessions"]}
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
        """The encounter's row after one of its events, folded by the domain's own fold (ledger.encounter)."""
        if name == OPENED:
            return  # the record is created before the first start: the last encounter's row stands until then
        if name == ENCOUNTER_RESTORED:
            number = st["state"]["number"]
            self.rows = {n: r for n, r in self.rows.items() if n <= number}
            self.floor = min(self.floor or number + 1, number + 1)
            if not number:
                self.state, self.loaded = None, True
                return
            domain = dict(st["state"])
        else:
            cur = self._current()
            if cur is None and name != ENCOUNTER_STARTED:
                return  # no encounter yet
            if name == ENCOUNTER_STARTED:
                self.started = st["number"]
            elif "order" not in st and name not in (ENCOUNTER_ENDED, ACTION_TAKEN):
                return  # an event that leaves the row alone
            domain = fold_encounter([(0, name, st)], start=_domain(cur) if cur is not None else None)
        cur = _encounter_row(domain)
        self.state, self.loaded = cur, True
        self.rows[cur["number"]] = cur
        self.floor = min(self.floor or cur["number"], cur["number"])

    def write(self) -> None:
        """Replace the encounter rows this batch changed (and any an undo removed); append the log rows."""
        if self.floor is not None:
            self.conn.execute(delete(encounters).where(encounters.c.number >= self.floor))
            bulk_insert(self.conn, encounters, [_row(r) for n, r in sorted(self.rows.items()) if n >= self.floor])
        bulk_insert(self.conn, encounter_log, self.log_rows)


def order_spent(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The order of an encounter's domain state as its read-model row keeps it: each participant who has taken an
    action this round (the round's tally, `ActionTaken`) with `spent`, their tally (H&H: standard, move, free and
    extra; d20: full, partial, ...); a tally of another encounter or round is stale and left out."""
    by = round_tallies(state) or {}
    return [{**e, "spent": dict(by[e["name"]])} if by.get(e["name"]) else e for e in state["order"]]


def _encounter_row(state: dict[str, Any]) -> dict[str, Any]:
    """The read model's row of an encounter's domain state (ledger.encounter.blank_encounter's shape)."""
    order = order_spent(state)
    return {
        "number": state["number"],
        "system": state["system"],
        "started": state["started"],
        "ended": state["ended"],
        "active": state["active"],
        "round": state["round"],
        "current": order[state["turn"]]["name"] if order else None,
        "order": order,
    }


def _domain(row: dict[str, Any]) -> dict[str, Any]:
    """An encounter row back in the domain's shape (the turn is the current participant's place in the order)."""
    order = [{k: v for k, v in e.items() if k != "spent"} for e in row["order"] or []]
    turn = next((i for i, e in enumerate(order) if e["name"] == row["current"]), 0)
    keep = ("number", "system", "started", "ended", "active", "round")
    by = {e["name"]: e["spent"] for e in row["order"] or [] if e.get("spent")}
    actions = {"encounter": row["number"], "round": row["round"], "by": by} if by else {}
    return {**blank_encounter(), **{k: row[k] for k in keep}, "order": order, "turn": turn, "actions": actions}


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
