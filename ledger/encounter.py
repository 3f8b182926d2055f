"""The Encounter aggregate: initiative order, round and whose turn it is, as absolute values per event.

One aggregate per campaign (a fixed id), restarted by every `encounter start`. Each event carries the
fields it sets, never a delta, so undo, redo and retraction restore it by refolding live records (`fold_encounter`).
The order helpers below are pure functions on plain data, shared by the commands and their tests.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from uuid import uuid5

from eventsourcing.domain import Aggregate

from ledger.aggregates import NAMESPACE, Amendments, live_records
from ledger.model.event_names import OPENED
from ledger.model.lean import LeanEventType

if TYPE_CHECKING:
    from ledger.intents import Participant

ENCOUNTER_ID = uuid5(NAMESPACE, "encounter")

Entry = dict[str, Any]  # {"name", "id", "initiative", "sort": [...], "delayed": bool}


def blank_encounter() -> dict[str, Any]:
    """No encounter has run yet."""
    return {
        "active": False, "number": 0, "system": "", "round": 0, "turn": 0, "order": [], "started": None, "ended": None,
        "actions": {},
    }  # fmt: skip


class Encounter(Aggregate):
    """The campaign's encounter: who is in it, in which order, the round, and whose turn it is."""

    if TYPE_CHECKING:  # set by the events' apply
        state: dict[str, Any]

    class Event(Aggregate.Event, metaclass=LeanEventType):
        """An encounter event; `ruling` is the ruling that made it."""

        ruling: int

        def apply(self, aggregate: Any) -> None:
            """Set the absolute fields this event carries."""
            fields = {k: v for k, v in self.__dict__.items() if k in aggregate.state}
            aggregate.state = {**aggregate.state, **fields}

    class Opened(Aggregate.Created, metaclass=LeanEventType):
        """The campaign's encounter record was created (by its first `encounter start`)."""

        ruling: int

        def apply(self, aggregate: Any) -> None:
            """No encounter running yet."""
            aggregate.state = blank_encounter()

    class EncounterStarted(Event):
        """A new encounter began: the order by initiative, round 1, the first character's turn."""

        number: int
        system: str
        order: list[Entry]
        round: int
        turn: int
        active: bool
        started: int
        ended: None

    class TurnAdvanced(Event):
        """The turn passed on: the new round, turn index and order (a delayer forced to act is no longer delayed)."""

        round: int
        turn: int
        current: str
        order: list[Entry]

    class TurnDelayed(Event):
        """The current character delayed their turn; the next one's turn began."""

        name: str
        round: int
        turn: int
        current: str
        order: list[Entry]

    class DelayedTurnTaken(Event):
        """A delaying character took their turn now, after the current one's; their place in the order moved."""

        name: str
        turn: int
        current: str
        order: list[Entry]

    class ParticipantJoined(Event):
        """A character joined mid-fight at their initiative's place in the existing order."""

        name: str
        turn: int
        order: list[Entry]

    class ParticipantRemoved(Event):
        """A participant left the fight by the GM's ruling; a removed current participant's turn passed on."""

        name: str
        round: int
        turn: int
        current: str
        order: list[Entry]

    class ActionTaken(Event):
        """A character took an action in the round: the round's whole tally, as an absolute value.

        `actions` is {"encounter": N, "round": R, "by": {name: tally}}; a tally of another encounter or round is stale.
        """

        name: str
        kind: str
        actions: dict[str, Any]

        def apply(self, aggregate: Any) -> None:
            """Set the round's tally (also on a state restored from before the tally existed)."""
            aggregate.state = {**aggregate.state, "actions": self.actions}

    class EncounterEnded(Event):
        """The encounter ended."""

        number: int
        active: bool
        ended: int

    class EncounterRestored(Event):
        """State set to the refold of live events (after undo or redo)."""

        restores = True
        state: dict[str, Any]

        def apply(self, aggregate: Any) -> None:
            """Replace the state wholesale."""
            aggregate.state = dict(self.state)

    @classmethod
    def restoration(cls, history: Iterable[Any], dead: set[int], amendments: Amendments) -> tuple[type, dict[str, Any]]:
        """The event that restores this encounter to the refold of its live records (never reverse deltas)."""
        return cls.EncounterRestored, {"state": fold_encounter(live_records(history, dead, amendments))}

    def restorable(self) -> dict[str, Any]:
        """The state a restoration event carries."""
        return {"state": self.state}

    # queries
    @property
    def active(self) -> bool:
        """Whether an encounter is running."""
        return bool(self.state["active"])

    @property
    def order(self) -> list[Entry]:
        """The participants in turn order."""
        return list(self.state["order"])

    @property
    def current(self) -> Entry:
        """The entry whose turn it is."""
        return dict(self.state["order"][self.state["turn"]])


def fold_encounter(
    records: Iterable[tuple[int, str, dict[str, Any]]], start: dict[str, Any] | None = None
) -> dict[str, Any]:
    """An encounter's state from its live records (ruling, event type, payload), after `start` if given."""
    state = start if start is not None else blank_encounter()
    for _, kind, p in records:
        state = blank_encounter() if kind == OPENED else {**state, **{k: v for k, v in p.items() if k in state}}
    return state


# -- the order, as pure functions on entries ------------------------------------------------------
def round_tallies(state: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
    """Each participant's tally of actions this round (the `ActionTaken` events' `actions`), by name; None when the
    tally held is of another encounter or an earlier round (nobody has acted in this one yet)."""
    held = state.get("actions") or {}
    if held.get("encounter") != state["number"] or held.get("round") != state["round"]:
        return None
    return dict(held.get("by") or {})


def find(order: list[Entry], name: str) -> int | None:
    """The index of the participant called `name` (case-insensitive), or None."""
    key = name.strip().casefold()
    return next((i for i, e in enumerate(order) if e["name"].casefold() == key), None)


def slot(order: list[Entry], entry: Entry) -> int:
    """Where a newcomer goes: before the first participant it sorts ahead of; after everyone it ties with."""
    return next((i for i, e in enumerate(order) if entry["sort"] < e["sort"]), len(order))


def step(order: list[Entry], turn: int, rnd: int) -> tuple[int, int, list[Entry], bool]:
    """The next turn: (turn, round, order, forced). Round n+1 starts when the order comes back to its top.

    A delaying character whose place comes up again is forced to take that turn (no longer delayed).
    """
    nxt = turn + 1
    if nxt >= len(order):
        nxt, rnd = 0, rnd + 1
    forced = bool(order[nxt].get("delayed"))
    if forced:
        order = [{**e, "delayed": False} if i == nxt else e for i, e in enumerate(order)]
    return nxt, rnd, order, forced


def take_delayed(order: list[Entry], turn: int, name: str) -> tuple[list[Entry], int]:
    """Move a delaying character to act right after the current one, at that initiative: (order, their index)."""
    i = find(order, name)
    assert i is not None
    current = order[turn]
    moved = {**order[i], "delayed": False, "initiative": current["initiative"], "sort": [*current["sort"], 0]}
    rest = [e for j, e in enumerate(order) if j != i]
    at = rest.index(current) + 1
    return [*rest[:at], moved, *rest[at:]], at


def public(order: list[Entry]) -> list[Participant]:
    """The order as `encounter show` prints it."""
    return [{"name": e["name"], "initiative": e["initiative"], "delayed": bool(e.get("delayed"))} for e in order]
