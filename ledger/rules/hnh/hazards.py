"""H&H environmental hazards: heat and cold, starvation and thirst, suffocation, falling, decompression, vacuum.

Source: gameplay.txt / humans-and-heroes.txt (Environmental Hazards). Counters: hazard:KIND (previous checks
or successes), hazard:KIND-stage (how far suffocation has gone), no-stabilize (dying from the hazard).
Time is counted by the GM: each call is one check at the interval the text gives (returned in `interval`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.errors import BadInput, ImpossibleAction, did_you_mean
from ledger.model.dice import Dice
from ledger.model.sheet import (
    CHECK_RESOLVED,
    CONDITION_IMPOSED,
    CONDITION_REMOVED,
    COUNTERS_CHANGED,
    EFFECT_RESOLVED,
    TRAITS_CHANGED,
    Effect,
    Sheet,
    apply_all,
)
from ledger.rules.hnh import illness
from ledger.rules.hnh.checks import degrees
from ledger.rules.hnh.conditions import impose_effects, remove_effects
from ledger.rules.hnh.health import HP_FLOOR, NO_STABILIZE, passive_roll, resolve_damage, set_hp
from ledger.rules.hnh.options import INTERVALS
from ledger.rules.options import Options

KINDS = (
    "heat",
    "cold",
    "starvation",
    "thirst",
    "suffocation",
    "falling",
    "decompression",
    "vacuum",
    "sleep-deprivation",
    "forced-labor",
    "disease",
    "radiation",
)
DEADLY_DAYS = {"thirst": 3, "starvation": 7}  # "die after either 3 days without water or 7 days without food"
GRACE_DAYS = {"thirst": 1, "starvation": 3}  # "without water for a day ... without food for three days"
SUSTENANCE_INTERVAL = {"thirst": "1 hour", "starvation": "4 hours"}
FALL_MAX = 18
DECOMPRESSION_DC = 10
VACUUM_DC = 5


def _int(options: Options, key: str, default: int | None = None) -> int:
    v = options.get(key, default)
    if v is None:
        raise BadInput(f"this hazard needs {key}")
    try:
        return int(v)
    except (TypeError, ValueError):
        raise BadInput(f"{key} needs a whole number, got '{v}'") from None


def _counters(sheet: Sheet, ctr: Mapping[str, int | None]) -> Effect:
    return Effect(COUNTERS_CHANGED, sheet.name, {"counters": dict(ctr)})


def make_dying(sheet: Sheet, note: str) -> list[Effect]:
    """Dying by circumstances: HP -1 if not negative, and no stabilizing until the cause is gone."""
    out = set_hp(sheet, min(sheet.hp, -1), counters={NO_STABILIZE: 1}, note=note)
    now = apply_all(sheet, out)
    if not now.has("dying") and not now.has("dead"):
        out += [
            Effect(CONDITION_REMOVED, sheet.name, {"condition": "stabilized", "note": note}),
            Effect(CONDITION_IMPOSED, sheet.name, {"condition": "dying", "note": note}),
        ]
    return out


def worsen(sheet: Sheet, note: str) -> list[Effect]:
    """Heat and Cold: fatigued, exhausted, incapacitated (rather than asleep), then dying."""
    if sheet.hp < 0:
        return []
    if "incapacitated" in sheet.conditions:
        return make_dying(sheet, note)
    if "exhausted" in sheet.conditions:
        return impose_effects(sheet, "incapacitated", note)
    return impose_effects(sheet, "fatigued", note)  # fatigued + fatigued progresses to exhausted


def _check(sheet: Sheet, kind: str, dc: int, dice: Dice, extra: dict[str, Any]) -> tuple[bool, int, Effect]:
    r = passive_roll(sheet, "fortitude", dice, "fortitude")
    success = r.total >= dc
    data = {"hazard": kind, "trait": "fortitude", "dc": dc, **r.data(), "success": success}
    data.update(degrees=degrees(r.total - dc), **extra)
    return success, degrees(r.total - dc), Effect(CHECK_RESOLVED, sheet.name, data)


def end_hazard(sheet: Sheet, kind: str) -> list[Effect]:
    """The cause is gone: the hazard's counters reset and stabilizing is possible again."""
    keys = {k: None for k in sheet.counters if k == f"hazard:{kind}" or k.startswith(f"hazard:{kind}-")}
    out: list[Effect] = []
    if kind == "decompression":  # "after ... 1 minute decompression sickness ... is removed"
        for c in ("stunned", "incapacitated"):
            if c in sheet.conditions and sheet.counter("hazard:decompression-sick"):
                out += remove_effects(sheet, c, "decompression sickness over")
    if sheet.counter(NO_STABILIZE):
        keys[NO_STABILIZE] = None
    out.append(Effect(EFFECT_RESOLVED, sheet.name, {"hazard": kind, "ended": True}))
    return out + ([_counters(sheet, keys)] if keys else [])


def temperature(sheet: Sheet, kind: str, options: Options, dice: Dice) -> list[Effect]:
    """Heat And Cold / Starvation And Thirst: Fortitude DC 0 +1 per previous check, failure a level of fatigue."""
    extra: dict[str, Any] = {}
    if kind in DEADLY_DAYS:
        days = _int(options, "days", GRACE_DAYS[kind])
        if days >= DEADLY_DAYS[kind]:  # "do not roll a Fortitude check since it is impossible to pass"
            return [
                Effect(EFFECT_RESOLVED, sheet.name, {"hazard": kind, "days": days, "note": "dies"}),
                *set_hp(sheet, HP_FLOOR, note=f"{kind}: {days} days"),
            ]
        if days < GRACE_DAYS[kind]:
            return [Effect(EFFECT_RESOLVED, sheet.name, {"hazard": kind, "days": days, "note": "no check yet"})]
        extra = {"days": days, "interval": SUSTENANCE_INTERVAL[kind]}
    else:
        severity = str(options.get("severity", "uncomfortable")).lower()
        if severity not in INTERVALS:
            raise BadInput(f"severity is one of {', '.join(INTERVALS)}", "beyond extreme is an attack: use damage")
        extra = {"severity": severity, "interval": INTERVALS[severity]}
    previous = _int(options, "previous-checks", sheet.counter(f"hazard:{kind}"))
    success, _, eff = _check(sheet, kind, previous, dice, extra)
    out = [eff, _counters(sheet, {f"hazard:{kind}": previous + 1})]
    if not success:
        out += worsen(apply_all(sheet, out), kind)
    return out


def suffocation(sheet: Sheet, options: Options, dice: Dice) -> list[Effect]:
    """Suffocation: hold breath 10 + 2 x Stamina rounds, then Fortitude DC 0 +1 per success each round."""
    stage = sheet.counter("hazard:suffocation-stage")
    if stage == 1:  # "on the following round he is dying and his HP becomes -1"
        return [*make_dying(sheet, "suffocation"), _counters(sheet, {"hazard:suffocation-stage": 2})]
    if stage >= 2:
        return [Effect(EFFECT_RESOLVED, sheet.name, {"hazard": "suffocation", "note": "dying until able to breathe"})]
    hold = 10 + 2 * sheet.trait("stamina")
    rounds = _int(options, "rounds")
    if rounds <= hold:
        held = {"hazard": "suffocation", "rounds": rounds, "can_hold": hold, "rounds_left": hold - rounds}
        return [Effect(EFFECT_RESOLVED, sheet.name, held)]
    successes = _int(options, "previous-checks", sheet.counter("hazard:suffocation"))
    success, _, eff = _check(sheet, "suffocation", successes, dice, {"rounds": rounds, "can_hold": hold})
    if success:
        return [eff, _counters(sheet, {"hazard:suffocation": successes + 1})]
    out = [eff, _counters(sheet, {"hazard:suffocation-stage": 1})]
    return out + impose_effects(apply_all(sheet, out), "incapacitated", "suffocation")


def vacuum(sheet: Sheet, options: Options, dice: Dice) -> list[Effect]:
    """Vacuum: holding breath is Fortitude DC 5 +1 per round, success costs a Stamina rank; then suffocation."""
    stage = sheet.counter("hazard:vacuum-stage")
    if stage == 1:  # "the next round, he becomes incapacitated"
        return [_counters(sheet, {"hazard:vacuum-stage": 2}), *impose_effects(sheet, "incapacitated", "vacuum")]
    if stage == 2:  # "The following round, he's dying and his HP becomes -1"
        return [*make_dying(sheet, "vacuum"), _counters(sheet, {"hazard:vacuum-stage": 3})]
    if stage >= 3:
        return [Effect(EFFECT_RESOLVED, sheet.name, {"hazard": "vacuum", "note": "dying until back in atmosphere"})]
    if not options.get("holding", True):
        return [
            Effect(EFFECT_RESOLVED, sheet.name, {"hazard": "vacuum", "note": "stops holding breath: suffocates"}),
            _counters(sheet, {"hazard:vacuum-stage": 1}),
        ]
    previous = _int(options, "previous-checks", sheet.counter("hazard:vacuum"))
    success, _, eff = _check(sheet, "vacuum", VACUUM_DC + previous, dice, {})
    if not success:
        return [eff, _counters(sheet, {"hazard:vacuum": previous + 1, "hazard:vacuum-stage": 1})]
    traits = {"stamina": sheet.trait("stamina") - 1, "fortitude": sheet.trait("fortitude", sheet.trait("stamina")) - 1}
    return [
        eff,
        _counters(sheet, {"hazard:vacuum": previous + 1}),
        Effect(TRAITS_CHANGED, sheet.name, {"traits": traits, "note": "vacuum: a rank of Stamina lost"}),
    ]


def decompression(sheet: Sheet, options: Options, dice: Dice) -> list[Effect]:
    """Rapid Decompression: from the third round, Fortitude DC 10: failure stunned, two degrees incapacitated."""
    rounds = _int(options, "rounds")
    if rounds < 3:
        note = {"hazard": "decompression", "rounds": rounds, "note": "no check before round 3"}
        return [Effect(EFFECT_RESOLVED, sheet.name, note)]
    success, deg, eff = _check(sheet, "decompression", DECOMPRESSION_DC, dice, {"rounds": rounds})
    if success:
        return [eff]
    level = 2 if deg >= 2 else 1
    if sheet.counter("hazard:decompression-sick") >= level:
        return [eff]
    cond = "incapacitated" if level == 2 else "stunned"
    out = [eff, _counters(sheet, {"hazard:decompression-sick": level})]
    return out + impose_effects(apply_all(sheet, out), cond, "decompression sickness")


def falling(sheet: Sheet, options: Options, dice: Dice) -> list[Effect]:
    """Falling: damage rank (distance - size) x 2, at most 18; prone if accidental or the Toughness check failed."""
    distance = _int(options, "distance-rank")
    rank = min((distance - _int(options, "size", 0)) * 2, _int(options, "max-rank", FALL_MAX))
    accidental = bool(options.get("accidental"))
    data = {"hazard": "falling", "distance_rank": distance, "rank": rank, "accidental": accidental}
    out = [Effect(EFFECT_RESOLVED, sheet.name, data)]
    failed = False
    if rank > 0:
        dmg = resolve_damage(sheet, rank, dice)
        out += dmg
        failed = dmg[0].data.get("outcome") != "success"
    if (accidental or failed) and "prone" not in sheet.conditions:
        now = apply_all(sheet, out)
        if not now.has("dead"):
            out += impose_effects(now, "prone", "fell")
    return out


def resolve_hazard(sheet: Sheet, kind: str, options: Options, dice: Dice) -> list[Effect]:
    """One exposure to a hazard (one check at its interval), or its end with `ended`."""
    kind = kind.strip().lower()
    if kind not in KINDS:
        raise BadInput(f"unknown hazard '{kind}'", did_you_mean(kind, KINDS, f"hazards: {', '.join(KINDS)}"))
    if options.get("ended"):
        return end_hazard(sheet, kind) + (
            illness.cure(sheet, kind, options) if kind in ("disease", "radiation") else []
        )
    if sheet.has("dead"):
        raise ImpossibleAction(f"{sheet.name} is dead")
    if kind in ("heat", "cold", "starvation", "thirst"):
        return temperature(sheet, kind, options, dice)
    if kind in ("disease", "radiation"):
        return illness.contagion(sheet, kind, options, dice)
    if kind == "sleep-deprivation":
        return illness.sleep_deprivation(sheet, options, dice)
    if kind == "forced-labor":
        return illness.forced_labor(sheet, options, dice)
    return {"suffocation": suffocation, "vacuum": vacuum, "decompression": decompression, "falling": falling}[kind](
        sheet, options, dice
    )
