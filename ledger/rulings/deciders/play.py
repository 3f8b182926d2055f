"""Deciders of the table commands: rolls, damage, conditions, and the rules' actions (attack, check, recover, ...).

Each reads the world through the draft, asks the campaign's rules, and records the effects. Option values in
an intent are typed and validated before the ruling is decided (Ledger methods, ledger/rules/options.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ledger.errors import BadInput, Conflict, LedgerError
from ledger.model.event_names import COUNTERS_CHANGED
from ledger.model.sheet import Effect, Sheet
from ledger.rules.contract import FOURTH, Recovery, RuleSystem
from ledger.rules.options import Options, suggest
from ledger.rulings.deciders import durations, economy
from ledger.rulings.deciders.common import apply_and_settle, own_rolls, resource_holder, rules_of, turn_note, warned
from ledger.rulings.deciders.durations import PAGES
from ledger.rulings.draft import Draft

if TYPE_CHECKING:
    from ledger.intents import (
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
        d.apply(durations.own(d, rules, rules.resist_damage(sheet, i["rank"], i["options"], d.dice), PAGES))
    else:  # a defeat by an effect that damage brings lasts the rest of the scene (P&P): a duration, from version 3
        d.apply(durations.own(d, rules, rules.damage(sheet, i["amount"], subdual=i["subdual"]), PAGES))
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
    """One attack resolved by the campaign's rules; several targets (or members of a group caught) are an area."""
    rules = rules_of(d)
    a, t = d.sheet(i["attacker"]), d.sheet(i["target"])
    caught = area_targets(d, i)
    own_rolls(d, rules, "attack", a.name, t.name, i["options"])
    if caught is None:
        alias_single(d, t.name)
        apply_and_settle(d, rules, durations.own(d, rules, rules.attack(a, t, i["options"], d.dice)))
    else:
        area_rolls(d, rules, [s.name for s, _ in caught], i["options"])
        apply_and_settle(d, rules, durations.own(d, rules, rules.attack_area(a, caught, i["options"], d.dice)))
    warning = economy.tally(d, rules, a, "attack", i["options"], t.name)
    out: AttackResult = {
        "attacker": d.sheet(a.name).to_dict(),
        "target": d.sheet(t.name).to_dict(),
        **warned(warning),
        **turn_note(d, a.name),
    }
    if caught is not None:
        out["targets"] = [d.sheet(s.name).to_dict() for s, _ in caught]
    return out


def area_targets(d: Draft, i: AttackIntent) -> list[tuple[Sheet, int]] | None:
    """The targets of an attack on several (each with how many of a minion group are caught); None: one target."""
    names = [i["target"], *i.get("also", [])]
    in_area: dict[str, int] = dict(i.get("in_area") or {})
    if len(names) == 1 and not in_area:
        return None
    sheets = [d.sheet(n) for n in names]
    keys = {s.name.casefold() for s in sheets}
    if len(keys) != len(sheets):
        raise BadInput("a target is named twice", "name each target caught in the area once")
    for group in in_area:
        if group.casefold() not in keys:
            if rules_of(d).since(FOURTH):  # from version 4 a group caught is a target named as one
                raise BadInput(
                    f"--in-area {group}: {group} is not one of the targets",
                    f"name it as a target too: attack {i['attacker']} {' '.join(names)} {group} --in-area {group}=N",
                )
            sheets.append(d.sheet(group))
            keys.add(sheets[-1].name.casefold())
    caught = []
    for s in sheets:
        n = next((v for k, v in in_area.items() if k.casefold() == s.name.casefold()), 1)
        if n != 1 and not s.minion:
            raise BadInput(f"{s.name} is not a minion group", "--in-area is for how many of a group are caught")
        if not 1 <= n <= max(s.count, 1):
            raise BadInput(f"{s.name} has {s.count} standing, not {n}", f"--in-area {s.name}=1..{s.count}")
        caught.append((s, n))
    return caught


def area_rolls(d: Draft, rules: RuleSystem, names: list[str], opts: Options) -> None:
    """Name each target's own rolls (`TARGET.dodge`, `TARGET.toughness`), entered names matched case-insensitively."""
    wanted = {f"{n}.{r}{again}": n for n in names for r in ("dodge", "toughness") for again in ("", "-reroll")}
    for key in list(d.dice.entered):
        exact = next((w for w in wanted if w.casefold() == key.casefold()), None)
        if exact and exact != key:
            d.dice.rename_entered(key, exact)
    for roll, owner in wanted.items():
        d.expect_roll(roll, owner=owner)
    before = d.roll_allowed
    d.allow_entered(
        lambda name, text: (
            rules.entered_spec(name, text, opts) if name in wanted else before(name, text) if before else None
        )
    )


def alias_single(d: Draft, target: str) -> None:
    """One target: `TARGET.dodge` / `TARGET.toughness` entered are its `dodge` / `toughness` rolls."""
    for roll in ("dodge", "toughness"):
        key = next((k for k in d.dice.entered if k.casefold() == f"{target}.{roll}".casefold()), None)
        if key is not None and roll not in d.dice.entered:
            d.dice.rename_entered(key, roll)


def check(d: Draft, i: CheckIntent) -> CheckResult:
    """A check against a DC (or threshold option) or opposed by another character's trait."""
    rules = rules_of(d)
    sheet = d.sheet(i["name"])
    against = i.get("against")
    other = (d.sheet(against[0]), against[1]) if against else None
    own_rolls(d, rules, "check", sheet.name, other[0].name if other else None, i["options"])
    effects = rules.check(sheet, i["trait"], dc=i["dc"], against=other, options=i["options"], dice=d.dice)
    if i["options"].get("patient"):
        effects += rules.treatment(d.sheet(i["options"]["patient"]), effects)
    apply_and_settle(d, rules, effects)
    return {"character": d.sheet(sheet.name).to_dict(), **turn_note(d, sheet.name)}


def recover(d: Draft, i: RecoverIntent) -> CharacterResult:
    """Recovery over time, or healing the GM rules."""
    rules = rules_of(d)
    sheet = d.sheet(i["target"])
    opts = i["options"]
    own_rolls(d, rules, "recover", sheet.name, None, opts)
    ask = Recovery(i["hours"], bool(i["restful"]), bool(i["treated"]), i["amount"], i["cause"], opts)
    recovered = rules.recover(sheet, ask, d.dice)
    d.apply(durations.own(d, rules, recovered, PAGES) if rules.since(FOURTH) else recovered)
    return {"character": d.sheet(sheet.name).to_dict()}


def spend(d: Draft, i: SpendIntent) -> CharacterResult:
    """Spend a resource (victory points, Resolve, Adversity)."""
    rules = rules_of(d)
    sheet = resource_holder(d, rules, i["name"])
    d.apply(durations.own(d, rules, rules.spend(sheet, i["resource"], i["n"], i.get("purpose")), PAGES))
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
    """A system-specific action (`ledger act NAME ACTION`); from version 4 the rules know whether a fight runs."""
    rules = rules_of(d)
    if rules.since(FOURTH) and economy.running(d) is None:
        rules = rules.outside()
    sheet = d.sheet(i["name"])
    against = i.get("against")
    other = d.sheet(against) if against else None
    own_rolls(d, rules, f"act {i['action']}", sheet.name, other.name if other else None, i["options"])
    apply_and_settle(d, rules, durations.own(d, rules, rules.perform(i["action"], sheet, other, i["options"], d.dice)))
    warning = economy.tally(d, rules, sheet, f"act {i['action']}", i["options"], other.name if other else None)
    result: ActResult = {
        "character": d.sheet(sheet.name).to_dict(),
        **warned(warning),
        **turn_note(d, sheet.name),
    }
    if other is not None:
        result["against"] = d.sheet(other.name).to_dict()
    return result
