"""H&H health: HP and its conditions, death, the Damage resistance check and bruises.

Source: humans-and-heroes.txt / gameplay.txt (Health Points, Death, Minion Rules), hnh-site/effect-damage.txt
(Damage Check, Non-Lethal), conditions.txt (Damage Conditions: Battered, Bruised, Dead, Dying, Stabilized).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.dice import Dice
from ledger.rules.common import set_conditions
from ledger.rules.hnh.checks import Rolled, check_penalty, degrees, roll_check
from ledger.rules.hnh.conditions import CONDITIONS, HP_CONDITIONS
from ledger.sheet import Effect, Sheet

MAX_HP = 6  # Health Points: "Maximum HP ... is always equal to 6"
MINION_MAX_HP = 1  # "Minions who always have a maximum HP of 1"
HP_FLOOR = -3  # "At HP -3 (which is the minimum) you are dead"
VP = "victory-points"
NO_STABILIZE = "no-stabilize"  # dying imposed by circumstances: no stabilizing until they end
KEEP_ON_DEATH = ("revive-cooldown",)


def minion_rules(sheet: Sheet) -> bool:
    """At 1 HP or less a character is subject to minion rules (Health Points)."""
    return sheet.minion or sheet.hp <= 1


def hp_state(sheet: Sheet, new_hp: int, *, gained: bool, nonlethal: bool = False) -> set[str]:
    """The HP condition a new HP value gives (Health Points; Dying; Stabilized; Non-Lethal)."""
    if new_hp <= HP_FLOOR:
        return {"dead"}
    if new_hp >= 0:
        return {"battered"} if new_hp == 0 else set()
    if gained:  # "Gaining any amount of HP by any means causes stabilization if HP is still negative"
        return {"dying"} if sheet.counter(NO_STABILIZE) else {"stabilized"}
    if new_hp < sheet.hp or sheet.hp >= 0:
        return {"stabilized"} if nonlethal and sheet.hp >= 0 else {"dying"}
    current = {c for c in sheet.conditions if c in ("dying", "stabilized")}
    return current or {"dying"}


def death_effects(sheet: Sheet) -> list[Effect]:
    """Death: all other conditions removed, victory points lost (Death; Dead card)."""
    out = set_conditions(sheet, {"dead"}, CONDITIONS)
    vp = sheet.resources.get(VP, 0)
    if vp:
        out.append(Effect("ResourceChanged", sheet.name, {"resource": VP, "delta": -vp, "value": 0}))
    return out


def _death_counters(sheet: Sheet) -> dict[str, int | None]:
    return {k: None for k in sheet.counters if k not in KEEP_ON_DEATH}


def set_hp(
    sheet: Sheet,
    new_hp: int,
    *,
    counters: Mapping[str, int | None] | None = None,
    nonlethal: bool = False,
    note: str = "",
    event: str | None = None,
) -> list[Effect]:
    """Move HP to a value (clamped to -3 and max HP) with its HP conditions; death clears the rest."""
    new_hp = max(HP_FLOOR, min(new_hp, sheet.max_hp))
    gained = new_hp > sheet.hp
    if nonlethal and sheet.hp >= 0 and new_hp < 0:
        new_hp = -1
    ctr: dict[str, int | None] = dict(counters or {})
    if new_hp <= HP_FLOOR:
        ctr = _death_counters(sheet)
    if new_hp >= 0 and sheet.counter(NO_STABILIZE):
        ctr[NO_STABILIZE] = None
    event = event or ("HealthRecovered" if gained else "DamageApplied")
    data: dict[str, Any] = {"amount": abs(new_hp - sheet.hp), "hp": new_hp}
    if ctr:
        data["counters"] = ctr
    if note:
        data["note"] = note
    out = [Effect(event, sheet.name, data)]
    if new_hp <= HP_FLOOR:
        return out + death_effects(sheet)
    wanted = hp_state(sheet, new_hp, gained=gained, nonlethal=nonlethal)
    return out + set_conditions(sheet, wanted, HP_CONDITIONS)


def take_out_minion(sheet: Sheet, nonlethal: bool, note: str) -> list[Effect]:
    """A minion's worst result: dead (or -1 and stabilized if non-lethal); one of a group is simply gone."""
    if sheet.count > 1:
        return [Effect("MinionsDefeated", sheet.name, {"defeated": 1, "count": sheet.count - 1, "note": note})]
    return set_hp(sheet, -1 if nonlethal else HP_FLOOR, nonlethal=nonlethal, note=note)


def resistance_bonus(sheet: Sheet, defense: str) -> int:
    """A passive defense's bonus: Toughness less bruises (Bruised), plus conditions' penalties."""
    base = sheet.trait(defense, sheet.trait("stamina") if defense in ("toughness", "fortitude") else 0)
    if defense == "toughness":
        base -= sheet.counter("bruises")
    return base + check_penalty(sheet)


def resolve_damage(
    target: Sheet,
    rank: int,
    dice: Dice,
    *,
    options: Mapping[str, Any] | None = None,
    extra_dc: int = 0,
    worst: bool = False,
    finishing: bool = False,
    power_roll: str = "power",
    resist_roll: str = "toughness",
) -> list[Effect]:
    """Damage Check: power check (3dF + rank) against a Toughness check; tie a bruise, failure HP and a bruise."""
    opts = options or {}
    nonlethal = bool(opts.get("nonlethal"))
    defense = str(opts.get("resisted-by", "toughness")).lower()
    base = {"rank": rank, "defense": defense, "nonlethal": nonlethal, "character": target.name}
    if worst:  # Critical Hits, Increased Effect: "Against a minion, this bypasses the defense check entirely"
        res = {**base, "outcome": "failure", "worst": True, "bypassed": True}
        return [Effect("ResistanceResolved", target.name, res), *take_out_minion(target, nonlethal, "critical hit")]
    power = roll_check(dice, power_roll, rank + extra_dc, "power")
    resist = roll_check(dice, resist_roll, resistance_bonus(target, defense), "passive")
    diff = resist.total - power.total
    outcome = "success" if diff > 0 else "tie" if diff == 0 else "failure"
    data: dict[str, Any] = {
        **base,
        "power": power.data(),
        "resistance": resist.data(),
        "difference": diff,
        "outcome": outcome,
        "degrees": degrees(diff),
    }
    if outcome == "success":
        return [Effect("ResistanceResolved", target.name, data)]
    bruises = {"bruises": target.counter("bruises") + 1}
    if outcome == "tie":
        data.update(hp_lost=0, bruise=True)
        return [Effect("ResistanceResolved", target.name, data), *set_hp(target, target.hp, counters=bruises)]
    if target.minion:  # Minion Rules: "the minion suffers the worst degree of the effect"
        data.update(worst=True)
        return [Effect("ResistanceResolved", target.name, data), *take_out_minion(target, nonlethal, "worst degree")]
    if finishing and degrees(diff) >= 3:  # Finishing Attack: "three or more degrees of failure ... dies"
        data.update(finished=True)
        return [Effect("ResistanceResolved", target.name, data), *set_hp(target, HP_FLOOR, note="finishing attack")]
    data.update(hp_lost=-diff, bruise=True)
    return [
        Effect("ResistanceResolved", target.name, data),
        *set_hp(target, target.hp + diff, counters=bruises, nonlethal=nonlethal),
    ]


def passive_roll(sheet: Sheet, defense: str, dice: Dice, name: str, extra: int = 0) -> Rolled:
    """A passive defense check (Fortitude, Will, Toughness): criticals are +1 / -1."""
    return roll_check(dice, name, resistance_bonus(sheet, defense) + extra, "passive")
