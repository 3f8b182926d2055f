"""Typed options through the real CLI and the shell (CLI.md, Additions agreed in the second round: `-o KEY=VALUE`): what
the GM types is what the ledger records.

Option values are kept as given (no, off and 0 are values), stored typed in the intent, and an unknown key or
value is refused before anything is decided: one line, a suggestion, exit 2, nothing appended.
"""

from __future__ import annotations

import orjson
import pytest

from tests.conftest import Cli, Recorded, event_count


def _intent(cli: Cli) -> dict[str, object]:
    """The intent of the latest ruling, as the log shows it."""
    rows = cli.json("log")
    assert isinstance(rows, list)
    recorded = [r for r in rows if r["type"] == "RulingRecorded"]
    intent = recorded[-1]["data"]["intent"]
    assert isinstance(intent, dict)
    return intent


def _attack_of(cli: Cli) -> dict[str, object]:
    rows = cli.json("log")
    assert isinstance(rows, list)
    found = [r["data"] for r in rows if r["type"] == "AttackResolved"]
    return found[-1]


def _record_d20(cli: Cli) -> None:
    """A d20 campaign: Blaze (Str 14, Dex 14) and a Thug."""
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Blaze", "--trait", "str=14", "--trait", "dex=14")
    cli.ok("character", "add", "Thug")


@pytest.fixture
def d20(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_d20 records, recorded once and copied for this test."""
    return recorded(cli, _record_d20)


def _record_hnh(cli: Cli) -> None:
    """An H&H campaign: Ann (Fighting 6, Strength 4) and a Thug (Parry 2, Toughness 2) with no Strength."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "fighting=6", "--trait", "strength=4", "--pc")
    cli.ok("character", "add", "Thug", "--trait", "parry=2", "--trait", "toughness=2")


@pytest.fixture
def hnh(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_hnh records, recorded once and copied for this test."""
    return recorded(cli, _record_hnh)


def test_d20_off_hand_attack_takes_its_penalty_and_is_recorded(d20: Cli) -> None:
    """d20-supers.txt, Two Weapon Fighting: the off hand takes -10 (normal); `-o two-weapon=off` must not be dropped."""
    d20.ok(
        "attack",
        "Blaze",
        "Thug",
        "--damage",
        "1d6",
        "-o",
        "two-weapon=off",
        "--roll",
        "attack=15",
        "--roll",
        "damage=3",
    )
    assert _intent(d20)["options"] == {"damage": "1d6", "two-weapon": "off"}
    # Str 14 gives +2 to attack (To Attack); the off hand's -10 makes it -8
    assert _attack_of(d20)["attack-bonus"] == 2 - 10


def test_d20_subdual_no_makes_fists_lethal_and_is_recorded(d20: Cli) -> None:
    """d20-supers.txt, To Attack: fists are 1d4 subdual unless the GM rules otherwise (`-o subdual=no`, kept as
    False)."""
    d20.ok("attack", "Blaze", "Thug", "-o", "subdual=no", "--roll", "attack=19", "--roll", "damage=4")
    assert _intent(d20)["options"] == {"subdual": False}
    thug = d20.json("character", "show", "Thug")
    assert isinstance(thug, dict)
    assert thug["hp"] == 10 - (4 + 2)  # 1d4 + Str modifier as regular damage, none of it subdual
    assert thug["counters"]["subdual"] == 0


def test_bonus_zero_is_a_value_not_absent(d20: Cli) -> None:
    """d20-supers.txt, COMBAT MODIFIERS: `--bonus 0` is recorded as 0, not dropped as if not given."""
    d20.ok("attack", "Blaze", "Thug", "--bonus", "0", "--roll", "attack=10", "--roll", "damage=1")
    assert _intent(d20)["options"] == {"bonus": 0}


def test_hnh_rank_zero_is_a_value_not_absent(hnh: Cli) -> None:
    """gameplay.txt, Strength And Damage: `--rank 0` overrides Strength 4 and is recorded as 0."""
    hnh.ok(
        "attack",
        "Ann",
        "Thug",
        "--rank",
        "0",
        "--roll",
        "attack=+,+,0",
        "--roll",
        "defense=0,0,0",
        "--roll",
        "power=0,0,0",
        "--roll",
        "toughness=0,0,0",
    )
    assert _intent(hnh)["options"] == {"rank": 0}
    assert _attack_of(hnh)["rank"] == 0


def test_hnh_unarmed_attack_without_strength_is_rank_0(hnh: Cli) -> None:
    """gameplay.txt, Strength And Damage: unarmed damage is Strength; an absent ability is rank 0
    (docs/interpretations.md)."""
    r = hnh.json("attack", "Thug", "Ann", "--roll", "attack=+,+,+", "--roll", "defense=-,-,-")
    assert _attack_of(hnh)["rank"] == 0
    assert r["ruling"]  # type: ignore[index]


def test_a_mistyped_option_key_is_refused_with_a_suggestion(hnh: Cli) -> None:
    """effect-damage.txt, Extras (Non-Lethal): `-o nonlethl=yes` must not resolve a lethal hit; it suggests
    `nonlethal`."""
    before = event_count(hnh.db)
    r = hnh("attack", "Ann", "Thug", "-o", "nonlethl=yes")
    assert r.exit_code == 2
    assert r.stderr.splitlines()[0] == "error: hnh attack has no option 'nonlethl'"
    assert "did you mean 'nonlethal'?" in r.stderr
    assert event_count(hnh.db) == before


def test_a_flag_takes_yes_or_no_only(hnh: Cli) -> None:
    """`-o nonlethal=maybe` is refused: a flag is yes or no."""
    before = event_count(hnh.db)
    r = hnh("attack", "Ann", "Thug", "-o", "nonlethal=maybe")
    assert r.exit_code == 2
    assert "is yes or no, not 'maybe'" in r.stderr
    assert event_count(hnh.db) == before


def test_a_choice_outside_its_values_is_refused_with_a_suggestion(d20: Cli) -> None:
    """d20-supers.txt, Two Weapon Fighting: the hand is primary or off; `-o two-weapon=of` suggests `off`."""
    r = d20("attack", "Blaze", "Thug", "-o", "two-weapon=of")
    assert r.exit_code == 2
    assert "did you mean 'off'?" in r.stderr


def test_an_option_of_another_system_is_refused(d20: Cli) -> None:
    """hnh's `--maneuver` is not a d20 option: refused in a d20 campaign, nothing appended."""
    before = event_count(d20.db)
    r = d20("attack", "Blaze", "Thug", "--maneuver", "all-out")
    assert r.exit_code == 2
    assert "d20 attack has no option 'maneuver'" in r.stderr
    assert event_count(d20.db) == before


def test_a_number_out_of_its_declared_range_is_refused(hnh: Cli) -> None:
    """An effect rank is 0 or more: `--rank -1` is refused before anything is decided."""
    r = hnh("attack", "Ann", "Thug", "--rank", "-1")
    assert r.exit_code == 2
    assert "'rank' must be from 0" in r.stderr


def test_the_shell_records_the_same_typed_options(d20: Cli) -> None:
    """`ledger play` runs the same commands: `-o two-weapon=off` and `-o subdual=no` reach the intent there too."""
    script = "attack Blaze Thug -o two-weapon=off -o subdual=no --roll attack=12 --roll damage=2\n"
    r = d20("play", input=script)
    assert r.exit_code == 0, r.stderr
    assert _intent(d20)["options"] == {"two-weapon": "off", "subdual": False}


def test_the_shell_refuses_a_mistyped_option_and_appends_nothing(hnh: Cli) -> None:
    """In `ledger play` a typo is the same one-line refusal with a suggestion."""
    before = event_count(hnh.db)
    r = hnh("play", input="attack Ann Thug -o nonlethl=yes\n")
    assert "did you mean 'nonlethal'?" in r.stderr
    assert event_count(hnh.db) == before


def test_options_lists_each_systems_declarations(cli: Cli) -> None:
    """`ledger options attack` shows every system's declared options with their passage."""
    r = cli.ok("options", "attack", "--system", "d20")
    assert "two-weapon" in r.stdout and "Two Weapon Fighting" in r.stdout
    doc = orjson.loads(cli.ok("--json", "options", "attack").stdout)
    assert {"hnh", "d20", "pnp"} <= set(doc)
    assert any(o["name"] == "nonlethal" and o["kind"] == "flag" for o in doc["hnh"])


def test_the_cli_reference_is_current() -> None:
    """docs/cli.md is generated from the commands and the declarations (`python -m commands.reference --write`)."""
    from commands.reference import REFERENCE, markdown

    assert REFERENCE.read_text() == markdown(), "docs/cli.md is out of date: python -m commands.reference --write"


def test_help_inside_a_campaign_shows_only_that_system_s_options(cli) -> None:
    """CLI.md third round: `COMMAND --help` inside a campaign shows that system's options (here d20 Supers'
    --damage, d20-supers.txt, Damage), not another system's (hnh's --rank); outside a campaign, every system's."""
    outside = cli.ok("attack", "--help").stdout
    assert "--damage" in outside and "--rank" in outside
    cli.ok("init", "--system", "d20", "--name", "Help")
    inside = cli.ok("attack", "--help").stdout.split("Options:")[1]
    assert "--damage" in inside and "--rank" not in inside
    assert "hnh:" not in inside and "d20:" not in inside.split("--roll")[0]
