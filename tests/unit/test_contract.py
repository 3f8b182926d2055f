"""The rule-system contract (ledger/rules/contract.py), parametrised over every rule-system package.

Also shows that a fourth system is one new package and no edits elsewhere: a toy system written to a temporary
folder on `ledger.rules.__path__` is found, initialised and played through the real CLI.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import ledger.rules
from ledger.errors import BadInput
from ledger.model.dice import DiceBox
from ledger.model.sheet import apply_all
from ledger.rules import get_rules, system_keys
from ledger.rules.contract import NotInThisSystem, RuleSystem
from tests.conftest import Cli

REQUIRED = (
    "parse_trait",
    "new_sheet",
    "damage",
    "impose",
    "remove",
    "derived",
    "attack",
    "check",
    "initiative",
    "tie_break_key",
    "entered_spec",
)
SYSTEMS = system_keys()


@pytest.mark.parametrize("key", SYSTEMS)
def test_each_system_implements_the_whole_contract(key: str) -> None:
    """Every system package's RULES is a RuleSystem implementing each required call."""
    rules = get_rules(key)
    assert isinstance(rules, RuleSystem) and rules.key == key
    missing = [m for m in REQUIRED if getattr(type(rules), m) is getattr(RuleSystem, m)]
    assert not missing


@pytest.mark.parametrize("key", SYSTEMS)
def test_each_declared_option_has_help_a_passage_and_a_known_kind(key: str) -> None:
    """Each declaration says what it is and where in the rules it comes from (docs/design.md, Layout)."""
    rules = get_rules(key)
    commands = [*rules.options, *(f"act {a}" for a in rules.actions)]
    for command in commands:
        for o in rules.declared(command):
            assert o.help, (command, o.name)
            assert o.kind in ("flag", "int", "choice", "names", "ints", "text", "dice")
            assert o.kind != "choice" or o.choices, (command, o.name)
            assert o.source or o.name == "note", (command, o.name)


@pytest.mark.parametrize("key", SYSTEMS)
def test_each_systems_rolls_belong_to_declared_commands(key: str) -> None:
    """Roll owners are declared for commands the system has, each owned by the actor, the other or no one."""
    rules = get_rules(key)
    for command, rolls in rules.rolls.items():
        assert rolls and set(rolls.values()) <= {"actor", "other", "-"}, command
    for action in rules.actions.values():
        assert set(action.rolls.values()) <= {"actor", "other", "-"}


def test_a_named_option_means_the_same_kind_in_every_system() -> None:
    """`--bonus` is a whole number wherever it exists; a named option's kind doesn't change between systems."""
    kinds: dict[tuple[str, str], set[str]] = {}
    for key in SYSTEMS:
        rules = get_rules(key)
        for command, opts in rules.options.items():
            for o in opts:
                if o.named:
                    kinds.setdefault((command, o.name), set()).add("flag" if o.kind == "flag" else "value")
    assert all(len(k) == 1 for k in kinds.values()), kinds


@pytest.mark.parametrize("key", SYSTEMS)
def test_damage_lowers_hp_and_a_condition_comes_and_goes(key: str) -> None:
    """What every system shares: direct damage lowers HP (or Health); a GM-ruled condition is imposed and removed."""
    rules = get_rules(key)
    sheet = rules.new_sheet("Ann", {}, minion=False, count=1, pc=True)
    hurt = apply_all(sheet, rules.damage(sheet, 1, subdual=False))
    assert hurt.hp == sheet.hp - 1
    cond = sorted(
        rules.conditions - {"dead", "dying", "stabilized", "battered", "disabled", "unconscious", "defeated"}
    )[0]
    with_it = apply_all(sheet, rules.impose(sheet, cond))
    assert cond in with_it.conditions
    assert cond not in apply_all(with_it, rules.remove(with_it, cond)).conditions


@pytest.mark.parametrize("key", SYSTEMS)
def test_an_unknown_action_or_option_is_refused_with_a_suggestion(key: str) -> None:
    """An action the system lacks is NotInThisSystem; an unknown option key is BadInput naming the system."""
    rules = get_rules(key)
    with pytest.raises(NotInThisSystem):
        rules.action("teleport-behind")
    with pytest.raises(BadInput, match=f"{key} attack has no option"):
        rules.parse_options("attack", {"no-such-option": "1"})


TOY_SYSTEM = '''
"""A toy system for the contract test: a d6, hit on 4+, 1 damage."""
from __future__ import annotations
from ledger.model.dice import Dice, DiceSpec, parse_notation
from ledger.rules.common import parse_int
from ledger.rules.contract import RuleSystem
from ledger.rules.toy import options as declared
from ledger.model.sheet import Effect, Sheet


class Toy(RuleSystem):
    key = "toy"
    title = "Toy"
    conditions = frozenset({"dazed"})
    options = declared.OPTIONS
    rolls = declared.ROLLS

    def parse_trait(self, key, value):
        return parse_int(key, value, lo=0)

    def new_sheet(self, name, traits, *, minion, count, pc):
        hp = 3 + int(traits.get("grit", 0))
        return Sheet(name, self.key, dict(traits), hp, hp, (), {}, {}, {}, minion, count, pc)

    def damage(self, sheet, amount, *, subdual):
        return [Effect("DamageApplied", sheet.name, {"amount": amount, "hp": sheet.hp - amount})]

    def impose(self, sheet, condition):
        return [Effect("ConditionImposed", sheet.name, {"condition": condition})]

    def remove(self, sheet, condition):
        return [Effect("ConditionRemoved", sheet.name, {"condition": condition})]

    def derived(self, sheet):
        return {}

    def entered_spec(self, name, text, options):
        return parse_notation("1d6")

    def attack(self, attacker, target, options, dice):
        roll = dice.take("attack", parse_notation("1d6"))
        hit = roll.total + int(options.get("bonus", 0)) >= 4
        out = [Effect("AttackResolved", target.name, {"attacker": attacker.name, "target": target.name, "hit": hit})]
        return out + (self.damage(target, 1, subdual=False) if hit else [])

    def check(self, sheet, trait, *, dc, against, options, dice):
        return []

    def initiative(self, sheet, dice):
        return 0, []

    def tie_break_key(self, sheet):
        return (sheet.name,)


RULES = Toy()
'''
TOY_OPTIONS = """
from __future__ import annotations
from ledger.rules.options import Opt
OPTIONS = {"attack": (Opt("bonus", "int", "added to the d6", "toy rules, Attacks", lo=-3, hi=3),)}
ACTIONS = {}
ROLLS = {"attack": {"attack": "actor"}}
ACTION_ROLLS = {}
"""


@pytest.fixture
def toy(tmp_path: Path) -> Iterator[None]:
    """A fourth rule system as one package in a folder on ledger.rules' path (no edit anywhere else)."""
    from commands.main import cli

    cli.load_all()  # type: ignore[attr-defined]  # the CLI as built before the toy exists (its help stays so)
    pkg = tmp_path / "rules" / "toy"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text('"""Toy."""\n')
    (pkg / "system.py").write_text(textwrap.dedent(TOY_SYSTEM))
    (pkg / "options.py").write_text(textwrap.dedent(TOY_OPTIONS))
    ledger.rules.__path__.append(str(tmp_path / "rules"))
    system_keys.cache_clear()
    ledger.rules.declarations.cache_clear()
    importlib.invalidate_caches()
    from commands import options as cli_options

    cli_options.declarations.cache_clear()
    try:
        yield
    finally:
        ledger.rules.__path__.remove(str(tmp_path / "rules"))
        system_keys.cache_clear()
        ledger.rules.declarations.cache_clear()
        cli_options.declarations.cache_clear()
        for name in [m for m in sys.modules if m.startswith("ledger.rules.toy")]:
            del sys.modules[name]


def test_a_fourth_system_is_one_new_package(toy: None, sqlite_db: str) -> None:
    """A new package under ledger/rules/ is found by its key and played through the real CLI, options validated."""
    assert "toy" in system_keys()
    cli = Cli(sqlite_db)
    cli.ok("init", "--system", "toy")
    cli.ok("character", "add", "Ann", "--trait", "grit=2")
    cli.ok("character", "add", "Bob")
    cli.ok("attack", "Ann", "Bob", "-o", "bonus=1", "--roll", "attack=3")
    bob = cli.json("character", "show", "Bob")
    assert isinstance(bob, dict) and bob["hp"] == 2  # 3 + 1 >= 4 hits for 1
    refused = cli("attack", "Ann", "Bob", "-o", "bonus=9")
    assert refused.exit_code == 2 and "'bonus' must be from -3 to 3" in refused.stderr
    assert cli("hazard", "Ann", "falling").exit_code == 2  # not in the toy's rules: refused by the contract


def test_a_system_without_a_rule_refuses_it_in_one_line(sqlite_db: str) -> None:
    """d20 Supers has no hazards: `ledger hazard` is one clear refusal naming the system, nothing appended."""
    cli = Cli(sqlite_db)
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Zip")
    r = cli("hazard", "Zip", "falling")
    assert r.exit_code == 2
    assert r.stderr.splitlines()[0] == "error: hazards is not in the rules of d20 Supers"
    _ = DiceBox  # the toy rolls through the same dice box as every system
