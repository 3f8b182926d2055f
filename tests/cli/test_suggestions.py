"""Names and typos (DESIGN.md, Errors and bad input): a did-you-mean for every mistyped name; refusals by state say
why."""

from __future__ import annotations

import pytest

from tests.conftest import Cli, Recorded, event_count


def refused(cli: Cli, *args: str) -> tuple[str, str]:
    """Run a command that must be refused: exit 2, one error line and one hint line, nothing appended."""
    before = event_count(cli.db)
    r = cli(*args)
    assert r.exit_code == 2, r.stdout
    assert event_count(cli.db) == before
    lines = r.stderr.splitlines()
    assert len(lines) == 2 and lines[0].startswith("error: ") and lines[1].startswith("hint: "), r.stderr
    return lines[0][7:], lines[1][6:]


def _record_hnh(cli: Cli) -> None:
    """The ledger the hnh fixture starts from."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "agility=3", "--trait", "fighting=4", "--pc")
    cli.ok("character", "add", "Big Bo", "--trait", "toughness=2")
    cli.ok("character", "import", "../shared/fixtures/hnh-characters/energy-controller.json")


@pytest.fixture
def hnh(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_hnh records, recorded once and copied for this test."""
    return recorded(cli, _record_hnh)


def test_a_mistyped_character_name_gets_the_nearest_name(hnh: Cli) -> None:
    """DESIGN.md, Errors and bad input (suggestions): write commands and read commands alike suggest the live character
    meant."""
    assert refused(hnh, "damage", "An", "--amount", "1") == ("no character called 'An'", "did you mean 'Ann'?")
    assert refused(hnh, "attack", "Ann", "big bp") == ("no character called 'big bp'", "did you mean 'Big Bo'?")
    assert refused(hnh, "character", "show", "Energy Controler")[1] == "did you mean 'Energy Controller'?"
    assert refused(hnh, "timeline", "Anne")[1] == "did you mean 'Ann'?"
    assert refused(hnh, "why", "Anne", "hp")[1] == "did you mean 'Ann'?"
    assert refused(hnh, "character", "show", "Ann3", "--at", "3") == (
        "no character called 'Ann3' at ruling 3",
        "did you mean 'Ann'?",
    )
    assert refused(hnh, "damage", "Nobody", "--amount", "1") == (
        "no character called 'Nobody'",
        "see: ledger character list",
    )


def test_a_mistyped_command_gets_the_nearest_command(hnh: Cli) -> None:
    """DESIGN.md, Errors and bad input (suggestions): commands at the top and in groups; one suggestion, in the hint."""
    assert refused(hnh, "atack", "Ann", "Big Bo") == ("No such command 'atack'.", "did you mean 'ledger attack'?")
    assert refused(hnh, "encounter", "nxt") == ("No such command 'nxt'.", "did you mean 'ledger encounter next'?")
    message, hint = refused(hnh, "frobnicate")  # nothing close: the usual pointer to --help
    assert message == "No such command 'frobnicate'." and hint.startswith("see: ") and hint.endswith(" --help")


def test_a_mistyped_condition_gets_the_nearest_condition(hnh: Cli) -> None:
    """hnh-site/conditions.txt: the campaign's own condition names are offered."""
    assert refused(hnh, "condition", "add", "Ann", "dazd") == (
        "unknown condition 'dazd' in Humans & Heroes",
        "did you mean 'dazed'?",
    )
    assert refused(hnh, "condition", "remove", "Ann", "stuned")[1] == "did you mean 'stunned'?"


def test_a_mistyped_trait_power_or_resource_gets_the_nearest_one(hnh: Cli) -> None:
    """gameplay.txt, Checks: a check of a trait or power the character has; the-basics.txt, Victory Points."""
    assert refused(hnh, "check", "Ann", "agilty", "--dc", "5") == (
        "Ann has no trait or power 'agilty'",
        "did you mean 'agility'?",
    )
    assert refused(hnh, "check", "Ann", "figthing", "--dc", "5")[1] == "did you mean 'fighting'?"
    assert (
        refused(hnh, "check", "Ann", "awarness", "--dc", "5")[1] == "did you mean 'awareness'?"
    )  # an absent ability counts as 0
    got = refused(hnh, "attack", "Energy Controller", "Ann", "--with", "energy-creaton")
    assert got == ("Energy Controller has no power or trait 'energy-creaton'", "did you mean 'energy-creation'?")
    assert refused(hnh, "spend", "Ann", "victory-point")[1] == "did you mean 'victory-points'?"


def test_a_mistyped_option_key_or_value_gets_the_nearest_one(hnh: Cli) -> None:
    """DESIGN.md, Errors and bad input (suggestions), for options (declared per system: ledger/rules/hnh/options.py)."""
    assert refused(hnh, "attack", "Ann", "Big Bo", "-o", "rnage=ranged") == (
        "hnh attack has no option 'rnage'",
        "did you mean 'range'?",
    )
    assert refused(hnh, "attack", "Ann", "Big Bo", "--range", "rangd")[1] == "did you mean 'ranged'?"
    assert refused(hnh, "act", "Ann", "afliction")[1] == "did you mean 'affliction'?"


def test_d20_and_pnp_traits_and_conditions_are_suggested(cli: Cli, tmp_path: object) -> None:
    """d20-supers.txt, Abilities; prowlers-and-paragons.txt, Traits and special effects."""
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Rex", "--trait", "dex=14")
    assert refused(cli, "check", "Rex", "dexx", "--dc", "10") == ("Rex has no skill 'dexx'", "did you mean 'dex'?")
    other = Cli(cli.db + "-pnp" if not cli.db.startswith("postgresql") else cli.db)
    if other.db == cli.db:
        return  # one PostgreSQL database per test: the d20 half stands for both backends
    other.ok("init", "--system", "pnp")
    other.ok("character", "add", "Mara", "--trait", "agility=4", "--trait", "blast=5")
    other.ok("character", "add", "Vic", "--trait", "agility=2")
    assert refused(other, "check", "Mara", "agilit", "--threshold", "hard")[1] == "did you mean 'agility'?"
    assert refused(other, "attack", "Mara", "Vic", "--with", "blats")[1] == "did you mean 'blast'?"
    assert refused(other, "gain", "Mara", "reslove")[1] == "did you mean 'resolve'?"


def test_removing_a_part_of_a_combined_condition_keeps_the_rest(hnh: Cli) -> None:
    """hnh-site/conditions.txt, Combined Conditions: losing one part of a combined condition leaves the others."""
    hnh.ok("condition", "add", "Ann", "incapacitated")
    hnh.ok("condition", "remove", "Ann", "stunned")
    shown = hnh.json("character", "show", "Ann")
    assert (
        isinstance(shown, dict) and "stunned" not in shown["conditions"] and "incapacitated" not in shown["conditions"]
    )
    assert {"defenseless", "unaware"} <= set(shown["conditions"])


def test_a_condition_that_comes_with_one_the_gm_cannot_remove_says_why(hnh: Cli) -> None:
    """humans-and-heroes.txt, Health Points: dead "removes all other conditions" and follows HP alone; Dead brings
    Incapacitated."""
    hnh.ok("damage", "Ann", "--amount", "9")
    message, hint = refused(hnh, "condition", "remove", "Ann", "incapacitated")
    assert message.startswith("Ann is incapacitated only through an HP condition")  # said in the rules' terms
    assert "HP" in message + (hint or "")


def test_ways_back_hazards_and_participants_are_suggested(hnh: Cli) -> None:
    """gameplay.txt, Death (Healing, Immortality); humans-and-heroes.txt, Hazards; gameplay.txt, Initiative and
    Delay."""
    hnh.ok("damage", "Big Bo", "--amount", "9")
    assert refused(hnh, "revive", "Big Bo", "--means", "heling") == (
        "unknown way back from death 'heling'",
        "did you mean 'healing'?",
    )
    assert refused(hnh, "hazard", "Ann", "falin") == ("unknown hazard 'falin'", "did you mean 'falling'?")
    got = refused(hnh, "encounter", "start", "Ann", "Energy Controller", "--surprised", "Energy Controler")
    assert got == ("--surprised Energy Controler: not one of the participants", "did you mean 'Energy Controller'?")
    hnh.ok("encounter", "start", "Ann", "Energy Controller")
    assert refused(hnh, "encounter", "act", "Anne") == ("Anne is not in the encounter", "did you mean 'Ann'?")
