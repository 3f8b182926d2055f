"""H&H Healing, Weaken and Nullify, with the minion rules for Weaken and Nullify.

Source: gameplay.txt (Recovery: "See Healing and Regeneration effects"; Minion Rules: Nullify and Weaken),
conditions.txt (Weakened, Debilitated), and the Humans & Heroes site's effect pages that gameplay.txt names but
../shared/rules does not hold (Healing, Weaken, Nullify: character-creation/powers/effects/*.html of
SkySpiral7/Humans-and-Heroes); every reading is in docs/interpretations.md (Healing, Weaken and Nullify).

Counters: weakened:TRAIT (points lost, 1 point = 1 rank), weakened-absent:TRAIT (the trait was not on the sheet:
it goes again when recovered), nullified:POWER (the power is switched off until its user turns it on again).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.errors import BadInput, ImpossibleAction
from ledger.model.dice import Dice
from ledger.model.sheet import (
    CHECK_RESOLVED,
    CONDITION_REMOVED,
    COUNTERS_CHANGED,
    HEALTH_RECOVERED,
    RESISTANCE_RESOLVED,
    TRAITS_CHANGED,
    Effect,
    Sheet,
    apply_all,
)
from ledger.rules.hnh.afflictions import change_degree, ongoing, slug
from ledger.rules.hnh.checks import ABILITIES, DEFENSES, Rolled, defense_rank, degrees, find_power, roll_check
from ledger.rules.hnh.conditions import impose_effects, require_able
from ledger.rules.hnh.health import passive_roll, set_hp
from ledger.rules.options import Options

HEALING_DC = 2  # Healing: "Make a DC 2 Healing power check"
ABILITY_FLOOR = -5  # Weaken: "Abilities weakened to a rank of -5 (which is the minimum) become debilitated"
WEAKENED = "weakened:"
ABSENT = "weakened-absent:"


def power_rank(sheet: Sheet, effect: str, options: Options) -> int:
    """The rank given, else the rank of the sheet's first power of that effect."""
    if "rank" in options:
        return int(options["rank"])
    found = next((p for p in sheet.powers.values() if str(p.get("effect", "")).lower() == effect), None)
    if found is None:
        raise BadInput(f"{sheet.name} has no {effect.capitalize()} power", "give its rank: -o rank=N")
    return int(found.get("rank", 0))


# -- Healing -----------------------------------------------------------------------------------------
def heal(healer: Sheet, subject: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """Healing: power check (roll `power`) against DC 2; the difference is HP healed; Restorative also clears bruises."""
    require_able(healer, "heal")
    target = subject or healer
    if target.has("dead"):
        raise ImpossibleAction(
            f"{target.name} is dead: Healing doesn't heal the dead", "Resurrection: ledger revive NAME --means healing"
        )
    rank = power_rank(healer, "healing", options)
    r = roll_check(dice, "power", rank, "power")
    diff = r.total - HEALING_DC
    restorative = bool(options.get("restorative"))
    data: dict[str, Any] = {
        "check": "healing",
        "healer": healer.name,
        "subject": target.name,
        "rank": rank,
        "dc": HEALING_DC,
        **r.data(),
        "difference": diff,
        "success": diff > 0,
    }
    if diff < 0:
        data.update(healed=0, note="failed: wait one minute (or use extra effort) to try again")
        return [Effect(CHECK_RESOLVED, target.name, data)]
    if diff == 0:
        data.update(healed=0, note="a tie: no HP, but try again next round without penalty")
        return [Effect(CHECK_RESOLVED, target.name, data)]
    hp_gain = min(diff, target.max_hp - target.hp)
    bruises = min(diff - hp_gain, target.counter("bruises")) if restorative else 0
    data.update(healed=hp_gain, bruises_removed=bruises)
    out = [Effect(CHECK_RESOLVED, target.name, data)]
    if hp_gain or bruises:
        ctr: dict[str, int | None] = {"bruises": (target.counter("bruises") - bruises) or None} if bruises else {}
        out += set_hp(
            target, target.hp + hp_gain, counters=ctr, note=f"healed by {healer.name}", event=HEALTH_RECOVERED
        )
    return out


# -- Weaken -----------------------------------------------------------------------------------------
def weaken_trait(options: Options, power: Mapping[str, Any]) -> str:
    """The weakened trait: option `trait`, else the power's."""
    trait = str(options.get("trait") or power.get("trait") or "").strip().lower()
    if not trait:
        raise BadInput("a Weaken names the trait it lowers", "give -o trait=strength (or any trait)")
    return trait


def minion_power_roll(attacker: Sheet, target: Sheet, dice: Dice, rank: int, nullify: bool) -> Rolled:
    """The power check, with the minion rules: a minion against a non-minion rolls -3; a non-minion's Nullify against a minion +3."""
    if attacker.minion and not target.minion:  # "considered to have rolled a -3 ... not ... a critical failure"
        return Rolled("power", (), rank, rank - 3)
    if (
        nullify and target.minion and not attacker.minion
    ):  # "considered to have rolled a +3 ... not ... a critical success"
        return Rolled("power", (), rank, rank + 3)
    return roll_check(dice, "power", rank, "power")


def resolve_weaken(
    attacker: Sheet, target: Sheet, rank: int, trait: str, defense: str, dice: Dice, extra_dc: int = 0
) -> list[Effect]:
    """Fortitude or Will against the Weaken power check; failure lowers the trait by the difference, up to the rank."""
    power = minion_power_roll(attacker, target, dice, rank + extra_dc, nullify=False)
    resist = passive_roll(target, defense, dice, "toughness")
    diff = resist.total - power.total
    data: dict[str, Any] = {
        "effect": "Weaken",
        "trait": trait,
        "rank": rank,
        "defense": defense,
        "character": target.name,
        "power": {**power.data(), **({"minion_rule": power.total - power.bonus} if not power.faces else {})},
        "resistance": resist.data(),
        "difference": diff,
    }
    if diff >= 0:
        return [Effect(RESISTANCE_RESOLVED, target.name, {**data, "outcome": "success"})]
    lost = target.counter(WEAKENED + trait)
    wanted = rank if target.minion else -diff  # Minion Rules: "the minion suffers the worst degree"
    new_lost = max(lost, min(rank, lost + wanted))  # "cumulative, up to a maximum of the Weaken rank"
    current = _rank(target, trait)
    if trait in ABILITIES:
        new_lost = min(new_lost, lost + current - ABILITY_FLOOR)  # "-5 ... is the minimum"
    step = new_lost - lost
    data.update(outcome="failure", degrees=degrees(diff), points_lost=step, worst=target.minion)
    out = [Effect(RESISTANCE_RESOLVED, target.name, data)]
    if step <= 0:
        return out
    ctr: dict[str, int | None] = {WEAKENED + trait: new_lost}
    if trait not in target.traits:
        ctr[ABSENT + trait] = 1
    out += [
        Effect(TRAITS_CHANGED, target.name, {"traits": {trait: current - step}, "note": f"weakened by {step}"}),
        Effect(COUNTERS_CHANGED, target.name, {"counters": ctr}),
    ]
    now = apply_all(target, out)
    if not now.has("weakened"):
        out += impose_effects(now, "weakened", "Weaken")
    now = apply_all(target, out)
    if trait in ABILITIES and current - step <= ABILITY_FLOOR and not now.has("debilitated"):
        out += impose_effects(now, "debilitated", f"{trait} at -5")
    return out


def _rank(sheet: Sheet, trait: str) -> int:
    """A trait's current rank (defenses from their ability when absent)."""
    return defense_rank(sheet, trait) if trait in DEFENSES else sheet.trait(trait)


def weaken_recovery(sheet: Sheet) -> list[Effect]:
    """End of turn: 1 weakened point returns per trait; the conditions go when nothing is lost any more."""
    keys = sorted(
        k for k in sheet.counters if k.startswith(WEAKENED) and not sheet.counter("weaken-held:" + k[len(WEAKENED) :])
    )
    if not keys:
        return []
    traits: dict[str, int | None] = {}
    ctr: dict[str, int | None] = {}
    for k in keys:
        trait = k[len(WEAKENED) :]
        left = sheet.counter(k) - 1
        back = sheet.trait(trait) + 1
        gone = left <= 0 and sheet.counter(ABSENT + trait) > 0
        traits[trait] = None if gone else back
        ctr[k] = left or None
        if left <= 0:
            ctr[ABSENT + trait] = None
    out = [
        Effect(TRAITS_CHANGED, sheet.name, {"traits": traits, "note": "a weakened point returns"}),
        Effect(COUNTERS_CHANGED, sheet.name, {"counters": ctr}),
    ]
    now = apply_all(sheet, out)
    if now.has("debilitated") and all(now.trait(a) > ABILITY_FLOOR for a in ABILITIES if a in now.traits):
        out.append(Effect(CONDITION_REMOVED, sheet.name, {"condition": "debilitated", "note": "above -5 again"}))
    if not any(k.startswith(WEAKENED) for k in now.counters) and now.has("weakened"):
        out.append(Effect(CONDITION_REMOVED, sheet.name, {"condition": "weakened", "note": "all points back"}))
    return out


# -- Nullify ------------------------------------------------------------------------------------------
def resolve_nullify(attacker: Sheet, target: Sheet, rank: int, options: Options, dice: Dice) -> list[Effect]:
    """Nullify rank against the targeted effect's rank or the target's Will, whichever is higher (or an affliction's rank)."""
    name = str(options.get("nullify") or "").strip()
    if not name:
        raise BadInput(
            "a Nullify names the effect it counters", "-o nullify=POWER (the target's) or an affliction on the target"
        )
    defense = "fortitude" if str(options.get("resisted-by") or "will") == "fortitude" else "will"
    key = find_power(target, name)
    affliction = next(((a, d) for a, d in ongoing(target) if a.name == slug(name)), None)
    if key is None and affliction is None:
        raise BadInput(
            f"{target.name} has no power or ongoing affliction '{name}'",
            f"powers: {', '.join(target.powers) or 'none'}",
        )
    power = minion_power_roll(attacker, target, dice, rank, nullify=True)
    if (
        key is not None
    ):  # against the user: "the targeted effect's rank or the target's Will defense, whichever is higher"
        effect_rank = int(target.powers[key].get("rank", 0))
        bonus = max(effect_rank, defense_rank(target, defense))
        against: dict[str, Any] = {"power": key, "effect_rank": effect_rank, "defense": defense}
    else:  # "targeting the subject of an effect ...: Nullify rank vs. effect rank"
        assert affliction is not None
        bonus = affliction[0].rank
        against = {"affliction": affliction[0].name, "effect_rank": bonus}
    theirs = roll_check(dice, "toughness", bonus, "power")
    diff = power.total - theirs.total
    won = diff > 0 or (diff == 0 and power.bonus > theirs.bonus)
    data = {
        "effect": "Nullify",
        "rank": rank,
        "character": target.name,
        **against,
        "difference": diff,
        "power": {**power.data(), **({"minion_rule": power.total - power.bonus} if not power.faces else {})},
        "resistance": theirs.data(),
        "outcome": "nullified" if won else "failure",
        "degrees": degrees(diff),
    }
    if not won and degrees(diff) >= 2:
        data["note"] = "two or more degrees of failure: trying again this scene needs extra effort"
    out = [Effect(RESISTANCE_RESOLVED, target.name, data)]
    if not won:
        return out
    if key is not None:
        return out + [Effect(COUNTERS_CHANGED, target.name, {"counters": {f"nullified:{key}": 1}})]
    assert affliction is not None
    return out + change_degree(target, affliction[0], affliction[1], 0, f"{affliction[0].name}: nullified")
