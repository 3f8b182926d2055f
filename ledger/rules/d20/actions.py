"""d20 Supers: checks, initiative, running and charging, recovery and the ways back from death."""

from __future__ import annotations

from typing import Any

from ledger.errors import BadInput, ImpossibleAction, did_you_mean
from ledger.model.dice import Dice, Roll, d20
from ledger.model.sheet import (
    CHECK_RESOLVED,
    CONDITION_IMPOSED,
    CONDITION_REMOVED,
    COUNTERS_CHANGED,
    EFFECT_RESOLVED,
    HEALTH_RECOVERED,
    Effect,
    Sheet,
)
from ledger.rules.common import set_conditions
from ledger.rules.d20.attack import CHARGE_DR_PENALTY, charge_effects
from ledger.rules.d20.core import (
    ABILITIES,
    ABILITY_NAMES,
    CHARGE_DR,
    COLLAPSED,
    DEATH_HP,
    DEFAULT_SPEED,
    HP_CONDITIONS,
    KNOCKED_OUT,
    RUN_MULTIPLIER,
    SUBDUAL,
    ability_mod,
    condition_effects,
    death_effects,
    exertion_effects,
    opt_bool,
    opt_choice,
    opt_int,
    require_able,
    require_alive,
)
from ledger.rules.d20.options import ACTION_KINDS, CHARGE_ATTACK
from ledger.rules.options import Options

SUBDUAL_FADE_PER_LEVEL = (
    1  # docs/interpretations.md (d20 Supers): subdual fades 1 point per hour per level (level 1 if not given)
)
REVIVE_MEANS = ("gem-of-eternity", "soul-bound", "romnecos")
# Numbers a sheet holds that are not skills (docs/interpretations.md, d20 Supers: what `check` rolls).
SHEET_NUMBERS = frozenset({"hp", "speed", "armor", "power-dr", "dn", "attack", "level"})
SHEET_NAMES = frozenset({"soul-bound"})  # traits that name someone (Death: the one soul bound to this character)


def skills(sheet: Sheet) -> list[str]:
    """What a check can roll: the six abilities and every other numeric trait that is not a sheet number."""
    extra = sorted(
        k for k, v in sheet.traits.items() if isinstance(v, int) and k not in SHEET_NUMBERS and k not in ABILITIES
    )
    return [*ABILITIES, *extra]


def trait_key(name: str) -> str:
    """Trait spelling: lower case, spaces and underscores as hyphens."""
    return "-".join(name.strip().lower().replace("_", " ").split())


def check_modifier(sheet: Sheet, trait: str) -> int:
    """An ability's modifier (a score not given counts as 10), or a skill's rank as a flat bonus; sheet numbers are
    refused."""
    if trait in ABILITIES:
        return ability_mod(sheet, trait)
    hint = f"{sheet.name} can check: {', '.join(skills(sheet))}"
    if trait in SHEET_NUMBERS:
        raise BadInput(f"'{trait}' is a number on the sheet, not a skill to check", hint)
    if trait in SHEET_NAMES:
        raise BadInput(f"'{trait}' names a character on the sheet (who is soul bound), not a skill to check", hint)
    value = sheet.traits.get(trait)
    if not isinstance(value, int) and trait in ABILITY_NAMES:  # the sheet keys the abilities str .. cha
        raise BadInput(f"{sheet.name} has no skill '{trait}'", f"did you mean '{ABILITY_NAMES[trait]}'?")
    if not isinstance(value, int):
        raise BadInput(f"{sheet.name} has no skill '{trait}'", did_you_mean(trait, skills(sheet), hint))
    return value


def check_rank(roll: Roll) -> tuple[int, int, int]:
    """How a check compares in an opposed check: natural 20 above all, natural 1 below all, then total, modifier."""
    band = 2 if roll.natural == 20 else 0 if roll.natural == 1 else 1
    return (band, roll.total, roll.spec.modifier)


def roll_summary(roll: Roll) -> dict[str, Any]:
    """A d20 check roll as ruling data."""
    return {"natural": roll.natural, "modifier": roll.spec.modifier, "total": roll.total}


def resolve_check(
    sheet: Sheet,
    trait: str,
    dc: int | None,
    against: tuple[Sheet, str] | None,
    options: Options,
    dice: Dice,
) -> list[Effect]:
    """d20 + modifier against a DC or an opposed check; natural 1 always fails, natural 20 always succeeds."""
    require_able(sheet, "make a check")
    trait = trait_key(trait)
    if (dc is None) == (against is None):
        raise BadInput("a check needs either a DC or an opponent to oppose it, not both or neither")
    roll = dice.take("check", d20(check_modifier(sheet, trait) + opt_int(options, "bonus", 0)))
    data: dict[str, Any] = {"character": sheet.name, "trait": trait, **roll_summary(roll), "dc": dc}
    if against is None:
        assert dc is not None
        success = roll.natural == 20 or (roll.natural != 1 and roll.total >= dc)
    else:
        other, other_trait = against[0], trait_key(against[1])
        require_alive(other, "oppose a check")
        opposed = dice.take("opposed", d20(check_modifier(other, other_trait)))
        success = check_rank(roll) > check_rank(opposed)
        data["against"] = {"character": other.name, "trait": other_trait, **roll_summary(opposed)}
    data |= {
        "success": success,
        "colossal-failure": roll.natural == 1,
        "spectacular-success": roll.natural == 20,
    }
    effects = [Effect(CHECK_RESOLVED, sheet.name, data)]
    if opt_bool(options, "major"):
        effects += exertion_effects(sheet, f"{trait} check")
    return effects


def fade_rate(sheet: Sheet, options: Options) -> int:
    """Subdual points that fade per hour: the option, else 1 per level (level 1 when not given)."""
    rate = opt_int(options, "subdual-rate", SUBDUAL_FADE_PER_LEVEL * max(sheet.trait("level", 1), 1))
    if rate < 0:
        raise BadInput(f"subdual can't fade at {rate} a hour")
    return rate


def resolve_recover(sheet: Sheet, hours: int, amount: int | None, cause: str, options: Options) -> list[Effect]:
    """Regular damage heals by the amount the GM rules (up to max HP); subdual fades with the hours."""
    require_alive(sheet, "recover")
    if hours < 0:
        raise BadInput(f"recovery can't take {hours} hours")
    if amount is not None and amount < 0:
        raise BadInput(f"can't recover {amount} HP", "use damage to lose HP")
    if not cause.strip():
        raise BadInput("recovery needs a cause: a power, medical attention or the passage of time")
    healed = min(amount or 0, max(sheet.max_hp - sheet.hp, 0))
    hp = sheet.hp + healed
    subdual = sheet.counter(SUBDUAL)
    faded = min(subdual, hours * fade_rate(sheet, options))
    counters: dict[str, int | None] = {SUBDUAL: subdual - faded}
    if hp > 0 and sheet.counter(COLLAPSED):
        counters[COLLAPSED] = None
    if healed == 0 and faded == 0 and COLLAPSED not in counters:
        return [Effect(EFFECT_RESOLVED, sheet.name, {"recovered": 0, "cause": cause, "hours": hours})]
    data = {"amount": healed, "hp": hp, "counters": counters, "cause": cause, "hours": hours, "subdual-faded": faded}
    return [Effect(HEALTH_RECOVERED, sheet.name, data), *condition_effects(sheet, hp, counters, f"recovered: {cause}")]


def running_distance(sheet: Sheet, options: Options) -> int:
    """Running: 4 x normal speed (the speed option when armor modifies it)."""
    speed = opt_int(options, "speed", sheet.trait("speed", DEFAULT_SPEED))
    if speed < 0:
        raise BadInput(f"speed can't be {speed} ft.")
    return RUN_MULTIPLIER * speed


def resolve_run(sheet: Sheet, options: Options) -> list[Effect]:
    """Running: move 4 x speed and make no attack until the next turn."""
    require_able(sheet, "run")
    data = {"action": "run", "character": sheet.name, "distance": running_distance(sheet, options)}
    effects = [Effect(EFFECT_RESOLVED, sheet.name, data)]
    if not sheet.has("running"):
        effects.append(Effect(CONDITION_IMPOSED, sheet.name, {"condition": "running"}))
    return effects + exertion_effects(sheet, "run")


def resolve_charge(sheet: Sheet, options: Options) -> list[Effect]:
    """Charge: like a run, but +2 to attack rolls and -2 to DR until the charger's next turn."""
    require_able(sheet, "charge")
    data = {
        "action": "charge",
        "character": sheet.name,
        "distance": running_distance(sheet, options),
        "attack": CHARGE_ATTACK,
        "dr": CHARGE_DR_PENALTY,
    }
    effects = [Effect(EFFECT_RESOLVED, sheet.name, data)]
    if not sheet.has("charging"):
        effects += charge_effects(sheet)
    return effects + exertion_effects(sheet, "charge")


def resolve_action(sheet: Sheet, options: Options) -> list[Effect]:
    """Any other action in a round, as the GM names it: full, partial or free (Attacks)."""
    kind = opt_choice(options, "kind", ACTION_KINDS) or "partial"
    require_able(sheet, f"take a {kind} action")  # Damage: the dying "can take no actions", free ones included
    data = {"action": str(options.get("what", "") or "an action"), "kind": kind, "character": sheet.name}
    major = exertion_effects(sheet, data["action"]) if opt_bool(options, "major") else []
    return [Effect(EFFECT_RESOLVED, sheet.name, data), *major]


def resolve_initiative(sheet: Sheet, dice: Dice) -> tuple[int, list[Effect]]:
    """Initiative: 1d20 + Dex modifier."""
    require_alive(sheet, "roll initiative")
    roll = dice.take("initiative", d20(ability_mod(sheet, "dex")))
    data = {"initiative": roll.total, "character": sheet.name, **roll_summary(roll)}
    return roll.total, [Effect(EFFECT_RESOLVED, sheet.name, data)]


def turn_start_effects(sheet: Sheet, skip: frozenset[str] | set[str] = frozenset()) -> list[Effect]:
    """At the start of their turn a runner stops running and a charger gets their DR back (`skip`: what a duration
    ends instead)."""
    ended = [c for c in ("running", "charging") if sheet.has(c) and c not in skip]
    effects = [Effect(CONDITION_REMOVED, sheet.name, {"condition": c}) for c in ended]
    if CHARGE_DR in sheet.counters and "charging" not in skip:
        effects.append(Effect(COUNTERS_CHANGED, sheet.name, {"counters": {CHARGE_DR: None}}))
    return effects


def revived_effects(sheet: Sheet, means: str, note: str) -> list[Effect]:
    """Back among the living: full HP, no subdual damage, no HP conditions."""
    counters: dict[str, int | None] = {SUBDUAL: 0, COLLAPSED: None, KNOCKED_OUT: None, CHARGE_DR: None}
    data = {"amount": sheet.max_hp - sheet.hp, "hp": sheet.max_hp, "counters": counters, "means": means, "note": note}
    return [
        Effect(EFFECT_RESOLVED, sheet.name, {"revived": sheet.name, "means": means, "note": note}),
        Effect(HEALTH_RECOVERED, sheet.name, data),
        *set_conditions(sheet, set(), HP_CONDITIONS, note),
    ]


def require_dead(sheet: Sheet) -> None:
    """Only the dead can be brought back."""
    if not (sheet.hp <= DEATH_HP or sheet.has("dead")):
        raise ImpossibleAction(f"{sheet.name} is not dead", "use recover to heal the living")


def soul_bound(fallen: Sheet, taker: Sheet) -> bool:
    """Whether either sheet names the other in its `soul-bound` trait."""
    return taker.traits.get("soul-bound") == fallen.name or fallen.traits.get("soul-bound") == taker.name


def resolve_soul_bound(fallen: Sheet, taker: Sheet) -> list[Effect]:
    """Soul Bound exchange: the taker dies in the fallen's place and the fallen returns to life."""
    require_dead(fallen)
    if taker.name == fallen.name:
        raise BadInput(f"{fallen.name} can't take their own place in death")
    require_alive(taker, "take another's place in death")
    if not soul_bound(fallen, taker):
        hint = f"set the trait soul-bound={fallen.name} on {taker.name}"
        raise ImpossibleAction(f"{taker.name} is not Soul Bound to {fallen.name}", hint)
    note = f"{taker.name} took {fallen.name}'s place in death (Soul Bound)"
    return [*revived_effects(fallen, "soul-bound", note), *death_effects(taker, note)]


def resolve_revive(sheet: Sheet, means: str, by: Sheet | None) -> list[Effect]:
    """The ways back from death the text names, as the GM rules them."""
    means = means.strip().lower()
    if means not in REVIVE_MEANS:
        raise BadInput(
            f"unknown way back from death '{means}'",
            did_you_mean(means, REVIVE_MEANS, f"choose one of: {', '.join(REVIVE_MEANS)}"),
        )
    if means == "soul-bound":
        if by is None:
            raise BadInput("a Soul Bound exchange needs the one who takes the fallen's place")
        return resolve_soul_bound(sheet, by)
    require_dead(sheet)
    notes = {"gem-of-eternity": "a Gem of Eternity was used; it disintegrates", "romnecos": "Romnecos gave up the soul"}
    return revived_effects(sheet, means, notes[means])
