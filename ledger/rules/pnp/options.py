"""What each Prowlers & Paragons command understands: typed option declarations (ledger/rules/options.py)."""

from __future__ import annotations

from ledger.rules.options import Opt, Role, pass_over

TITLE = "Prowlers & Paragons"
HEALTH_WORD = "Health"  # Attacks and Defenses: "Damage reduces the target's Health"
ROUND_WORD = "page"  # Combat: "In combat, time is broken down into pages"

T = "prowlers-and-paragons.txt"
EFFECT_CONDITIONS: dict[str, str] = {
    "stun": "stunned",
    "ensnare": "ensnared",
    "blind": "blinded",
    "knockdown": "prone",
    "grab": "grabbed",
}
RANGES = ("close", "distant", "extreme")  # Range and Movement: the range classes
BOOSTS: tuple[Opt, ...] = (
    Opt(
        "extra-dice",
        "int",
        "dice added to the actor's pool, 1 Resolve each (an NPC's are owed from the GM's Adversity)",
        f"{T}, Resolve and Adversity",
        lo=0,
        hi=100,
    ),
    Opt("reroll", "flag", "reroll the actor's whole pool (roll 'reroll') for 1 Resolve", f"{T}, Resolve and Adversity"),
)


def other_boosts(prefix: str, whose: str) -> tuple[Opt, ...]:
    """The other side's boosts: dice added to, or a reroll of, the {whose} roll (its Resolve; an NPC's: the GM's
    Adversity)."""
    return (
        Opt(
            f"{prefix}-extra-dice",
            "int",
            f"dice added to the {whose} pool, 1 Resolve each (an NPC's: the GM's Adversity)",
            f"{T}, Resolve and Adversity",
            lo=0,
            hi=100,
        ),
        Opt(
            f"{prefix}-reroll",
            "flag",
            f"reroll the {whose} whole pool (roll '{prefix}-reroll') for 1 Resolve (an NPC's: Adversity)",
            f"{T}, Resolve and Adversity",
        ),
    )


NARRATION: tuple[Opt, ...] = (
    Opt(
        "embellishment",
        "text",
        "what the party without narrative control adds, where the Challenge Rolls table allows it",
        f"{T}, Embellishments",
    ),
    Opt(
        "compromise",
        "text",
        "a less-than-perfect outcome the narrator accepts instead of the embellishment",
        f"{T}, Compromises",
    ),
    Opt("note", "text", "free text for the record"),
)
ATTACK: tuple[Opt, ...] = (
    Opt(
        "with",
        "text",
        "the trait or power whose dice attack (minions always roll Threat)",
        f"{T}, Attacks and Defenses",
        named=True,
    ),
    Opt(
        "weapon-bonus",
        "int",
        "dice a mundane weapon adds to an Ability or Talent such as Might or Agility",
        f"{T}, Attacks and Defenses",
        lo=0,
        hi=100,
    ),
    Opt(
        "effect",
        "choice",
        "a special effect instead of damage (default: the power's own)",
        f"{T}, Attacks and Defenses",
        choices=tuple(EFFECT_CONDITIONS),
        named=True,
    ),
    Opt(
        "resist",
        "text",
        "the target's trait that resists the special effect (default: best defense)",
        f"{T}, Attacks and Defenses",
    ),
    Opt(
        "defend-with",
        "text",
        "the GM's override of the target's defense: Agility or a defensive power",
        f"{T}, Attacks and Defenses",
    ),
    *BOOSTS,
    *other_boosts("defense", "target's defense"),
)
CHECK: tuple[Opt, ...] = (
    Opt(
        "threshold",
        "text",
        "a number or a Thresholds-table name (routine, easy, average, challenging, hard, ...)",
        f"{T}, Thresholds",
        default="average",
        named=True,
    ),
    *BOOSTS,
    *other_boosts("against", "opponent's"),
    *NARRATION,
)
CHASE: tuple[Opt, ...] = (
    Opt(
        "with",
        "text",
        "the first character's trait: Agility or a Travel Power (default: the higher rank)",
        f"{T}, Range and Movement",
    ),
    Opt("against-with", "text", "the second character's trait, likewise", f"{T}, Range and Movement"),
    *BOOSTS,
    *other_boosts("against", "chased character's"),
    *NARRATION,
)
MOVE: tuple[Opt, ...] = (
    Opt("from", "choice", "the range class moved from", f"{T}, Range and Movement", choices=RANGES),
    Opt("to", "choice", "the range class moved to", f"{T}, Range and Movement", choices=RANGES),
    Opt("travel-power", "flag", "the move uses a Travel Power", f"{T}, Range and Movement"),
    Opt(
        "with",
        "text",
        "the Travel Power the move uses (known by name, or marked travel=yes on the sheet)",
        f"{T}, Range and Movement",
    ),
)
INIT: tuple[Opt, ...] = (pass_over('prowlers-and-paragons.txt, Attacks (a defeated target is "out of the fight")'),)
OPTIONS: dict[str, tuple[Opt, ...]] = {"attack": ATTACK, "check": CHECK, "init": INIT}
ACTIONS: dict[str, tuple[Opt, ...]] = {"chase": CHASE, "move": MOVE}

# Whose each named roll of a command is: the acting character, the other one, or no one's ('-').
ROLLS: dict[str, dict[str, Role]] = {
    "attack": {"attack": "actor", "defense": "other", "reroll": "actor", "defense-reroll": "other"},
    "check": {"check": "actor", "against": "other", "reroll": "actor", "against-reroll": "other"},
}
ACTION_ROLLS: dict[str, dict[str, Role]] = {
    "chase": {"chase": "actor", "against": "other", "reroll": "actor", "against-reroll": "other"}
}
