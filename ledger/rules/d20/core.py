"""d20 Supers: the shared pieces of the rules (scores, DR, HP states, option reading). Text: d20-supers.txt."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.errors import BadInput, ImpossibleAction
from ledger.model.dice import ascii_int
from ledger.model.sheet import COUNTERS_CHANGED, DAMAGE_APPLIED, Effect, Sheet
from ledger.rules.common import set_conditions
from ledger.rules.d20.options import COVER
from ledger.rules.options import Options

ABILITIES = ("str", "dex", "con", "int", "wis", "cha")
ABILITY_NAMES = dict(
    zip(("strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma"), ABILITIES, strict=True)
)
CONDITIONS = frozenset({"disabled", "dying", "unconscious", "dead", "flat-footed", "prone", "running", "charging"})
HP_CONDITIONS = frozenset({"disabled", "dying", "unconscious", "dead"})
DEFAULT_HP = 10
DEFAULT_SCORE = 10  # docs/interpretations.md (d20 Supers): a score not given counts as 10 (modifier 0)
DEFAULT_SPEED = 30  # feet per round, when the sheet has no `speed` trait
RUN_MULTIPLIER = 4  # Running: "4 x your normal speed"
DEATH_HP = -10  # Damage: "drops to -10 or below they are dead"

# Counter keys (ints only). Documented in docs/interpretations.md (d20 Supers).
SUBDUAL = "subdual"  # total subdual damage taken
CHARGE_DR = "charge-dr"  # -2 to DR from a charge, until the charger's next turn
COLLAPSED = "collapsed"  # 1: a disabled character did something major and fell unconscious
KNOCKED_OUT = "knocked-out"  # 1: the GM ruled the character unconscious (not from HP or subdual)

# Cover Bonus (to DR); "complete" means the target can't be attacked at all.
COMPLETE_COVER = "complete"


def modifier(score: int) -> int:
    """The usual d20 modifier: (score - 10) // 2."""
    return (score - 10) // 2


def ability_mod(sheet: Sheet, ability: str) -> int:
    """The modifier of one ability score; a score not given counts as 10."""
    return modifier(sheet.trait(ability, DEFAULT_SCORE))


def cover_bonus(cover: str | None, target: str) -> int:
    """Cover Bonus to DR; complete cover makes the target unattackable."""
    if cover is None:
        return 0
    if cover == COMPLETE_COVER:
        raise ImpossibleAction(f"{target} is behind complete cover and can't be attacked")
    if cover not in COVER:
        raise BadInput(f"unknown cover '{cover}'", "cover is one of 1/4, 1/2, 3/4, 9/10, complete")
    return COVER[cover]


def dr_parts(sheet: Sheet, cover: str | None = None) -> dict[str, int]:
    """DR = 10 + Dex modifier + armor + power bonus + cover (+ a charge's -2), term by term."""
    return {
        "base": 10,
        "dex": ability_mod(sheet, "dex"),
        "armor": sheet.trait("armor"),
        "power": sheet.trait("power-dr"),
        "charge": sheet.counter(CHARGE_DR),
        "cover": cover_bonus(cover, sheet.name),
    }


def hp_conditions(hp: int, subdual: int, *, collapsed: bool = False, knocked_out: bool = False) -> set[str]:
    """Damage: 0 disabled; -1 to -9 dying and unconscious; -10 or below dead; subdual above HP: unconscious."""
    if hp <= DEATH_HP:
        return {"dead"}
    if hp < 0:
        return {"dying", "unconscious"}
    wanted = {"disabled"} if hp == 0 else set()
    if subdual > hp or (collapsed and hp == 0) or knocked_out:
        wanted.add("unconscious")
    return wanted


def hp_state(hp: int) -> str:
    """The named HP band: healthy, disabled, dying or dead."""
    if hp <= DEATH_HP:
        return "dead"
    if hp < 0:
        return "dying"
    return "disabled" if hp == 0 else "healthy"


def condition_effects(sheet: Sheet, hp: int, counters: Mapping[str, int | None], note: str = "") -> list[Effect]:
    """Condition changes that bring the HP conditions in line with an HP value and changed counters (None: gone)."""
    merged = {**sheet.counters, **counters}
    wanted = hp_conditions(
        hp,
        merged.get(SUBDUAL) or 0,
        collapsed=bool(merged.get(COLLAPSED)),
        knocked_out=bool(merged.get(KNOCKED_OUT)),
    )
    return set_conditions(sheet, wanted, HP_CONDITIONS, note)


def damage_effects(sheet: Sheet, amount: int, *, subdual: bool, note: str = "") -> list[Effect]:
    """Regular damage lowers HP; subdual damage is tracked apart from HP, in counters["subdual"]."""
    extra = {"note": note} if note else {}
    if subdual:
        counters = {SUBDUAL: sheet.counter(SUBDUAL) + amount}
        data: dict[str, Any] = {"amount": amount, "hp": sheet.hp, "subdual": True, "counters": counters, **extra}
        return [Effect(DAMAGE_APPLIED, sheet.name, data), *condition_effects(sheet, sheet.hp, counters)]
    hp = sheet.hp - amount
    data = {"amount": amount, "hp": hp, **extra}
    return [Effect(DAMAGE_APPLIED, sheet.name, data), *condition_effects(sheet, hp, {})]


def death_effects(sheet: Sheet, note: str) -> list[Effect]:
    """Death outright: HP set to -10, the threshold of death (Damage), whatever it was."""
    amount = max(sheet.hp - DEATH_HP, 0)
    data = {"amount": amount, "hp": min(sheet.hp, DEATH_HP), "instant-death": True, "note": note}
    return [Effect(DAMAGE_APPLIED, sheet.name, data), *condition_effects(sheet, DEATH_HP, {}, note)]


def require_able(sheet: Sheet, action: str) -> None:
    """Refuse an action by a dead, dying or unconscious character (Damage)."""
    if sheet.hp <= DEATH_HP or sheet.has("dead"):
        raise ImpossibleAction(f"{sheet.name} is dead and can't {action}")
    if sheet.has("dying") or sheet.hp < 0:
        raise ImpossibleAction(f"{sheet.name} is dying (unconscious) and can't {action}")
    if sheet.has("unconscious"):
        raise ImpossibleAction(f"{sheet.name} is unconscious and can't {action}")


def require_alive(sheet: Sheet, action: str) -> None:
    """Refuse an action aimed at, or by, a dead character."""
    if sheet.hp <= DEATH_HP or sheet.has("dead"):
        raise ImpossibleAction(f"{sheet.name} is dead and can't {action}")


def exertion_effects(sheet: Sheet, action: str) -> list[Effect]:
    """A disabled character who does something major falls unconscious (Damage)."""
    if sheet.hp != 0 or sheet.counter(COLLAPSED):
        return []
    note = f"disabled and did something major ({action})"
    counters = {COLLAPSED: 1}
    return [
        Effect(COUNTERS_CHANGED, sheet.name, {"counters": counters}),
        *condition_effects(sheet, sheet.hp, counters, note),
    ]


def opt_int(options: Options, key: str, default: int) -> int:
    """An integer option (an int or a numeral string)."""
    v = options.get(key)
    if v is None:
        return default
    if isinstance(v, bool):
        raise BadInput(f"option '{key}' needs a whole number, got {v}")
    if isinstance(v, int):
        return v
    try:
        return ascii_int(v)
    except ValueError:
        raise BadInput(f"option '{key}' needs a whole number, got '{v}'") from None


_TRUE = {"true", "yes", "1", "on", ""}
_FALSE = {"false", "no", "0", "off"}


def opt_bool(options: Options, key: str, default: bool = False) -> bool:
    """A flag option (a bool, or yes/no, true/false, 1/0)."""
    v = options.get(key)
    if v is None:
        return default
    if isinstance(v, bool):
        return v
    s = str(v).strip().lower()
    if s in _TRUE:
        return True
    if s in _FALSE:
        return False
    raise BadInput(f"option '{key}' is a flag: yes or no, got '{v}'")


def opt_choice(options: Options, key: str, choices: tuple[str, ...]) -> str | None:
    """One of a fixed set of words, or None when not given."""
    v = options.get(key)
    if v is None or v is False:
        return None
    s = str(v).strip().lower()
    if s not in choices:
        raise BadInput(f"option '{key}' can't be '{v}'", f"choose one of: {', '.join(choices)}")
    return s


def opt_names(options: Options, key: str) -> list[str]:
    """A list of names: a list/tuple, or one comma-separated string."""
    v = options.get(key)
    if v is None:
        return []
    items = v.split(",") if isinstance(v, str) else list(v)
    return [str(i).strip().lower() for i in items if str(i).strip()]
