"""What each d20 Supers command understands: typed option declarations (ledger/rules/options.py)."""

from __future__ import annotations

from ledger.rules.options import Opt, Role, pass_over

TITLE = "d20 Supers"
HEALTH_WORD = "HP"  # what the text calls the track damage lowers
ROUND_WORD = "round"  # what the text calls one pass through the order

T = "d20-supers.txt"
RANGES = ("close", "melee", "ranged")
COVER = {"none": 0, "1/4": 2, "1/2": 4, "3/4": 6, "9/10": 10}  # Cover Bonus: DR bonus by how much is covered
FISTS = "1d4"  # To Attack: "Fists are considered 1d4 subdual"
CRITICAL_MULTIPLIER = 2  # docs/interpretations.md (d20 Supers): the text's "see Weapons" is not part of the text
CHARGE_ATTACK = 2  # Charge: "+2 to Attack rolls"
# COMBAT MODIFIERS (to attack rolls)
MODIFIERS = {
    "flanking": 2,
    "high-ground": 1,
    "invisible": 2,
    "defender-sitting": 2,
    "defender-climbing": -2,
    "defender-running": -2,
    "charging": CHARGE_ATTACK,
}
FREE_ATTACKS = ("unaware", "has-the-drop", "moved-within-5ft")  # the first two: the Attack of Opportunity
OPPORTUNITY = frozenset({"unaware", "has-the-drop"})
ACTION_KINDS = ("full", "partial", "free")  # Attacks: Full action, Partial action, Free action
ECONOMY_MODES = ("refuse", "warn", "off")

ATTACK: tuple[Opt, ...] = (
    Opt(
        "damage",
        "dice",
        f"the weapon's dice, e.g. 1d8 or 2d6+1 (fists: {FISTS} subdual)",
        f"{T}, To Attack",
        default=FISTS,
        named=True,
    ),
    Opt(
        "bonus", "int", "extra attack bonus or penalty the GM rules", f"{T}, COMBAT MODIFIERS", default="0", named=True
    ),
    Opt(
        "range",
        "choice",
        "close/melee, or ranged (bows, guns etc.)",
        f"{T}, To Attack",
        choices=RANGES,
        default="close",
        named=True,
    ),
    Opt("ranged", "flag", "a ranged attack (bows, guns etc.)", f"{T}, To Attack"),
    Opt(
        "weapon-ability",
        "choice",
        "ability added to damage (dex for a firearm, which adds nothing)",
        f"{T}, Damage",
        choices=("str", "dex"),
        default="str",
    ),
    Opt(
        "firearm", "flag", "the weapon is a firearm (no Dex to damage; +3 attack within 10 ft; ranged)", f"{T}, Damage"
    ),
    Opt("within-10ft", "flag", "a firearm attack from 10 ft. or less (+3 attack)", f"{T}, COMBAT MODIFIERS"),
    Opt("subdual", "flag", "the damage is subdual (default yes for fists, no for weapons)", f"{T}, Damage", named=True),
    Opt(
        "modifiers",
        "names",
        "combat modifiers (defender-running: ranged attacks only)",
        f"{T}, COMBAT MODIFIERS",
        choices=tuple(MODIFIERS),
    ),
    Opt(
        "cover",
        "choice",
        "the target's cover (complete: can't be attacked)",
        f"{T}, Cover Bonus",
        choices=(*(c for c in COVER if c != "none"), "none", "complete"),
        named=True,
    ),
    Opt(
        "two-weapon",
        "choice",
        "attacking with two weapons: which hand this attack is made with",
        f"{T}, Two Weapon Fighting",
        choices=("primary", "off"),
    ),
    Opt("off-light", "flag", "the off-hand weapon is light", f"{T}, Two Weapon Fighting"),
    Opt(
        "off-weapon",
        "text",
        "the off-hand weapon's name; light when on the Light Weapons list",
        f"{T}, Two Weapon Fighting",
    ),
    Opt("ambidextrous", "flag", "the attacker is ambidextrous", f"{T}, Two Weapon Fighting"),
    Opt(
        "two-weapon-combat",
        "flag",
        "the attacker knows Two Weapon Combat (only an ambidextrous character can)",
        f"{T}, Two Weapon Fighting",
    ),
    Opt("rock", "flag", "this hand's weapon is a rock (never any two-weapon penalty)", f"{T}, Two Weapon Fighting"),
    Opt(
        "critical-multiplier",
        "int",
        "damage multiplier on a critical hit",
        f"{T}, Collosal Failures and Spectacular Success",
        default=str(CRITICAL_MULTIPLIER),
        lo=2,
        hi=100,
    ),
    Opt(
        "confirm",
        "flag",
        "after a natural 20, take the roll that may make a critical hit (no: decline it)",
        f"{T}, Collosal Failures and Spectacular Success",
        default="yes",
    ),
    Opt(
        "instant-death",
        "flag",
        "after a critical hit, take the third roll that may kill outright (no: decline it)",
        f"{T}, Collosal Failures and Spectacular Success",
        default="yes",
    ),
    Opt(
        "free-attack",
        "choice",
        "why this is a free attack: unaware or has-the-drop (the Attack of Opportunity, one a round), or "
        "moved-within-5ft",
        f"{T}, Attack of Opportunity",
        choices=FREE_ATTACKS,
    ),
)
CHECK: tuple[Opt, ...] = (
    Opt("bonus", "int", "extra bonus or penalty the GM rules", f"{T}, COMBAT MODIFIERS", default="0"),
    Opt("major", "flag", "the check is something major (a disabled character falls unconscious)", f"{T}, Damage"),
)
RECOVER: tuple[Opt, ...] = (
    Opt(
        "subdual-rate",
        "int",
        "subdual points that fade per hour (default: the `level` trait, 1 if not given)",
        f"{T}, Damage",
        lo=1,
    ),
)
MOVE: tuple[Opt, ...] = (
    Opt(
        "speed",
        "int",
        "normal speed in feet this round, as modified by armor (default: the `speed` trait, else 30)",
        f"{T}, Attacks",
        lo=0,
    ),
)
ACTION: tuple[Opt, ...] = (
    Opt(
        "kind",
        "choice",
        "full (6 seconds: draw a weapon, reload, open a door), partial (fire a gun, use a power) or free "
        "(talk, drop an item)",
        f"{T}, Attacks",
        choices=ACTION_KINDS,
        default="partial",
    ),
    Opt("what", "text", "what the character does, for the record", f"{T}, Attacks"),
    Opt("major", "flag", "the action is something major (a disabled character falls unconscious)", f"{T}, Damage"),
)
INIT: tuple[Opt, ...] = (
    Opt(
        "action-economy",
        "choice",
        "in an encounter, a second full action in a round (or any action after one): refuse it, warn and "
        "record it, or don't track",
        f"{T}, Attacks",
        choices=ECONOMY_MODES,
        default="refuse",
    ),
    pass_over(f"{T}, Damage (the dying and unconscious can take no actions)"),
    Opt(
        "reroll-initiative",
        "choice",
        "roll initiative once, for the whole encounter, or again for everyone at the start of each round",
        f"{T}, Initiative",
        choices=("once", "each-round"),
        default="once",
    ),
)
OPTIONS: dict[str, tuple[Opt, ...]] = {"attack": ATTACK, "check": CHECK, "recover": RECOVER, "init": INIT}

ACTIONS: dict[str, tuple[Opt, ...]] = {"run": MOVE, "charge": MOVE, "action": ACTION}

# Whose each named roll of a command is: the acting character, the other one, or no one's ('-').
ROLLS: dict[str, dict[str, Role]] = {
    "attack": {"attack": "actor", "confirm": "actor", "death": "actor", "damage": "actor"},
    "check": {"check": "actor", "opposed": "other"},
}
ACTION_ROLLS: dict[str, dict[str, Role]] = {}
