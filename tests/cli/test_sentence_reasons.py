"""Every change a rule makes to a number is said by name, in the terminal and in `log`.

The die line reads left to right to the number the rules used (ledger/words/dielines.py); where a rule changes a
check's total after the dice, the line names the rule instead of a bare "adjusted". An effect that defeats says why.
"""

from __future__ import annotations

from tests.conftest import Cli


def hnh_fight(cli: Cli) -> None:
    cli.ok("init", "--system", "hnh", "--name", "Named")
    cli.ok("character", "add", "Ann", "--trait", "agility=3", "--trait", "fighting=6", "--trait", "parry=5",
           "--trait", "toughness=4", "--pc")  # fmt: skip
    cli.ok("character", "add", "Bob", "--trait", "fighting=4", "--trait", "parry=3", "--trait", "toughness=3")
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=9", "--init", "Bob=5")


def test_a_vulnerable_defense_is_halved_by_name(cli: Cli) -> None:
    """hnh-site/conditions.txt, Vulnerable: "halving their active defense results (rounded up)": Parry 5 with dice 0
    is 5, halved to 3; the die line says `-2 vulnerable (halved) = 3`, live and in `log`."""
    hnh_fight(cli)
    cli.ok("condition", "add", "Ann", "vulnerable")
    out = cli.ok("attack", "Bob", "Ann", "--rank", "3", "--roll", "attack=0,0,0", "--roll", "defense=0,0,0").stdout
    line = "Ann defense: 3dF+5 [0 0 0] -2 vulnerable (halved) = 3"
    assert line in out and "adjusted" not in out
    assert line in cli.ok("log", "-n", "1").stdout


def test_defend_lifts_a_low_dice_sum_to_1_by_name(cli: Cli) -> None:
    """hnh-site/gameplay.txt, Defend - Standard Action: "If the dice sum is less than 1 (before adding defense ranks)
    then use 1 instead": dice - - 0 (sum -2) with Parry 5 count as 1, total 6; the die line says `+3 defend`."""
    hnh_fight(cli)
    cli.ok("act", "Ann", "defend", "-o", "defense=parry")
    cli.ok("encounter", "next")
    out = cli.ok("attack", "Bob", "Ann", "--rank", "3", "--roll", "attack=0,0,0", "--roll", "defense=-,-,0").stdout
    assert "Ann defense: 3dF+5 [- - 0] +3 defend (dice at least 1) = 6" in out and "adjusted" not in out
    assert "Bob misses Ann (4 vs 6)" in out


def test_a_special_effect_says_its_pages_and_why_it_defeats(cli: Cli) -> None:
    """prowlers-and-paragons.txt, Attacks, Special effects: "last 1 page for every 2 net successes" and "If the
    duration of a special effect ever equals or exceeds the target's current Health, the target is defeated": 6 net
    successes stun for 3 pages, at least Brute's Health 2 (the average of Toughness 1 and Might 3), so Brute is
    defeated; the sentence says why. 2 net successes stun Tank for 1 page, below its Health 2: the duration is said
    once, with the effect."""
    cli.ok("init", "--system", "pnp", "--name", "Pages")
    cli.ok("character", "add", "Mara", "--trait", "might=4", "--trait", "agility=3", "--trait", "toughness=3", "--pc")
    cli.ok("character", "add", "Brute", "--trait", "might=3", "--trait", "toughness=1")
    cli.ok("encounter", "start", "Mara", "Brute")
    out = cli.ok("attack", "Mara", "Brute", "--with", "might", "-o", "effect=stun", "--roll", "attack=6,6,6,5").stdout
    first = out.splitlines()[0]
    assert "stun for 3 pages, at least Brute's Health: defeated" in first, first
    assert "now stunned and defeated" in first
    cli.ok("character", "add", "Tank", "--trait", "might=3", "--trait", "toughness=1")
    cli.ok("encounter", "join", "Tank")
    out = cli.ok("attack", "Mara", "Tank", "--with", "might", "-o", "effect=stun", "--roll", "attack=6,5,1,1").stdout
    first = out.splitlines()[0]
    assert "stun): now stunned for 1 page" in first and "defeated" not in first, first
