"""H&H hazards of the body: sleep deprivation, forced labor, disease and radiation.

Source: gameplay.txt (Environmental Hazards: Sleep Deprivation, Forced Labor, Disease, Radiation). Each `hazard`
call is one check at the interval the text gives (the GM counts time); `ended` (in hazards.py) resets the counters.
Counters: hazard:KIND (previous checks), hazard:sleep-deprivation (days counted), affliction:NAME:daily (a disease
checked each day, not at the end of turns), weaken-held:TRAIT (points a disease or radiation holds: they return
only once it has ended).
"""

from __future__ import annotations

from typing import Any

from ledger.errors import BadInput
from ledger.model.dice import Dice, ascii_int
from ledger.model.sheet import (
    CHECK_RESOLVED,
    CONDITION_IMPOSED,
    COUNTERS_CHANGED,
    EFFECT_RESOLVED,
    TRAITS_CHANGED,
    Effect,
    Sheet,
    apply_all,
)
from ledger.rules.hnh.afflictions import Affliction, change_degree, ongoing, parse_conditions, slug
from ledger.rules.hnh.checks import degrees
from ledger.rules.hnh.conditions import impose_effects, removed
from ledger.rules.hnh.health import HP_FLOOR, passive_roll, resolve_damage, set_hp
from ledger.rules.hnh.powers import ABILITY_FLOOR, WEAKENED
from ledger.rules.options import Options

SLEEP_STAGES = ((10, "incapacitated"), (5, "exhausted"), (2, "fatigued"))  # days without sleep -> condition
HELD = "weaken-held:"


def _int(options: Options, key: str, default: int | None = None) -> int:
    v = options.get(key, default)
    if v is None:
        raise BadInput(f"this hazard needs {key}", f"give -o {key}=N")
    try:
        return ascii_int(v)
    except ValueError:
        raise BadInput(f"option '{key}' needs a whole number, got '{v}'") from None


def sleep_deprivation(sheet: Sheet, options: Options, dice: Dice) -> list[Effect]:
    """Sleep Deprivation: a day is free; then fatigued, exhausted after 5 days, incapacitated after 10 (no check)."""
    days = _int(options, "days")
    stage = next((c for d, c in SLEEP_STAGES if days >= d), None)
    data = {"hazard": "sleep-deprivation", "days": days, "condition": stage}
    if stage == "incapacitated":
        data["note"] = "can't be woken up for 8 hours"
    out = [
        Effect(EFFECT_RESOLVED, sheet.name, data),
        Effect(COUNTERS_CHANGED, sheet.name, {"counters": {"hazard:sleep-deprivation": days}}),
    ]
    note = f"{days} days without sleep"
    if stage is None or stage in sheet.conditions:
        return out
    if stage == "exhausted":  # the stage is set, not added: exhausted replaces fatigued
        out += [removed(sheet, "fatigued", note)] if "fatigued" in sheet.conditions else []
        return out + [Effect(CONDITION_IMPOSED, sheet.name, {"condition": "exhausted", "note": note})]
    if stage == "fatigued" and "exhausted" in sheet.conditions:
        return out
    return out + impose_effects(sheet, stage, note)


def forced_labor(sheet: Sheet, options: Options, dice: Dice) -> list[Effect]:
    """Forced Labor: Fortitude DC 1 +1 per previous check; failure fatigued, exhausted, asleep (forced awake: dazed),
    then dying."""
    previous = _int(options, "previous-checks", sheet.counter("hazard:forced-labor"))
    dc = 1 + previous
    r = passive_roll(sheet, "fortitude", dice, "fortitude")
    success = r.total >= dc
    data = {
        "hazard": "forced-labor",
        "trait": "fortitude",
        "dc": dc,
        **r.data(),
        "success": success,
        "degrees": degrees(r.total - dc),
    }
    out = [
        Effect(CHECK_RESOLVED, sheet.name, data),
        Effect(COUNTERS_CHANGED, sheet.name, {"counters": {"hazard:forced-labor": previous + 1}}),
    ]
    if success or sheet.hp < 0:
        return out
    now = apply_all(sheet, out)
    if "exhausted" in now.conditions and "dazed" in now.conditions:  # "The next failed Fortitude check after that"
        return out + set_hp(now, -1, note="forced labor: dying")
    if "exhausted" in now.conditions and options.get("forced-awake"):  # "dazed (in addition to exhausted)"
        return out + impose_effects(now, "dazed", "forced labor: forced awake")
    return out + impose_effects(now, "fatigued", "forced labor")  # fatigued -> exhausted -> asleep


def contagion(sheet: Sheet, kind: str, options: Options, dice: Dice) -> list[Effect]:
    """Disease and Radiation: Fortitude against DC = rank (each day), failing into an Affliction, Weaken or Damage."""
    rank = _int(options, "rank")
    effect = str(options.get("effect") or ("weaken" if kind == "radiation" else "affliction"))
    name = slug(str(options.get("name") or kind))
    if effect == "damage":  # Radiation: "Damage resisted by Fortitude"
        note = Effect(EFFECT_RESOLVED, sheet.name, {"hazard": kind, "rank": rank, "effect": "damage"})
        return [note, *resolve_damage(sheet, rank, dice, options={"resisted-by": "fortitude"})]
    bonus = int(options.get("bonus") or 0)  # "A Treatment skill check can provide a bonus on defense checks"
    r = passive_roll(sheet, "fortitude", dice, "fortitude", bonus)
    success = r.total >= rank
    data: dict[str, Any] = {
        "hazard": kind,
        "name": name,
        "effect": effect,
        "trait": "fortitude",
        "dc": rank,
        **r.data(),
        "success": success,
        "degrees": degrees(r.total - rank),
    }
    out = [Effect(CHECK_RESOLVED, sheet.name, data)]
    if effect == "affliction":
        return out + _infect(sheet, name, rank, options, success, degrees(r.total - rank))
    if success:
        return out
    trait = str(options.get("trait") or "stamina")
    return out + _weaken(sheet, kind, trait, rank, rank - r.total)


def _infect(sheet: Sheet, name: str, rank: int, options: Options, success: bool, deg: int) -> list[Effect]:
    """A disease as an Affliction: failure infects at the degrees of failure; a later success ends it."""
    existing = next(((a, d) for a, d in ongoing(sheet) if a.name == name), None)
    if existing is None and "conditions" not in options:
        raise BadInput("a disease Affliction lists its conditions", "-o conditions=impaired,disabled,incapacitated")
    if success:
        return change_degree(sheet, existing[0], existing[1], 0, f"{name}: recovered") if existing else []
    a = existing[0] if existing else Affliction(name, rank, "fortitude", parse_conditions(options["conditions"]))
    old = existing[1] if existing else 0
    new = min(len(a.conditions), max(old, deg))
    out = change_degree(sheet, a, old, new, name)
    return out + [Effect(COUNTERS_CHANGED, sheet.name, {"counters": {f"affliction:{name}:daily": 1}})]


def _weaken(sheet: Sheet, kind: str, trait: str, rank: int, points: int) -> list[Effect]:
    """A disease's or radiation's Weaken: cumulative up to its rank, held until it ends; Stamina below -5 is death."""
    lost = sheet.counter(WEAKENED + trait)
    new_lost = max(lost, min(rank, lost + points))
    step = new_lost - lost
    current = sheet.trait(trait)
    if step <= 0:
        return []
    if (
        trait == "stamina" and current - step < ABILITY_FLOOR
    ):  # Disease: "Stamina may drop below -5, in which case death occurs"
        return set_hp(sheet, HP_FLOOR, note=f"{kind}: Stamina below -5")
    out = [
        Effect(TRAITS_CHANGED, sheet.name, {"traits": {trait: current - step}, "note": f"{kind}: weakened by {step}"}),
        Effect(
            COUNTERS_CHANGED,
            sheet.name,
            {
                "counters": {
                    WEAKENED + trait: new_lost,
                    HELD + trait: 1,
                    **({f"weakened-absent:{trait}": 1} if trait not in sheet.traits else {}),
                }
            },
        ),
    ]
    now = apply_all(sheet, out)
    if not now.has("weakened"):
        out += impose_effects(now, "weakened", kind)
    now = apply_all(sheet, out)
    if current - step <= ABILITY_FLOOR and not now.has("debilitated"):
        out += impose_effects(now, "debilitated", f"{trait} at -5")
    return out


def cure(sheet: Sheet, kind: str, options: Options) -> list[Effect]:
    """A disease or radiation ends (cured, left behind): its Weaken points start returning; a named disease ends."""
    out: list[Effect] = []
    held = {k: None for k in sheet.counters if k.startswith(HELD)}
    if held:
        out.append(Effect(COUNTERS_CHANGED, sheet.name, {"counters": held}))
    name = slug(str(options.get("name") or kind))
    found = next(((a, d) for a, d in ongoing(sheet) if a.name == name), None)
    if found is not None:
        out += change_degree(apply_all(sheet, out), found[0], found[1], 0, f"{name}: cured")
    return out
