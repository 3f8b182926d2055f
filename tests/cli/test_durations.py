"""Durations on conditions: `condition add --rounds N`, `--until start|end --of WHO`, `--scene`, in every system."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli, event_count


def fight(cli: Cli, system: str = "hnh") -> None:
    """Ann acts before Bob (initiative entered by hand)."""
    cli.ok("init", "--system", system)
    cli.ok("character", "add", "Ann", "--pc")
    cli.ok("character", "add", "Bob")
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=5", "--init", "Bob=3")


def row(cli: Cli, name: str) -> dict[str, Any]:
    doc = cli.json("encounter", "show")
    assert isinstance(doc, dict)
    return next(e for e in doc["order"] if e["name"] == name)


def conditions(cli: Cli, name: str) -> list[str]:
    doc = cli.json("character", "show", name)
    assert isinstance(doc, dict)
    return list(doc["conditions"])


def test_rounds_end_at_the_end_of_the_bearers_nth_turn_and_the_ruling_says_so(cli: Cli) -> None:
    """humans-and-heroes.txt / gameplay.txt, Ending Your Turn: "End any effects that last 'until the end of your
    turn'": a condition for 1 round imposed during Ann's turn ends as Bob's next turn ends."""
    fight(cli)
    cli.ok("condition", "add", "Bob", "dazed", "--rounds", "1")
    assert row(cli, "Bob")["left"] == {"dazed": "1"}
    assert "dazed 1" in cli.ok("encounter", "show").stdout
    cli.ok("encounter", "next")  # Bob's turn begins: still dazed
    assert conditions(cli, "Bob") == ["dazed"]
    r = cli.ok("encounter", "next")  # Bob's turn ends
    assert "Bob: no longer dazed (1 round ran out)" in r.stdout.splitlines()[0]
    assert conditions(cli, "Bob") == []


def test_a_turn_in_progress_when_a_duration_is_imposed_does_not_count(cli: Cli) -> None:
    """gameplay.txt, Ending Your Turn: a duration imposed during the bearer's own turn counts from their next turn."""
    fight(cli)
    cli.ok("encounter", "next")  # Bob is up
    cli.ok("condition", "add", "Bob", "dazed", "--rounds", "1")
    cli.ok("encounter", "next")  # the end of the turn in progress: not counted
    assert conditions(cli, "Bob") == ["dazed"]
    assert row(cli, "Bob")["left"] == {"dazed": "1"}
    cli.ok("encounter", "next")  # Bob's next turn begins
    cli.ok("encounter", "next")  # ... and ends
    assert conditions(cli, "Bob") == []


def test_until_the_start_or_end_of_another_characters_turn(cli: Cli) -> None:
    """gameplay.txt, Starting Your Turn: "End effects that last 'until the start of your next turn'"; counted by WHO."""
    fight(cli)
    cli.ok("condition", "add", "Bob", "vulnerable", "--until", "start", "--of", "Ann")
    cli.ok("condition", "add", "Ann", "hindered", "--until", "end", "--of", "Ann")  # Ann's turn in progress
    assert row(cli, "Bob")["left"] == {"vulnerable": "until start of Ann"}
    cli.ok("encounter", "next")  # Ann's turn ends: hers in progress does not count
    assert conditions(cli, "Ann") == ["hindered"]
    r = cli.ok("encounter", "next")  # round 2: Ann's turn starts
    assert "Bob: no longer vulnerable (until the start of Ann's turn)" in r.stdout
    cli.ok("encounter", "next")  # Ann's next turn ends
    assert conditions(cli, "Ann") == []


def test_the_rules_own_timed_effects_show_the_same_way(cli: Cli) -> None:
    """d20-supers.txt, Charge: "+2 to attack rolls and -2 to DR until the charger's next turn", shown as a duration."""
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Ann", "--trait", "hp=10", "--pc")
    cli.ok("character", "add", "Bob", "--trait", "hp=10")
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=15", "--init", "Bob=5")
    cli.ok("act", "Ann", "charge")
    assert row(cli, "Ann")["left"] == {"charging": "until start of Ann"}


def test_scene_durations_end_with_the_scene_in_pnp(cli: Cli) -> None:
    """prowlers-and-paragons.txt, Attacks: effects "for the rest of the scene" end when it does (`encounter end`)."""
    fight(cli, "pnp")
    cli.ok("condition", "add", "Ann", "prone", "--scene")
    assert row(cli, "Ann")["left"] == {"prone": "scene"}
    cli.ok("encounter", "next")
    assert conditions(cli, "Ann") == ["prone"]
    r = cli.ok("encounter", "end")
    assert "Ann: no longer prone (the encounter ended)" in r.stdout
    assert conditions(cli, "Ann") == []


@pytest.mark.parametrize(
    "args",
    [
        ("condition", "add", "Bob", "dazed", "--scene"),  # hnh has no scenes
        ("condition", "add", "Bob", "dazed", "--rounds", "0"),
        ("condition", "add", "Bob", "dazed", "--until", "start"),
        ("condition", "add", "Bob", "dazed", "--until", "end", "--of", "Nobody"),
        ("condition", "add", "Bob", "dazed", "--rounds", "1", "--scene"),
    ],
)
def test_a_duration_the_rules_cannot_count_is_refused(cli: Cli, db: str, args: tuple[str, ...]) -> None:
    """gameplay.txt, Action Rounds: turns are counted in the encounter's order; scenes are P&P's: exit 2, nothing appended."""
    fight(cli)
    before = event_count(db)
    r = cli(*args)
    assert r.exit_code == 2 and r.stderr.startswith("error: ")
    assert event_count(db) == before


def test_rounds_need_a_running_encounter(cli: Cli, db: str) -> None:
    """gameplay.txt, Action Rounds: rounds are the encounter's; without one there is nothing to count them by."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Bob")
    before = event_count(db)
    r = cli("condition", "add", "Bob", "dazed", "--rounds", "2")
    assert r.exit_code == 2 and "no encounter is running" in r.stderr
    assert event_count(db) == before


def test_undo_of_the_turn_that_ran_a_duration_out_restores_the_count_exactly(cli: Cli) -> None:
    """Undo restores the state of the history without the ruling: the condition back, with 1 round left."""
    fight(cli)
    cli.ok("condition", "add", "Bob", "dazed", "--rounds", "1")
    cli.ok("encounter", "next")
    before = (cli.json("character", "show", "Bob"), cli.json("encounter", "show"))
    cli.ok("encounter", "next")
    assert conditions(cli, "Bob") == []
    cli.ok("undo")
    assert (cli.json("character", "show", "Bob"), cli.json("encounter", "show")) == before


def test_retracting_the_duration_leaves_exactly_the_history_without_it(cli: Cli, tmp_path: Path) -> None:
    """Retraction re-derives every later ruling: the same fight without the `condition add` on a fresh ledger."""
    other = Cli(str(tmp_path / "without.ledger"))
    for c in (cli, other):
        fight(c)
    cli.ok("condition", "add", "Bob", "dazed", "--rounds", "2")  # ruling 5
    for c in (cli, other):
        c.ok("encounter", "next")
        c.ok("encounter", "next")
    cli.ok("retract", "5", "--yes")
    assert cli.json("character", "show", "Bob") == other.json("character", "show", "Bob")
    assert cli.json("encounter", "show") == other.json("encounter", "show")
