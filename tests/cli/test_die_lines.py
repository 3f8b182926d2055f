"""Die lines that add up: the faces, then every named term the rules applied, read left to right, give the total.

The checks read the printed lines (as a GM does) and redo the arithmetic; the totals are also compared with the
number the rules used (the initiative in the order, the HP lost).
"""

from __future__ import annotations

import re

from click.testing import CliRunner

from commands.main import cli as ledger_cli

LINE = re.compile(
    r"^\s*(?P<label>.+?): (?P<count>\d+)d(?P<sides>F|\d+)(?P<mod>[+-]\d+)?(?P<pool> pool)? "
    r"\[(?P<faces>[^\]]*)\](?P<terms>.*?) = (?P<total>-?\d+)(?: \(.*\))?$"
)
FUDGE = {"+": 1, "0": 0, "-": -1}


def adds_up(line: str) -> bool:
    """Redo a die line's arithmetic: faces (+ the notation's modifier), then each term in order."""
    m = LINE.match(line)
    assert m, line
    faces = m["faces"].split()
    if m["pool"]:
        value = sum(1 if f in ("2", "4") else 2 if f == "6" else 0 for f in faces)
    else:
        value = sum(FUDGE[f] if m["sides"] == "F" else int(f) for f in faces) + int(m["mod"] or 0)
    for term in re.findall(r" ([+-]\d+|x\d+) ", m["terms"] + " "):
        value = value * int(term[1:]) if term.startswith("x") else value + int(term)
    return value == int(m["total"])


def die_lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if LINE.match(ln)]


def test_every_die_line_of_every_demo_adds_up(tmp_path):
    """DESIGN.md, Dice (faces live in the events) and the-basics.txt, Checks (3dF + bonus): every die line the
    demo of each system prints (H&H, d20 Supers, P&P) sums, term by term, to its total."""
    r = CliRunner().invoke(ledger_cli, ["demo", "--db", str(tmp_path / "demo")], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    lines = die_lines(r.stdout)
    assert len(lines) >= 20
    assert all(adds_up(ln) for ln in lines), [ln for ln in lines if not adds_up(ln)]


def test_a_critical_initiative_shows_its_plus_one(cli):
    """the-basics.txt, Critical Success: all three dice + is +1 on the check: `3dF+3 [+ + +] +1 critical = 7`,
    the number the initiative order shows."""
    cli.ok("init", "--system", "hnh", "--name", "T")
    cli.ok("character", "add", "Paragon", "--trait", "agility=3", "--pc")
    cli.ok("character", "add", "Cy", "--trait", "agility=1")
    out = cli.ok("encounter", "start", "Paragon", "Cy", "--roll", "Paragon=+,+,+", "--roll", "Cy=0,0,0").stdout
    assert "Paragon: 3dF+3 [+ + +] +1 critical = 7" in out
    assert "Paragon 7" in out
    assert all(adds_up(ln) for ln in die_lines(out))


def test_a_resistance_names_the_bruises_and_the_critical_failure(cli):
    """damage.txt, Bruised (each bruise -1 Toughness) and the-basics.txt, Critical Failure (a passive check's all -
    is -1): `3dF [- - -] +4 toughness -1 bruises -1 critical = -1`."""
    cli.ok("init", "--system", "hnh", "--name", "T")
    cli.ok("character", "add", "Ann", "--trait", "toughness=4", "--trait", "parry=0", "--pc")
    cli.ok("character", "add", "Cy", "--trait", "fighting=4")
    tie = ("--roll", "attack=+,+,0", "--roll", "defense=-,-,0", "--roll", "power=0,0,0", "--roll", "toughness=0,0,0")
    cli.ok("attack", "Cy", "Ann", "--rank", "4", "--bonus", "6", *tie)  # a tie: one bruise (Damage Check)
    out = cli.ok(
        "attack",
        "Cy",
        "Ann",
        "--rank",
        "8",
        "--bonus",
        "6",
        "--roll",
        "attack=+,+,0",
        "--roll",
        "defense=-,-,0",
        "--roll",
        "power=0,0,0",
        "--roll",
        "toughness=-,-,-",
    ).stdout
    line = next(ln for ln in out.splitlines() if "Ann toughness" in ln)
    assert "3dF [- - -] +4 toughness -1 bruises -1 critical = -1" in line
    assert "Cy attack: 3dF+6 [+ + 0] = 8" in out
    assert all(adds_up(ln) for ln in die_lines(out))


def test_d20_critical_damage_shows_strength_multiplier_and_dn_and_matches_the_hp_lost(cli):
    """d20-supers.txt, Damage and Critical Hits: weapon dice + Str, x2 on a critical, less DN; the line's total
    is the HP lost."""
    cli.ok("init", "--system", "d20", "--name", "T")
    cli.ok("character", "add", "Cy", "--trait", "str=14", "--trait", "attack=2", "--pc")
    cli.ok("character", "add", "Bob", "--trait", "hp=30", "--trait", "dn=1")
    out = cli.ok(
        "attack", "Cy", "Bob", "--damage", "1d8", "--roll", "attack=20", "--roll", "confirm=19", "--roll",
        "death=2", "--roll", "damage=5",
    ).stdout  # fmt: skip
    assert "Cy damage: 1d8 [5] +2 Str x2 critical -1 DN = 13" in out
    assert "HP 30 -> 17" in out
    assert "Cy attack: 1d20 [20] +2 attack +2 Str = 24" in out
    plain = cli.ok("attack", "Cy", "Bob", "--damage", "1d8", "--roll", "attack=12", "--roll", "damage=5").stdout
    assert "Cy damage: 1d8 [5] +2 Str -1 DN = 6" in plain and "HP 17 -> 11" in plain
    assert all(adds_up(ln) for ln in die_lines(out + "\n" + plain))


def test_a_hit_dn_absorbs_and_a_declined_critical_are_said(cli):
    """d20-supers.txt, Damage Negation (DN takes damage off each hit) and Critical Hits (a natural 20 threatens,
    the GM may skip the confirmation with -o confirm=no): the sentence says both."""
    cli.ok("init", "--system", "d20", "--name", "T")
    cli.ok("character", "add", "Cy", "--trait", "str=14", "--trait", "attack=2", "--pc")
    cli.ok("character", "add", "Bob", "--trait", "hp=30", "--trait", "dn=5")
    out = cli.ok("attack", "Cy", "Bob", "--damage", "1d4", "--roll", "attack=15", "--roll", "damage=2").stdout
    assert "DN 5 absorbs all 4 damage" in out
    assert "1d4 [2] +2 Str -4 DN = 0" in out
    declined = cli.ok(
        "attack", "Cy", "Bob", "--damage", "1d8", "-o", "confirm=no", "--roll", "attack=20", "--roll", "damage=5"
    ).stdout
    assert "critical declined" in declined


def test_a_condition_s_penalty_is_named_by_the_condition_that_brings_it(cli):
    """hnh-site/conditions.txt, Exhausted (impaired and hindered) and Impaired (-1 on checks): the resistance's die
    line names the -1 as `exhausted`, and still adds up."""
    cli.ok("init", "--system", "hnh", "--name", "T")
    cli.ok("character", "add", "Ann", "--trait", "toughness=4", "--trait", "parry=0", "--pc")
    cli.ok("character", "add", "Cy", "--trait", "fighting=4")
    cli.ok("condition", "add", "Ann", "exhausted")
    out = cli.ok(
        "attack", "Cy", "Ann", "--rank", "4", "--bonus", "6", "--roll", "attack=+,+,0", "--roll", "defense=-,-,0",
        "--roll", "power=0,0,0", "--roll", "toughness=0,0,+",
    ).stdout  # fmt: skip
    assert "Ann toughness: 3dF [0 0 +] +4 toughness -1 exhausted = 4" in out
    assert all(adds_up(ln) for ln in die_lines(out))


def test_a_power_roll_names_its_effect_rank_and_a_critical_hits_plus_one(cli):
    """hnh-site/the-basics.txt, Checks (a power check is 3dF + the effect's rank) and gameplay.txt, Critical Hits
    (Increased Effect: +1 to the effect's DC): the rank is a named term, `3dF [+ 0 -] +12 rank = 12`, and a critical
    hit's +1 is named after it; read left to right the terms give the power check the resistance is compared with."""
    cli.ok("init", "--system", "hnh", "--name", "T")
    cli.ok("character", "add", "Ann", "--trait", "fighting=6", "--pc")
    cli.ok("character", "add", "Cy", "--trait", "parry=4", "--trait", "toughness=2")
    rolls = ("--roll", "defense=0,0,0", "--roll", "power=+,0,-", "--roll", "toughness=0,0,0")
    plain = cli.ok("attack", "Ann", "Cy", "--rank", "12", "--bonus", "6", "--roll", "attack=+,+,0", *rolls).stdout
    assert "Ann power: 3dF [+ 0 -] +12 rank = 12" in plain
    cli.ok("undo")
    crit = cli.ok("attack", "Ann", "Cy", "--rank", "12", "--bonus", "6", "--roll", "attack=+,+,+", *rolls).stdout
    assert "Ann power: 3dF [+ 0 -] +12 rank +1 critical hit = 13" in crit
    assert all(adds_up(ln) for ln in die_lines(plain + "\n" + crit))


def test_every_die_line_of_every_ruling_kind_adds_up(tmp_path):
    """DESIGN.md, Dice, over every command and action of each system (the scripts of
    tests/cli/test_every_ruling_sentence.py, hnh power and resistance checks, d20 Supers attack and damage chains,
    P&P pools): every die line printed sums, term by term, to its total; the demo's power rolls name their rank."""
    from tests.cli.test_every_ruling_sentence import INIT, SCRIPTS
    from tests.conftest import Cli

    lines: list[str] = []
    for system, script in SCRIPTS.items():
        c = Cli(str(tmp_path / f"{system}.ledger"))
        c.ok("init", "--system", system, "--name", "T", *INIT[system])
        attack = ""
        for step in script:
            out = c.ok(*(a.replace("{attack}", attack) for a in step)).stdout
            attack = attack or (out.split(":")[0].split()[-1] if step[0] == "attack" else "")
            lines += die_lines(out)
    assert len(lines) >= 30
    assert any(" rank = " in ln or " rank +" in ln for ln in lines)
    assert all(adds_up(ln) for ln in lines), [ln for ln in lines if not adds_up(ln)]
    demo = CliRunner().invoke(ledger_cli, ["demo"], catch_exceptions=False).stdout
    power = [ln for ln in die_lines(demo) if " power: " in ln]
    assert power and all(re.search(r"power: 3dF \[[^\]]*\] \+\d+ rank", ln) for ln in power), power
