"""Play outside the tracker's own commands: rolls, damage, conditions, attacks, checks, recovery, resources, acts."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ledger import catalog as C
from ledger.aggregates import name_key
from ledger.app.core import LedgerCore
from ledger.errors import BadInput
from ledger.model.bounds import whole

if TYPE_CHECKING:
    from ledger.intents import (
        ActIntent,
        AttackIntent,
        CheckIntent,
        ConditionIntent,
        DamageIntent,
        GainIntent,
        HazardIntent,
        Recorded,
        RecoverIntent,
        ReviveIntent,
        RollIntent,
        SpendIntent,
    )


ZERO_DICE = re.compile(r"(?<![\d.])0+\s*d", re.I)  # `0d6`, `00dF`: a term that rolls nothing (10d6 is fine)


class PlayCommands(LedgerCore):
    """Commands that resolve play by the campaign's rules (one ruling each)."""

    def roll(self, expr: str, *, for_name: str | None = None, rolls: Mapping[str, str] | None = None) -> Recorded:
        """A free roll, recorded as a ruling with one DiceRolled event (roll name: `roll`)."""
        if ZERO_DICE.search(expr or ""):
            raise BadInput(f"'{expr}' rolls no dice (a term of 0 dice)", "for example: ledger roll 1d6")
        intent: RollIntent = {"expr": expr, "for": for_name}
        return self.record(C.ROLL, intent, rolls=rolls)

    def damage(self, target: str, amount: int, *, subdual: bool = False) -> Recorded:
        """Direct HP loss (no resistance roll)."""
        if amount < 0:
            raise BadInput(f"damage can't be negative, got {amount}", "to heal, use: ledger recover")
        intent: DamageIntent = {"target": target, "amount": amount, "subdual": subdual}
        return self.record(C.DAMAGE, intent)

    def resist_damage(
        self,
        target: str,
        rank: int,
        options: Mapping[str, Any] | None = None,
        *,
        rolls: Mapping[str, str] | None = None,
    ) -> Recorded:
        """Damage of an effect rank resisted by a roll (H&H: power check against a Toughness check)."""
        if rank < 0:
            raise BadInput(f"an effect rank can't be negative, got {rank}")
        intent: DamageIntent = {"target": target, "rank": rank, "options": self.options("damage", options)}
        return self.record(C.DAMAGE, intent, rolls=rolls)

    def condition(
        self,
        target: str,
        condition: str,
        *,
        add: bool,
        rounds: int | None = None,
        until: str | None = None,
        of: str | None = None,
        scene: bool = False,
    ) -> Recorded:
        """Impose or remove a known condition of the campaign's system; an imposed one may have a duration:
        `rounds` (ends at the end of the bearer's Nth turn from now), `until` start|end `of` WHO's next turn, or the
        `scene` (ledger/rules/durations.py)."""
        cond = condition.strip().lower().replace(" ", "-").replace("_", "-")
        intent: ConditionIntent = {"target": target, "condition": cond}
        given = [x for x in (rounds is not None, until is not None or of is not None, scene) if x]
        if given and not add:
            raise BadInput("a duration is for condition add", "leave out --rounds, --until, --of and --scene")
        if len(given) > 1:
            raise BadInput("give one duration: --rounds N, --until start|end --of WHO, or --scene")
        if rounds is not None:
            intent["rounds"] = whole("rounds", rounds)
        if until is not None or of is not None:
            if until not in ("start", "end") or not of:
                raise BadInput("--until takes start or end, with --of WHO", "for example --until end --of Bob")
            intent["until"], intent["of"] = until, of
        if scene:
            intent["scene"] = True
        if add:
            return self.record(C.CONDITION_ADD, intent)
        return self.record(C.CONDITION_REMOVE, intent)

    def attack(
        self,
        attacker: str,
        target: str,
        options: Mapping[str, Any] | None = None,
        *,
        rolls: Mapping[str, str] | None = None,
        also: Sequence[str] = (),
        in_area: Mapping[str, int] | None = None,
    ) -> Recorded:
        """One attack resolved by the campaign's rules (roll names: the rules' `rolls["attack"]`).

        also: more targets (an area attack); in_area: how many members of each minion group the area catches.
        """
        _not_self(attacker, target, "attack")
        intent: AttackIntent = {"attacker": attacker, "target": target, "options": self.options("attack", options)}
        if also:
            intent["also"] = list(also)
        if in_area:
            intent["in_area"] = dict(in_area)
        return self.record(C.ATTACK, intent, rolls=rolls)

    def check(
        self,
        name: str,
        trait: str,
        *,
        dc: int | None = None,
        against: tuple[str, str] | None = None,
        options: Mapping[str, Any] | None = None,
        rolls: Mapping[str, str] | None = None,
    ) -> Recorded:
        """A check against a DC (or a threshold option) or opposed by another character's trait."""
        if against:
            _not_self(name, against[0], "oppose a check against")
        opts = self.options("check", options)
        intent: CheckIntent = {
            "name": name,
            "trait": trait,
            "dc": dc,
            "against": list(against) if against else None,
            "options": opts,
        }
        return self.record(C.CHECK, intent, rolls=rolls)

    def recover(
        self,
        target: str,
        *,
        hours: int = 0,
        restful: bool = False,
        treated: bool = False,
        amount: int | None = None,
        cause: str | None = None,
        options: Mapping[str, Any] | None = None,
        rolls: Mapping[str, str] | None = None,
    ) -> Recorded:
        """Recovery over time, or healing the GM rules (each system reads the parts its rules have)."""
        if hours < 0 or (amount is not None and amount < 0):
            raise BadInput("hours and amounts can't be negative")
        opts = self.options("recover", options)
        intent: RecoverIntent = {
            "target": target,
            "hours": hours,
            "restful": restful,
            "treated": treated,
            "amount": amount,
            "cause": cause,
            "options": opts,
        }
        return self.record(C.RECOVER, intent, rolls=rolls)

    def spend(self, name: str, resource: str, n: int = 1, *, purpose: str | None = None) -> Recorded:
        """Spend a resource: victory points (hnh), resolve or adversity (pnp); overspending is refused."""
        if n < 1:
            raise BadInput(f"spend at least 1, got {n}")
        intent: SpendIntent = {"name": name, "resource": resource, "n": n, "purpose": purpose}
        return self.record(C.SPEND, intent)

    def gain(self, name: str, resource: str, n: int = 1, *, reason: str | None = None) -> Recorded:
        """Gain a resource: resolve from flaws and heroics, adversity (pnp); victory points (hnh) as awards."""
        if n < 1:
            raise BadInput(f"gain at least 1, got {n}")
        intent: GainIntent = {"name": name, "resource": resource, "n": n, "reason": reason}
        return self.record(C.GAIN, intent)

    def hazard(
        self,
        target: str,
        kind: str,
        options: Mapping[str, Any] | None = None,
        *,
        rolls: Mapping[str, str] | None = None,
    ) -> Recorded:
        """An environmental hazard check (H&H: falling, heat, cold, suffocation, starvation, thirst, ...)."""
        intent: HazardIntent = {"target": target, "kind": kind, "options": self.options("hazard", options)}
        return self.record(C.HAZARD, intent, rolls=rolls)

    def revive(self, target: str, means: str, *, by: str | None = None) -> Recorded:
        """Bring the dead back, as the GM rules (hnh Healing/Immortality; d20 Gem of Eternity, Soul Bound)."""
        if by is not None:
            _not_self(by, target, "revive")
        intent: ReviveIntent = {"target": target, "means": means, "by": by}
        return self.record(C.REVIVE, intent)

    def act(
        self,
        name: str,
        action: str,
        options: Mapping[str, Any] | None = None,
        *,
        other: str | None = None,
        rolls: Mapping[str, str] | None = None,
    ) -> Recorded:
        """A system-specific action (`ledger act --help` lists them per system)."""
        action = self.rules().action(action).name
        if other is not None:
            _not_self(name, other, f"{action} (--against)")
        intent: ActIntent = {
            "name": name,
            "action": action,
            "against": other,
            "options": self.options(f"act {action}", options),
        }
        return self.record(C.ACT, intent, rolls=rolls)


def _not_self(actor: str, other: str, what: str) -> None:
    """No character is its own opponent: none of the three rule texts has a character attack, oppose, grab or revive
    itself (docs/interpretations.md, "Self-targeting")."""
    if name_key(unicodedata.normalize("NFC", actor)) == name_key(unicodedata.normalize("NFC", other)):
        raise BadInput(f"{actor.strip()} can't {what} themselves", "name another character as the target")
