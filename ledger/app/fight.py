"""The encounter tracker's commands: start, next, delay, act now, join, remove, end, and the scene's end."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from eventsourcing.application import AggregateNotFoundError

from ledger import catalog as C
from ledger.app.core import LedgerCore
from ledger.encounter import ENCOUNTER_ID
from ledger.errors import BadInput, NotFound
from ledger.rulings.deciders.durations import TRACKER  # the tracker version encounter start and join carry

# How `encounter next`, `delay` and `remove` pass turns over (TurnIntent): 3 passes over the dead and defeated, those
# the rules give no turn, and (unless `init -o pass-over=never`) those whose turn the rules leave nothing to do in.
PASS_OVER = 3

if TYPE_CHECKING:
    from ledger.intents import (
        EncounterStartIntent,
        EncounterView,
        JoinIntent,
        NameIntent,
        NoIntent,
        Recorded,
        RevealIntent,
        TurnIntent,
    )


class FightCommands(LedgerCore):
    """Commands that run the encounter (initiative order, turns, rounds) and the scene."""

    def encounter(self) -> EncounterView:
        """The running encounter: number, round, whose turn, and the order with initiatives."""
        # lazy: the encounter, only while one runs; the encounter deciders; kept out of a one-shot write
        from ledger.encounter import Encounter
        from ledger.rulings.deciders import encounter

        self.campaign()  # refuses an uninitialised ledger
        try:
            enc: Encounter = self.store.repository.get(ENCOUNTER_ID)
        except AggregateNotFoundError:
            raise NotFound("no encounter is running", encounter.NO_ENCOUNTER) from None
        if not enc.active:
            raise NotFound("no encounter is running", encounter.NO_ENCOUNTER)
        return encounter.view(enc.state)

    def start_encounter(
        self,
        names: Sequence[str],
        *,
        surprised: Sequence[str] = (),
        init: Mapping[str, int] | None = None,
        rolls: Mapping[str, str] | None = None,
        group_init: Sequence[str] = (),
        hidden: bool = False,
    ) -> Recorded:
        """Roll initiative for everyone (or take `init`, rolled elsewhere) and begin round 1 with the highest; with
        `hidden`, the participants who are not heroes are kept off the players' screen (projections/hidden.py)."""
        if not names:
            raise BadInput("an encounter needs at least one participant", "ledger encounter start Ann Bob")
        intent: EncounterStartIntent = {"names": list(names), "surprised": list(surprised), "tracker": TRACKER}
        if hidden:
            intent["hidden"] = True
        if init:
            both = [n for n in init if any(n.strip().casefold() == r.strip().casefold() for r in rolls or {})]
            if both:
                raise BadInput(f"{both[0]}: give an initiative (--init) or its roll (--roll), not both")
            intent["init"] = {n: int(v) for n, v in init.items()}
        if group_init:
            intent["group_init"] = list(group_init)
        return self.record(C.ENCOUNTER_START, intent, rolls=rolls)

    def next_turn(self, *, rolls: Mapping[str, str] | None = None) -> Recorded:
        """End the current turn (end-of-turn hook), pass to the next who takes turns (start-of-turn hook)."""
        intent: TurnIntent = {"pass_over": PASS_OVER}  # pass over whoever the rules give no turn or nothing to do
        return self.record(C.ENCOUNTER_NEXT, intent, rolls=rolls)

    def delay_turn(self, *, rolls: Mapping[str, str] | None = None) -> Recorded:
        """The current character delays their whole turn; the next one's turn starts (no end-of-turn hook yet)."""
        intent: TurnIntent = {"pass_over": PASS_OVER}
        return self.record(C.ENCOUNTER_DELAY, intent, rolls=rolls)

    def remove_from_encounter(self, name: str, *, rolls: Mapping[str, str] | None = None) -> Recorded:
        """A participant leaves the fight; if it was their turn, the next one's starts."""
        intent: NameIntent = {"name": name, "pass_over": PASS_OVER}
        return self.record(C.ENCOUNTER_REMOVE, intent, rolls=rolls)

    def act_now(self, name: str, *, rolls: Mapping[str, str] | None = None) -> Recorded:
        """A delaying character takes their turn after the current one's ends; their initiative moves there."""
        intent: NameIntent = {"name": name}
        return self.record(C.ENCOUNTER_ACT, intent, rolls=rolls)

    def join_encounter(
        self,
        name: str | Sequence[str],
        *,
        surprised: bool = False,
        rolls: Mapping[str, str] | None = None,
        hazard: bool = False,
        init: int | None = None,
        note: str | None = None,
        hidden: bool = False,
        group_init: Sequence[str] = (),
    ) -> Recorded:
        """Roll initiative for newcomers and slot them into the running order (they act when their place comes); with
        `hazard`, one turn slot with no sheet at initiative `init` (a hazard, a timed event: its note said on its
        turn); `hidden` keeps them off the players' screen until they act or are revealed."""
        names = [name] if isinstance(name, str) else list(name)
        if not names:
            raise BadInput("name who joins", "ledger encounter join Cy")
        intent: JoinIntent = {"name": names[0], "surprised": surprised, "tracker": TRACKER}
        if hazard:
            if len(names) > 1 or init is None or surprised or rolls:
                raise BadInput(
                    "a hazard joins alone, at the initiative given (--init N), with no roll and no surprise",
                    "ledger encounter join 'Falling Debris' --hazard --init 5 --note 'the ceiling gives way'",
                )
            intent.update({"hazard": True, "init": init})
            if note:
                intent["note"] = note
            return self.record(C.ENCOUNTER_JOIN, intent)
        if init is not None:
            raise BadInput("--init is for a hazard's slot (--hazard)", "a character rolls: --roll NAME=FACES")
        if len(names) > 1:
            intent["names"] = names
        if group_init:
            intent["group_init"] = list(group_init)
        if hidden:
            self._not_heroes(names)
            intent["hidden"] = True
        return self.record(C.ENCOUNTER_JOIN, intent, rolls=rolls)

    def reveal(self, names: Sequence[str], *, rulings: Sequence[int] = ()) -> Recorded:
        """Show hidden characters, and rulings recorded `--secret`, to the players from now on (one ruling)."""
        intent: RevealIntent = {"names": list(names)}
        if rulings:
            intent["rulings"] = [int(n) for n in rulings]
        return self.record(C.ENCOUNTER_REVEAL, intent)

    def _not_heroes(self, names: Sequence[str]) -> None:
        """Refuse to hide a hero: a player always sees their own character."""
        for n in names:
            entry = self.campaign().character(n)
            if entry is not None and self.sheet(n).pc:
                raise BadInput(f"{entry['name']} is a hero: a player always sees their own hero", "hide NPCs only")

    def end_encounter(self) -> Recorded:
        """End the running encounter (Surprised ends with the combat: conditions.txt, Surprised), with its summary."""
        intent: NoIntent = {}
        result = self.record(C.ENCOUNTER_END, intent)
        result["summary"] = self.encounter_summary()
        return result

    def encounter_summary(self) -> dict[str, Any] | None:
        """The latest encounter's summary: rounds, who fell and when, damage dealt and taken
        (ledger/words/summary.py)."""
        # lazy: the round summary; kept out of a one-shot write
        from ledger.words.summary import from_store

        return from_store(self.store, self.campaign())

    def end_scene(self) -> Recorded:
        """End the scene outside an encounter (P&P): effects for the rest of the scene end, with their defeats."""
        intent: NoIntent = {}
        return self.record(C.SCENE_END, intent)
