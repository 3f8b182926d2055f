"""The rules' own timed effects run out as durations do: the ruling that ends one says why, the tracker shows what
is left, undo and retraction restore it exactly; rulings recorded before keep the rules' own counting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import Cli


def fight(cli: Cli, system: str) -> None:
    """Ann acts before Bob (initiative entered by hand)."""
    cli.ok("init", "--system", system)
    cli.ok("character", "add", "Ann", "--pc")
    cli.ok("character", "add", "Bob")
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=5", "--init", "Bob=3")


def row(cli: Cli, name: str) -> dict[str, Any]:
    doc = cli.json("encounter", "show")
    assert isinstance(doc, dict)
    return next(e for e in doc["order"] if e["name"] == name)


def removed(doc: Any, condition: str) -> dict[str, Any]:
    return next(
        e["data"] for e in doc["events"] if e["type"] == "ConditionRemoved" and e["data"]["condition"] == condition
    )


def states(cli: Cli) -> list[Any]:
    return [cli.json("character", "show", "Ann"), cli.json("character", "show", "Bob"), cli.json("encounter", "show")]


def test_hnh_until_end_of_turn_runs_out_as_a_duration_and_says_so(cli: Cli) -> None:
    """gameplay.txt, Ending Your Turn: "End any effects that last 'until the end of your turn'": `act Ann until`
    during Ann's turn (until the end of her next turn: the one in progress is not it) shows `dazed until end of
    Ann` and the ruling that ends her next turn says why it ends."""
    fight(cli, "hnh")
    cli.ok("act", "Ann", "until", "-o", "condition=dazed", "-o", "until=end")
    assert row(cli, "Ann")["left"] == {"dazed": "until end of Ann"}
    assert "dazed until end of Ann" in cli.ok("encounter", "show").stdout
    cli.ok("encounter", "next")
    cli.ok("encounter", "next")  # Ann's next turn: still dazed
    assert cli.json("character", "show", "Ann")["conditions"] == ["dazed"]
    before = states(cli)
    doc = cli.json("encounter", "next")
    assert removed(doc, "dazed")["expired"] == "until the end of Ann's turn"
    assert "no longer dazed (until the end of Ann's turn)" in cli.ok("log", "-n", "1").stdout
    assert cli.json("character", "show", "Ann")["conditions"] == []
    cli.ok("undo")
    assert states(cli) == before


def test_hnh_until_start_of_turn_runs_out_at_the_start_of_the_bearers_next_turn(cli: Cli) -> None:
    """gameplay.txt, Starting Your Turn: "End effects that last 'until the start of your next turn'": it lasts
    through Bob's turn and ends as Ann's next turn starts, saying so."""
    fight(cli, "hnh")
    cli.ok("act", "Ann", "until", "-o", "condition=vulnerable", "-o", "until=start")
    first = cli.json("encounter", "next")
    assert not [e for e in first["events"] if e["type"] == "ConditionRemoved"]
    doc = cli.json("encounter", "next")
    assert removed(doc, "vulnerable")["expired"] == "until the start of Ann's turn"


def test_hnh_demoralize_lasts_until_the_end_of_the_targets_next_turn(cli: Cli) -> None:
    """gameplay.txt, Demoralize (the Intimidation skill: impaired until the end of the target's next turn): the
    tracker shows `impaired until end of Bob`; the ruling that ends Bob's turn ends it, saying why."""
    fight(cli, "hnh")
    cli.ok("act", "Ann", "demoralize", "--against", "Bob", "--roll", "check=+,+,+", "--roll", "against=-,-,-")
    assert row(cli, "Bob")["left"] == {"impaired": "until end of Bob"}
    cli.ok("encounter", "next")
    assert "impaired" in cli.json("character", "show", "Bob")["conditions"]  # Bob's turn: still impaired
    doc = cli.json("encounter", "next")
    assert removed(doc, "impaired")["expired"] == "until the end of Bob's turn"


def test_hnh_until_recorded_outside_an_encounter_keeps_the_rules_own_counting(cli: Cli) -> None:
    """gameplay.txt, Ending Your Turn: a ruling recorded outside an encounter (as every ruling before durations
    were recorded) keeps the rules' own counters (`until-next-end-of-turn:COND`, then `until-end-of-turn:COND` as the
    next turn starts), shown and ended the same way as before."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--pc")
    cli.ok("character", "add", "Bob")
    cli.ok("act", "Ann", "until", "-o", "condition=dazed", "-o", "until=end")
    assert cli.json("character", "show", "Ann")["counters"] == {"until-next-end-of-turn:dazed": 1}
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=5", "--init", "Bob=3")  # Ann's next turn starts
    assert cli.json("character", "show", "Ann")["counters"] == {"until-end-of-turn:dazed": 1}
    assert row(cli, "Ann")["left"] == {"dazed": "until end of Ann"}
    doc = cli.json("encounter", "next")
    assert removed(doc, "dazed") == {"condition": "dazed", "note": "until the end of the turn"}


def test_d20_charge_ends_as_a_duration_and_retraction_restores_it_exactly(cli: Cli, tmp_path: Path) -> None:
    """d20-supers.txt, Non-Combat Actions and Special-Combat Actions, Charge: "+2 to Attack rolls and lose -2 to DR"
    until the charger's next turn: the ruling that starts Ann's next turn ends it and says why; retracting the
    charge leaves every sheet and the tracker as a ledger that never had it."""
    fight(cli, "d20")
    cli.ok("act", "Ann", "charge")
    assert row(cli, "Ann")["left"] == {"charging": "until start of Ann"}
    cli.ok("encounter", "next")
    doc = cli.json("encounter", "next")
    assert removed(doc, "charging")["expired"] == "until the start of Ann's turn"
    assert "no longer charging (until the start of Ann's turn)" in cli.ok("log", "-n", "1").stdout
    assert cli.json("character", "show", "Ann")["counters"] == {"subdual": 0}  # the DR penalty and the duration gone
    cli.ok("retract", "5", "--yes")
    without = Cli(str(tmp_path / "without.ledger"))
    fight(without, "d20")
    without.ok("encounter", "next")
    without.ok("encounter", "next")
    assert states(cli) == states(without)


def test_d20_run_undone_with_the_turn_that_ended_it(cli: Cli) -> None:
    """d20-supers.txt, Running: "move ... 4 x your normal speed but not attack" until the runner's next turn: undoing
    the turn that ended the run brings `running until start of Ann` back exactly."""
    fight(cli, "d20")
    cli.ok("act", "Ann", "run")
    cli.ok("encounter", "next")
    before = states(cli)
    assert "running until start of Ann" in cli.ok("encounter", "show").stdout
    doc = cli.json("encounter", "next")
    assert removed(doc, "running")["expired"] == "until the start of Ann's turn"
    cli.ok("undo")
    assert states(cli) == before
