"""What each Humans & Heroes command understands: typed option declarations (ledger/rules/options.py)."""

from __future__ import annotations

from ledger.rules.options import Opt, Role, pass_over

TITLE = "Humans & Heroes"
HEALTH_WORD = "HP"  # what the text calls the track damage lowers
ROUND_WORD = "round"  # what the text calls one pass through the order
# the keys of a turn's tally (economy.py) that count no action taken: extra effort's added standard action is room
# in the budget (the-basics.txt, Using Extra Effort, Action), not something done
TALLY_ROOM = ("extra",)

GP = "hnh-site/gameplay.txt"
CONCEALMENT = ("none", "partial", "total")
RANGES = ("close", "ranged", "medium", "long", "beyond", "perception", "area")
COVER = {"none": 0, "partial": -1, "total": -2}
MANEUVERS = ("accurate", "all-out", "defensive", "power", "charge", "aim", "finishing", "slam", "team", "aid")
FLAGS = ("cumulative", "progressive", "regressive", "unrecoverable", "instant-recovery")
INTERVALS = {"uncomfortable": "1 hour", "intense": "10 minutes", "extreme": "1 minute"}

# conditions.txt: basic, combined and damage (HP) conditions, in CLI spelling (the one list: conditions.py reads it).
BASIC = frozenset(
    "compelled controlled dazed debilitated deaf defenseless disabled entranced fatigued hindered immobile "
    "impaired prone stunned surprised unaware vulnerable weakened".split()
)
COMBINED = frozenset("asleep blind bound exhausted incapacitated paralyzed restrained staggered".split())
HP_CONDITIONS = frozenset({"battered", "dying", "stabilized", "dead"})
# effect-affliction.txt: the conditions an Affliction may impose at its first, second and third degree.
AFFLICTION_DEGREES = (
    frozenset({"dazed", "entranced", "fatigued", "hindered", "impaired", "vulnerable"}),
    frozenset({"compelled", "defenseless", "disabled", "exhausted", "immobile", "prone", "staggered", "stunned"}),
    frozenset({"asleep", "controlled", "incapacitated", "paralyzed", "unaware"}),
)

ATTACK: tuple[Opt, ...] = (
    Opt(
        "with",
        "text",
        "the power attacking, or unarmed/strength, or a trait to attack with (then give rank)",
        f"{GP}, Attack Check",
        default="unarmed",
        named=True,
    ),
    Opt(
        "rank",
        "int",
        "effect rank (default: the power's rank, Strength for unarmed)",
        f"{GP}, Strength And Damage",
        lo=0,
        named=True,
    ),
    Opt(
        "bonus",
        "int",
        "attack bonus (default: the power's attack bonus, else Fighting or Dexterity)",
        f"{GP}, Attack Check",
        named=True,
    ),
    Opt(
        "range",
        "choice",
        "close, ranged, medium (-1), long (-2), beyond (misses), perception or area (no attack check)",
        f"{GP}, Range",
        choices=RANGES,
        named=True,
    ),
    Opt("maneuver", "names", "maneuvers (comma list)", f"{GP}, Actions", choices=MANEUVERS, named=True),
    Opt(
        "concealment",
        "choice",
        "the target's concealment: partial (-1), total (-2)",
        f"{GP}, Concealment",
        choices=CONCEALMENT,
    ),
    Opt(
        "cover",
        "choice",
        "the target's cover: partial (-1), total (-2), complete (can't be attacked); in an area, per target too: "
        "Bob=total,Cy=partial (a bonus to their Dodge)",
        f"{GP}, Cover",
        choices=(*COVER, "complete"),
        named=True,
        per_target=True,
    ),
    Opt(
        "routine",
        "flag",
        "a routine attack check (non-minion against a minion or 1 HP, or a defenseless target)",
        f"{GP}, Minion Rules",
    ),
    Opt("modifier", "int", "another circumstance modifier to the attack check", f"{GP}, Attack Check"),
    Opt(
        "critical",
        "choice",
        "a critical hit's effect: increased (+1 to the resistance DC) or added (a rank-0 effect, noted)",
        f"{GP}, Effects Of A Critical Hit",
        choices=("increased", "added"),
        default="increased",
    ),
    Opt("nonlethal", "flag", "Non-Lethal damage", "hnh-site/effect-damage.txt, Extras (Non-Lethal)"),
    Opt(
        "effect",
        "choice",
        "the effect when not attacking with a power",
        f"{GP}, Attack Check",
        choices=("damage", "affliction", "weaken", "nullify"),
        default="damage",
        named=True,
    ),
    Opt(
        "trait", "text", "weaken: the trait lowered", "powers/effects/weaken.html (named by gameplay.txt, Minion Rules)"
    ),
    Opt(
        "nullify",
        "text",
        "nullify: the target's power, or an affliction on the target, to counter",
        "powers/effects/nullify.html (named by gameplay.txt, Minion Rules)",
    ),
    Opt(
        "resisted-by",
        "choice",
        "the defense against the effect",
        "hnh-site/effect-affliction.txt",
        choices=("toughness", "fortitude", "will"),
    ),
    Opt(
        "conditions",
        "names",
        "Affliction conditions by degree, e.g. dazed,stunned,incapacitated (dazed+hindered for two at once)",
        "hnh-site/effect-affliction.txt",
    ),
    Opt("aid", "int", "circumstance bonus to this attack from an ally's aid", f"{GP}, Aid - Standard Action", lo=0),
    Opt(
        "target-aid",
        "int",
        "circumstance bonus to the target's active defense from an ally's aid",
        f"{GP}, Aid - Standard Action",
        lo=0,
    ),
    Opt("speed", "int", "slam: the attacker's movement speed rank", f"{GP}, Actions", lo=0),
    Opt("full-speed", "flag", "slam after moving at full speed (+1 damage)", f"{GP}, Actions"),
    Opt(
        "team-degrees",
        "int",
        "team attack: combined degrees of success of the other attacks that hit",
        f"{GP}, Actions",
        lo=0,
    ),
    Opt(
        "aid-for",
        "choice",
        "aid: what the ally gets the bonus on",
        f"{GP}, Aid - Standard Action",
        choices=("attack", "defense"),
    ),
    Opt("ally", "text", "aid: the name of the ally helped", f"{GP}, Aid - Standard Action"),
)
CHECK: tuple[Opt, ...] = (
    Opt(
        "bonus",
        "int",
        "circumstance bonus or penalty the GM rules",
        "hnh-site/the-basics.txt, Circumstance Modifiers",
        default="0",
    ),
    Opt(
        "routine",
        "flag",
        "a routine check: the dice count as 0 (never for defenses)",
        "hnh-site/the-basics.txt, Routine Checks",
    ),
    Opt(
        "routine-against",
        "flag",
        "routine opposition: the opponent's result is their bonus + 0 (no `against` roll)",
        "hnh-site/the-basics.txt, Routine Opposition",
    ),
    Opt(
        "team",
        "ints",
        "helpers' check totals against DC 0: +1, +2 at 3 degrees, -1 at -2",
        "hnh-site/the-basics.txt, Team Checks",
    ),
    Opt(
        "patient",
        "text",
        "Treatment: the dying character treated (a success against DC 5 stabilizes them)",
        "hnh-site/conditions.txt, Dying",
    ),
)
DAMAGE: tuple[Opt, ...] = (
    Opt("nonlethal", "flag", "Non-Lethal damage", "hnh-site/effect-damage.txt, Extras (Non-Lethal)"),
    Opt(
        "resisted-by",
        "choice",
        "the defense against the damage",
        "hnh-site/effect-damage.txt",
        choices=("toughness", "fortitude", "will"),
        default="toughness",
    ),
)
RECOVER: tuple[Opt, ...] = (
    Opt(
        "treatment-bonus",
        "int",
        "the helper's Treatment bonus: roll `treatment` against DC 5 (else treated = it succeeded)",
        f"{GP}, Recovery",
    ),
)
HAZARD: tuple[Opt, ...] = (
    Opt(
        "severity",
        "choice",
        "heat/cold: uncomfortable (hourly), intense (10 minutes), extreme (each minute)",
        f"{GP}, Heat And Cold",
        choices=tuple(INTERVALS),
    ),
    Opt(
        "previous-checks",
        "int",
        "heat, cold, starvation, thirst, suffocation, vacuum, forced labor: previous checks (default: counted)",
        f"{GP}, Environmental Hazards",
        lo=0,
    ),
    Opt(
        "days",
        "int",
        "starvation/thirst: days gone without (death at 7 / 3); sleep deprivation: days without sleep",
        f"{GP}, Starvation And Thirst",
        lo=0,
    ),
    Opt(
        "rounds",
        "int",
        "suffocation: rounds holding breath so far; decompression: round of exposure (checks from the 3rd)",
        f"{GP}, Suffocation",
        lo=0,
    ),
    Opt("holding", "flag", "vacuum: the character holds their breath", f"{GP}, Vacuum", default="yes"),
    Opt("distance-rank", "int", "falling: distance rank fallen", f"{GP}, Falling", lo=0),
    Opt("size", "int", "falling: the character's size rank", f"{GP}, Falling", default="0"),
    Opt("accidental", "flag", "falling: an accidental fall (prone at the end)", f"{GP}, Falling"),
    Opt("max-rank", "int", "falling: the GM's maximum fall damage rank", f"{GP}, Falling", default="18", lo=0),
    Opt(
        "ended",
        "flag",
        "the cause is gone (comfortable temperature, food, air, pressure, sleep, cure): counters reset",
        f"{GP}, Environmental Hazards",
    ),
    Opt(
        "forced-awake",
        "flag",
        "forced labor: the exhausted character is forced to stay awake (dazed instead of asleep)",
        f"{GP}, Forced Labor",
    ),
    Opt("rank", "int", "disease/radiation: its rank, the DC of the Fortitude check", f"{GP}, Disease", lo=0),
    Opt(
        "effect",
        "choice",
        "disease/radiation: what a failure does (default: disease affliction, radiation weaken)",
        f"{GP}, Radiation",
        choices=("affliction", "weaken", "damage"),
    ),
    Opt("name", "text", "disease: its name (each is its own Affliction)", f"{GP}, Disease"),
    Opt(
        "conditions",
        "names",
        "disease Affliction: conditions by degree, e.g. impaired,disabled,incapacitated",
        f"{GP}, Disease",
    ),
    Opt("trait", "text", "disease/radiation Weaken: the trait (default stamina)", f"{GP}, Disease"),
    Opt("bonus", "int", "disease/radiation: a Treatment bonus on the Fortitude check", f"{GP}, Disease"),
)
AFFLICTION: tuple[Opt, ...] = (
    Opt(
        "with",
        "text",
        "the attacker's Affliction power (or a name for an ad hoc one)",
        "hnh-site/effect-affliction.txt",
    ),
    Opt("name", "text", "the name of an ad hoc Affliction", "hnh-site/effect-affliction.txt"),
    Opt("rank", "int", "the Affliction's rank (default: the power's)", "hnh-site/effect-affliction.txt", lo=0),
    Opt(
        "resisted-by",
        "choice",
        "the resistance",
        "hnh-site/effect-affliction.txt",
        choices=("fortitude", "will"),
        default="fortitude",
    ),
    Opt(
        "conditions",
        "names",
        "conditions by degree, e.g. dazed,stunned,incapacitated",
        "hnh-site/effect-affliction.txt",
    ),
    *(Opt(f, "flag", f"the Affliction is {f}", "hnh-site/effect-affliction.txt, Extras and Flaws") for f in FLAGS),
    Opt(
        "limited-degree",
        "int",
        "Limited Degree applications: the Affliction's last degree (2: its last two) does nothing more",
        "hnh-site/effect-affliction.txt, Flaws",
        lo=1,
        hi=2,
    ),
    Opt(
        "empty-degree",
        "int",
        "Empty Degree: this degree (not the last) does nothing",
        "hnh-site/effect-affliction.txt, Flaws",
        lo=1,
        hi=2,
    ),
)
# Improve Roll: the rolls each command lets their owner re-roll for a victory point (re-roll named NAME-reroll).
IMPROVABLE: dict[str, tuple[str, ...]] = {
    "check": ("check", "against"),
    "attack": ("attack", "defense", "power", "toughness"),
    "damage": ("toughness",),
    "hazard": ("fortitude", "toughness"),
    "act affliction": ("power", "toughness"),
    "act heal": ("power",),
}


def improve(command: str) -> Opt:
    """The `improve` option of a command: rolls to re-roll, keeping the better, 1 victory point each (an attack's
    area: a target's own `Bob.dodge` or `Bob.toughness`)."""
    area = command == "attack"
    return Opt(
        "improve",
        "names",
        "victory points: re-roll these rolls and keep the better, 1 VP each from the roll's owner (re-roll: "
        "NAME-reroll)" + ("; in an area, a hero's own: Bob.dodge, Bob.toughness" if area else ""),
        "hnh-site/the-basics.txt, Improve Roll",
        choices=(*IMPROVABLE[command], "dodge") if area else IMPROVABLE[command],
        per_target=area,
    )


HEAL: tuple[Opt, ...] = (
    Opt(
        "rank",
        "int",
        "the Healing rank (default: the healer's Healing power)",
        "powers/effects/healing.html (named by gameplay.txt, Recovery)",
        lo=0,
    ),
    Opt(
        "restorative",
        "flag",
        "Restorative Healing: points beyond full HP remove bruises (1 each)",
        "powers/effects/healing.html, Restorative",
    ),
)
GM_CONDITIONS = tuple(sorted(BASIC | COMBINED))  # what `condition add` offers (HP conditions follow HP)

ACTION_HELP: dict[str, str] = {
    "grab": "Grab: attack check, then Strength against Strength: win by 1 degree restrained, by 2 bound (again: "
    "improve the hold)",
    "escape": "Escape a grab: a skill check (Athletics, or -o trait=) against the holder's Strength + 0",
    "release": "end a grab you hold (free action)",
    "trip": "Trip: close attack at -1 against Parry, then damage rank against Acrobatics/Agility: prone",
    "disarm": "Disarm: attack at -1 (-2 held, -1 more ranged), then damage rank against Strength (held) or the binding",
    "smash": "Smash: attack (-1 held object), then damage against the object's Toughness: bent, broken, destroyed",
    "feint": "Feint: Deception against the better of Deception or Insight: vulnerable to your next attack",
    "demoralize": "Demoralize: Intimidation against the better of Insight or Will: impaired (disabled at 4 degrees)",
    "aim": "Aim (--against WHO: at that target): your next attack gets +2 close / +1 ranged; vulnerable until then",
    "extra-effort": "Extra Effort: one benefit, fatigued at the start of your next turn",
    "seize-initiative": (
        "Seize Initiative (the advantage): 1 victory point, first in the order when initiative is rolled"
    ),
    "until": "impose a condition until the start or end of your next turn",
    "ongoing-damage": "a harmful circumstance: Damage of this rank at the end of each of your turns (rank 0 ends it)",
    "stand": "Stand from prone: a move action (free with Instant Up, or a DC 10 Acrobatics check: -o acrobatics=yes)",
    "action": "any other action by its kind: -o kind=full|standard|move|free|reaction -o what=TEXT",
    "ready": "Ready an action (-o what=TEXT): take it as a reaction before your next turn starts",
    "shake": "shake an entranced ally free: an interaction skill check against the effect's rank (--against WHO)",
    "maintain": "use or maintain a Concentration (standard) or Sustained (free) power this turn (-o power=NAME)",
    "drop": "end a power you maintain (free action; -o power=NAME)",
}
HELD = Opt(
    "held", "flag", "the item is held in hand (else attached or worn)", f"{GP}, Disarm - Standard Action", default="yes"
)
REACH = Opt("range", "choice", "close or ranged", f"{GP}, Range", choices=("close", "ranged"), default="close")
RANK = Opt("rank", "int", "the damage rank used (default Strength)", f"{GP}, Strength And Damage", lo=0)
MANEUVER_ACTIONS: dict[str, tuple[Opt, ...]] = {
    "grab": (
        Opt(
            "rank",
            "int",
            "a grabbing effect's rank (used if higher than Strength)",
            f"{GP}, Grab - Standard Action",
            lo=0,
        ),
    ),
    "escape": (
        Opt("trait", "text", "the skill used to escape (default athletics)", f"{GP}, Escape - Move Action"),
        Opt(
            "rank",
            "int",
            "the holder's grabbing effect rank, if higher than Strength",
            f"{GP}, Grab - Standard Action",
            lo=0,
        ),
    ),
    "release": (),
    "trip": (RANK,),
    "disarm": (
        HELD,
        REACH,
        RANK,
        Opt("bonus", "int", "attack bonus (default unarmed)", f"{GP}, Attack Check"),
        Opt("binding", "int", "the binding's Toughness for an attached item", f"{GP}, Disarm - Standard Action"),
        Opt("item", "text", "what is knocked away", f"{GP}, Disarm - Standard Action"),
    ),
    "smash": (
        HELD,
        REACH,
        RANK,
        Opt("bonus", "int", "attack bonus (default unarmed)", f"{GP}, Attack Check"),
        Opt("object-toughness", "int", "the object's Toughness", "hnh-site/effect-damage.txt, Damaging Objects"),
        Opt(
            "object-state",
            "choice",
            "the object's state before",
            "hnh-site/effect-damage.txt, Damaging Objects",
            choices=("intact", "bent", "broken"),
            default="intact",
        ),
        Opt("item", "text", "the object", f"{GP}, Smash - Standard Action"),
    ),
    "feint": (),
    "demoralize": (),
    "aim": (),
    "extra-effort": (
        Opt(
            "benefit",
            "choice",
            "the benefit",
            "hnh-site/the-basics.txt, Using Extra Effort",
            choices=("action", "bonus", "increased-rank", "power-stunt", "resistance", "retry", "speed", "strength"),
        ),
        Opt(
            "effect",
            "text",
            "Resistance: the ongoing Affliction resisted (default: the only one)",
            "hnh-site/the-basics.txt, Extra Effort, Resistance",
        ),
        Opt(
            "power",
            "text",
            "Increased Rank: the power raised by +1 rank for 1 round",
            "hnh-site/the-basics.txt, Extra Effort, Increased Rank",
        ),
    ),
    "seize-initiative": (),
    "until": (
        Opt("condition", "choice", "the condition", "hnh-site/conditions.txt", choices=GM_CONDITIONS),
        Opt(
            "until",
            "choice",
            "when it ends: the start or the end of your next turn",
            f"{GP}, Taking Your Turn",
            choices=("start", "end"),
            default="end",
        ),
    ),
    "ongoing-damage": (
        Opt("rank", "int", "the Damage rank each end of turn (0 ends it)", f"{GP}, Ending Your Turn", lo=0),
    ),
    "stand": (
        Opt("acrobatics", "flag", "stand as a free action by a DC 10 Acrobatics check", f"{GP}, Stand - Move Action"),
    ),
    "action": (
        Opt(
            "kind",
            "choice",
            "the action's kind",
            f"{GP}, Action Types",
            choices=("full", "standard", "move", "free", "reaction"),
            default="standard",
        ),
        Opt("what", "text", "what the character does, for the record", f"{GP}, Action Types"),
    ),
    "ready": (
        Opt(
            "what", "text", "the action readied and the circumstances that trigger it", f"{GP}, Ready - Standard Action"
        ),
        Opt(
            "kind",
            "choice",
            "ready as a standard action, or as a full turn to ready a full-turn action",
            f"{GP}, Ready - Standard Action",
            choices=("standard", "full"),
            default="standard",
        ),
    ),
    "shake": (
        Opt("dc", "int", "the trance's effect rank (default: the Affliction's)", "hnh-site/conditions.txt, Entranced"),
        Opt("trait", "text", "the interaction skill (default persuasion)", "hnh-site/conditions.txt, Entranced"),
    ),
    "maintain": (Opt("power", "text", "the power maintained", f"{GP}, Maintaining Effects"),),
    "drop": (Opt("power", "text", "the power ended", f"{GP}, Maintaining Effects"),),
}
ATTACKING: dict[str, Role] = {"attack": "actor", "defense": "other", "power": "actor", "against": "other"}
MANEUVER_ROLLS: dict[str, dict[str, Role]] = {
    "grab": {"attack": "actor", "defense": "other", "strength": "actor", "against": "other"},
    "escape": {"check": "actor"},
    "release": {},
    "trip": dict(ATTACKING),
    "disarm": dict(ATTACKING),
    "smash": {"attack": "actor", "defense": "other", "power": "actor", "toughness": "-"},
    "feint": {"check": "actor", "against": "other"},
    "demoralize": {"check": "actor", "against": "other"},
    "aim": {},
    "extra-effort": {"resist": "actor"},
    "seize-initiative": {},
    "until": {},
    "ongoing-damage": {},
    "stand": {"check": "actor"},
    "action": {},
    "ready": {},
    "shake": {"check": "actor"},
    "maintain": {"power": "actor", "resist": "other"},
    "drop": {},
}
DEFEND: tuple[Opt, ...] = (
    Opt(
        "defense",
        "choice",
        "the active defense defended with until the next turn",
        f"{GP}, Defend - Standard Action",
        choices=("dodge", "parry"),
    ),
)
OPTIONS: dict[str, tuple[Opt, ...]] = {
    "attack": (*ATTACK, improve("attack")),
    "check": (*CHECK, improve("check")),
    "damage": (*DAMAGE, improve("damage")),
    "recover": RECOVER,
    "hazard": (*HAZARD, improve("hazard")),
    "init": (
        Opt(
            "action-economy",
            "choice",
            "in an encounter, a second standard action in a turn (or a move action too many): refuse it, warn, "
            "or don't count",
            f"{GP}, Number Of Actions",
            choices=("refuse", "warn", "off"),
            default="refuse",
        ),
        pass_over(f"{GP}, Taking Your Turn; conditions.txt, Stunned"),
    ),
}
ACTIONS: dict[str, tuple[Opt, ...]] = {
    "affliction": (*AFFLICTION, improve("act affliction")),
    "defend": DEFEND,
    "heal": (*HEAL, improve("act heal")),
    **MANEUVER_ACTIONS,
}

# Whose each named roll of a command is: the acting character, the other one, or no one's ('-').
ROLLS: dict[str, dict[str, Role]] = {
    "attack": {
        "attack": "actor",
        "defense": "other",
        "dodge": "other",
        "power": "actor",
        "toughness": "other",
        "slam-power": "other",
        "slam-toughness": "actor",
    },
    "check": {"check": "actor", "against": "other"},
    "damage": {"power": "-", "toughness": "other"},
    "recover": {"treatment": "actor"},
    "hazard": {"fortitude": "actor", "power": "actor", "toughness": "actor"},
}
ACTION_ROLLS: dict[str, dict[str, Role]] = {
    "affliction": {"power": "actor", "resist": "other", "toughness": "other"},
    "defend": {},
    "heal": {"power": "actor"},
    **MANEUVER_ROLLS,
}
for _command, _names in IMPROVABLE.items():
    _rolls = ACTION_ROLLS[_command[4:]] if _command.startswith("act ") else ROLLS[_command]
    _rolls.update({f"{n}-reroll": _rolls[n] for n in _names})
