"""H&H area effects: one power check, then for each target caught a Dodge check to halve it and a resistance check.

Source: gameplay.txt (Perception And Area Effects: no attack check, "automatically affect a given target or area";
Cover: "a circumstance bonus to Dodge defense checks against area effects equal to its penalty to attack checks"),
conditions.txt (Immobile: "can't Dodge area attacks"), gameplay.txt (Minion Rules). Readings: docs/interpretations.md
(Humans & Heroes, Area effects): a Dodge check meeting the power check halves the effect rank (rounded down).

Roll names: `power` (once), `TARGET.dodge` and `TARGET.toughness` per target (a minion group caught: one of each,
applied to every member caught).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ledger.errors import BadInput, ImpossibleAction
from ledger.model.dice import Dice, DiceSpec, Roll
from ledger.model.sheet import ATTACK_RESOLVED, MINIONS_DEFEATED, Effect, Sheet, apply_all
from ledger.rules.contract import FOURTH
from ledger.rules.hnh.afflictions import affliction_from, resolve_affliction
from ledger.rules.hnh.checks import active_defense, find_power, roll_check
from ledger.rules.hnh.combat import _damage_opts, maneuvers, validate, weapon
from ledger.rules.hnh.conditions import break_trance, effective, require_able
from ledger.rules.hnh.health import next_member, resolve_damage, take_out_minion
from ledger.rules.hnh.options import COVER
from ledger.rules.hnh.powers import resolve_nullify, resolve_weaken, weaken_trait
from ledger.rules.options import for_target

AREA_EFFECTS = ("Damage", "Affliction")
AREA_EFFECTS_4 = (*AREA_EFFECTS, "Weaken", "Nullify")  # from version 4 (gameplay.txt, Perception And Area Effects)


class Renamed:
    """Dice whose `toughness` roll is a target's own (`Bob.toughness`): the rules that name their resistance roll
    `toughness` (Weaken, Nullify) resist in an area under each target's name."""

    def __init__(self, dice: Dice, resist: str) -> None:
        self.dice, self.resist = dice, resist

    def take(self, name: str, spec: DiceSpec) -> Roll:
        """The named roll, `toughness` read as the target's own."""
        return self.dice.take(self.resist if name == "toughness" else name, spec)


class SharedPower:
    """Dice whose `power` roll is taken once and handed to every target's resolution."""

    def __init__(self, dice: Dice) -> None:
        self.dice = dice
        self.power: Roll | None = None

    def take(self, name: str, spec: DiceSpec) -> Roll:
        """The one power roll, or the named roll from the ruling's dice."""
        if name != "power":
            return self.dice.take(name, spec)
        if self.power is None:
            self.power = self.dice.take(name, spec)
        return self.power


def is_area(attacker: Sheet, options: Mapping[str, Any], version: int = 0) -> bool:
    """Whether this is an area Damage or Affliction (from version 4 Weaken and Nullify too): `--range area`, or a
    power with the Area extra."""
    w = weapon(attacker, options)
    return w.range == "area" and w.effect in (AREA_EFFECTS_4 if version >= FOURTH else AREA_EFFECTS)


def check_area_power(attacker: Sheet, options: Mapping[str, Any]) -> None:
    """Refuse `--range area` for a power without the Area extra (a trait or an ad hoc effect may be an area)."""
    name = str(options.get("with") or "unarmed")
    key = find_power(attacker, name)
    if key is not None and not attacker.powers[key].get("area") and str(options.get("range") or "") == "area":
        raise BadInput(f"'{key}' has no Area extra: it can't be an area attack", "leave out --range area")


def dodge_bonus(target: Sheet, options: Mapping[str, Any]) -> int:
    """Cover's bonus to Dodge against an area: the penalty it gives attack checks, as a bonus (Cover)."""
    cover = for_target(options.get("cover"), target.name).lower()
    if cover == "complete":
        raise BadInput(
            f"complete cover against an area: {target.name} is outside the area", "leave them out of the targets"
        )
    return -COVER.get(cover, 0)


def resolve_area(
    attacker: Sheet,
    caught: Sequence[tuple[Sheet, int]],
    options: Mapping[str, Any],
    dice: Dice,
    *,
    prefixed: bool = True,
    version: int = 0,
) -> list[Effect]:
    """An area attack: one power check; per target a Dodge (halves the rank on a success), then the resistance.

    prefixed: roll names TARGET.dodge / TARGET.toughness (several targets); else `dodge` and `toughness` (one).
    """
    require_able(attacker, "attack")
    if any(k.startswith("defend:") for k in attacker.counters):
        raise ImpossibleAction(f"{attacker.name} took the Defend action and can't attack this turn")
    check_area_power(attacker, options)
    w = weapon(attacker, options)
    if w.range != "area":
        raise BadInput(f"'{w.name}' is a {w.range} attack, not an area", "give --range area for an area effect")
    if w.effect not in (AREA_EFFECTS_4 if version >= FOURTH else AREA_EFFECTS):
        raise BadInput(f"'{w.name}' is a {w.effect} effect: area attacks resolve Damage, Affliction, Weaken, Nullify")
    moves = maneuvers(options)
    if "team" in moves and version >= FOURTH:  # Team Attack: "Effects not requiring an attack check may be used"
        td = int(options.get("team-degrees") or 0)
        w = replace(w, rank=w.rank + (2 if td >= 3 else 1 if td >= 1 else 0))
    out: list[Effect] = []
    shared = SharedPower(dice)
    roll_check(shared, "power", w.rank, "power")  # the one power check, first in the ruling's dice
    for target, n in caught:
        if target.has("dead"):
            raise ImpossibleAction(f"{target.name} is already dead")
        validate(attacker, target, w, moves, options)
        trance = break_trance(target)
        sheet = apply_all(target, trance)
        names = (f"{target.name}.dodge", f"{target.name}.toughness") if prefixed else ("dodge", "toughness")
        out += trance + _one(attacker, sheet, n, w, options, shared, names, version)
    return out


def _one(
    attacker: Sheet,
    target: Sheet,
    n: int,
    w: Any,
    options: Mapping[str, Any],
    dice: Dice,
    names: tuple[str, str],
    version: int = 0,
) -> list[Effect]:
    """One target (or N members of a minion group) caught: its Dodge check, then the resistance to the effect."""
    power = roll_check(dice, "power", w.rank, "power")
    base: dict[str, Any] = {
        "attacker": attacker.name,
        "target": target.name,
        "with": w.name,
        "effect": w.effect,
        "range": "area",
        "hit": True,
        "automatic": True,
        "attack_check": False,
        "area": True,
    }
    if n != 1:
        base["caught"] = n
    if "immobile" in effective(target.conditions):  # Immobile: "can't Dodge area attacks"
        dodged, base["dodge"] = False, "immobile: no Dodge against an area"
    else:
        d = active_defense(target, "dodge", dice, names[0], dodge_bonus(target, options))
        dodged = not d.automatic_failure and d.total >= power.total
        base["dodge_check"] = {**d.data(), "against": power.total, "dodged": dodged}
    rank = w.rank // 2 if dodged else w.rank
    base.update(rank=rank, dodged=dodged)
    out = [Effect(ATTACK_RESOLVED, target.name, base)]
    resist = names[1]
    if w.effect == "Damage":
        step = resolve_damage(target, rank, dice, options=_damage_opts(w, options), resist_roll=resist)
    elif w.effect == "Weaken":
        defense = str(options.get("resisted-by") or w.power.get("resisted-by") or "fortitude")
        trait = weaken_trait(options, w.power)
        step = resolve_weaken(attacker, target, rank, trait, defense, Renamed(dice, resist))
    elif w.effect == "Nullify":
        step = resolve_nullify(attacker, target, rank, options, Renamed(dice, resist))
    else:
        spec = affliction_from(w.name, w.power, {**options, "rank": rank})
        step = resolve_affliction(target, spec, dice, resist_roll=resist)
    fell = any(e.event == MINIONS_DEFEATED for e in step) or apply_all(target, step).has("dead")
    if version >= FOURTH and fell and target.minion and target.count > 1:
        return out + _members_fall(target, step, min(n, target.count))
    out += step
    now = apply_all(target, step)
    for _ in range(n - 1):  # the same result for every member caught: each falls as the first did
        if not fell or now.has("dead") or now.count <= 0:
            break
        more = take_out_minion(now, bool(options.get("nonlethal")), "caught in the area")
        out += more
        now = apply_all(now, more)
    return out


def _members_fall(group: Sheet, step: list[Effect], k: int) -> list[Effect]:
    """From version 4: `k` members of a minion group caught and failing fall at once, in one count (Minion Rules:
    each suffers the worst degree); all of them: none is left standing."""
    fresh = "the next member of the group starts fresh"
    kept = [e for e in step if e.event != MINIONS_DEFEATED and e.data.get("note") != fresh]
    left = group.count - k
    out = [*kept, Effect(MINIONS_DEFEATED, group.name, {"defeated": k, "count": left, "note": "caught in the area"})]
    return out + (next_member(apply_all(group, out)) if left > 0 else [])
