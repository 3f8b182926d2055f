"""Humans & Heroes victory points and the Defend action (hnh-site/the-basics.txt: Improve Roll, Heroic Feat, Recover;
gameplay.txt: Defend - Standard Action) through the real CLI."""

from __future__ import annotations

import pytest

from tests.cli.hnh_helpers import event, show, undo_and_retract_restore
from tests.conftest import Cli, Recorded, event_count


def vp(cli: Cli, name: str) -> int:
    """A character's victory points."""
    return int(show(cli, name)["resources"]["victory-points"])


def _record_hnh(cli: Cli) -> None:
    """An hnh campaign with a hero (Ann) and a villain (Bob)."""
    cli.ok("init", "--system", "hnh")
    cli.ok(
        "character",
        "add",
        "Ann",
        "--pc",
        "--trait",
        "agility=2",
        "--trait",
        "fighting=4",
        "--trait",
        "stamina=2",
        "--trait",
        "awareness=2",
    )
    cli.ok("character", "add", "Bob", "--trait", "fighting=5", "--trait", "strength=3", "--trait", "toughness=3")


@pytest.fixture
def hnh(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_hnh records, recorded once and copied for this test."""
    return recorded(cli, _record_hnh)


# -- a new in-game day -------------------------------------------------------------------------------
def test_a_new_day_gives_heroes_two_victory_points_and_the_unspent_do_not_carry_over(hnh: Cli) -> None:
    """the-basics.txt, Victory Points: "Players start each in game day with 2 Victory points"; "Unspent ... don't carry
    over"."""
    hnh.ok("gain", "Ann", "victory-points", "3")
    hnh.ok("session", "start", "Day one")
    assert vp(hnh, "Ann") == 5  # a session that is not a new day changes nothing
    hnh.ok("session", "end")
    hnh.ok("session", "start", "Day two", "--new-day")
    assert vp(hnh, "Ann") == 2
    hnh.ok("spend", "Ann", "victory-points", "2")
    hnh.ok("session", "end")
    r = hnh.json("session", "start", "Day three", "--new-day")
    assert event(r, "ResourceChanged") == {
        "resource": "victory-points",
        "delta": 2,
        "value": 2,
        "reason": "a new in-game day",
    }
    assert "victory-points" not in show(hnh, "Bob")["resources"]  # villains have none


def test_a_new_day_is_refused_where_the_system_has_no_victory_points(cli: Cli, db: str) -> None:
    """CLI.md, second round: `session start --new-day` is hnh's."""
    cli.ok("init", "--system", "d20")
    before = event_count(db)
    r = cli("session", "start", "--new-day")
    assert r.exit_code == 2 and "new in-game day" in r.stderr and event_count(db) == before


def test_a_new_day_undone_and_retracted_restores_the_sheet(hnh: Cli) -> None:
    """DESIGN.md, The ruling: undo and retraction restore the exact earlier state."""
    hnh.ok("spend", "Ann", "victory-points", "1")
    undo_and_retract_restore(hnh, ("Ann",), "session", "start", "--new-day")


# -- spending ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("has", "purpose", "left"),
    [
        (("dazed",), "recover:dazed", set()),
        (("fatigued",), "recover", set()),
        (("stunned",), "recover:stunned", set()),
        (("staggered",), "recover:dazed", {"hindered"}),
        (("fatigued", "fatigued", "fatigued"), "recover:asleep", {"exhausted"}),
        (("fatigued", "fatigued"), "recover:exhausted", {"fatigued"}),
    ],
)
def test_a_victory_point_recovers_from_dazed_fatigued_or_stunned(
    hnh: Cli, has: tuple[str, ...], purpose: str, left: set[str]
) -> None:
    """the-basics.txt, Recover: "immediately remove a dazed, fatigued, or stunned condition ... convert the asleep
    condition into exhausted and exhausted into a fatigued condition"."""
    for c in has:
        hnh.ok("condition", "add", "Ann", c)
    r = hnh.json("spend", "Ann", "victory-points", "1", "--purpose", purpose)
    assert set(r["character"]["conditions"]) == left and r["character"]["resources"]["victory-points"] == 1


def test_recover_is_refused_for_a_condition_the_hero_does_not_have(hnh: Cli, db: str) -> None:
    """the-basics.txt, Recover: only dazed, fatigued, stunned (asleep, exhausted convert)."""
    hnh.ok("condition", "add", "Ann", "prone")
    before = event_count(db)
    assert hnh("spend", "Ann", "victory-points", "1", "--purpose", "recover:dazed").exit_code == 2
    assert hnh("spend", "Ann", "victory-points", "1", "--purpose", "recover:prone").exit_code == 2
    assert hnh("spend", "Ann", "victory-points", "1", "--purpose", "fly").exit_code == 2
    assert event_count(db) == before


def test_a_recovery_undone_and_retracted_restores_the_sheet(hnh: Cli) -> None:
    """DESIGN.md, The ruling: undo and retraction restore the exact earlier state."""
    hnh.ok("condition", "add", "Ann", "staggered")
    undo_and_retract_restore(hnh, ("Ann",), "spend", "Ann", "victory-points", "1", "--purpose", "recover:dazed")


def test_a_heroic_feat_lasts_until_the_end_of_the_next_turn(hnh: Cli) -> None:
    """the-basics.txt, Heroic Feat: "one rank of an advantage you don't already have until the end of your next
    turn"."""
    hnh.ok("spend", "Ann", "victory-points", "1", "--purpose", "heroic-feat:improved-initiative")
    assert show(hnh, "Ann")["traits"]["improved-initiative"] == 1
    hnh.ok("encounter", "start", "Ann", "Bob", "--roll", "Ann=+,+,+", "--roll", "Bob=-,-,-")
    assert show(hnh, "Ann")["traits"]["improved-initiative"] == 1  # Ann's turn: her next turn after the spend
    hnh.ok("encounter", "next")  # Ann's turn ends
    assert "improved-initiative" not in show(hnh, "Ann")["traits"]


def test_a_heroic_feat_for_an_advantage_the_hero_has_is_refused(hnh: Cli, db: str) -> None:
    """the-basics.txt, Heroic Feat: "an advantage you don't already have"."""
    hnh.ok("character", "add", "Cy", "--pc", "--trait", "improved-initiative=1")
    before = event_count(db)
    assert hnh("spend", "Cy", "victory-points", "1", "--purpose", "heroic-feat:improved-initiative").exit_code == 2
    assert event_count(db) == before


def test_a_heroic_feat_undone_and_retracted_restores_the_sheet(hnh: Cli) -> None:
    """DESIGN.md, The ruling: undo and retraction restore the exact earlier state."""
    undo_and_retract_restore(hnh, ("Ann",), "spend", "Ann", "victory-points", "1", "--purpose", "heroic-feat:diehard")


@pytest.mark.parametrize("use", ["instant-counter", "edit-scene", "inspiration", "negate-complication"])
def test_the_other_uses_are_recorded_as_the_rulings_effect(hnh: Cli, use: str) -> None:
    """the-basics.txt, Using Victory Points: Instant Counter, Edit Scene, Inspiration, Negate Complication."""
    r = hnh.json("spend", "Ann", "victory-points", "1", "--purpose", use)
    assert event(r, "EffectResolved")["victory_point"] == use and event(r, "ResourceChanged")["purpose"] == use


@pytest.mark.parametrize("use", ["instant-counter", "negate-complication"])
def test_a_noted_use_undone_and_retracted_restores_the_sheet(hnh: Cli, use: str) -> None:
    """DESIGN.md, The ruling: undo and retraction restore the exact earlier state."""
    undo_and_retract_restore(hnh, ("Ann",), "spend", "Ann", "victory-points", "1", "--purpose", use)


# -- improve roll ------------------------------------------------------------------------------------------
def test_an_improved_roll_keeps_the_better_of_two(hnh: Cli) -> None:
    """the-basics.txt, Improve Roll: "re-roll any dice roll you make and take the better of the two rolls"."""
    r = hnh.json(
        "check",
        "Ann",
        "awareness",
        "--dc",
        "4",
        "-o",
        "improve=check",
        "--roll",
        "check=-,-,0",
        "--roll",
        "check-reroll=+,+,0",
    )
    check = event(r, "CheckResolved")
    assert check["faces"] == [1, 1, 0] and check["success"] is True
    assert event(r, "EffectResolved")["kept"] == "reroll" and r["character"]["resources"]["victory-points"] == 1


def test_a_worse_reroll_keeps_the_first(hnh: Cli) -> None:
    """the-basics.txt, Improve Roll: "take the better of the two rolls"."""
    r = hnh.json(
        "check",
        "Ann",
        "awareness",
        "--dc",
        "0",
        "-o",
        "improve=check",
        "--roll",
        "check=0,0,0",
        "--roll",
        "check-reroll=-,-,-",
    )
    assert event(r, "CheckResolved")["faces"] == [0, 0, 0] and event(r, "CheckResolved")["success"] is True


def test_the_target_improves_their_own_defense_roll(hnh: Cli) -> None:
    """the-basics.txt, Improve Roll: "You cannot spend Victory points on dice rolls made by the GM or other players"."""
    r = hnh.json(
        "attack",
        "Bob",
        "Ann",
        "-o",
        "improve=defense",
        "--roll",
        "attack=0,0,0",
        "--roll",
        "defense=-,0,0",
        "--roll",
        "defense-reroll=+,+,+",
    )
    assert event(r, "AttackResolved")["hit"] is False and r["target"]["resources"]["victory-points"] == 1


def test_improving_a_roll_of_someone_without_victory_points_is_refused(hnh: Cli, db: str) -> None:
    """the-basics.txt, Victory Points are the heroes' ("Players start each in game day with 2")."""
    before = event_count(db)
    r = hnh("attack", "Bob", "Ann", "-o", "improve=attack")
    assert r.exit_code == 2 and "no victory points" in r.stderr and event_count(db) == before


def test_spend_for_improve_roll_points_to_the_rolls_own_ruling(hnh: Cli) -> None:
    """the-basics.txt, Improve Roll: "spend ... before the GM announces the outcome of your initial roll"."""
    r = hnh("spend", "Ann", "victory-points", "1", "--purpose", "improve-roll")
    assert r.exit_code == 2 and "improve=" in r.stderr


def test_an_improved_roll_undone_and_retracted_restores_the_sheet(hnh: Cli) -> None:
    """DESIGN.md, The ruling: undo and retraction restore the exact earlier state."""
    undo_and_retract_restore(
        hnh,
        ("Ann", "Bob"),
        "attack",
        "Ann",
        "Bob",
        "--rank",
        "4",
        "-o",
        "improve=power",
        "--roll",
        "attack=+,0,0",
        "--roll",
        "defense=0,0,0",
        "--roll",
        "power=-,-,-",
        "--roll",
        "power-reroll=0,0,0",
        "--roll",
        "toughness=0,0,0",
    )


# -- defend ---------------------------------------------------------------------------------------------------
def test_defend_makes_the_defense_dice_count_at_least_one(hnh: Cli) -> None:
    """gameplay.txt, Defend: "If the dice sum is less than 1 (before adding defense ranks) then use 1 instead"."""
    hnh.ok("act", "Ann", "defend", "-o", "defense=parry")
    r = hnh.json("attack", "Bob", "Ann", "--roll", "attack=0,0,0", "--roll", "defense=-,-,-")
    attack = event(r, "AttackResolved")
    assert attack["defense_check"]["total"] == 5 and attack["defense_check"]["automatic_failure"] is False
    assert attack["hit"] is True  # 5 meets 5: "The attacker must equal or exceed your opposed check result"


def test_a_defender_cannot_attack_until_the_next_turn(hnh: Cli, db: str) -> None:
    """gameplay.txt, Defend: "You can't attack this turn if you use this action"."""
    hnh.ok("encounter", "start", "Ann", "Bob", "--roll", "Ann=+,+,+", "--roll", "Bob=-,-,-")
    hnh.ok("act", "Ann", "defend", "-o", "defense=dodge")
    before = event_count(db)
    assert hnh("attack", "Ann", "Bob", "--rank", "2").exit_code == 2 and event_count(db) == before
    hnh.ok("encounter", "next")
    hnh.ok("encounter", "next")  # Ann's next turn starts: the defense ends
    assert "defend:dodge" not in show(hnh, "Ann")["counters"]
    hnh.ok("attack", "Ann", "Bob", "--rank", "2")


def test_defend_undone_and_retracted_restores_the_sheet(hnh: Cli) -> None:
    """DESIGN.md, The ruling: undo and retraction restore the exact earlier state."""
    undo_and_retract_restore(hnh, ("Ann",), "act", "Ann", "defend", "-o", "defense=parry")
