"""Prowlers & Paragons: the tables, trait lookups and small helpers every P&P rule shares.

Text: prowlers-and-paragons.txt. Readings where the text is open: docs/interpretations.md (Prowlers & Paragons).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ledger.errors import BadInput, ImpossibleAction, did_you_mean
from ledger.model.dice import Dice, ascii_int, pool
from ledger.model.sheet import RESOURCE_CHANGED, Effect, Sheet, Value, holds_gm_pool
from ledger.rules.options import Options
from ledger.rules.pnp.options import EFFECT_CONDITIONS

ABILITIES = ("agility", "intellect", "might", "perception", "toughness", "willpower")
TALENTS = (
    "academics", "charm", "command", "covert", "investigation", "medicine",
    "professional", "science", "streetwise", "survival", "technology", "vehicles",
)  # fmt: skip
THREAT = "threat"

# Special effects an attack can inflict instead of damage, and the condition each one imposes.
CONDITIONS = frozenset({"defeated", *EFFECT_CONDITIONS.values()})
EFFECT_PREFIX = "effect:"  # Sheet.counters["effect:stun"] = pages left
SCENE = -1  # a special effect's counter value when it lasts for the rest of the scene

# Attacks and Defenses: "an active defense like Agility ... a passive defense like Armor".
ACTIVE_DEFENSES = frozenset({"agility"})
PASSIVE_DEFENSES = frozenset({"armor", "force-field"})
NOT_DEFENSES = frozenset({"might", "toughness"})
# Range and Movement: powers that "let you move faster than normal".
TRAVEL_POWERS = frozenset(
    {"flight", "super-speed", "leaping", "swinging", "teleportation", "burrowing", "super-swimming", "wall-crawling"}
)

# The lost Thresholds table, as this ledger reads it: name -> (threshold, help).
THRESHOLDS: dict[str, tuple[int, str]] = {
    "routine": (0, "anyone could do it; roll only if failure is interesting"),
    "easy": (1, "a little skill or luck does it"),
    "average": (2, "what an ordinary 3d person usually manages (the default)"),
    "challenging": (3, "needs real training or talent"),
    "hard": (4, "beyond most ordinary people"),
    "very-hard": (5, "a feat for experts and low-level supers"),
    "extreme": (6, "the limit of human achievement"),
    "heroic": (8, "only supers pull it off"),
    "cosmic": (10, "world-shaking"),
}
DEFAULT_THRESHOLD = "average"

REROLL = "reroll"  # the roll name of a reroll bought with Resolve
EXTRA_DIE_COST = 1  # Resolve per extra die
REROLL_COST = 1  # Resolve per reroll of a whole pool


@dataclass(frozen=True)
class Narration:
    """One row of the Challenge Rolls table: net successes -> who narrates and who may embellish."""

    low: int | None
    high: int | None
    outcome: str
    narrator: str  # "actor" or "opponent"
    embellisher: str | None  # the other party, or None when no embellishment is allowed


# The lost Challenge Rolls table, as this ledger reads it.
CHALLENGE_ROLLS: tuple[Narration, ...] = (
    Narration(None, -1, "failure", "opponent", None),
    Narration(0, 0, "near miss", "opponent", "actor"),
    Narration(1, 1, "success at a cost", "actor", "opponent"),
    Narration(2, None, "full success", "actor", None),
)


def challenge_row(net: int) -> Narration:
    """The Challenge Rolls row for a number of net successes."""
    for row in CHALLENGE_ROLLS:
        if (row.low is None or net >= row.low) and (row.high is None or net <= row.high):
            return row
    raise AssertionError(f"no Challenge Rolls row for {net}")  # the table covers every integer


def norm(name: str) -> str:
    """Trait, option and range spelling: lower case, spaces as hyphens."""
    return "-".join(str(name).strip().lower().split())


def ceil_half(n: int) -> int:
    """Half, rounded up ("rounding up as usual")."""
    return -(-n // 2)


def _num(v: Value | None) -> int:
    return v if isinstance(v, int) else 0


def health(traits: Mapping[str, Value]) -> int:
    """Health: the greater of the averages of Toughness with Might and with Willpower, rounded up (at least 1)."""
    t, m, w = (_num(traits.get(k)) for k in ("toughness", "might", "willpower"))
    return max(1, ceil_half(t + m), ceil_half(t + w))


def edge(sheet: Sheet) -> int:
    """Edge: Perception plus the greater of Agility and Intellect; a minion's Threat stands for all three."""
    if sheet.minion:
        return 2 * sheet.trait(THREAT)
    return sheet.trait("perception") + max(sheet.trait("agility"), sheet.trait("intellect"))


def is_defeated(sheet: Sheet) -> bool:
    """Defeated: the condition, no Health left, or no minions left in the group."""
    return sheet.has("defeated") or sheet.hp <= 0 or (sheet.minion and sheet.count <= 0)


def require_character(sheet: Sheet) -> None:
    """The hidden sheet that holds the GM's Adversity is not a character: it takes no damage, conditions or rolls."""
    if holds_gm_pool(sheet.resources):
        raise BadInput(
            f"{sheet.name} holds the GM's Adversity and is not a character",
            f"only spend and gain reach it: ledger spend {sheet.name} adversity",
        )


def require_able(sheet: Sheet, doing: str) -> None:
    """A defeated character is out of the fight and can't act (and the GM's pool is no character at all)."""
    require_character(sheet)
    if is_defeated(sheet):
        raise ImpossibleAction(f"{sheet.name} is defeated and out of the fight: they can't {doing}")


def is_power(key: str) -> bool:
    """Anything that is not an Ability, a Talent or Threat is a Power."""
    return key not in ABILITIES and key not in TALENTS and key != THREAT


def trait_rank(sheet: Sheet, trait: str) -> tuple[str, int]:
    """The trait's key and rank in dice; a minion uses Threat for everything.

    Every character has the six Abilities and the twelve Talents ("characters are defined by"): one the sheet
    does not list is 0 dice, as Health and Edge read it. A Power is the character's own: one the sheet lacks is
    refused with its name, everywhere a trait is named (checks, attacks, defenses, resistances, chases).
    """
    if sheet.minion:
        return THREAT, sheet.trait(THREAT)
    key = norm(trait)
    value = sheet.traits.get(key)
    if isinstance(value, int):
        return key, value
    if key in ABILITIES or key in TALENTS:
        return key, 0
    powers = sorted(k for k, v in sheet.traits.items() if isinstance(v, int) and is_power(k))
    raise BadInput(
        f"{sheet.name} has no power '{key}'",
        did_you_mean(key, [*powers, *ABILITIES, *TALENTS], f"{sheet.name}'s powers: {', '.join(powers) or 'none'}"),
    )


def power_meta(sheet: Sheet, key: str) -> Mapping[str, Any]:
    """The optional metadata a sheet keeps for a power (defense, travel, effect, resist)."""
    return sheet.powers.get(key, {})


def defense_kind(sheet: Sheet, key: str) -> str | None:
    """'active', 'passive' or None: whether the trait defends against attacks (never Might or Toughness)."""
    if key in NOT_DEFENSES:
        return None
    meta = power_meta(sheet, key).get("defense")
    if meta in ("active", "passive"):
        return str(meta)
    if key in ACTIVE_DEFENSES:
        return "active"
    return "passive" if key in PASSIVE_DEFENSES else None


def is_travel_power(sheet: Sheet, key: str) -> bool:
    """Whether the trait is a Travel Power (known by name, or marked travel in the sheet's powers)."""
    return key in TRAVEL_POWERS or bool(power_meta(sheet, key).get("travel"))


def travel_powers(sheet: Sheet) -> list[str]:
    """The Travel Powers the character has."""
    return [k for k, v in sheet.traits.items() if isinstance(v, int) and is_travel_power(sheet, k)]


def check_options(options: Options, allowed: Mapping[str, str], what: str) -> dict[str, Any]:
    """The options actually given (None means not given); an unknown key is bad input."""
    given = {norm(k): v for k, v in options.items() if v is not None}
    for key in given:
        if key not in allowed:
            raise BadInput(f"a pnp {what} takes no option '{key}'", f"it takes: {', '.join(allowed)}")
    return given


def opt_int(given: Options, key: str) -> int:
    """A whole number of at least 0 (0 when not given)."""
    v = given.get(key, 0)
    if isinstance(v, bool):
        raise BadInput(f"option '{key}' needs a whole number, got {v}")
    try:
        n = ascii_int(v)
    except ValueError:
        raise BadInput(f"option '{key}' needs a whole number, got '{v}'") from None
    if n < 0:
        raise BadInput(f"option '{key}' can't be below 0, got {n}")
    return n


def opt_flag(given: Options, key: str) -> bool:
    """A yes/no option (False when not given)."""
    v = given.get(key, False)
    if isinstance(v, bool):
        return v
    text = str(v).strip().lower()
    if text in ("yes", "true", "1", "on"):
        return True
    if text in ("no", "false", "0", "off", ""):
        return False
    raise BadInput(f"option '{key}' is yes or no, got '{v}'")


def opt_text(given: Options, key: str) -> str:
    """A text option ('' when not given)."""
    return str(given.get(key, "")).strip()


def roll_pool(
    dice: Dice, name: str, size: int, *, reroll: bool, reroll_name: str = REROLL
) -> tuple[int, dict[str, Any]]:
    """Successes of a pool roll (a 0-dice pool is still taken and scores 0); with reroll the reroll roll counts."""
    spec = pool(size)
    first = dice.take(name, spec)
    if not reroll:
        return first.total, {}
    again = dice.take(reroll_name, spec)
    return again.total, {"rerolled": True, "successes_before_reroll": first.total}


@dataclass(frozen=True)
class Boost:
    """Resolve (or the GM's Adversity) spent on the other side's pool: a defense, an opposed roll, a chase."""

    extra: int
    reroll: bool
    costs: list[Effect]
    adversity_due: int
    reroll_due: int = 0  # the part of adversity_due that pays for the reroll

    def data(self) -> dict[str, Any]:
        """What the ruling records of it (nothing when nothing was bought)."""
        return (
            {"opponent_extra_dice": self.extra, "opponent_rerolled": self.reroll} if self.extra or self.reroll else {}
        )


def other_boost(given: Options, sheet: Sheet | None, prefix: str) -> Boost:
    """The other side's `PREFIX-extra-dice` and `PREFIX-reroll`, charged to that character (an NPC's: to the GM)."""
    extra, reroll = opt_int(given, f"{prefix}-extra-dice"), opt_flag(given, f"{prefix}-reroll")
    if sheet is None:
        if extra or reroll:
            raise BadInput(f"{prefix}-extra-dice and {prefix}-reroll are for an opponent's roll: there is none")
        return Boost(0, False, [], 0)
    costs, due = charge(sheet, extra_dice=extra, reroll=reroll)
    return Boost(extra, reroll, costs, due, reroll_owed(sheet, reroll))


def reroll_owed(sheet: Sheet, reroll: bool) -> int:
    """The Adversity an NPC's reroll costs the GM (a hero pays with Resolve: nothing owed)."""
    return REROLL_COST if reroll and "resolve" not in sheet.resources else 0


def resource_changed(sheet: Sheet, resource: str, delta: int, **why: Any) -> Effect:
    """A ResourceChanged effect from the sheet's current value."""
    value = sheet.resources.get(resource, 0) + delta
    return Effect(RESOURCE_CHANGED, sheet.name, {"resource": resource, "delta": delta, "value": value, **why})


def charge(sheet: Sheet, *, extra_dice: int, reroll: bool) -> tuple[list[Effect], int]:
    """Resolve spent on extra dice and a reroll, or the Adversity the GM owes for an NPC (returned)."""
    costs = [("extra-dice", extra_dice * EXTRA_DIE_COST), ("reroll", REROLL_COST if reroll else 0)]
    total = sum(c for _, c in costs)
    if total == 0:
        return [], 0
    if "resolve" not in sheet.resources:
        return [], total
    have = sheet.resources["resolve"]
    if total > have:
        raise ImpossibleAction(f"{sheet.name} has {have} Resolve left, not the {total} this needs")
    effects: list[Effect] = []
    for purpose, cost in costs:
        if cost:
            have -= cost
            effects.append(
                Effect(
                    RESOURCE_CHANGED,
                    sheet.name,
                    {"resource": "resolve", "delta": -cost, "value": have, "purpose": purpose},
                )
            )
    return effects, 0
