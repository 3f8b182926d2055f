"""Deciders of the table commands: rolls, damage, conditions, and the rules' actions (attack, check, recover, ...).

Each reads the world through the draft, asks the campaign's rules, and records the effects. Option values in
an intent are typed and validated before the ruling is decided (Ledger methods, ledger/rules/options.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ledger.errors import BadInput, Conflict, LedgerError
from ledger.model.event_names import COUNTERS_CHANGED
from ledger.model.sheet import Effect
from ledger.rules.contract import Recovery
from ledger.rulings.deciders import economy
from ledger.rulings.deciders.common import apply_and_settle, own_rolls, resource_holder, rules_of, turn_note, warned
from ledger.rulings.draft import Draft

if TYPE_CHECKING:
    from ledger.rulings.intents import (
        ActIntent,
        ActResult,
        AttackIntent,
        AttackResult,
        CharacterResult,
        CheckIntent,
        CheckResult,
        ConditionIntent,
        DamageIntent,
        GainIntent,
        HazardIntent,
        RecoverIntent,
        ReviveIntent,
        RollIntent,
        RollResult,
        SpendIntent,
    )


def roll(d: Draft, i: RollIntent) -> RollResult:
    """A free roll (roll name `roll`), for a character or no one."""
    spec = rules_of(d).roll_spec(i["expr"])
    owner = i.get("for")
    d.expect_roll("roll", spec, owner=d.character(owner).name if owner else None)
    r = d.dice.take("roll", spec)
    d.flush_dice()
    return {"roll": r.to_data()}


def damage(d: Draft, i: DamageIntent) -> CharacterResult:
    """Direct HP loss (`amount`), or an effect rank resisted by a roll (`rank`, H&H)."""
    rules = rules_of(d)
    sheet = d.sheet(i["target"])
    if "rank" in i:
        own_rolls(d, rules, "damage", None, sheet.name, i["options"])
        d.apply(rules.resist_damage(sheet, i["rank"], i["options"], d.dice))
    else:
        d.apply(rules.damage(sheet, i["amount"], subdual=i["subdual"]))
    return {"character": d.sheet(sheet.name).to_dict()}


def condition_add(d: Draft, i: ConditionIntent) -> CharacterResult:
    """Impose a condition of the campaign's system."""
    return _condition(d, i, add=True)


def condition_remove(d: Draft, i: ConditionIntent) -> CharacterResult:
    """Remove a condition of the campaign's system."""
    return _condition(d, i, add=False)


def _condition(d: Draft, i: ConditionIntent, *, add: bool) -> CharacterResult:
    rules = rules_of(d)
    cond = i["condition"]
    if cond not in rules.conditions:
        from ledger.rules.options import suggest

        raise BadInput(f"unknown condition '{cond}' in {rules.title}", suggest(cond, rules.conditions))
    sheet = d.sheet(i["target"])
    if add and sheet.has(cond) and not rules.progresses(cond):
        raise Conflict(f"{sheet.name} is already {cond}")
    if not add and not rules.holds(sheet, cond):
        through = rules.implied_by(sheet, cond)
        if through:
            try:  # the hint: remove what brings it, if the GM can
                rules.remove(sheet, through[0])
                hint = f"remove {through[0]} instead"
            except LedgerError as e:
                hint = e.message
            raise Conflict(f"{sheet.name} is {cond} through {' and '.join(through)}, not on its own", hint)
        raise Conflict(f"{sheet.name} is not {cond}", f"conditions now: {', '.join(sheet.conditions) or 'none'}")
    from ledger.rulings.deciders import durations

    if add:
        timed = durations.impose(d, rules, sheet, cond, i)
        d.apply([*rules.impose(sheet, cond), *timed])
    else:
        stale = durations.durations.of_condition(sheet, cond)
        d.apply(
            [
                *rules.remove(sheet, cond),
                *([Effect(COUNTERS_CHANGED, sheet.name, {"counters": stale})] if stale else []),
            ]
        )
    return {"character": d.sheet(sheet.name).to_dict()}


def attack(d: Draft, i: AttackIntent) -> AttackResult:
    """One attack resolved by the campaign's rules."""
    rules = rules_of(d)
    a, t = d.sheet(i["attacker"]), d.sheet(i["target"])
    own_rolls(d, rules, "attack", a.name, t.name, i["options"])
    apply_and_settle(d, rules, rules.attack(a, t, i["options"], d.dice))
    warning = economy.tally(d, rules, a, "attack", i["options"], t.name)
    return {
        "attacker": d.sheet(a.name).to_dict(),
        "target": d.sheet(t.name).to_dict(),
        **warned(warning),
        **turn_note(d, a.name),
    }


def check(d: Draft, i: CheckIntent) -> CheckResult:
    """A check against a DC (or threshold option) or opposed by another character's trait."""
    rules = rules_of(d)
    sheet = d.sheet(i["name"])
    against = i.get("against")
    other = (d.sheet(against[0]), against[1]) if against else None
    own_rolls(d, rules, "check", sheet.name, other[0].name if other else None, i["options"])
    effects = rules.check(sheet, i["trait"], dc=i["dc"], against=other, options=i["options"], dice=d.dice)
    apply_and_settle(d, rules, effects)
    return {"character": d.sheet(sheet.name).to_dict(), **turn_note(d, sheet.name)}


def recover(d: Draft, i: RecoverIntent) -> CharacterResult:
    """Recovery over time, or healing the GM rules."""
    rules = rules_of(d)
    sheet = d.sheet(i["target"])
    opts = i["options"]
    own_rolls(d, rules, "recover", sheet.name, None, opts)
    ask = Recovery(i["hours"], bool(i["restful"]), bool(i["treated"]), i["amount"], i["cause"], opts)
    d.apply(rules.recover(sheet, ask, d.dice))
    return {"character": d.sheet(sheet.name).to_dict()}


def spend(d: Draft, i: SpendIntent) -> CharacterResult:
    """Spend a resource (victory points, Resolve, Adversity)."""
    rules = rules_of(d)
    sheet = resource_holder(d, rules, i["name"])
    d.apply(rules.spend(sheet, i["resource"], i["n"], i.get("purpose")))
    return {"character": d.sheet(sheet.name).to_dict()}


def gain(d: Draft, i: GainIntent) -> CharacterResult:
    """Gain a resource."""
    rules = rules_of(d)
    sheet = resource_holder(d, rules, i["name"])
    d.apply(rules.gain(sheet, i["resource"], i["n"], i.get("reason")))
    return {"character": d.sheet(sheet.name).to_dict()}


def hazard(d: Draft, i: HazardIntent) -> CharacterResult:
    """An environmental hazard check."""
    rules = rules_of(d)
    sheet = d.sheet(i["target"])
    own_rolls(d, rules, "hazard", sheet.name, None, i["options"])
    d.apply(rules.hazard(sheet, i["kind"], i["options"], d.dice))
    return {"character": d.sheet(sheet.name).to_dict()}


def revive(d: Draft, i: ReviveIntent) -> CharacterResult:
    """Bring the dead back, as the GM rules."""
    rules = rules_of(d)
    sheet = d.sheet(i["target"])
    by = i.get("by")
    other = d.sheet(by) if by else None
    d.apply(rules.revive(sheet, means=i["means"], by=other))
    return {"character": d.sheet(sheet.name).to_dict()}


def act(d: Draft, i: ActIntent) -> ActResult:
    """A system-specific action (`ledger act NAME ACTION`)."""
    rules = rules_of(d)
    sheet = d.sheet(i["name"])
    against = i.get("against")
    other = d.sheet(against) if against else None
    own_rolls(d, rules, f"act {i['action']}", sheet.name, other.name if other else None, i["options"])
    apply_and_settle(d, rules, rules.perform(i["action"], sheet, other, i["options"], d.dice))
    warning = economy.tally(d, rules, sheet, f"act {i['action']}", i["options"], other.name if other else None)
    result: ActResult = {
        "character": d.sheet(sheet.name).to_dict(),
        **warned(warning),
        **turn_note(d, sheet.name),
    }
    if other is not None:
        result["against"] = d.sheet(other.name).to_dict()
    return result
