"""H&H Affliction: degrees of failure impose the listed conditions; ongoing checks shake them off.

Source: hnh-site/effect-affliction.txt (Affliction, Cumulative, Progressive, Regressive, Unrecoverable),
gameplay.txt (Ongoing Effects, Minion Rules), conditions.txt (defense check frequency on the cards).

An ongoing affliction lives in the target's counters (ints only), all keys under "affliction:NAME":
  affliction:NAME              current degree (1-3)
  affliction:NAME:rank         effect rank, the DC of later defense checks
  affliction:NAME:will         1 when resisted by Will (else Fortitude)
  affliction:NAME:D:CONDITION  1 for each condition at degree D
  affliction:NAME:cumulative / :progressive / :regressive / :unrecoverable / :instant-recovery   1 when it has it
  affliction:NAME:rounds       the target's turns ended since the last check (for checks each minute/hour)
  affliction:NAME:pending      1: a Progressive affliction worsens at the start of the next turn
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ledger.errors import BadInput
from ledger.model.dice import Dice
from ledger.model.sheet import COUNTERS_CHANGED, RESISTANCE_RESOLVED, Effect, Sheet, apply_all
from ledger.rules.hnh.checks import degrees, roll_check
from ledger.rules.hnh.conditions import CONDITIONS, HP_CONDITIONS, closure, impose_effects, wake, withdraw
from ledger.rules.hnh.health import passive_roll, take_out_minion
from ledger.rules.hnh.options import FLAGS
from ledger.rules.options import Options

ROUNDS_PER_MINUTE = 10
OUT_OF_THE_FIGHT = frozenset({"incapacitated", "asleep", "paralyzed"})  # a group member so afflicted has fallen
ROUNDS_PER_HOUR = 600


@dataclass(frozen=True)
class Affliction:
    """An Affliction effect: its name, rank, defense, conditions per degree and extras."""

    name: str
    rank: int
    defense: str
    conditions: tuple[tuple[str, ...], ...]
    flags: frozenset[str] = frozenset()

    def at(self, degree: int) -> tuple[str, ...]:
        """Conditions imposed at a degree (capped at the last degree the effect has)."""
        return self.conditions[min(degree, len(self.conditions)) - 1] if degree > 0 else ()


def slug(text: str) -> str:
    """Lower-case hyphenated key."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def parse_conditions(value: Any) -> tuple[tuple[str, ...], ...]:
    """Conditions per degree: a list or a comma string; 'dazed+hindered' imposes both at that degree."""
    items = value.split(",") if isinstance(value, str) else list(value or [])
    out: list[tuple[str, ...]] = []
    for item in items:
        parts = item if isinstance(item, (list, tuple)) else str(item).split("+")
        conds = tuple(str(p).strip().lower() for p in parts if str(p).strip())
        for c in conds:
            if c not in CONDITIONS or c in HP_CONDITIONS:
                raise BadInput(f"'{c}' is not a condition an Affliction can impose")
        out.append(conds)
    if not 1 <= len(out) <= 3:
        raise BadInput("an Affliction lists conditions for 1 to 3 degrees", "e.g. dazed,stunned,incapacitated")
    return tuple(out)


def affliction_from(name: str, power: Mapping[str, Any], options: Options) -> Affliction:
    """The Affliction a power (or the options) describes; options override the power."""
    rank = int(options.get("rank", power.get("rank", 0)) or 0)
    defense = str(options.get("resisted-by", power.get("resisted-by", "fortitude"))).lower()
    if defense not in ("fortitude", "will"):
        raise BadInput(f"an Affliction is resisted by fortitude or will, not '{defense}'")
    conds = options.get("conditions", power.get("conditions"))
    if not conds:
        raise BadInput(f"Affliction '{name}' lists no conditions", "give conditions=first,second,third")
    flags = frozenset(f for f in FLAGS if options.get(f, power.get(f)))
    per = parse_conditions(conds)
    limited = int(options.get("limited-degree", power.get("limited-degree", 0)) or 0)
    if limited:  # Limited Degree: "no more than two degrees of effect (the last degree does nothing)"
        per = per[: max(1, min(len(per), 3 - limited))]
    empty = int(options.get("empty-degree", power.get("empty-degree", 0)) or 0)
    if empty:  # Empty Degree: "Choose any degree except your last, that degree now does nothing"
        if empty >= len(per):
            raise BadInput(
                f"the empty degree must come before the last ({len(per)})", f"-o empty-degree=1..{len(per) - 1}"
            )
        per = tuple(() if d == empty else c for d, c in enumerate(per, start=1))
    return Affliction(slug(name), rank, defense, per, flags)


def ongoing(sheet: Sheet) -> list[tuple[Affliction, int]]:
    """The ongoing afflictions recorded on a sheet, with their current degrees."""
    out = []
    for key, degree in sorted(sheet.counters.items()):
        parts = key.split(":")
        if len(parts) != 2 or parts[0] != "affliction":
            continue
        name, pre = parts[1], f"affliction:{parts[1]}:"
        per = [tuple(sorted(k.split(":")[3] for k in sheet.counters if k.startswith(f"{pre}{d}:"))) for d in (1, 2, 3)]
        while per and not per[-1]:
            per.pop()
        flags = frozenset(f for f in FLAGS if sheet.counter(pre + f))
        defense = "will" if sheet.counter(pre + "will") else "fortitude"
        out.append((Affliction(name, sheet.counter(pre + "rank"), defense, tuple(per) or ((),), flags), degree))
    return out


def counters_at(a: Affliction, degree: int) -> dict[str, int | None]:
    """The counters that record an ongoing affliction at a degree."""
    pre = f"affliction:{a.name}"
    out: dict[str, int | None] = {pre: degree, f"{pre}:rank": a.rank, f"{pre}:rounds": 0}
    if a.defense == "will":
        out[f"{pre}:will"] = 1
    for d, conds in enumerate(a.conditions, start=1):
        out.update({f"{pre}:{d}:{c}": 1 for c in conds})
    out.update({f"{pre}:{f}": 1 for f in a.flags})
    return out


def clear(sheet: Sheet, name: str) -> dict[str, int | None]:
    """Counters deletions that end an ongoing affliction."""
    pre = f"affliction:{name}"
    return {k: None for k in sheet.counters if k == pre or k.startswith(pre + ":")}


def change_degree(sheet: Sheet, a: Affliction, old: int, new: int, note: str) -> list[Effect]:
    """Replace the conditions of the old degree by those of the new (higher replaces lower; 0 ends it)."""
    out: list[Effect] = []
    keep = set(a.at(new))
    current = sheet
    for c in a.at(old):
        if c not in keep:  # withdrawn, progression included (Ongoing Effects: "removes conditions imposed by it")
            step = withdraw(current, c, note)
            out += step
            current = apply_all(current, step)
    for c in a.at(new):
        if c not in a.at(old) or c not in current.conditions:
            step = impose_effects(current, c, note)
            out += step
            current = apply_all(current, step)
    counters = counters_at(a, new) if new > 0 else clear(sheet, a.name)
    out.append(Effect(COUNTERS_CHANGED, sheet.name, {"counters": counters}))
    return out


def resolve_affliction(
    target: Sheet, a: Affliction, dice: Dice, *, extra_dc: int = 0, worst: bool = False, resist_roll: str = "toughness"
) -> list[Effect]:
    """Fortitude or Will check against the Affliction power check; failure imposes conditions by degree."""
    existing = next((d for x, d in ongoing(target) if x.name == a.name), 0)
    base = {"effect": "Affliction", "name": a.name, "rank": a.rank, "defense": a.defense, "character": target.name}
    if worst:
        data: dict[str, Any] = {**base, "outcome": "failure", "worst": True, "bypassed": True, "degrees": 3}
        failed = len(a.conditions)
    else:
        power = roll_check(dice, "power", a.rank + extra_dc, "power")
        resist = passive_roll(target, a.defense, dice, resist_roll)
        diff = resist.total - power.total
        data = {**base, "power": power.data(), "resistance": resist.data(), "difference": diff}
        if diff >= 0:  # Graded Checks: "a difference of 0 going to the defender"
            return [Effect(RESISTANCE_RESOLVED, target.name, {**data, "outcome": "success"})]
        failed = len(a.conditions) if target.minion else degrees(diff)
        data.update(outcome="failure", degrees=degrees(diff), worst=target.minion)
    new = min(len(a.conditions), existing + failed if "cumulative" in a.flags else max(existing, failed))
    data.update(degree=new, conditions=list(a.at(new)))
    woke = wake(target)
    if target.minion and target.count > 1 and closure(a.at(new)) & OUT_OF_THE_FIGHT:  # one member falls
        data.update(defeated=True)
        return [
            Effect(RESISTANCE_RESOLVED, target.name, data),
            *woke,
            *take_out_minion(apply_all(target, woke), False, f"{a.name}: worst degree"),
        ]
    after = change_degree(apply_all(target, woke), a, existing, new, a.name)
    return [Effect(RESISTANCE_RESOLVED, target.name, data), *woke, *after]


def _due(a: Affliction, degree: int, rounds: int) -> bool:
    """Whether this turn's end brings a defense check (cards: defense check frequency)."""
    conds = a.at(degree)
    if degree <= 2 or "controlled" in conds:
        return True
    return rounds % (ROUNDS_PER_HOUR if "asleep" in conds else ROUNDS_PER_MINUTE) == 0


def ongoing_checks(sheet: Sheet, dice: Dice) -> list[Effect]:
    """End of turn: a defense check (DC = rank) for each ongoing affliction due; success ends it."""
    out: list[Effect] = []
    for a, degree in ongoing(sheet):
        current = apply_all(sheet, out)
        pre = f"affliction:{a.name}"
        if current.counter(pre + ":daily"):  # a disease: checked each day (`hazard NAME disease`), not each turn
            continue
        rounds = current.counter(pre + ":rounds") + 1
        if "instant-recovery" in a.flags:  # Instant Recovery: "only lasts 1 round ... recovers automatically"
            out += change_degree(current, a, degree, 0, f"{a.name}: instant recovery")
            continue
        if "unrecoverable" in a.flags or not _due(a, degree, rounds):
            out.append(Effect(COUNTERS_CHANGED, sheet.name, {"counters": {pre + ":rounds": rounds}}))
            continue
        r = passive_roll(current, a.defense, dice, f"ongoing-{a.name}")
        success = r.total >= a.rank
        data = {"effect": "Affliction", "name": a.name, "dc": a.rank, "defense": a.defense, **r.data()}
        data.update(success=success, degrees=degrees(r.total - a.rank), ongoing=True)
        out.append(Effect(RESISTANCE_RESOLVED, sheet.name, data))
        if success:
            new = max(0, degree - degrees(r.total - a.rank)) if "regressive" in a.flags else 0
            out += change_degree(current, a, degree, new, f"{a.name}: shaken off")
        else:
            ctr: dict[str, int | None] = {pre + ":rounds": 0}
            if "progressive" in a.flags and degree < len(a.conditions):
                ctr[pre + ":pending"] = 1
            out.append(Effect(COUNTERS_CHANGED, sheet.name, {"counters": ctr}))
    return out


def progress_pending(sheet: Sheet) -> list[Effect]:
    """Start of turn: a Progressive affliction that was not shaken off worsens by one degree."""
    out: list[Effect] = []
    for a, degree in ongoing(sheet):
        if sheet.counter(f"affliction:{a.name}:pending"):
            current = apply_all(sheet, out)
            out += change_degree(current, a, degree, degree + 1, f"{a.name}: progressive")
            out.append(Effect(COUNTERS_CHANGED, sheet.name, {"counters": {f"affliction:{a.name}:pending": None}}))
    return out
