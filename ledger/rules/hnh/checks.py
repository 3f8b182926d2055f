"""H&H checks: 3dF + bonus, degrees, criticals by kind of check, routine, opposed and team checks.

Source: hnh-site/the-basics.txt (Checks, Critical Success/failure, Routine Checks, Opposed Checks,
Routine Opposition, Graded Checks, Team Checks, Defense Checks) and conditions.txt (Vulnerable, Defenseless).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from ledger.errors import BadInput, did_you_mean
from ledger.model.dice import Dice, fudge
from ledger.model.sheet import CHECK_RESOLVED, Effect, Sheet
from ledger.rules.hnh.conditions import check_penalty, effective, require_able
from ledger.rules.options import Options

Kind = Literal["attack", "active", "passive", "ability", "power"]
ABILITIES = ("strength", "agility", "fighting", "dexterity", "stamina", "intellect", "awareness", "presence")
ACTIVE = ("dodge", "parry")
PASSIVE = ("fortitude", "will", "toughness")
DEFENSES = (*ACTIVE, *PASSIVE)
# defenses.txt, Defense Rank: "Your base defense ranks are equal to your ranks in their associated abilities"
BASE_ABILITY = {
    "dodge": "agility",
    "parry": "fighting",
    "fortitude": "stamina",
    "toughness": "stamina",
    "will": "presence",
}


@dataclass(frozen=True)
class Rolled:
    """One check's outcome before comparison: dice, bonus, total and critical flags."""

    name: str
    faces: tuple[int, ...]
    bonus: int
    total: int
    critical: str | None = None  # "success" (all +) or "failure" (all -)
    automatic_failure: bool = False
    routine: bool = False
    adjust: tuple[tuple[str, int], ...] = ()  # what changed the total after the dice, by name (the die line's terms)

    def data(self) -> dict[str, Any]:
        """Plain data for a resolution effect."""
        out: dict[str, Any] = {
            "roll": None if self.routine else self.name,
            "faces": list(self.faces),
            "bonus": self.bonus,
            "total": self.total,
            "critical": self.critical,
            "automatic_failure": self.automatic_failure,
            "routine": self.routine,
        }
        if self.adjust:
            out["adjust"] = dict(self.adjust)
        return out


def defense_rank(sheet: Sheet, defense: str) -> int:
    """A defense's total: the sheet's value, else its associated ability's rank (defenses.txt, Defense Rank)."""
    return sheet.trait(defense, sheet.trait(BASE_ABILITY[defense]))


def degrees(diff: int) -> int:
    """Degrees of a difference: divided by 3 rounded up, a difference of 0 is 1 degree (Graded Checks)."""
    return max(1, -(-abs(diff) // 3))


def roll_check(dice: Dice, name: str, bonus: int, kind: Kind, *, routine: bool = False) -> Rolled:
    """3dF + bonus with the critical effect for its kind (the-basics.txt, Critical Success/failure table)."""
    if routine:
        return Rolled(name, (), bonus, bonus, routine=True)
    roll = dice.take(name, fudge(bonus))
    if len(roll.faces) != 3 or any(f not in (-1, 0, 1) for f in roll.faces):
        raise BadInput(f"roll '{name}' needs three Fudge faces", "Fudge faces are +, - and 0")
    total = sum(roll.faces) + bonus
    if roll.all_plus:
        return Rolled(name, roll.faces, bonus, total if kind == "attack" else total + 1, "success")
    if roll.all_minus:
        if kind in ("attack", "active", "ability"):
            return Rolled(name, roll.faces, bonus, total, "failure", automatic_failure=True)
        return Rolled(name, roll.faces, bonus, total - 1, "failure")
    return Rolled(name, roll.faces, bonus, total)


def versus_dc(r: Rolled, dc: int) -> tuple[bool, int]:
    """Success and degrees against a DC: equal or exceed succeeds; an automatic failure always fails, by one
    degree when its total met the DC (the dice fail it, the bonus does not make the failure worse)."""
    if r.automatic_failure:
        return False, degrees(r.total - dc) if r.total < dc else 1
    return r.total >= dc, degrees(r.total - dc)


def team_bonus(helper_totals: list[int]) -> int:
    """Team Checks: helpers' degrees against DC 0 added; +1, +2 at three or more, -1 at two or more failures."""
    net = 0
    for t in helper_totals:
        net += degrees(t) if t >= 0 else -degrees(t)
    return 2 if net >= 3 else 1 if net >= 1 else -1 if net <= -2 else 0


def kind_of(trait: str) -> Kind:
    """The kind of check a trait makes: active or passive defense, or ability/skill."""
    return "active" if trait in ACTIVE else "passive" if trait in PASSIVE else "ability"


def find_power(sheet: Sheet, name: str) -> str | None:
    """The key of a power by name, ignoring case, spaces and hyphens."""
    want = _norm(name)
    return next((k for k in sheet.powers if _norm(k) == want), None)


@lru_cache(maxsize=4096)  # a pure function of a name, asked for every power on every attack (ledger odds)
def _norm(s: str) -> str:
    return "".join(ch for ch in s.lower() if ch.isalnum())


def trait_bonus(sheet: Sheet, trait: str) -> tuple[str, int, Kind]:
    """(key, bonus, kind) of a trait or power check; a trait or power the character lacks is BadInput."""
    key = trait.strip().lower()
    if key in DEFENSES:
        bonus = defense_rank(sheet, key)
        if key == "toughness":
            bonus -= sheet.counter("bruises")
        return key, bonus, kind_of(key)
    if key in sheet.traits and isinstance(sheet.traits[key], int):
        return key, sheet.trait(key), kind_of(key)
    power = find_power(sheet, trait)
    if power is not None:
        return power, int(sheet.powers[power].get("rank", 0)), "power"
    if key in ABILITIES:
        return key, 0, kind_of(key)  # "An absent ability counts as 0"
    raise BadInput(
        f"{sheet.name} has no trait or power '{trait}'",
        did_you_mean(
            trait,
            [*sheet.traits, *sheet.powers, *ABILITIES, *DEFENSES],
            "an untrained skill is checked with its ability, e.g. agility",
        ),
    )


def defense_modifier(sheet: Sheet) -> int:
    """All-out (-1) and defensive (+1) attacks change active defenses until the attacker's next turn."""
    return sheet.counter("defensive-attack") - sheet.counter("all-out-attack")


def active_defense(sheet: Sheet, trait: str, dice: Dice, name: str, extra: int = 0) -> Rolled:
    """An active defense check: defenseless is 0 without a roll, vulnerable halves the result rounded up."""
    eff = effective(sheet.conditions)
    if "defenseless" in eff:
        return Rolled(name, (), 0, 0, routine=True)
    bonus = defense_rank(sheet, trait) + defense_modifier(sheet) + check_penalty(sheet) + extra
    r = roll_check(dice, name, bonus, "active")
    if sheet.counter(f"defend:{trait}") and sum(r.faces) < 1:  # Defend: "If the dice sum is less than 1 ... use 1"
        r = Rolled(r.name, r.faces, bonus, bonus + 1, adjust=(("defend", bonus + 1 - r.total),))
    if "vulnerable" in eff:
        halved = -(-r.total // 2)
        adjust = (*r.adjust, ("vulnerable", halved - r.total))
        return Rolled(r.name, r.faces, r.bonus, halved, r.critical, r.automatic_failure, adjust=adjust)
    return r


def make_check(sheet: Sheet, trait: str, dice: Dice, name: str, modifier: int, routine: bool) -> tuple[str, Rolled]:
    """Any check a character makes: the trait's bonus, conditions' penalties and the circumstance modifier."""
    key, bonus, kind = trait_bonus(sheet, trait)
    if routine and kind in ("active", "passive"):
        raise BadInput("defenses are never routine: they are always rolled", "leave out --routine")
    if kind == "active":
        return key, active_defense(sheet, key, dice, name, modifier)
    if kind in ("ability", "power"):
        require_able(sheet, "make that check")
    elif sheet.has("dead"):
        require_able(sheet, "make that check")
    penalty = check_penalty(sheet) if kind != "power" else 0
    return key, roll_check(dice, name, bonus + penalty + modifier, kind, routine=routine)


def resolve_check(
    sheet: Sheet,
    trait: str,
    dc: int | None,
    against: tuple[Sheet, str] | None,
    options: Options,
    dice: Dice,
) -> list[Effect]:
    """A check against a DC (roll `check`) or opposed (rolls `check` and `against`), with team bonus."""
    modifier = int(options.get("bonus", 0) or 0)
    team = options.get("team") or []
    if not isinstance(team, (list, tuple)) or not all(isinstance(t, int) for t in team):
        raise BadInput("team: give the helpers' check totals as whole numbers")
    tb = team_bonus(list(team)) if team else 0
    key, mine = make_check(sheet, trait, dice, "check", modifier + tb, bool(options.get("routine")))
    data: dict[str, Any] = {"trait": key, **mine.data(), "team_bonus": tb}
    if against is None:
        if dc is not None:
            success, deg = versus_dc(mine, dc)
            data.update(dc=dc, success=success, degrees=deg)
        return [Effect(CHECK_RESOLVED, sheet.name, data)]
    other, other_trait = against
    if bool(options.get("routine-against")):
        # Routine Opposition: "the DC for the active character's check is the opposing character's modifier +0"
        okey, bonus, kind = trait_bonus(other, other_trait)
        if kind in ("active", "passive"):
            raise BadInput("defenses are never routine: they are always rolled", "leave out routine-against")
        theirs = Rolled("against", (), bonus, bonus, routine=True)
        success, deg = versus_dc(mine, bonus)
        data.update(
            against={"character": other.name, "trait": okey, **theirs.data()},
            dc=bonus,
            winner=sheet.name if success else other.name,
            success=success,
            degrees=deg,
        )
        return [Effect(CHECK_RESOLVED, sheet.name, data)]
    okey, theirs = make_check(other, other_trait, dice, "against", 0, False)
    winner = opposed_winner(sheet.name, mine, other.name, theirs)
    deg = degrees(mine.total - theirs.total)
    if (mine.automatic_failure and mine.total >= theirs.total) or (
        theirs.automatic_failure and theirs.total >= mine.total
    ):
        deg = 1  # the dice decided it, not the totals (see versus_dc)
    data.update(
        against={"character": other.name, "trait": okey, **theirs.data()},
        winner=winner,
        success=winner == sheet.name,
        degrees=deg,
    )
    return [Effect(CHECK_RESOLVED, sheet.name, data)]


def opposed_winner(a: str, ra: Rolled, b: str, rb: Rolled) -> str | None:
    """Opposed Checks: the higher result wins; ties go to the higher bonus, else a tie (None)."""
    if ra.automatic_failure != rb.automatic_failure:
        return b if ra.automatic_failure else a
    if ra.total != rb.total:
        return a if ra.total > rb.total else b
    if ra.bonus != rb.bonus:
        return a if ra.bonus > rb.bonus else b
    return None
