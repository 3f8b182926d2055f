"""d20 Supers: one attack, from breaking the DR to damage, criticals and instant death. Text: d20-supers.txt."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ledger.errors import BadInput, ImpossibleAction
from ledger.model.dice import Dice, DiceSpec, Roll, d20, parse_notation
from ledger.model.sheet import ATTACK_RESOLVED, CONDITION_IMPOSED, COUNTERS_CHANGED, Effect, Sheet
from ledger.rules.d20.core import (
    CHARGE_DR,
    COVER,
    ability_mod,
    damage_effects,
    death_effects,
    dr_parts,
    exertion_effects,
    opt_bool,
    opt_choice,
    opt_int,
    opt_names,
    require_able,
    require_alive,
)
from ledger.rules.d20.options import CRITICAL_MULTIPLIER, FISTS, FREE_ATTACKS, MODIFIERS
from ledger.rules.options import Options

FIREARM_CLOSE_BONUS = 3  # "+3 attack if you are 10 ft. from the opponent or less"
CHARGE_DR_PENALTY = -2  # Charge: "lose -2 to DR"

# COMBAT MODIFIERS (options.py MODIFIERS): "defender-running" counts against ranged attacks only.
RANGED_ONLY = frozenset({"defender-running"})

# Two Weapon Fighting: (primary hand, off hand) penalties.
TWO_WEAPON = {
    "normal": (-6, -10),
    "off-light": (-4, -8),
    "ambidextrous": (-6, -6),
    "two-weapon-combat": (-4, -8),
    "off-light+ambidextrous": (-4, -4),
    "off-light+two-weapon-combat": (-2, -2),
}
LIGHT_WEAPONS = frozenset(
    {
        "automatic pistol",
        "crossbow",
        "revolving pistol",
        "dagger",
        "light hammer",
        "sap",
        "siangham",
        "sickle",
        "tomahawk",
    }
)


def is_light(weapon: str) -> bool:
    """Whether a weapon is on the Light Weapons list, however it is written (Automatic Pistol, automatic-pistol)."""
    return " ".join(weapon.strip().lower().replace("-", " ").replace("_", " ").split()) in LIGHT_WEAPONS


@dataclass(frozen=True)
class Weapon:
    """What the attack deals: dice, the ability it adds, firearm and subdual flags."""

    spec: DiceSpec
    notation: str
    ability: str
    firearm: bool
    subdual: bool
    multiplier: int


def weapon_spec(expr: str) -> DiceSpec:
    """Weapon dice like 1d8, 2d6+1 or any dice expression (2d6kh1+1d4); a bad one says where it fails."""
    try:
        spec = parse_notation(expr)
    except BadInput as e:
        raise BadInput(f"unknown weapon expression '{expr}': {e.message}", e.hint) from None
    if not spec.rolls_dice:
        raise BadInput(f"unknown weapon expression '{expr}'", "a weapon rolls at least one die")
    if spec.kind not in ("sum", "d20", "expr"):
        raise BadInput(f"unknown weapon expression '{expr}'", "weapon dice are NdM+K, not Fudge dice or pools")
    return spec


def read_weapon(options: Options) -> Weapon:
    """The weapon from the options: fists (1d4 subdual) unless `damage` names weapon dice."""
    expr = options.get("damage")
    fists = expr is None
    notation = FISTS if fists else str(expr)
    firearm = opt_bool(options, "firearm")
    ability = opt_choice(options, "weapon-ability", ("str", "dex")) or ("dex" if firearm else "str")
    multiplier = opt_int(options, "critical-multiplier", CRITICAL_MULTIPLIER)
    if multiplier < 2:
        raise BadInput(f"a critical hit does more damage: multiplier {multiplier} is below 2")
    subdual = opt_bool(options, "subdual", fists)
    return Weapon(weapon_spec(notation), notation, ability, firearm, subdual, multiplier)


def two_weapon_row(options: Options) -> str:
    """The row of the Two Weapon Fighting table that applies."""
    light = opt_bool(options, "off-light") or is_light(str(options.get("off-weapon", "")))
    twc = opt_bool(options, "two-weapon-combat")
    amb = opt_bool(options, "ambidextrous") or twc  # only an ambidextrous character learns Two Weapon Combat
    if light and twc:
        return "off-light+two-weapon-combat"
    if light and amb:
        return "off-light+ambidextrous"
    if twc:
        return "two-weapon-combat"
    if amb:
        return "ambidextrous"
    return "off-light" if light else "normal"


def two_weapon_penalty(options: Options) -> int:
    """The Two Weapon Fighting penalty of this attack's hand (0 when not fighting with two weapons)."""
    hand = opt_choice(options, "two-weapon", ("primary", "off"))
    if hand is None or opt_bool(options, "rock"):
        return 0
    primary, off = TWO_WEAPON[two_weapon_row(options)]
    return primary if hand == "primary" else off


def read_modifiers(attacker: Sheet, target: Sheet, options: Options, ranged: bool) -> tuple[dict[str, int], list[str]]:
    """COMBAT MODIFIERS that apply, and those named but not applying (defender running vs melee)."""
    names = set(opt_names(options, "modifiers"))
    unknown = sorted(names - set(MODIFIERS))
    if unknown:
        raise BadInput(f"unknown combat modifier '{unknown[0]}'", f"choose from: {', '.join(MODIFIERS)}")
    if attacker.has("charging"):
        names.add("charging")
    if target.has("running") or target.has("charging"):
        names.add("defender-running")
    applied = {n: MODIFIERS[n] for n in sorted(names) if ranged or n not in RANGED_ONLY}
    return applied, sorted(names - set(applied))


def breaks_dr(roll: Roll, dr: int) -> bool:
    """Breaking the DR: a natural 20 always does, a natural 1 never does, else the total must reach the DR."""
    if roll.natural == 20:
        return True
    return roll.natural != 1 and roll.total >= dr


def roll_data(roll: Roll, dr: int) -> dict[str, Any]:
    """A d20 roll as ruling data."""
    return {"natural": roll.natural, "total": roll.total, "breaks-dr": breaks_dr(roll, dr)}


def charge_effects(sheet: Sheet) -> list[Effect]:
    """A charge: the charger is charging and loses 2 DR until their next turn."""
    return [
        Effect(CONDITION_IMPOSED, sheet.name, {"condition": "charging"}),
        Effect(COUNTERS_CHANGED, sheet.name, {"counters": {CHARGE_DR: CHARGE_DR_PENALTY}}),
    ]


def check_attackable(attacker: Sheet, target: Sheet) -> None:
    """Refuse attacks the rules forbid: by the dead, dying, unconscious or running; on the dead or oneself."""
    require_able(attacker, "attack")
    if attacker.has("running"):
        raise ImpossibleAction(f"{attacker.name} is running and can't attack until their next turn")
    if attacker.name == target.name:
        raise BadInput(f"{attacker.name} can't attack themselves")
    require_alive(target, "be attacked")


def weapon_damage(attacker: Sheet, target: Sheet, weapon: Weapon, critical: bool, dice: Dice) -> dict[str, Any]:
    """Weapon dice + Str or Dex modifier (no Dex for firearms), times the multiplier on a critical, minus DN."""
    roll = dice.take("damage", weapon.spec)
    no_ability = weapon.firearm and weapon.ability == "dex"
    ability = 0 if no_ability else ability_mod(attacker, weapon.ability)
    multiplier = weapon.multiplier if critical else 1
    raw = max((roll.total + ability) * multiplier, 1)
    dn = target.trait("dn")
    return {
        "notation": weapon.notation,
        "faces": list(roll.faces),
        "roll": roll.total,
        "ability": weapon.ability,
        "ability-mod": ability,
        "multiplier": multiplier,
        "raw": raw,
        "dn": dn,
        "dealt": max(raw - dn, 0),
        "subdual": weapon.subdual,
    }


def resolve_attack(attacker: Sheet, target: Sheet, options: Options, dice: Dice) -> list[Effect]:
    """One attack: d20 + attack + Str + modifiers against DR; natural 1 and 20; confirm; death; damage."""
    check_attackable(attacker, target)
    weapon = read_weapon(options)
    ranged = opt_bool(options, "ranged") or weapon.firearm
    mods, ignored = read_modifiers(attacker, target, options, ranged)
    close = weapon.firearm and opt_bool(options, "within-10ft")
    parts = {
        "attack": attacker.trait("attack"),
        "str": ability_mod(attacker, "str"),
        "bonus": opt_int(options, "bonus", 0),
        **mods,
        "firearm-within-10ft": FIREARM_CLOSE_BONUS if close else 0,
        "two-weapon": two_weapon_penalty(options),
    }
    free = opt_choice(options, "free-attack", FREE_ATTACKS)
    dr_terms = dr_parts(target, opt_choice(options, "cover", (*COVER, "complete")))
    dr = sum(dr_terms.values())
    spec = d20(sum(parts.values()))
    first = dice.take("attack", spec)
    hit = breaks_dr(first, dr)
    take_confirm, take_death = opt_bool(options, "confirm", True), opt_bool(options, "instant-death", True)
    confirm = dice.take("confirm", spec) if first.natural == 20 and take_confirm else None
    critical = confirm is not None and breaks_dr(confirm, dr)
    death = dice.take("death", spec) if critical and not weapon.subdual and take_death else None
    instant = death is not None and breaks_dr(death, dr)
    damage = weapon_damage(attacker, target, weapon, critical, dice) if hit and not instant else None
    data: dict[str, Any] = {
        "attacker": attacker.name,
        "target": target.name,
        **roll_data(first, dr),
        "attack-bonus": spec.modifier,
        "attack-parts": parts,
        "ignored-modifiers": ignored,
        "dr": dr,
        "dr-parts": dr_terms,
        "hit": hit,
        "miss": not hit,
        "colossal-failure": first.natural == 1,
        "spectacular-success": first.natural == 20,
        "critical": critical,
        "instant-death": instant,
        "confirm": roll_data(confirm, dr) if confirm else None,
        "death": roll_data(death, dr) if death else None,
        "damage": damage,
        "ranged": ranged,
        "free-attack": free,
        "declined": [
            n
            for n, taken, due in (
                ("confirm", take_confirm, first.natural == 20),
                ("death", take_death, critical and not weapon.subdual),
            )
            if due and not taken
        ],
    }
    effects: list[Effect] = []
    if "charging" in opt_names(options, "modifiers") and not attacker.has("charging"):
        effects += charge_effects(attacker)
    effects.append(Effect(ATTACK_RESOLVED, target.name, data))
    if instant:
        effects += death_effects(target, f"killed outright by {attacker.name} (three rolls broke the DR)")
    elif damage and damage["dealt"] > 0:
        effects += damage_effects(target, damage["dealt"], subdual=weapon.subdual, note=f"attack by {attacker.name}")
    return effects + exertion_effects(attacker, "attack")
