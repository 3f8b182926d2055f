"""Table commands: rolls, damage, conditions, and the rules engines' actions (attack, check, recover, ...).

Each public method validates what needs no state, then records one ruling; the deciders below (registered
by command name) decide it from the intent alone, so a ruling can be decided again later from its record.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ledger.deciders import decider
from ledger.errors import BadInput, Conflict
from ledger.rules import get_rules
from ledger.sheet import Effect

if TYPE_CHECKING:
    from ledger.ruling import Draft


class PlayCommands:
    """Mixed into Ledger: each method records one ruling through `self.rule`."""

    rule: Callable[..., dict[str, Any]]

    def roll(self, expr: str, *, for_name: str | None = None, rolls: Mapping[str, str] | None = None) -> dict[str, Any]:
        """A free roll, recorded as a ruling with one DiceRolled event (roll name: `roll`)."""
        return self.rule("roll", {"expr": expr, "for": for_name}, rolls=rolls)

    def damage(self, target: str, amount: int, *, subdual: bool = False) -> dict[str, Any]:
        """Direct HP loss (no resistance roll)."""
        if amount < 0:
            raise BadInput(f"damage can't be negative, got {amount}", "to heal, use: ledger recover")
        return self.rule("damage", {"target": target, "amount": amount, "subdual": subdual})

    def condition(self, target: str, condition: str, *, add: bool) -> dict[str, Any]:
        """Impose or remove a known condition of the campaign's system."""
        cond = condition.strip().lower().replace(" ", "-").replace("_", "-")
        return self.rule("condition add" if add else "condition remove", {"target": target, "condition": cond})

    def attack(self, attacker: str, target: str, options: Mapping[str, Any], *, rolls: Mapping[str, str] | None = None) -> dict[str, Any]:
        """One attack resolved by the campaign's rules (hnh: attack/defense/power/toughness; d20: attack/confirm/death/damage; pnp: attack/defense)."""
        return self.rule("attack", {"attacker": attacker, "target": target, "options": _clean(options)}, rolls=rolls)

    def check(
        self,
        name: str,
        trait: str,
        *,
        dc: int | None = None,
        against: tuple[str, str] | None = None,
        options: Mapping[str, Any] | None = None,
        rolls: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """A check against a DC (or a P&P threshold in options) or opposed by another character's trait."""
        intent = {"name": name, "trait": trait, "dc": dc, "against": list(against) if against else None, "options": _clean(options or {})}
        return self.rule("check", intent, rolls=rolls)

    def resist_damage(self, target: str, rank: int, options: Mapping[str, Any] | None = None, *, rolls: Mapping[str, str] | None = None) -> dict[str, Any]:
        """H&H Damage without an attack check: a power check (3dF + rank) against a Toughness check."""
        return self.rule("damage", {"target": target, "rank": rank, "options": _clean(options or {})}, rolls=rolls)

    def recover(
        self,
        target: str,
        *,
        hours: int,
        restful: bool = False,
        treated: bool = False,
        amount: int | None = None,
        cause: str | None = None,
        options: Mapping[str, Any] | None = None,
        rolls: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """Recovery over time: H&H's natural recovery, d20's GM-ruled healing and subdual fade, P&P Health."""
        if hours < 0 or (amount is not None and amount < 0):
            raise BadInput("hours and amounts can't be negative")
        intent = {"target": target, "hours": hours, "restful": restful, "treated": treated, "amount": amount, "cause": cause, "options": _clean(options or {})}
        return self.rule("recover", intent, rolls=rolls)

    def spend(self, name: str, resource: str, n: int = 1, *, purpose: str | None = None) -> dict[str, Any]:
        """Spend a resource: victory points (hnh), resolve or adversity (pnp); overspending is refused."""
        if n < 1:
            raise BadInput(f"spend at least 1, got {n}")
        return self.rule("spend", {"name": name, "resource": resource, "n": n, "purpose": purpose})

    def gain(self, name: str, resource: str, n: int = 1, *, reason: str | None = None) -> dict[str, Any]:
        """Gain a resource: resolve from flaws and heroics, adversity (pnp); victory points (hnh) as awards."""
        if n < 1:
            raise BadInput(f"gain at least 1, got {n}")
        return self.rule("gain", {"name": name, "resource": resource, "n": n, "reason": reason})

    def hazard(self, target: str, kind: str, options: Mapping[str, Any] | None = None, *, rolls: Mapping[str, str] | None = None) -> dict[str, Any]:
        """An H&H environmental hazard check (falling, heat, cold, suffocation, starvation, thirst, ...)."""
        return self.rule("hazard", {"target": target, "kind": kind, "options": _clean(options or {})}, rolls=rolls)

    def revive(self, target: str, means: str, *, by: str | None = None) -> dict[str, Any]:
        """Bring the dead back, as the GM rules (hnh Healing/Immortality; d20 Gem of Eternity, Soul Bound)."""
        return self.rule("revive", {"target": target, "means": means, "by": by})

    def import_character(self, path: str, *, pc: bool = True) -> dict[str, Any]:
        """Add a character from an H&H character-creator save file (JSON)."""
        import orjson

        from ledger.rules.hnh_import import import_character

        try:
            with open(path, "rb") as f:
                data = orjson.loads(f.read())
        except OSError as e:
            raise BadInput(f"can't read {path}: {e.strerror}") from None
        except orjson.JSONDecodeError as e:
            raise BadInput(f"{path} is not JSON: {e}") from None
        name, traits, powers = import_character(data)
        if self.campaign().system != "hnh":  # type: ignore[attr-defined]
            raise BadInput("character files from the H&H character creator import into hnh campaigns only")
        return self.add_character(name, {}, pc=pc, powers=powers, typed_traits=traits)  # type: ignore[attr-defined,no-any-return]

    def act(self, name: str, action: str, options: Mapping[str, Any] | None = None, *, other: str | None = None, rolls: Mapping[str, str] | None = None) -> dict[str, Any]:
        """A system-specific action: d20 run/charge, pnp chase, hnh affliction (see `ledger act --help`)."""
        return self.rule("act", {"name": name, "action": action, "against": other, "options": _clean(options or {})}, rolls=rolls)


# -- deciders -----------------------------------------------------------------------------------
@decider("roll")
def _roll(d: Draft, i: dict[str, Any]) -> dict[str, Any]:
    spec = get_rules(d.campaign.system).roll_spec(i["expr"])
    if i.get("for"):
        d.roll_owners["roll"] = d.character(i["for"]).name
    d.roll_specs["roll"] = spec
    r = d.dice.take("roll", spec)
    d.flush_dice()
    return {"roll": r.to_data()}


@decider("damage")
def _damage(d: Draft, i: dict[str, Any]) -> dict[str, Any]:
    rules: Any = get_rules(d.campaign.system)
    sheet = d.sheet(i["target"])
    if "rank" in i:
        if not hasattr(rules, "resist_damage"):
            raise BadInput(f"--rank is for Humans & Heroes; {rules.title} takes --amount")
        _own_rolls(d, rules.key, "damage", None, sheet.name, i["options"])
        d.apply(rules.resist_damage(sheet, i["rank"], i["options"], d.dice))
    else:
        d.apply(rules.damage(sheet, i["amount"], subdual=i["subdual"]))
    return {"character": d.sheet(sheet.name).to_dict()}


def _condition(d: Draft, i: dict[str, Any], *, add: bool) -> dict[str, Any]:
    rules = get_rules(d.campaign.system)
    cond = i["condition"]
    if cond not in rules.conditions:
        raise BadInput(f"unknown condition '{cond}' in {rules.title}", f"known: {', '.join(sorted(rules.conditions))}")
    sheet = d.sheet(i["target"])
    if add and sheet.has(cond):
        raise Conflict(f"{sheet.name} is already {cond}")
    if not add and not sheet.has(cond):
        raise Conflict(f"{sheet.name} is not {cond}", f"conditions now: {', '.join(sheet.conditions) or 'none'}")
    d.apply(rules.impose(sheet, cond) if add else rules.remove(sheet, cond))
    return {"character": d.sheet(sheet.name).to_dict()}


decider("condition add")(lambda d, i: _condition(d, i, add=True))
decider("condition remove")(lambda d, i: _condition(d, i, add=False))


@decider("attack")
def _attack(d: Draft, i: dict[str, Any]) -> dict[str, Any]:
    rules: Any = get_rules(d.campaign.system)
    a, t = d.sheet(i["attacker"]), d.sheet(i["target"])
    _own_rolls(d, rules.key, "attack", a.name, t.name, i["options"])
    effects = rules.attack(a, t, _system_options(rules.key, "attack", i["options"]), d.dice)
    d.apply(effects)
    _settle_adversity(d, rules, effects)
    return {"attacker": d.sheet(a.name).to_dict(), "target": d.sheet(t.name).to_dict()}


@decider("check")
def _check(d: Draft, i: dict[str, Any]) -> dict[str, Any]:
    rules: Any = get_rules(d.campaign.system)
    sheet = d.sheet(i["name"])
    other = (d.sheet(i["against"][0]), i["against"][1]) if i.get("against") else None
    _own_rolls(d, rules.key, "check", sheet.name, other[0].name if other else None, i["options"])
    effects = rules.check(sheet, i["trait"], dc=i["dc"], against=other, options=_system_options(rules.key, "check", i["options"]), dice=d.dice)
    d.apply(effects)
    _settle_adversity(d, rules, effects)
    return {"character": d.sheet(sheet.name).to_dict()}


@decider("recover")
def _recover(d: Draft, i: dict[str, Any]) -> dict[str, Any]:
    rules: Any = get_rules(d.campaign.system)
    sheet = d.sheet(i["target"])
    opts = i["options"]
    _own_rolls(d, rules.key, "recover", sheet.name, None, opts)
    if rules.key == "hnh":
        effects = rules.recover(sheet, hours=i["hours"], restful=i["restful"], treated=i["treated"], dice=d.dice, treatment_bonus=opts.get("treatment-bonus"))
    elif rules.key == "d20":
        effects = rules.recover(sheet, hours=i["hours"], amount=i["amount"], cause=i["cause"] or "rest", options=opts, dice=d.dice)
    else:
        if i["amount"] is None:
            raise BadInput("P&P recovery needs --amount (Health regained)", "for example: --amount 2")
        effects = rules.recover(sheet, i["amount"])
    d.apply(effects)
    return {"character": d.sheet(sheet.name).to_dict()}


@decider("spend")
def _spend(d: Draft, i: dict[str, Any]) -> dict[str, Any]:
    rules: Any = get_rules(d.campaign.system)
    if not hasattr(rules, "spend"):
        raise BadInput(f"{rules.title} has no resources to spend")
    sheet = _resource_holder(d, rules, i["name"])
    if rules.key == "pnp":
        effects = rules.spend(sheet, i["resource"], i["n"], purpose=i["purpose"] or "lucky-break")
    else:
        effects = rules.spend(sheet, i["resource"], i["n"])
    d.apply(effects)
    return {"character": d.sheet(sheet.name).to_dict()}


@decider("gain")
def _gain(d: Draft, i: dict[str, Any]) -> dict[str, Any]:
    rules: Any = get_rules(d.campaign.system)
    sheet = _resource_holder(d, rules, i["name"])
    if hasattr(rules, "gain"):
        effects = rules.gain(sheet, i["resource"], i["n"], reason=i["reason"] or "award")
    else:
        effects = _award(sheet, i["resource"], i["n"], i["reason"] or "award")
    d.apply(effects)
    return {"character": d.sheet(sheet.name).to_dict()}


@decider("hazard")
def _hazard(d: Draft, i: dict[str, Any]) -> dict[str, Any]:
    rules: Any = get_rules(d.campaign.system)
    if not hasattr(rules, "hazard"):
        raise BadInput(f"hazards are Humans & Heroes rules; {rules.title} has none", "use damage or a check")
    sheet = d.sheet(i["target"])
    _own_rolls(d, rules.key, "hazard", sheet.name, None, i["options"])
    d.apply(rules.hazard(sheet, i["kind"], i["options"], d.dice))
    return {"character": d.sheet(sheet.name).to_dict()}


@decider("revive")
def _revive(d: Draft, i: dict[str, Any]) -> dict[str, Any]:
    rules: Any = get_rules(d.campaign.system)
    if not hasattr(rules, "revive"):
        raise BadInput(f"{rules.title} has no revival rules")
    sheet = d.sheet(i["target"])
    other = d.sheet(i["by"]) if i.get("by") else None
    d.apply(rules.revive(sheet, means=i["means"], by=other))
    return {"character": d.sheet(sheet.name).to_dict()}


@decider("act")
def _act(d: Draft, i: dict[str, Any]) -> dict[str, Any]:
    rules: Any = get_rules(d.campaign.system)
    sheet = d.sheet(i["name"])
    second = d.sheet(i["against"]) if i.get("against") else None
    opts, action = i["options"], i["action"]
    key = (rules.key, action)
    if key in (("d20", "run"), ("d20", "charge")):
        effects = getattr(rules, action)(sheet, opts)
    elif key == ("pnp", "chase"):
        if second is None:
            raise BadInput("a chase needs --against NAME")
        _own_rolls(d, "pnp", "chase", sheet.name, second.name, opts)
        effects = rules.chase(sheet, second, opts, d.dice)
    elif key == ("pnp", "move"):
        for k in ("from", "to"):
            if k not in opts:
                raise BadInput(f"a move needs -o {k}=RANGE", "ranges: close, distant, extreme")
        pages = rules.move(sheet, from_range=str(opts["from"]), to_range=str(opts["to"]), travel_power=bool(opts.get("travel-power")))
        effects = [Effect("EffectResolved", sheet.name, {"action": "move", "from": opts["from"], "to": opts["to"], "pages": pages})]
    elif key == ("hnh", "affliction"):
        if second is None:
            raise BadInput("an affliction needs --against TARGET")
        _own_rolls(d, "hnh", "affliction", sheet.name, second.name, opts)
        effects = rules.affliction(second, opts, d.dice, attacker=sheet)
    else:
        raise BadInput(f"'{action}' is not an action in {rules.title}", f"actions: {', '.join(ACTIONS.get(rules.key, ()))}")
    d.apply(effects)
    _settle_adversity(d, rules, effects)
    return {"character": d.sheet(sheet.name).to_dict()}


ACTIONS = {"d20": ("run", "charge"), "pnp": ("chase", "move"), "hnh": ("affliction",)}
GM = "GM"

# Which character each named roll belongs to, by (system, command): "actor", "other" or a fixed role.
ROLL_OWNERS: dict[tuple[str, str], dict[str, str]] = {
    ("hnh", "attack"): {"attack": "actor", "defense": "other", "power": "actor", "toughness": "other", "slam-power": "other", "slam-toughness": "actor"},
    ("d20", "attack"): {"attack": "actor", "confirm": "actor", "death": "actor", "damage": "actor"},
    ("pnp", "attack"): {"attack": "actor", "defense": "other", "reroll": "actor"},
    ("hnh", "check"): {"check": "actor", "against": "other"},
    ("d20", "check"): {"check": "actor", "opposed": "other"},
    ("pnp", "check"): {"check": "actor", "against": "other", "reroll": "actor"},
    ("hnh", "damage"): {"power": "-", "toughness": "other"},
    ("hnh", "recover"): {"treatment": "actor"},
    ("hnh", "hazard"): {"fortitude": "actor", "power": "actor", "toughness": "actor"},
    ("pnp", "chase"): {"chase": "actor", "against": "other", "reroll": "actor"},
    ("hnh", "affliction"): {"power": "actor", "resist": "other", "toughness": "other"},
}


def roll_names(system: str, command: str) -> list[str]:
    """The names of the rolls a command takes in a system (for --help and validation)."""
    return list(ROLL_OWNERS.get((system, command), {}))


def _own_rolls(d: Draft, system: str, command: str, actor: str | None, other: str | None, opts: Mapping[str, Any]) -> None:
    """Name who each roll belongs to, and which roll names an entered-but-unused roll may have."""
    owners = ROLL_OWNERS.get((system, command), {})
    for roll, role in owners.items():
        who = actor if role == "actor" else other if role == "other" else None
        if who:
            d.roll_owners[roll] = who
    d.roll_allowed = lambda name, text: _loose_spec(system, name, text, owners, opts)


def _loose_spec(system: str, name: str, text: str, owners: Mapping[str, str], opts: Mapping[str, Any]) -> Any:
    """The spec an unused entered roll is validated against: the system's dice (a pool sized by what was entered)."""
    from ledger.dice import d20, fudge, parse_notation, pool

    if name not in owners and not (system == "hnh" and name.startswith("ongoing-")):
        return None
    if system == "hnh":
        return fudge()
    if system == "d20":
        return parse_notation(str(opts.get("damage", "1d4"))) if name == "damage" else d20()
    return pool(len([p for p in text.split(",") if p.strip()]))


def _clean(options: Mapping[str, Any]) -> dict[str, Any]:
    """Options as recorded in the intent: only those given."""
    return {k: v for k, v in options.items() if v is not None and v is not False and v != ()}


def _system_options(system: str, command: str, opts: Mapping[str, Any]) -> dict[str, Any]:
    """Translate the shared CLI vocabulary to a system's option keys (d20: --range other than close is ranged)."""
    out = dict(opts)
    if system == "d20" and "range" in out:
        rng = out.pop("range")
        if rng not in ("close", "melee"):
            out["ranged"] = True
    return out


def start_of_issue(d: Draft) -> None:
    """P&P: a new issue (play session) sets each hero's Resolve to their `resolve` trait and the GM's Adversity to 1 per hero."""
    rules: Any = get_rules(d.campaign.system)
    if not hasattr(rules, "start_of_issue"):
        return
    heroes = []
    for entry in d.campaign.domain["roster"].values():
        if entry["name"] == GM:
            continue
        sheet = d.sheet(entry["name"])
        if sheet.pc:
            heroes.append(sheet)
    for hero in heroes:
        if "resolve" in hero.traits:
            d.apply(rules.start_of_issue(hero, resolve=hero.trait("resolve")))
    if heroes:
        d.apply(rules.start_of_issue_gm(_resource_holder(d, rules, GM), heroes=len(heroes)))


def _resource_holder(d: Draft, rules: Any, name: str) -> Any:
    """The sheet that holds a resource; in P&P the GM's Adversity lives on a hidden GM sheet made on first use."""
    if rules.key == "pnp" and name.strip().casefold() == GM.casefold() and d.campaign.character(GM) is None:
        d.add_character(rules.gm_sheet(GM))
    return d.sheet(name)


def _award(sheet: Any, resource: str, n: int, reason: str) -> list[Any]:
    from ledger.sheet import Effect

    if resource not in sheet.resources:
        raise BadInput(f"{sheet.name} has no {resource}", f"resources: {', '.join(sheet.resources) or 'none'}")
    value = sheet.resources[resource] + n
    return [Effect("ResourceChanged", sheet.name, {"resource": resource, "delta": n, "value": value, "reason": reason})]


def _settle_adversity(d: Draft, rules: Any, effects: list[Any]) -> None:
    """P&P: extra dice or rerolls an NPC bought are paid from the GM's Adversity in the same ruling."""
    if rules.key != "pnp":
        return
    due = sum(int(e.data.get("adversity_due", 0) or 0) for e in effects if e.event in ("AttackResolved", "CheckResolved", "EffectResolved"))
    if due:
        gm = _resource_holder(d, rules, GM)
        d.apply(rules.spend(gm, "adversity", due, purpose="extra-dice"))
