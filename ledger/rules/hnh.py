"""Humans & Heroes (3dF, an M&M 3e derivative): pure rules. Texts: humans-and-heroes.txt, hnh-site/."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.dice import DiceSpec, parse_notation
from ledger.errors import BadInput
from ledger.rules import parse_int, set_conditions
from ledger.sheet import Effect, Sheet, Value

ABILITIES = ("strength", "agility", "fighting", "dexterity", "stamina", "intellect", "awareness", "presence")
DEFENSES = ("dodge", "parry", "fortitude", "will", "toughness")

# conditions.txt: basic, combined and damage (HP) conditions, in CLI spelling.
BASIC = frozenset(
    "compelled controlled dazed debilitated deaf defenseless disabled entranced fatigued hindered immobile "
    "impaired prone stunned surprised unaware vulnerable weakened".split()
)
COMBINED = frozenset("asleep blind bound exhausted incapacitated paralyzed restrained staggered".split())
HP_CONDITIONS = frozenset({"battered", "dying", "stabilized", "dead"})
CONDITIONS = BASIC | COMBINED | HP_CONDITIONS

MAX_HP = 6  # humans-and-heroes.txt, Health Points: "Maximum HP ... is always equal to 6"
MINION_MAX_HP = 1  # "Minions who always have a maximum HP of 1"
HP_FLOOR = -3  # "At HP -3 (which is the minimum) you are dead"


class HnH:
    """Humans & Heroes."""

    key = "hnh"
    title = "Humans & Heroes"
    core_traits = (*ABILITIES, *DEFENSES)
    conditions = CONDITIONS

    def parse_trait(self, key: str, value: str) -> Value:
        """Ranks are whole numbers; abilities bottom out at -5 (conditions.txt, Debilitated)."""
        return parse_int(key, value, lo=-5)

    def new_sheet(self, name: str, traits: Mapping[str, Value], *, minion: bool, count: int, pc: bool) -> Sheet:
        """HP starts at its maximum: 6, or 1 for a minion (Health Points)."""
        max_hp = MINION_MAX_HP if minion else MAX_HP
        resources = {"victory-points": 1} if pc else {}
        return Sheet(name, self.key, dict(traits), max_hp, max_hp, (), resources, {}, {}, minion, count, pc)

    def hp_effects(self, sheet: Sheet, new_hp: int) -> list[Effect]:
        """HP conditions for a new HP value (Health Points; conditions.txt, Damage Conditions)."""
        if new_hp <= HP_FLOOR:
            return set_conditions(sheet, {"dead"}, CONDITIONS)  # dead removes all other conditions
        wanted: set[str] = set()
        if new_hp == 0:
            wanted.add("battered")
        elif new_hp < 0:
            # "When first entering negative HP ... you gain Dying"; a stabilized character who loses HP is dying again.
            wanted.add("dying")
        return set_conditions(sheet, wanted, HP_CONDITIONS)

    def damage(self, sheet: Sheet, amount: int, *, subdual: bool) -> list[Effect]:
        """Lose HP directly; HP never goes below -3 (Health Points)."""
        if subdual:
            raise BadInput("Humans & Heroes has no subdual damage", "leave out --subdual")
        new_hp = max(sheet.hp - amount, HP_FLOOR)
        return [Effect("DamageApplied", sheet.name, {"amount": amount, "hp": new_hp}), *self.hp_effects(sheet, new_hp)]

    def impose(self, sheet: Sheet, condition: str) -> list[Effect]:
        """Impose a GM-ruled condition; HP conditions come only from HP."""
        if condition in HP_CONDITIONS:
            raise BadInput(f"'{condition}' is an HP condition: it follows HP, not the GM", "use damage or recover")
        return [Effect("ConditionImposed", sheet.name, {"condition": condition})]

    def remove(self, sheet: Sheet, condition: str) -> list[Effect]:
        """Remove a GM-ruled condition; HP conditions come and go with HP only."""
        if condition in HP_CONDITIONS:
            raise BadInput(f"'{condition}' is an HP condition: it follows HP, not the GM", "use damage or recover")
        return [Effect("ConditionRemoved", sheet.name, {"condition": condition})]

    def derived(self, sheet: Sheet) -> dict[str, Any]:
        """Nothing derived yet beyond the sheet."""
        return {}

    def roll_spec(self, expr: str) -> DiceSpec:
        """Ordinary notation; 3dF is the system's check."""
        return parse_notation(expr)


RULES = HnH()
