"""H&H victory points: a new in-game day, spending them as the text says, improving a roll, and the Defend action.

Source: the-basics.txt (Victory Points, Using Victory Points: Edit Scene, Heroic Feat, Improve Roll, Inspiration,
Instant Counter, Negate Complication, Recover) and gameplay.txt (Defend - Standard Action).

Counters: heroic-feat:ADVANTAGE (1 when spent, 2 once the character's next turn has started; the advantage's
rank ends with that turn), defend:DEFENSE (until the start of the character's next turn).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ledger.errors import BadInput, ImpossibleAction
from ledger.model.dice import Dice, DiceSpec, Roll
from ledger.model.sheet import (
    COUNTERS_CHANGED,
    EFFECT_RESOLVED,
    RESOURCE_CHANGED,
    TRAITS_CHANGED,
    Effect,
    Sheet,
    apply_all,
)
from ledger.rules.durations import holds_duration
from ledger.rules.hnh.afflictions import clear, ongoing
from ledger.rules.hnh.conditions import closure, imposed, remove_effects, removed, require_able
from ledger.rules.hnh.health import VP
from ledger.rules.options import Options, Role

STARTING_VP = 2  # the-basics.txt, Victory Points: "Players start each in game day with 2 Victory points"
RECOVERABLE = ("dazed", "fatigued", "stunned", "asleep", "exhausted")  # Recover: and asleep/exhausted convert
NOTED = ("edit-scene", "inspiration", "instant-counter", "negate-complication")  # the GM resolves the rest
PURPOSES = ("improve-roll", "recover", "heroic-feat", *NOTED)
FEAT = "heroic-feat:"
DEFEND = "defend:"


def new_day(heroes: list[Sheet]) -> list[Effect]:
    """Each living hero's victory points become 2: the unspent don't carry over (Victory Points)."""
    out = []
    for h in heroes:
        have = h.resources.get(VP, 0)
        if h.has("dead") or have == STARTING_VP:
            continue
        data = {"resource": VP, "delta": STARTING_VP - have, "value": STARTING_VP, "reason": "a new in-game day"}
        out.append(Effect(RESOURCE_CHANGED, h.name, data))
    return out


def pay(sheet: Sheet, n: int, purpose: str) -> Effect:
    """The victory points a use costs; the dead and the overspent are refused."""
    if sheet.has("dead"):  # gameplay.txt, Death: "he loses all victory points"
        raise ImpossibleAction(f"{sheet.name} is dead and has no victory points to spend")
    if n < 1:
        raise BadInput("spend at least 1")
    have = sheet.resources.get(VP, 0)
    if n > have:
        raise ImpossibleAction(f"{sheet.name} has {have} victory point{'s' if have != 1 else ''}, not {n}")
    return Effect(RESOURCE_CHANGED, sheet.name, {"resource": VP, "delta": -n, "value": have - n, "purpose": purpose})


def spend(sheet: Sheet, n: int, purpose: str | None) -> list[Effect]:
    """`spend NAME victory-points [N] [--purpose P]`: pay, then do what the use says (Using Victory Points)."""
    if purpose is None:
        return [pay(sheet, n, "unspecified")]
    use, _, what = purpose.strip().lower().partition(":")
    if use not in PURPOSES:
        raise BadInput(
            f"'{purpose}' is not a use of victory points",
            f"uses: {', '.join(PURPOSES)} (recover:CONDITION, heroic-feat:ADVANTAGE)",
        )
    if use == "improve-roll":
        raise BadInput(
            "a roll is improved in the ruling that makes it", "add -o improve=ROLL to that command (e.g. improve=check)"
        )
    if use == "recover":
        return recover(sheet, n, what)
    if use == "heroic-feat":
        return heroic_feat(sheet, n, what)
    note = {
        "victory_point": use,
        "note": "resolved by the GM as its own ruling" if use == "instant-counter" else "GM's ruling",
    }
    return [pay(sheet, n, use), Effect(EFFECT_RESOLVED, sheet.name, note)]


def recover(sheet: Sheet, n: int, what: str) -> list[Effect]:
    """Recover: remove dazed, fatigued or stunned; asleep becomes exhausted, exhausted fatigued (one per point)."""
    if n != 1:
        raise BadInput("each victory point recovers from one condition", "spend 1 per condition")
    have = [c for c in RECOVERABLE if c in closure(sheet.conditions) and _recoverable(sheet, c)]
    if not what:
        if len(have) != 1:
            raise BadInput(
                f"name the condition {sheet.name} recovers from",
                f"--purpose recover:CONDITION ({', '.join(have) or 'none applies'})",
            )
        what = have[0]
    if what not in RECOVERABLE:
        raise BadInput(f"victory points don't recover from '{what}'", f"recoverable: {', '.join(RECOVERABLE)}")
    if what not in have:
        raise ImpossibleAction(
            f"{sheet.name} is not {what} in a way a victory point removes", "the-basics.txt, Recover"
        )
    note = "victory point: recover"
    out = [pay(sheet, 1, f"recover:{what}")]
    if what == "asleep":  # "convert the asleep condition into exhausted"
        out.append(removed(sheet, "asleep", note))
        if "exhausted" not in sheet.conditions:
            out += [removed(sheet, "fatigued", note)] if sheet.has("fatigued") else []
            out.append(imposed(sheet, "exhausted", note))
        return out
    if what == "exhausted":  # "and exhausted into a fatigued condition"
        out += [removed(sheet, "exhausted", note), imposed(sheet, "fatigued", note)]
    else:
        out += remove_effects(sheet, what, note)
    return out + released(apply_all(sheet, out), what)


def released(sheet: Sheet, what: str) -> list[Effect]:
    """An affliction whose hold was the recovered condition ends with it: no more checks, no progression.

    An affliction whose degree still imposes other conditions keeps running on those, without the recovered one.
    """
    out: list[Effect] = []
    for a, degree in ongoing(sheet):
        held = set(a.at(degree))
        if what not in closure(held):
            continue
        pre = f"affliction:{a.name}"
        if not (held - {what}) or all(c not in sheet.conditions for c in held - {what}):
            out.append(Effect(COUNTERS_CHANGED, sheet.name, {"counters": clear(sheet, a.name)}))
        else:
            gone = {f"{pre}:{d}:{what}": None for d in (1, 2, 3) if sheet.counter(f"{pre}:{d}:{what}")}
            out.append(Effect(COUNTERS_CHANGED, sheet.name, {"counters": gone}))
    return out


def _recoverable(sheet: Sheet, condition: str) -> bool:
    """Imposed, or a part of staggered (dazed) or entranced (stunned): not of incapacitation or an HP condition."""
    if condition in sheet.conditions:
        return True
    return any(condition in closure([c]) and c in ("staggered", "entranced") for c in sheet.conditions)


def heroic_feat(sheet: Sheet, n: int, advantage: str) -> list[Effect]:
    """Heroic Feat: one rank of an advantage the hero lacks, until the end of their next turn."""
    if n != 1:
        raise BadInput("a heroic feat costs 1 victory point")
    key = advantage.strip().lower().replace(" ", "-")
    if not key:
        raise BadInput("name the advantage", "--purpose heroic-feat:ADVANTAGE, e.g. heroic-feat:improved-initiative")
    if sheet.trait(key) > 0 or sheet.counter(FEAT + key):
        raise ImpossibleAction(
            f"{sheet.name} already has {key}", "a heroic feat grants an advantage you don't already have"
        )
    return [
        pay(sheet, 1, f"heroic-feat:{key}"),
        Effect(TRAITS_CHANGED, sheet.name, {"traits": {key: 1}, "note": "heroic feat: until the end of the next turn"}),
        Effect(COUNTERS_CHANGED, sheet.name, {"counters": {FEAT + key: 1}}),
    ]


def feats_at_start(sheet: Sheet) -> dict[str, int | None]:
    """A turn starts: heroic feats spent before it now last until its end."""
    return {k: 2 for k, v in sheet.counters.items() if k.startswith(FEAT) and v == 1 and not _counted(sheet, k)}


def _counted(sheet: Sheet, key: str) -> bool:
    """Whether a duration counts this feat (the tracker's version 3, ledger/rules/hnh/timed.py): it ends it."""
    return holds_duration(sheet, f"heroic feat ({key[len(FEAT) :]})")


def feats_at_end(sheet: Sheet) -> list[Effect]:
    """The end of the turn after the spend: the feat's advantage goes."""
    done = [k for k, v in sheet.counters.items() if k.startswith(FEAT) and v >= 2 and not _counted(sheet, k)]
    if not done:
        return []
    traits: dict[str, int | None] = {k[len(FEAT) :]: None for k in done}
    return [
        Effect(TRAITS_CHANGED, sheet.name, {"traits": traits, "note": "heroic feat over"}),
        Effect(COUNTERS_CHANGED, sheet.name, {"counters": {k: None for k in done}}),
    ]


# -- Improve Roll ---------------------------------------------------------------------------------
@dataclass
class Improving:
    """Dice that re-roll the named rolls (as NAME-reroll) and hand back the better of the two."""

    dice: Dice
    names: frozenset[str]
    kept: dict[str, dict[str, Any]] = field(default_factory=dict)

    def take(self, name: str, spec: DiceSpec) -> Roll:
        """The roll, or the better of it and its re-roll (the first on a tie)."""
        first = self.dice.take(name, spec)
        if name not in self.names:
            return first
        again = self.dice.take(f"{name}-reroll", spec)
        better = again if sum(again.faces) > sum(first.faces) else first
        self.kept[name] = {
            "first": list(first.faces),
            "reroll": list(again.faces),
            "kept": "reroll" if better is again else "first",
        }
        return Roll(name, spec, better.faces, better.source)


Rule = Callable[[Dice, Sheet | None, Sheet | None], list[Effect]]


def improved(
    owners: Mapping[str, Role],
    actor: Sheet | None,
    other: Sheet | None,
    options: Options,
    dice: Dice,
    rule: Rule,
) -> list[Effect]:
    """Run a rule with `improve` rolls: each costs its owner 1 victory point, paid before the outcome is known."""
    names = list(options.get("improve") or [])
    if not names:
        return rule(dice, actor, other)
    spends: list[Effect] = []
    for name in names:
        role = owners.get(name)
        owner = actor if role == "actor" else other if role == "other" else None
        if owner is None:
            raise BadInput(
                f"roll '{name}' is no character's own roll", "the-basics.txt, Improve Roll: only your own rolls"
            )
        current = apply_all(owner, spends)
        if VP not in current.resources:
            raise ImpossibleAction(f"{owner.name} has no victory points", "only heroes (--pc) have them")
        spends.append(pay(current, 1, f"improve-roll:{name}"))
    a = apply_all(actor, spends) if actor is not None else None
    o = apply_all(other, spends) if other is not None else None
    box = Improving(dice, frozenset(names))
    out = rule(box, a, o)
    missing = [n for n in names if n not in box.kept]
    if missing:
        raise BadInput(f"roll '{missing[0]}' is not made in this ruling: nothing to improve", "leave it out of improve")
    notes = [Effect(EFFECT_RESOLVED, "", {"victory_point": "improve-roll", "roll": n, **box.kept[n]}) for n in names]
    return [*spends, *notes, *out]


# -- Defend ---------------------------------------------------------------------------------------
def defend(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """Defend: until the next turn, the chosen active defense's dice count at least 1; no attack this turn."""
    require_able(actor, "defend")
    which = str(options.get("defense") or "")
    if which not in ("dodge", "parry"):
        raise BadInput("choose the active defense", "-o defense=dodge or -o defense=parry")
    data = {"action": "defend", "defense": which, "until": "the start of the next turn"}
    return [
        Effect(EFFECT_RESOLVED, actor.name, data),
        Effect(COUNTERS_CHANGED, actor.name, {"counters": {DEFEND + which: 1}}),
    ]


def own_area_rolls(
    attacker: Sheet,
    caught: Sequence[tuple[Sheet, int]],
    names: list[str],
    dice: Dice,
    rule: Callable[[Dice, Sheet], list[Effect]],
) -> list[Effect]:
    """An area attack in which heroes caught improve their own rolls (`Bob.dodge`, `Bob.toughness`; the attacker
    their `power`): 1 victory point each from the roll's owner, paid first (the-basics.txt, Improve Roll: "re-roll any
    dice roll you make")."""
    by = {s.name.casefold(): s for s, _ in caught}
    spends: list[Effect] = []
    paid: dict[str, Sheet] = {}
    exact: list[str] = []
    for name in names:
        head, dot, tail = name.rpartition(".")
        owner = by.get(head.casefold()) if dot else attacker if name == "power" else None
        if owner is None:
            raise BadInput(
                f"roll '{name}' is no caught hero's own roll", "improve Bob.dodge or Bob.toughness of a target caught"
            )
        exact.append(f"{owner.name}.{tail}" if dot else name)
        current = apply_all(paid.get(owner.name, owner), spends)
        if VP not in current.resources:
            raise ImpossibleAction(f"{owner.name} has no victory points", "only heroes (--pc) have them")
        step = pay(current, 1, f"improve-roll:{exact[-1]}")
        spends.append(step)
        paid[owner.name] = owner
    box = Improving(dice, frozenset(exact))
    out = rule(box, apply_all(attacker, spends) if attacker.name in paid else attacker)
    missing = [n for n in exact if n not in box.kept]
    if missing:
        raise BadInput(f"roll '{missing[0]}' is not made in this ruling: nothing to improve", "leave it out of improve")
    notes = [Effect(EFFECT_RESOLVED, "", {"victory_point": "improve-roll", "roll": n, **box.kept[n]}) for n in exact]
    return [*spends, *notes, *out]
