"""Everyone taken out of a fight, when and how, the same way in every system: the encounter's summary (`encounter end`,
`encounter show` after it, the Markdown and HTML exports) and the session's recap.

The falls are the texts' own: H&H conditions.txt (Stabilized, Incapacitated; a minion "is removed from the fight"
on a failed resistance, gameplay.txt, Minions), d20-supers.txt, Damage ("dying", "unconscious"), P&P (a minion
group's members fall one per success; "defeated"). Leaving the fight by `encounter remove` is told as a departure.
A minion group's fallen members are its damage taken, one each, in every system.
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import Cli

FIGHTS: dict[str, list[tuple[str, ...]]] = {
    "hnh": [
        ("init", "--system", "hnh", "-o", "action-economy=off"),
        ("character", "add", "Ann", "--pc", "--trait", "fighting=6"),
        ("character", "add", "Boss", "--trait", "toughness=0"),
        ("character", "add", "Thugs", "--minion", "--count", "3", "--trait", "toughness=0"),
        ("character", "add", "Guard"),
        ("session", "start", "Heist"),
        ("encounter", "start", "Ann", "Boss", "Thugs", "Guard", "--init", "Ann=9", "--init", "Boss=5", "--init",
         "Thugs=3", "--init", "Guard=1"),
        ("attack", "Ann", "Boss", "--rank", "8", "--bonus", "6", "-o", "nonlethal=yes", "--roll", "attack=+,+,0",
         "--roll", "defense=-,-,-", "--roll", "power=+,+,0", "--roll", "toughness=-,-,-"),
        ("attack", "Ann", "Thugs", "--rank", "8", "--bonus", "6", "--roll", "attack=+,0,0", "--roll",
         "defense=-,-,-", "--roll", "power=+,0,0", "--roll", "toughness=-,-,-"),
        ("encounter", "remove", "Guard"),
    ],
    "d20": [
        ("init", "--system", "d20"),
        ("character", "add", "Ann", "--pc", "--trait", "hp=10"),
        ("character", "add", "Boss", "--trait", "hp=5"),
        ("character", "add", "Guard", "--trait", "hp=5"),
        ("session", "start", "Heist"),
        ("encounter", "start", "Ann", "Boss", "Guard", "--init", "Ann=15", "--init", "Boss=5", "--init", "Guard=3"),
        ("attack", "Ann", "Boss", "--damage", "1d8", "--roll", "attack=18", "--roll", "damage=8"),
        ("encounter", "remove", "Guard"),
    ],
    "pnp": [
        ("init", "--system", "pnp"),
        ("character", "add", "Mara", "--pc", "--trait", "might=4"),
        ("character", "add", "Thugs", "--minion", "--count", "3", "--trait", "threat=1"),
        ("character", "add", "Guard", "--trait", "toughness=2"),
        ("session", "start", "Heist"),
        ("encounter", "start", "Mara", "Thugs", "Guard", "--init", "Mara=9", "--init", "Thugs=3", "--init", "Guard=1"),
        ("attack", "Mara", "Thugs", "--with", "might", "--roll", "attack=6,6,1,1", "--roll", "defense=1"),
        ("encounter", "remove", "Guard"),
    ],
}  # fmt: skip
FELL = {
    "hnh": ("Boss stabilized (round 1, Ann's attack)", "1 of the Thugs defeated (round 1, Ann's attack)"),
    "d20": ("Boss dying, unconscious (round 1, Ann's attack)",),
    "pnp": ("3 of the Thugs defeated (page 1, Mara's attack)",),
}


@pytest.mark.parametrize("system", sorted(FIGHTS))
def test_the_summary_names_everyone_taken_out_when_and_how(cli: Cli, system: str) -> None:
    """The summary's `Fell:` names each fall with its round and what did it (a knocked-out villain, a dying one, the
    members of a minion group by count) and the one who left by `encounter remove`; the exports say the same."""
    for step in FIGHTS[system]:
        cli.ok(*step)
    ended = cli.ok("encounter", "end").stdout
    fell = next(line for line in ended.splitlines() if line.startswith("Fell: "))
    word = "page" if system == "pnp" else "round"
    for said in (*FELL[system], f"Guard left the fight ({word} 1)"):
        assert said in fell, fell
    md = cli.ok("export", "--format", "md").stdout
    assert fell in md
    recap = next(line for line in md.splitlines() if line.startswith("> **Recap.**"))
    assert "Guard (left the fight, #" in recap, recap


@pytest.mark.parametrize("system", ["hnh", "pnp"])
def test_a_minion_groups_fallen_members_are_its_damage_taken_in_every_system(cli: Cli, system: str) -> None:
    """gameplay.txt, Minions (H&H: a minion that fails is removed, no HP recorded) and P&P (one member per success):
    each fallen member counts 1 damage taken by the group and dealt by its attacker, alike in both systems."""
    for step in FIGHTS[system]:
        cli.ok(*step)
    ended = cli.json("encounter", "end")
    assert isinstance(ended, dict)
    fallen = sum(f.get("count", 0) for f in ended["summary"]["fell"] if f["name"] == "Thugs")
    rows = {c["name"]: c for c in ended["summary"]["combatants"]}
    assert fallen > 0 and rows["Thugs"]["taken"] == fallen
    hero = "Ann" if system == "hnh" else "Mara"
    assert rows[hero]["dealt"] >= fallen


def test_the_recap_tells_undos_apart_from_retractions(cli: Cli) -> None:
    """docs/export-format.md, the recap: a ruling the GM undid is `Undone`, one contested and retracted `Retracted`."""
    for step in FIGHTS["d20"][:6]:
        cli.ok(*step)
    cli.ok("damage", "Boss", "--amount", "1")
    cli.ok("undo")
    r = cli.ok("damage", "Boss", "--amount", "2").stdout
    number = re.match(r"ruling (\d+):", r)
    assert number
    cli.ok("retract", number[1], "--yes")
    recap = next(line for line in cli.ok("export", "--format", "md").stdout.splitlines() if "**Recap.**" in line)
    assert re.search(r"Retracted: #\d+ \(damage\) by #\d+", recap) and re.search(r"Undone: #\d+ \(damage\)", recap)
