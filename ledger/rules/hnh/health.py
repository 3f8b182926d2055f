"""H&H health: HP and its conditions, death, the Damage resistance check and bruises.

Source: humans-and-heroes.txt / gameplay.txt (Health Points, Death, Minion Rules), hnh-site/effect-damage.txt
(Damage Check, Non-Lethal), conditions.txt (Damage Conditions: Battered, Bruised, Dead, Dying, Stabilized).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.model.dice import Dice
from ledger.model.sheet import (
    CONDITION_IMPOSED,
    CONDITION_REMOVED,
    COUNTERS_CHANGED,
    DAMAGE_APPLIED,
    HEALTH_RECOVERED,
    MINIONS_DEFEATED,
    RESISTANCE_RESOLVED,
    RESOURCE_CHANGED,
    Effect,
    Sheet,
    apply_all,
)
from ledger.rules.common import set_conditions
from ledger.rules.hnh.checks import Rolled, check_penalty, defense_rank, degrees, roll_check
from ledger.rules.hnh.conditions import CONDITIONS, HP_CONDITIONS, closure, penalty_source, wake
from ledger.rules.options import Options

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
    out = set_conditions(sheet, {"dead", "prone"}, CONDITIONS)  # Incapacitated card: "you fall prone"
    vp = sheet.resources.get(VP, 0)
    if vp:
        out.append(Effect(RESOURCE_CHANGED, sheet.name, {"resource": VP, "delta": -vp, "value": 0}))
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
    event = event or (HEALTH_RECOVERED if gained else DAMAGE_APPLIED)
    data: dict[str, Any] = {"amount": abs(new_hp - sheet.hp), "hp": new_hp}
    if ctr:
        data["counters"] = ctr
    if note:
        data["note"] = note
    out = [Effect(event, sheet.name, data)]
    if new_hp <= HP_FLOOR:
        return out + death_effects(sheet)
    wanted = hp_state(sheet, new_hp, gained=gained, nonlethal=nonlethal)
    out += set_conditions(sheet, wanted, HP_CONDITIONS)
    if wanted & {"dying", "stabilized"} and "incapacitated" not in closure(sheet.conditions) and not sheet.has("prone"):
        out.append(
            Effect(CONDITION_IMPOSED, sheet.name, {"condition": "prone", "note": "the incapacitated fall prone"})
        )
    return out


def take_out_minion(sheet: Sheet, nonlethal: bool, note: str) -> list[Effect]:
    """A minion's worst result: dead (or -1 and stabilized if non-lethal); one of a group is simply gone."""
    if sheet.count > 1:
        return [
            Effect(MINIONS_DEFEATED, sheet.name, {"defeated": 1, "count": sheet.count - 1, "note": note}),
            *next_member(sheet),
        ]
    return set_hp(sheet, -1 if nonlethal else HP_FLOOR, nonlethal=nonlethal, note=note)


def next_member(sheet: Sheet) -> list[Effect]:
    """The next member of a minion group starts fresh: no bruise, counter or condition of the fallen one carries
    over."""
    note = "the next member of the group starts fresh"
    out: list[Effect] = []
    if sheet.counters:
        out.append(Effect(COUNTERS_CHANGED, sheet.name, {"counters": {k: None for k in sheet.counters}}))
    out += [Effect(CONDITION_REMOVED, sheet.name, {"condition": c, "note": note}) for c in sheet.conditions]
    if sheet.hp != sheet.max_hp:
        out.append(
            Effect(HEALTH_RECOVERED, sheet.name, {"amount": sheet.max_hp - sheet.hp, "hp": sheet.max_hp, "note": note})
        )
    return out


def resistance_parts(sheet: Sheet, defense: str) -> dict[str, int]:
    """A passive defense's bonus by source: the defense, less bruises on Toughness (Bruised), a condition's penalty."""
    parts = {defense: defense_rank(sheet, defense)}
    if defense == "toughness" and sheet.counter("bruises"):
        parts["bruises"] = -sheet.counter("bruises")
    penalty = check_penalty(sheet)
    if penalty:
        parts[penalty_source(sheet)] = penalty
    return parts


def resistance_bonus(sheet: Sheet, defense: str) -> int:
    """A passive defense's bonus: Toughness less bruises (Bruised), plus conditions' penalties."""
    return sum(resistance_parts(sheet, defense).values())


def resolve_damage(
    target: Sheet,
    rank: int,
    dice: Dice,
    *,
    options: Options | None = None,
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
        woke = wake(target)
        after = take_out_minion(apply_all(target, woke), nonlethal, "critical hit")
        return [Effect(RESISTANCE_RESOLVED, target.name, res), *woke, *after]
    power = roll_check(dice, power_roll, rank + extra_dc, "power")
    resist = roll_check(dice, resist_roll, resistance_bonus(target, defense), "passive")
    diff = resist.total - power.total
    outcome = "success" if diff > 0 else "tie" if diff == 0 else "failure"
    data: dict[str, Any] = {
        **base,
        "power": power.data(),
        "resistance": {**resist.data(), "parts": resistance_parts(target, defense)},  # the die line's terms
        "difference": diff,
        "outcome": outcome,
        "degrees": degrees(diff),
    }
    if outcome == "success":
        return [Effect(RESISTANCE_RESOLVED, target.name, data)]
    woke = wake(target)  # a tie still affects the sleeper (a bruise)
    hit = apply_all(target, woke)
    bruises = {"bruises": hit.counter("bruises") + 1}
    if outcome == "tie":
        after = set_hp(hit, hit.hp, counters=bruises)
        data.update(hp_lost=0, bruise=True)
    elif target.minion:  # Minion Rules: "the minion suffers the worst degree of the effect"
        after = take_out_minion(hit, nonlethal, "worst degree")
        data.update(worst=True)
    elif finishing and degrees(diff) >= 3:  # Finishing Attack: "three or more degrees of failure ... dies"
        after = set_hp(hit, HP_FLOOR, note="finishing attack")
        data.update(finished=True)
    else:
        after = set_hp(hit, hit.hp + diff, counters=bruises, nonlethal=nonlethal)
        data.update(_lost(hit, after), bruise=True)
    return [Effect(RESISTANCE_RESOLVED, target.name, data), *woke, *after]


def _lost(sheet: Sheet, after: list[Effect]) -> dict[str, int]:
    """`hp_lost`: the HP the effects actually took (floors and Non-Lethal included), 0 when HP did not change."""
    hp = next((e.data["hp"] for e in after if e.target == sheet.name and e.event == DAMAGE_APPLIED), sheet.hp)
    return {"hp_lost": max(0, sheet.hp - hp)}


def passive_roll(sheet: Sheet, defense: str, dice: Dice, name: str, extra: int = 0) -> Rolled:
    """A passive defense check (Fortitude, Will, Toughness): criticals are +1 / -1."""
    return roll_check(dice, name, resistance_bonus(sheet, defense) + extra, "passive")
