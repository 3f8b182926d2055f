"""H&H turns and time: start and end of turn, the dying check, recovery, revival, initiative, victory points.

Source: gameplay.txt / humans-and-heroes.txt (Initiative, Surprise, Starting Your Turn, Ending Your Turn,
Action Limitations, Recovery, Death), conditions.txt (Dying, Stabilized, Surprised), the-basics.txt (Victory Points).

Counters used here: bruises; revive-cooldown (rounds before another revival; one round passes at each of the
character's turn starts and 600 per hour of recovery); until-start-of-turn:COND / until-end-of-turn:COND (a
condition that ends then); all-out-attack / defensive-attack (until the attacker's next turn);
recovery-progress (hour-units towards the next HP); regeneration-progress; no-stabilize (dying from a hazard);
ongoing-damage (rank of Damage suffered at each end of turn, e.g. standing in a fire).
"""

from __future__ import annotations

import re
from typing import Any

from ledger.errors import BadInput, ImpossibleAction, did_you_mean
from ledger.model.dice import Dice
from ledger.model.sheet import (
    CHECK_RESOLVED,
    CONDITION_IMPOSED,
    CONDITION_REMOVED,
    COUNTERS_CHANGED,
    HEALTH_RECOVERED,
    Effect,
    Sheet,
    apply_all,
)
from ledger.rules.durations import counters_for, holds_duration, name_key
from ledger.rules.hnh import maneuvers, timed
from ledger.rules.hnh.afflictions import ongoing_checks, progress_pending
from ledger.rules.hnh.checks import defense_rank, roll_check, versus_dc
from ledger.rules.hnh.conditions import impose_effects, remove_effects
from ledger.rules.hnh.health import HP_FLOOR, NO_STABILIZE, passive_roll, resolve_damage, set_hp
from ledger.rules.hnh.powers import weaken_recovery
from ledger.rules.hnh.victory import DEFEND, feats_at_end, feats_at_start

DYING_DC = 5  # Dying: "make a Fortitude check (DC 5)"
TREATMENT_DC = 5  # Recovery: "a skill DC 5 Medical Treatment ... check"
REVIVE_COOLDOWN = 130  # Action Limitations: "13 minutes have passed (time rank 7). This would be 130 rounds"
ROUNDS_PER_HOUR = 600
REVIVE_MEANS = ("healing", "immortality")
ONGOING_DAMAGE = "ongoing-damage"
UNTIL = ("start", "end")
NEXT_END = "until-next-end-of-turn:"  # becomes until-end-of-turn: when the character's next turn starts


def _then(sheet: Sheet, effects: list[Effect]) -> Sheet:
    return apply_all(sheet, effects)


def until_effects(sheet: Sheet, condition: str, until: str, *, next_turn: bool = False) -> list[Effect]:
    """Impose a condition that lasts until the start or the end of the character's turn (next_turn: of the next one)."""
    if until not in UNTIL:
        raise BadInput(f"until is 'start' or 'end', not '{until}'")
    out = impose_effects(sheet, condition)
    # "the end of your next turn": the next turn must start first (set during a turn, that turn's end is not it)
    key = f"{NEXT_END}{condition}" if until == "end" and next_turn else f"until-{until}-of-turn:{condition}"
    return out + [Effect(COUNTERS_CHANGED, sheet.name, {"counters": {key: 1}})]


def as_duration(effect: Effect, up: str | None = None) -> Effect:
    """An effect whose `until-start-of-turn:COND` / `until-end-of-turn:COND` counters become the durations that end
    COND at the next start or end of the bearer's turn (ledger/rules/durations.py: `until-start:NAME:COND`), and
    `until-next-end-of-turn:COND` the one that ends it at the end of their next turn (not one in progress: `up`)."""
    if effect.event != COUNTERS_CHANGED:
        return effect
    counters: dict[str, Any] = {}
    for key, value in (effect.data.get("counters") or {}).items():
        if key.startswith(NEXT_END) and value:
            held = up is not None and name_key(up) == name_key(effect.target)
            counters.update(counters_for(key[len(NEXT_END) :], until="end", of=effect.target, held=held))
            continue
        when = next((w for w in UNTIL if key.startswith(f"until-{w}-of-turn:")), None)
        if when is None or not value:
            counters[key] = value
        else:
            counters.update(counters_for(key[len(f"until-{when}-of-turn:") :], until=when, of=effect.target))
    return Effect(effect.event, effect.target, {**effect.data, "counters": counters})


def _expire(sheet: Sheet, until: str) -> list[Effect]:
    """End the conditions that last until this point of the turn."""
    out: list[Effect] = []
    prefix = f"until-{until}-of-turn:"
    keys = sorted(k for k in sheet.counters if k.startswith(prefix))
    for k in keys:
        cond = k[len(prefix) :]
        if cond in sheet.conditions:
            note = f"until the {until} of the turn"
            out.append(Effect(CONDITION_REMOVED, sheet.name, {"condition": cond, "note": note}))
    if keys:
        out.append(Effect(COUNTERS_CHANGED, sheet.name, {"counters": {k: None for k in keys}}))
    return out


def regeneration_every(sheet: Sheet) -> int:
    """Rounds per HP from a Regeneration power ('every-rounds', or '1 HP every [other|N] round(s)' in its text)."""
    for p in sheet.powers.values():
        if str(p.get("effect", "")).lower() != "regeneration":
            continue
        if isinstance(p.get("every-rounds"), int):
            return int(p["every-rounds"])
        text = str(p.get("text", "")).lower()
        if "every other round" in text:
            return 2
        m = re.search(r"every (\d+) rounds", text)
        if m:
            return int(m.group(1))
        if "every round" in text:
            return 1
    return 0


def start_of_turn(sheet: Sheet, dice: Dice) -> list[Effect]:
    """Start of turn: 'until the start' effects end, surprise ends, regeneration, the dying check."""
    out = _expire(sheet, "start")
    ctr: dict[str, int | None] = {k: None for k in ("all-out-attack", "defensive-attack") if sheet.counter(k)}
    ctr.update({k: None for k in sheet.counters if k.startswith(DEFEND)})  # Defend: "until your next turn"
    ctr = {k: v for k, v in ctr.items() if not holds_duration(sheet, timed.name_of(k) or k)}  # a duration ends it
    ctr.update(feats_at_start(sheet))
    ctr.update(maneuvers.turn_started(sheet))
    for k in sheet.counters:
        if k.startswith(NEXT_END):  # this is the "next turn": its end ends the condition
            ctr.update({k: None, "until-end-of-turn:" + k[len(NEXT_END) :]: 1})
    if sheet.counter("revive-cooldown"):
        ctr["revive-cooldown"] = max(0, sheet.counter("revive-cooldown") - 1) or None
    if ctr:
        out.append(Effect(COUNTERS_CHANGED, sheet.name, {"counters": ctr}))
    if "surprised" in sheet.conditions:  # Surprised: "removed at the start of your turn"
        out.append(Effect(CONDITION_REMOVED, sheet.name, {"condition": "surprised", "note": "turn started"}))
    out += maneuvers.effort_cost(_then(sheet, out))  # Extra Effort: "At the start of the turn immediately after"
    now = _then(sheet, out)
    if now.has("dead"):
        return out
    out += progress_pending(now)
    now = _then(sheet, out)
    every = regeneration_every(now)
    if every and now.hp < now.max_hp:
        progress = now.counter("regeneration-progress") + 1
        gain = progress // every
        if gain:
            step = set_hp(now, now.hp + gain, counters={"regeneration-progress": progress % every}, note="regeneration")
        else:
            step = [Effect(COUNTERS_CHANGED, now.name, {"counters": {"regeneration-progress": progress}})]
        out += step
        now = _then(now, step)
    if now.has("dying"):
        out += dying_check(now, dice)
    return out


def dying_check(sheet: Sheet, dice: Dice) -> list[Effect]:
    """Dying: Diehard stabilizes; else Fortitude DC 5: by 1+ stabilized, exactly nothing, failure -1 HP."""
    can_stabilize = not sheet.counter(NO_STABILIZE)
    if can_stabilize and sheet.trait("diehard") > 0:
        note = {"condition": "stabilized", "note": "diehard"}
        return [
            Effect(CONDITION_REMOVED, sheet.name, {"condition": "dying", "note": "diehard"}),
            Effect(CONDITION_IMPOSED, sheet.name, note),
        ]
    r = passive_roll(sheet, "fortitude", dice, "fortitude")
    diff = r.total - DYING_DC
    outcome = "stabilized" if diff >= 1 and can_stabilize else "nothing" if diff >= 0 else "lose 1 HP"
    data = {
        "check": "dying",
        "trait": "fortitude",
        "dc": DYING_DC,
        **r.data(),
        "success": diff >= 0,
        "difference": diff,
        "outcome": outcome,
    }
    out = [Effect(CHECK_RESOLVED, sheet.name, data)]
    if outcome == "stabilized":
        out += [
            Effect(CONDITION_REMOVED, sheet.name, {"condition": "dying", "note": "dying check"}),
            Effect(CONDITION_IMPOSED, sheet.name, {"condition": "stabilized", "note": "dying check"}),
        ]
    elif outcome == "lose 1 HP":
        out += set_hp(sheet, sheet.hp - 1, note="dying check")
    return out


def end_of_turn(sheet: Sheet, dice: Dice) -> list[Effect]:
    """End of turn: 'until the end' effects end, ongoing affliction checks, then harmful ongoing damage."""
    out = _expire(sheet, "end")
    out += feats_at_end(_then(sheet, out))  # Heroic Feat: "until the end of your next turn"
    out += weaken_recovery(_then(sheet, out))  # Weaken: "Lost points return at a rate of 1 per round"
    out += maneuvers.turn_ended(_then(sheet, out))  # Feint, Aim and Aid end with the next turn
    now = _then(sheet, out)
    if now.has("dead"):
        return out
    out += ongoing_checks(now, dice)
    now = _then(sheet, out)
    rank = now.counter(ONGOING_DAMAGE)
    if rank > 0 and not now.has("dead"):  # Ending Your Turn: "taking damage each turn ... standing in a fire"
        out += resolve_damage(now, rank, dice)
    return out


def ongoing_damage(sheet: Sheet, rank: int | None) -> list[Effect]:
    """Set (or end with None/0) a harmful circumstance dealing Damage of a rank at the end of each turn."""
    if rank is not None and rank < 0:
        raise BadInput("an ongoing damage rank can't be negative")
    return [Effect(COUNTERS_CHANGED, sheet.name, {"counters": {ONGOING_DAMAGE: rank or None}})]


def recover(
    sheet: Sheet, hours: int, restful: bool, treated: bool, treatment_bonus: int | None, dice: Dice
) -> list[Effect]:
    """Recovery: 1 HP per 8 hours, doubled when restful, doubled by Treatment DC 5; bruises 1 per hour likewise."""
    if sheet.has("dead"):
        raise ImpossibleAction(f"{sheet.name} is dead: the dead don't recover", "only Healing or Immortality revive")
    if hours < 0:
        raise BadInput("hours can't be negative")
    out: list[Effect] = []
    rate = 2 if restful else 1
    if treatment_bonus is not None:  # the Treatment check decides, --treated or not
        r = roll_check(dice, "treatment", treatment_bonus, "ability")
        success, deg = versus_dc(r, TREATMENT_DC)
        data = {"check": "treatment", "dc": TREATMENT_DC, **r.data(), "success": success, "degrees": deg}
        out.append(Effect(CHECK_RESOLVED, sheet.name, data))
        treated = success
    rate *= 2 if treated else 1
    if sheet.has("dying") and treated and not sheet.counter(NO_STABILIZE):  # Treatment DC 5 stabilizes
        out += [
            Effect(CONDITION_REMOVED, sheet.name, {"condition": "dying", "note": "treatment"}),
            Effect(CONDITION_IMPOSED, sheet.name, {"condition": "stabilized", "note": "treatment"}),
        ]
    now = _then(sheet, out)
    blocked = any(now.counter(f"hazard:{k}") for k in ("thirst", "starvation"))  # "cannot recover until ..."
    units = 0 if blocked else hours * rate
    progress = now.counter("recovery-progress") + units
    room = max(0, now.max_hp - now.hp)
    gain = min(progress // 8, room)
    ctr: dict[str, int | None] = {"recovery-progress": (progress % 8 if gain < room else 0) or None}
    ctr["bruises"] = max(0, now.counter("bruises") - units) or None
    if now.counter("revive-cooldown"):
        ctr["revive-cooldown"] = max(0, now.counter("revive-cooldown") - hours * ROUNDS_PER_HOUR) or None
    step = set_hp(now, now.hp + gain, counters=ctr, note=f"{hours} h of recovery at x{rate}", event=HEALTH_RECOVERED)
    out += step
    now = _then(now, step)
    if hours >= 1 and "fatigued" in now.conditions:  # Fatigued: "after 1 hour of rest (even if awake)"
        step = remove_effects(now, "fatigued", "an hour of rest")
        out += step
        now = _then(now, step)
    if restful and hours >= 8 and "exhausted" in now.conditions:  # Exhausted: "after 8 hours of sleep"
        out += remove_effects(now, "exhausted", "8 hours of sleep")
    return out


def treatment(patient: Sheet, check: list[Effect]) -> list[Effect]:
    """Another character's successful Treatment check (DC 5) stabilizes a dying patient (conditions.txt, Dying)."""
    done = next((e.data for e in check if e.event == CHECK_RESOLVED), {})
    if "treatment" not in str(done.get("trait", "")):
        raise BadInput("a patient is treated with a Treatment check", "check NAME treatment --dc 5 -o patient=WHO")
    dc = done.get("dc")
    if not isinstance(dc, int) or dc < TREATMENT_DC:
        raise BadInput(f"stabilizing takes a Treatment check against DC {TREATMENT_DC}", "add --dc 5")
    if not patient.has("dying"):
        raise ImpossibleAction(f"{patient.name} is not dying", "Treatment stabilizes the dying (conditions.txt, Dying)")
    if not done.get("success") or patient.counter(NO_STABILIZE):
        return []
    note = "treatment"
    return [
        Effect(CONDITION_REMOVED, patient.name, {"condition": "dying", "note": note}),
        Effect(CONDITION_IMPOSED, patient.name, {"condition": "stabilized", "note": note}),
    ]


def revive(sheet: Sheet, means: str, hp: int = -2) -> list[Effect]:
    """Healing or Immortality (GM rulings) lift Dead; no second revival for 130 rounds (13 minutes)."""
    if means not in REVIVE_MEANS:
        raise BadInput(
            f"unknown way back from death '{means}'",
            did_you_mean(means, REVIVE_MEANS, f"choose one of: {', '.join(REVIVE_MEANS)}"),
        )
    if not sheet.has("dead"):
        raise ImpossibleAction(f"{sheet.name} is not dead")
    left = sheet.counter("revive-cooldown")
    if left > 0:
        raise ImpossibleAction(f"{sheet.name} was revived too recently", f"{left} more rounds before another revival")
    if not HP_FLOOR < hp <= sheet.max_hp:
        raise BadInput(f"a revived character's HP is between -2 and {sheet.max_hp}")
    return set_hp(sheet, hp, counters={"revive-cooldown": REVIVE_COOLDOWN}, note=f"revived by {means}")


def initiative(sheet: Sheet, dice: Dice) -> tuple[int, list[Effect]]:
    """Initiative: 3dF + Agility + Improved Initiative ranks; surprised -10 (Initiative, Surprise)."""
    surprised = -10 if "surprised" in sheet.conditions else 0
    bonus = sheet.trait("agility") + sheet.trait("improved-initiative") + surprised
    r = roll_check(dice, "initiative", bonus, "passive")  # a critical is +1 / -1: initiative has no DC to fail
    data: dict[str, Any] = {"check": "initiative", **r.data(), "surprised": bool(surprised)}
    out = [Effect(CHECK_RESOLVED, sheet.name, data)]
    if sheet.counter("seize-initiative"):  # spent: this initiative goes first (Seize Initiative)
        data["seized"] = True
        out.append(Effect(COUNTERS_CHANGED, sheet.name, {"counters": {"seize-initiative": None}}))
    return r.total, out


def tie_break_key(sheet: Sheet) -> tuple[int, int, int]:
    """Initiative ties: highest Dodge, then Agility, then Awareness (sort descending)."""
    return (defense_rank(sheet, "dodge"), sheet.trait("agility"), sheet.trait("awareness"))
