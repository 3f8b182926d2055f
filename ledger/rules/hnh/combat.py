"""H&H attacks: attack check against Parry or Dodge, criticals, maneuvers, minions, then the effect.

Source: gameplay.txt (Attack Check, Critical Hits, Range, Perception And Area Effects, Concealment, Cover,
Minion Rules, Aid, Aim, Charge, Maneuvers), the-basics.txt (Attack Checks), conditions.txt (Prone,
Vulnerable, Defenseless), effect-damage.txt, effect-affliction.txt.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ledger.errors import BadInput, ImpossibleAction, did_you_mean
from ledger.model.dice import Dice, staged
from ledger.model.sheet import (
    ATTACK_RESOLVED,
    CHECK_RESOLVED,
    COUNTERS_CHANGED,
    EFFECT_RESOLVED,
    Effect,
    Sheet,
    apply_all,
)
from ledger.rules.durations import of_condition
from ledger.rules.hnh.afflictions import affliction_from, resolve_affliction
from ledger.rules.hnh.checks import (
    Rolled,
    active_defense,
    check_penalty,
    defense_rank,
    find_power,
    roll_check,
    versus_dc,
)
from ledger.rules.hnh.conditions import break_trance, effective, penalty_source, require_able
from ledger.rules.hnh.health import minion_rules, resolve_damage
from ledger.rules.hnh.maneuvers import aimed_at, end_aim
from ledger.rules.hnh.options import COVER, MANEUVERS, RANGES
from ledger.rules.hnh.powers import resolve_nullify, resolve_weaken, weaken_trait
from ledger.rules.options import Options, for_target

RANGE_PENALTY = {"close": 0, "ranged": 0, "medium": -1, "long": -2}


@dataclass(frozen=True)
class Weapon:
    """What the attacker strikes with."""

    name: str
    effect: str
    rank: int
    range: str
    bonus: int
    power: Mapping[str, Any]


def maneuvers(options: Options) -> set[str]:
    """The maneuvers named in the options."""
    raw = options.get("maneuver") or []
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    out = {str(m).strip().lower() for m in items if str(m).strip()}
    bad = out - set(MANEUVERS)
    if bad:
        raise BadInput(f"unknown maneuver '{sorted(bad)[0]}'", f"maneuvers: {', '.join(MANEUVERS)}")
    return out


def weapon(attacker: Sheet, options: Options) -> Weapon:
    """Resolve `with`: a power, unarmed Strength, or a trait with a given rank."""
    name = str(options.get("with") or "unarmed")
    key = find_power(attacker, name)
    if key is not None:
        p = attacker.powers[key]
        rank = int(p.get("rank", 0)) + (attacker.trait("strength") if p.get("strength-based") else 0)
        rng = str(p.get("range", "close")).lower()
        rng = "area" if p.get("area") else rng
        default = attacker.trait("fighting") if rng == "close" else attacker.trait("dexterity")
        eff = str(p.get("effect", "Damage"))
        bonus = _int(options, "bonus", int(p.get("attack", default)))
        rank += 1 if attacker.counter(f"increased-rank:{key}") else 0  # extra effort, Increased Rank: +1 for 1 round
        return Weapon(key, eff, _int(options, "rank", rank), _range(options, rng), bonus, p)
    if name.lower() in ("unarmed", "strength"):
        # gameplay.txt, Strength And Damage: unarmed damage is Strength; an absent ability is rank 0
        bonus = attacker.trait("close-combat-unarmed", attacker.trait("fighting"))
        rank = _int(options, "rank", attacker.trait("strength"))
        if (
            str(options.get("range") or "close").lower() != "close"
        ):  # Attack Check: "An unarmed attack is always close range"
            raise BadInput(
                "an unarmed attack is always close range", "leave out --range, or attack --with a ranged power"
            )
        return Weapon("unarmed", "Damage", rank, "close", _int(options, "bonus", bonus), {})
    if name.lower() in attacker.traits:
        if "rank" not in options:
            raise BadInput(f"attacking with the trait '{name}' needs an effect rank", "give --rank N")
        eff = str(options.get("effect", "Damage")).capitalize()
        bonus = _int(options, "bonus", attacker.trait(name.lower()))
        return Weapon(name.lower(), eff, _int(options, "rank", 0), _range(options, "close"), bonus, {})
    known = [*attacker.powers, *attacker.traits, "unarmed"]
    raise BadInput(
        f"{attacker.name} has no power or trait '{name}'",
        did_you_mean(name, known, f"powers: {', '.join(attacker.powers) or 'none'}"),
    )


def _int(options: Options, key: str, default: int) -> int:
    v = options.get(key)
    if v is None:
        return default
    try:
        return int(v)
    except (TypeError, ValueError):
        raise BadInput(f"{key} needs a whole number, got '{v}'") from None


def _range(options: Options, default: str) -> str:
    r = str(options.get("range") or default).lower()
    if r not in RANGES:
        raise BadInput(f"unknown range '{r}'", f"ranges: {', '.join(RANGES)}")
    return r


def _choice(options: Options, key: str, target: str = "") -> int:
    v = for_target(options.get(key), target).lower()
    if v == "complete" and key == "cover":
        raise ImpossibleAction("the target is completely behind cover", "attack the cover instead")
    if v not in COVER:
        raise BadInput(f"{key} is none, partial or total, not '{v}'")
    return COVER[v]


def attack_modifiers(attacker: Sheet, target: Sheet, w: Weapon, moves: set[str], options: Options) -> dict[str, int]:
    """Every modifier to the attack check, by source."""
    mods: dict[str, int] = {"range": RANGE_PENALTY.get(w.range, 0)}
    mods["concealment"] = _choice(options, "concealment")
    mods["cover"] = _choice(options, "cover", target.name)
    mods["conditions"] = check_penalty(attacker)
    close = w.range == "close"
    if "prone" in effective(attacker.conditions) and close:
        mods["attacker prone"] = -1
    if "prone" in effective(target.conditions):
        mods["target prone"] = 1 if close else -1
    table = {"accurate": 1, "all-out": 1, "defensive": -1, "power": -1, "charge": -1, "slam": -1}
    for m in sorted(moves & set(table)):
        mods[m] = table[m]
    if "aim" in moves:
        mods["aim"] = 2 if close else 1
    mods["aid"] = _int(options, "aid", 0)
    mods["modifier"] = _int(options, "modifier", 0)
    return {k: v for k, v in mods.items() if v}


def _named(mods: dict[str, int], source: str) -> dict[str, int]:
    """The modifiers as a die line names them: a condition's penalty by the condition that brings it (exhausted)."""
    return {source if k == "conditions" else k: v for k, v in mods.items()}


def validate(attacker: Sheet, target: Sheet, w: Weapon, moves: set[str], options: Options) -> None:
    """Refuse maneuvers the text forbids for this attack."""
    if w.range in ("perception", "area") and moves - {"team"}:
        raise BadInput("perception and area attacks have no attack check: maneuvers don't apply to them")
    if "accurate" in moves and w.rank - 1 <= 0:
        raise BadInput("accurate attack can't reduce the effect rank to 0 or below")
    if moves & {"defensive", "power"} and w.bonus - 1 <= 0:
        raise BadInput("defensive and power attacks can't reduce the attack bonus to 0 or below")
    if "all-out" in moves and min(defense_rank(attacker, "dodge"), defense_rank(attacker, "parry")) - 1 <= 0:
        raise BadInput("all-out attack can't reduce Dodge or Parry to 0 or below")
    if moves & {"charge", "slam", "finishing"} and w.range != "close":
        raise BadInput("charge, slam and finishing attacks are close attacks")
    if "finishing" in moves and "defenseless" not in effective(target.conditions):
        raise BadInput(f"a finishing attack needs a defenseless target; {target.name} is not defenseless")
    if options.get("routine") and not (
        "defenseless" in effective(target.conditions) or (not attacker.minion and minion_rules(target))
    ):
        raise BadInput("routine attacks are for non-minions against minions (or 1 HP) and defenseless targets")
    if options.get("routine") and "finishing" in moves:
        raise BadInput("a finishing attack is never routine")


def resolve_aid(helper: Sheet, target: Sheet, options: Options, dice: Dice) -> list[Effect]:
    """Aid: attack check against DC 0; the ally gets +1 (+2 at 3 degrees), or -1 at 2 degrees of failure."""
    require_able(helper, "aid")
    w = weapon(helper, options)
    bonus = w.bonus + _int(options, "modifier", 0) + check_penalty(helper)
    r = roll_check(dice, "attack", bonus, "attack", routine=bool(options.get("routine")))
    hit = not r.automatic_failure and (r.critical == "success" or r.total >= 0)
    deg = versus_dc(r, 0)[1]
    bonus = (2 if deg >= 3 else 1) if hit else (-1 if deg >= 2 else 0)
    data = {
        "maneuver": "aid",
        "attacker": helper.name,
        "target": target.name,
        "ally": options.get("ally", ""),
        "aid_for": str(options.get("aid-for", "attack")),
        "attack": r.data(),
        "dc": 0,
        "success": hit,
        "degrees": deg,
        "aid_bonus": bonus,
    }
    out = [Effect(CHECK_RESOLVED, helper.name, data)]
    ally = str(options.get("ally") or "")
    if ally and bonus:  # Aid: "for 1 round" -- kept on the ally until used or their next turn ends
        key = f"aid-{data['aid_for']}:{target.name}"
        out.append(Effect(COUNTERS_CHANGED, ally, {"counters": {key: bonus}}))
    return out


def resolve_attack(attacker: Sheet, target: Sheet, options: Options, dice: Dice) -> list[Effect]:
    """One attack: attack check vs active defense (or none), criticals, then Damage or Affliction."""
    moves = maneuvers(options)
    if "aid" in moves:
        return resolve_aid(attacker, target, options, dice)
    require_able(attacker, "attack")
    if any(k.startswith("defend:") for k in attacker.counters):  # Defend: "You can't attack this turn"
        raise ImpossibleAction(f"{attacker.name} took the Defend action and can't attack this turn")
    if target.has("dead"):
        raise ImpossibleAction(f"{target.name} is already dead")
    trance = break_trance(target)  # Entranced: "Any attack ... removes Entranced and allows you to avoid that attack"
    target = apply_all(target, trance)
    w = weapon(attacker, options)
    if w.effect not in ("Damage", "Affliction", "Weaken", "Nullify"):
        raise BadInput(
            f"'{w.name}' is a {w.effect} effect: only Damage, Affliction, Weaken and Nullify attacks are resolved"
        )
    validate(attacker, target, w, moves, options)
    base: dict[str, Any] = {
        "attacker": attacker.name,
        "target": target.name,
        "with": w.name,
        "effect": w.effect,
        "range": w.range,
        "maneuvers": sorted(moves),
    }
    counters: dict[str, int | None] = {m + "-attack": 1 for m in ("all-out", "defensive") if m in moves}
    options, counters = _lasting(attacker, target, options, counters)
    aimed = aimed_at(attacker, target.name)  # Aim: the next attack is the aimed one, if at the target aimed at
    if aimed and w.range not in ("perception", "area"):
        moves.add("aim")
    pre = [Effect(COUNTERS_CHANGED, attacker.name, {"counters": counters})] if counters else []
    pre += end_aim(attacker, "aim used" if aimed else "aim spoiled: a different target") + trance
    if w.range == "beyond":  # Range: "out of range and cannot be attacked (automatic miss)"
        return [*pre, Effect(ATTACK_RESOLVED, target.name, {**base, "hit": False, "reason": "beyond long range"})]
    rank = w.rank + (1 if "power" in moves else 0) - (1 if "accurate" in moves else 0)
    if "slam" in moves:
        rank = max(_int(options, "speed", 0), rank) + (1 if options.get("full-speed") else 0)
    critical = False
    if w.range in ("perception", "area"):
        hit, data = True, {**base, "hit": True, "automatic": True, "attack_check": False}
    else:
        hit, critical, data = attack_check(attacker, target, w, moves, options, dice, base)
    if not hit:
        return [*pre, Effect(ATTACK_RESOLVED, target.name, data)]
    if "team" in moves:
        td = _int(options, "team-degrees", 0)
        rank += 2 if td >= 3 else 1 if td >= 1 else 0
    kind = str(options.get("critical") or "increased").lower()
    if kind not in ("increased", "added"):
        raise BadInput("critical is 'increased' or 'added'")
    extra = 1 if critical and kind == "increased" else 0
    worst = critical and kind == "increased" and target.minion
    data.update(rank=rank, critical_effect=kind if critical else None)
    out = [*pre, Effect(ATTACK_RESOLVED, target.name, data)]
    if critical and kind == "added":
        out.append(
            Effect(
                EFFECT_RESOLVED,
                target.name,
                {
                    "critical": "added",
                    "rank": 0,
                    "note": "critical hit: an added effect at rank 0 (defense DC 3dF+0), resolved on its own",
                },
            )
        )
    if w.effect == "Damage":
        fin, opts = "finishing" in moves, _damage_opts(w, options)
        # the damage is the attack's last part for the target (gameplay.txt, Damage), decided by its own arguments
        damage = {"options": opts, "extra_dc": extra, "worst": worst, "finishing": fin}
        out += staged(dice, resolve_damage, target, rank, dice, **damage)
    elif w.effect == "Weaken":
        defense = str(options.get("resisted-by") or w.power.get("resisted-by") or "fortitude")
        out += resolve_weaken(attacker, target, rank, weaken_trait(options, w.power), defense, dice, extra)
    elif w.effect == "Nullify":
        out += resolve_nullify(attacker, target, rank + extra, options, dice)
    else:
        spec = affliction_from(w.name, w.power, {**options, "rank": rank})
        out += resolve_affliction(target, spec, dice, extra_dc=extra, worst=worst)
    if "slam" in moves:  # Slam Attack: "a Toughness defense check against half the damage rank"
        me = apply_all(attacker, out)
        out += resolve_damage(me, rank // 2, dice, power_roll="slam-power", resist_roll="slam-toughness")
    return out


def _lasting(
    attacker: Sheet, target: Sheet, options: Options, counters: dict[str, int | None]
) -> tuple[dict[str, Any], dict[str, int | None]]:
    """An ally's aid against this target, and a feint on it, are used by this attack (the counters are spent)."""
    opts = dict(options)
    aid = attacker.counter(f"aid-attack:{target.name}")
    if aid:
        opts["aid"] = _int(options, "aid", 0) + aid
        counters[f"aid-attack:{target.name}"] = None
        counters.update(of_condition(attacker, f"aid attack ({target.name})"))  # and its duration, if one counts it
    helped = target.counter(f"aid-defense:{attacker.name}")
    if helped:
        opts["target-aid"] = _int(options, "target-aid", 0) + helped
    if attacker.counter(f"feint:{target.name}"):
        opts["feinted"] = True
        counters[f"feint:{target.name}"] = None
        counters.update(of_condition(attacker, f"feint ({target.name})"))  # and its duration, if one counts it
    return opts, counters


def _damage_opts(w: Weapon, options: Options) -> dict[str, Any]:
    resisted = options.get("resisted-by", w.power.get("resisted-by", "toughness"))
    return {"nonlethal": bool(options.get("nonlethal") or w.power.get("nonlethal")), "resisted-by": resisted}


def attack_check(
    attacker: Sheet,
    target: Sheet,
    w: Weapon,
    moves: set[str],
    options: Options,
    dice: Dice,
    base: dict[str, Any],
) -> tuple[bool, bool, dict[str, Any]]:
    """The attack check against the defense check (or DC 0 for a finishing attack): hit and critical hit."""
    mods = attack_modifiers(attacker, target, w, moves, options)
    atk = roll_check(dice, "attack", w.bonus + sum(mods.values()), "attack", routine=bool(options.get("routine")))
    defense_name = "parry" if w.range == "close" else "dodge"
    if "finishing" in moves:  # Finishing Attack: "The DC is 0 and is always a critical hit"
        dfn = Rolled("defense", (), 0, 0, routine=True)
    else:
        defender = replace(target, conditions=(*target.conditions, "vulnerable")) if options.get("feinted") else target
        dfn = active_defense(defender, defense_name, dice, "defense", _int(options, "target-aid", 0))
    meets = atk.total >= dfn.total
    if atk.automatic_failure:  # all three -1: "always misses"
        hit, threat = False, False
    elif atk.critical == "success":  # all three +1: automatic hit and critical threat
        hit, threat = True, True
    else:
        hit, threat = meets or dfn.automatic_failure, False
    can_crit = not (attacker.minion and not target.minion)  # minions can't crit non-minions
    critical = hit and can_crit and (("finishing" in moves) or (threat and meets))
    shown = "dc 0" if "finishing" in moves else defense_name
    data = {
        **base,
        "attack": {**atk.data(), "parts": {"attack": w.bonus, **_named(mods, penalty_source(attacker))}},  # die line
        "modifiers": mods,
        "defense": shown,
        "defense_check": dfn.data(),
        "hit": hit,
        "critical_threat": threat,
        "critical_hit": critical,
    }
    return hit, critical, data
