"""H&H's own effects "until the start/end of your next turn" under the tracker's version 3 (aim, defend, feint, all-out
and defensive attack): durations on the bearer, ended by the turn hooks saying why, shown as the GM's durations are
(`aim until end of Ann`), still used up by the attack that spends them; undo, redo and retraction restore every sheet
and the tracker exactly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli

HIT = ("--roll", "attack=0,0,0", "--roll", "defense=0,0,0", "--roll", "toughness=0,0,0")


def fight(cli: Cli) -> None:
    """Ann acts before Bob (initiative entered by hand)."""
    cli.ok("init", "--system", "hnh")
    cli.ok(
        "character", "add", "Ann", "--pc", "--trait", "strength=3", "--trait", "fighting=5",
        "--trait", "dodge=4", "--trait", "parry=4", "--trait", "deception=4",
    )  # fmt: skip
    cli.ok("character", "add", "Bob", "--trait", "fighting=2", "--trait", "dodge=2", "--trait", "parry=2")
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=5", "--init", "Bob=3")


def row(cli: Cli, name: str) -> dict[str, Any]:
    doc = cli.json("encounter", "show")
    assert isinstance(doc, dict)
    return next(e for e in doc["order"] if e["name"] == name)


def ann(cli: Cli) -> dict[str, Any]:
    shown = cli.json("character", "show", "Ann")
    assert isinstance(shown, dict)
    return shown


def states(cli: Cli) -> list[Any]:
    return [cli.json("character", "show", "Ann"), cli.json("character", "show", "Bob"), cli.json("encounter", "show")]


def test_an_unused_aim_ends_with_the_aimers_next_turn_saying_so(cli: Cli) -> None:
    """gameplay.txt, Aim - Standard Action ("You are vulnerable while aiming"; unused, the aim ends with the aimer's
    next turn, docs/interpretations.md): aimed on Ann's turn, it shows `aim until end of Ann` and lasts through her
    next turn; the ruling that ends that turn ends the aim and its vulnerability, saying why; undo restores it."""
    fight(cli)
    cli.ok("act", "Ann", "aim")
    assert row(cli, "Ann")["left"] == {"aim": "until end of Ann"}
    assert "vulnerable, aim until end of Ann" in cli.ok("encounter", "show").stdout
    cli.ok("encounter", "next")
    cli.ok("encounter", "next")  # Ann's next turn: still aiming
    assert ann(cli)["conditions"] == ["vulnerable"] and ann(cli)["counters"]["aim"] == 1
    before = states(cli)
    out = cli.ok("encounter", "next").stdout
    why = "(until the end of Ann's turn)"
    assert f"Ann: no longer vulnerable {why}; Ann's aim ends {why}" in out
    assert ann(cli)["conditions"] == [] and ann(cli)["counters"] == {}
    after = states(cli)
    cli.ok("undo")
    assert states(cli) == before
    cli.ok("redo")
    assert states(cli) == after


def test_the_aimed_attack_uses_the_aim_up_and_its_duration_with_it(cli: Cli) -> None:
    """gameplay.txt, Aim - Standard Action ("you get a bonus to hit when you make the attack"; "your next action ...
    must be to attack that target"): the attack on Ann's next turn takes the +2 and ends the aim there and then, so no
    duration is left to run out; undoing the attack brings the aim and its duration back exactly."""
    fight(cli)
    cli.ok("act", "Ann", "aim")
    cli.ok("encounter", "next")
    cli.ok("encounter", "next")
    before = states(cli)
    r = cli.json("attack", "Ann", "Bob", *HIT)
    attack = next(e["data"] for e in r["events"] if e["type"] == "AttackResolved")
    assert attack["modifiers"]["aim"] == 2
    assert ann(cli)["counters"] == {} and row(cli, "Ann")["left"] == {}
    out = cli.ok("encounter", "next").stdout
    assert "aim ends" not in out and "no longer vulnerable" not in out
    cli.ok("undo")
    cli.ok("undo")
    assert states(cli) == before


def test_defend_lasts_until_the_start_of_the_defenders_next_turn(cli: Cli, tmp_path: Path) -> None:
    """gameplay.txt, Defend - Standard Action ("Choose an active defense, until your next turn any check of that
    defense has better results"): `defend (dodge) until start of Ann` shows through Bob's turn and ends as Ann's next
    turn starts, saying why; retracting the defend leaves the ledger as one that never had it."""
    fight(cli)
    number = cli.json("act", "Ann", "defend", "-o", "defense=dodge")["ruling"]  # type: ignore[index]
    assert row(cli, "Ann")["left"] == {"defend (dodge)": "until start of Ann"}
    cli.ok("encounter", "next")
    assert ann(cli)["counters"]["defend:dodge"] == 1  # the rules still read it during Bob's turn
    out = cli.ok("encounter", "next").stdout
    assert "Ann's defend (dodge) ends (until the start of Ann's turn)" in out
    assert ann(cli)["counters"] == {}
    cli.ok("retract", str(number), "--yes")
    without = Cli(str(tmp_path / "without.ledger"))
    fight(without)
    without.ok("encounter", "next")
    without.ok("encounter", "next")
    assert states(cli) == states(without)


def test_all_out_attack_changes_last_until_the_attackers_next_turn(cli: Cli) -> None:
    """gameplay.txt, Maneuvers, All-out Attack ("-1 penalty on your active defenses ... +1 bonus to your attack ...
    last for 1 round", read as until the attacker's next turn starts): `all-out attack until start of Ann`, ended
    as Ann's next turn starts, saying why; undo of that turn brings it back exactly."""
    fight(cli)
    cli.ok("attack", "Ann", "Bob", "--maneuver", "all-out", *HIT)
    assert row(cli, "Ann")["left"] == {"all-out attack": "until start of Ann"}
    cli.ok("encounter", "next")
    before = states(cli)
    assert "Ann's all-out attack ends (until the start of Ann's turn)" in cli.ok("encounter", "next").stdout
    assert "all-out-attack" not in ann(cli)["counters"]
    cli.ok("undo")
    assert states(cli) == before


def test_defensive_attack_shows_and_ends_the_same_way(cli: Cli) -> None:
    """gameplay.txt, Maneuvers, Defensive Attack ("The changes to attack and defense bonus last for 1 round"): the
    +1 to Dodge and Parry lasts until Ann's next turn starts, shown and ended as a duration."""
    fight(cli)
    cli.ok("attack", "Ann", "Bob", "--maneuver", "defensive", *HIT)
    assert row(cli, "Ann")["left"] == {"defensive attack": "until start of Ann"}
    cli.ok("encounter", "next")
    assert "Ann's defensive attack ends (until the start of Ann's turn)" in cli.ok("encounter", "next").stdout


def test_a_feint_lasts_to_the_end_of_the_feinters_next_turn_unless_the_attack_spends_it(cli: Cli) -> None:
    """gameplay.txt, Maneuvers, Feint ("the target is vulnerable against your next attack or until the end of your
    next turn"): `feint (Bob) until end of Ann`; unused it ends with Ann's next turn, saying why; spent by Ann's
    attack, its duration goes with it."""
    fight(cli)
    feint = ("act", "Ann", "feint", "--against", "Bob", "--roll", "check=+,+,+", "--roll", "against=-,-,-")
    cli.ok(*feint)
    assert row(cli, "Ann")["left"] == {"feint (Bob)": "until end of Ann"}
    cli.ok("encounter", "next")
    cli.ok("encounter", "next")  # Ann's next turn: the feint holds
    assert ann(cli)["counters"]["feint:Bob"] == 1
    assert "Ann's feint (Bob) ends (until the end of Ann's turn)" in cli.ok("encounter", "next").stdout
    cli.ok("encounter", "next")
    cli.ok(*feint)  # Ann's turn again: feint; her next turn: attack
    cli.ok("encounter", "next")
    cli.ok("encounter", "next")
    assert "feint:Bob" in ann(cli)["counters"]
    r = cli.json("attack", "Ann", "Bob", *HIT)
    assert r["attacker"]["counters"] == {} and row(cli, "Ann")["left"] == {}
    assert "feint (Bob) ends" not in cli.ok("encounter", "next").stdout


def test_an_allys_aid_lasts_to_the_end_of_the_allys_next_turn_unless_used(cli: Cli) -> None:
    """gameplay.txt, Aid - Standard Action (the ally gets the bonus "for 1 round": to the end of the ally's next
    turn, docs/interpretations.md): Cy's `aid attack (Bob) until end of Cy` ends with Cy's turn unused, saying why;
    Cy's attack on Bob uses it up, its duration with it; undo of the turn that ended it restores it exactly."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--pc", "--trait", "fighting=5")
    cli.ok("character", "add", "Cy", "--pc", "--trait", "fighting=4")
    cli.ok("character", "add", "Bob", "--trait", "fighting=2", "--trait", "dodge=2", "--trait", "parry=2")
    cli.ok("encounter", "start", "Ann", "Cy", "Bob", "--init", "Ann=5", "--init", "Cy=4", "--init", "Bob=3")
    aid = (
        "attack",
        "Ann",
        "Bob",
        "--maneuver",
        "aid",
        "-o",
        "ally=Cy",
        "-o",
        "aid-for=attack",
        "--roll",
        "attack=0,0,0",
    )
    cli.ok(*aid)
    assert row(cli, "Cy")["left"] == {"aid attack (Bob)": "until end of Cy"}
    cli.ok("encounter", "next")  # Cy's turn
    before = states(cli) + [cli.json("character", "show", "Cy")]
    assert "Cy's aid attack (Bob) ends (until the end of Cy's turn)" in cli.ok("encounter", "next").stdout
    assert cli.json("character", "show", "Cy")["counters"] == {}  # type: ignore[index]
    cli.ok("undo")
    assert states(cli) + [cli.json("character", "show", "Cy")] == before
    r = cli.json("attack", "Cy", "Bob", *HIT)
    attack = next(e["data"] for e in r["events"] if e["type"] == "AttackResolved")
    assert attack["modifiers"]["aid"] == 1 and r["attacker"]["counters"] == {} and row(cli, "Cy")["left"] == {}


def test_a_heroic_feat_lasts_until_the_end_of_the_heroes_next_turn(cli: Cli) -> None:
    """the-basics.txt, Heroic Feat ("one rank of an advantage you don't already have until the end of your next
    turn"): spent on Ann's turn, `heroic feat (luck) until end of Ann` outlasts that turn and ends with the next,
    taking the advantage with it and saying why; undo restores it exactly."""
    fight(cli)
    cli.ok("spend", "Ann", "victory-points", "1", "--purpose", "heroic-feat:luck")
    assert row(cli, "Ann")["left"] == {"heroic feat (luck)": "until end of Ann"}
    cli.ok("encounter", "next")
    cli.ok("encounter", "next")  # Ann's next turn: she still has it
    assert ann(cli)["traits"]["luck"] == 1
    before = states(cli)
    ended = cli.ok("encounter", "next").stdout.splitlines()[0]
    assert "Ann's heroic feat (luck) ends (until the end of Ann's turn): luck removed;" in ended
    assert ended.count("heroic feat") == 1, ended  # what ended is said once, with what it took along
    assert "luck" not in ann(cli)["traits"] and ann(cli)["counters"] == {}
    cli.ok("undo")
    assert states(cli) == before


def test_extra_efforts_strength_lasts_until_the_next_turn_starts(cli: Cli) -> None:
    """the-basics.txt, Extra Effort, Strength ("Increase the hero's Strength rank by +1 for 1 round") and Cost Of
    Extra Effort (fatigued at the start of the next turn): `extra strength until start of Ann`; as Ann's next turn
    starts she is fatigued (the rules' own cost) and the +1 ends, saying why; undo restores it exactly."""
    fight(cli)
    cli.ok("act", "Ann", "extra-effort", "-o", "benefit=strength")
    assert row(cli, "Ann")["left"] == {"extra strength": "until start of Ann"} and ann(cli)["traits"]["strength"] == 4
    cli.ok("encounter", "next")
    before = states(cli)
    out = cli.ok("encounter", "next").stdout
    assert "Ann's extra strength ends (until the start of Ann's turn): strength 3" in out and "now fatigued" in out
    assert ann(cli)["traits"]["strength"] == 3 and ann(cli)["counters"] == {}
    cli.ok("undo")
    assert states(cli) == before


def test_a_timed_condition_that_progressed_its_row_moves_it_back_when_it_runs_out(cli: Cli) -> None:
    """conditions.txt, Progressive Conditions ("If a character already has one of the following conditions and is
    inflicted with any condition on the same row add the degrees together"); gameplay.txt, Ending Your Turn ("End
    effects that last ..."): the GM's `stunned --rounds 1` on a dazed Ann makes her incapacitated, the stunned lasting
    one round of hers; when it runs out the row goes back by stunned's degree (docs/interpretations.md, Durations):
    Ann is dazed again, not incapacitated for good, and no duration is left; undo gives the incapacitated back."""
    fight(cli)
    cli.ok("encounter", "next")  # Bob's turn: Ann's next turn is the one that counts
    cli.ok("condition", "add", "Ann", "dazed")
    said = cli.ok("condition", "add", "Ann", "stunned", "--rounds", "1").stdout
    assert "make incapacitated" in said and "stunned for 1 round" in said, said
    assert "incapacitated" in ann(cli)["conditions"] and row(cli, "Ann")["left"] == {"stunned": "1"}
    cli.ok("encounter", "next")  # Ann's turn: incapacitated, nothing to do: passed over, and the round runs out
    ran_out = ann(cli)
    assert "dazed" in ran_out["conditions"] and "incapacitated" not in ran_out["conditions"], ran_out
    assert not [k for k in ran_out["counters"] if "stunned" in k], ran_out["counters"]
    assert "no longer incapacitated (1 round ran out), now dazed" in cli.ok("log").stdout
    cli.ok("undo")
    assert "incapacitated" in ann(cli)["conditions"] and row(cli, "Ann")["left"] == {"stunned": "1"}
    cli.ok("verify")


def test_removing_what_a_timed_condition_progressed_into_ends_its_duration(cli: Cli) -> None:
    """Progressive Conditions with the GM's removal: the incapacitated that Ann's dazed and a timed stunned made,
    removed by hand, takes the stunned's duration with it (RuleSystem.let_go: a condition's end takes what counts
    it, however it ends); nothing is left counting a condition she no longer has."""
    fight(cli)
    cli.ok("condition", "add", "Ann", "dazed")
    cli.ok("condition", "add", "Ann", "stunned", "--rounds", "2")
    cli.ok("condition", "remove", "Ann", "incapacitated")
    now = ann(cli)
    assert "incapacitated" not in now["conditions"] and not [k for k in now["counters"] if "stunned" in k], now
    assert "left" not in row(cli, "Ann") or not row(cli, "Ann")["left"], row(cli, "Ann")


def test_a_progressed_timed_condition_recorded_by_version_5_is_decided_again_as_it_was(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rulings carry the rules' version they were decided by (docs/interpretations.md, Fourth pass; RuleSystem.at):
    the same play recorded by the previous release (tracker 5) left Ann incapacitated when the stunned ran out, and a
    retraction that decides those turns again (Bob's damage retracted: every turn reads Bob) keeps that."""
    from ledger.app import core

    monkeypatch.setattr(core, "TRACKER", 5)
    fight(cli)
    cli.ok("damage", "Bob", "--amount", "1")  # ruling 5
    cli.ok("encounter", "next")
    cli.ok("condition", "add", "Ann", "dazed")
    cli.ok("condition", "add", "Ann", "stunned", "--rounds", "1")
    cli.ok("encounter", "next")
    assert "incapacitated" in ann(cli)["conditions"]
    monkeypatch.undo()  # today's release decides the retraction
    plan = cli.json("retract", "5", "--yes")
    assert "incapacitated" in ann(cli)["conditions"], plan
    cli.ok("verify")
