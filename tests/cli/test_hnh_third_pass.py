"""Humans & Heroes, third pass: wrong rulings fixed, each through the real CLI, citing its passage."""

from __future__ import annotations

import pytest

from tests.cli.hnh_helpers import event, show, undo_and_retract_restore
from tests.conftest import Cli, Recorded

EVEN = ("--roll", "attack=0,0,0", "--roll", "defense=0,0,0")


def _record_hnh(cli: Cli) -> None:
    """Ann (Fighting 5, Strength 3), Bob (a thug), Cy (a hero), Doc (Treatment 4)."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--pc", "--trait", "strength=3", "--trait", "fighting=5", "--trait", "agility=2")
    cli.ok("character", "add", "Bob", "--trait", "strength=1", "--trait", "fighting=2", "--trait", "agility=1")
    cli.ok("character", "add", "Cy", "--pc", "--trait", "stamina=1", "--trait", "fighting=3")
    cli.ok("character", "add", "Doc", "--trait", "treatment=4", "--trait", "intellect=2")


@pytest.fixture
def hnh(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_hnh records, recorded once and copied for this test."""
    return recorded(cli, _record_hnh)


def conditions(cli: Cli, name: str) -> set[str]:
    """The imposed conditions on a sheet."""
    return set(show(cli, name)["conditions"])


def total_of(r: object) -> int:
    """The attack check's total of a maneuver's ruling."""
    return int(event(r, "EffectResolved")["attack"]["total"])


# -- prone in grab, trip, disarm, smash --------------------------------------------------------------------
@pytest.mark.parametrize("action,plain", [("grab", 5), ("trip", 4), ("disarm", 3), ("smash", 4)])
def test_a_prone_attacker_is_at_minus_1_on_close_maneuvers(hnh: Cli, action: str, plain: int) -> None:
    """conditions.txt, Prone: "-1 circumstance penalty to close attacks" by the prone character, maneuvers included."""
    assert total_of(hnh.json("act", "Ann", action, "--against", "Bob", *EVEN)) == plain
    hnh.ok("undo")
    hnh.ok("condition", "add", "Ann", "prone")
    assert total_of(hnh.json("act", "Ann", action, "--against", "Bob", *EVEN)) == plain - 1


def test_a_grab_against_a_prone_target_gets_plus_1(hnh: Cli) -> None:
    """conditions.txt, Prone: "Opponents get +1 on close attacks against you" -- a grab is a close attack."""
    hnh.ok("condition", "add", "Bob", "prone")
    assert total_of(hnh.json("act", "Ann", "grab", "--against", "Bob", *EVEN)) == 6


# -- Treatment ----------------------------------------------------------------------------------------------
def _dying(cli: Cli, name: str = "Cy") -> None:
    cli.ok("damage", name, "--amount", "7")
    assert "dying" in conditions(cli, name)


def test_a_treatment_bonus_alone_rolls_the_check_and_stabilizes(hnh: Cli) -> None:
    """gameplay.txt, Recovery ("a skill DC 5 Medical Treatment ... check") and conditions.txt, Dying: a
    successful Treatment check stabilizes; the typed treatment dice are used without --treated."""
    _dying(hnh)
    r = hnh.json("recover", "Cy", "--hours", "0", "-o", "treatment-bonus=3", "--roll", "treatment=+,+,0")
    assert event(r, "CheckResolved")["success"] is True
    assert "stabilized" in conditions(hnh, "Cy") and "dying" not in conditions(hnh, "Cy")


def test_a_treatment_bonus_doubles_recovery_when_it_succeeds(hnh: Cli) -> None:
    """gameplay.txt, Recovery: Treatment "doubles recovery rate": 8 hours give 2 HP, not 1."""
    hnh.ok("damage", "Ann", "--amount", "3")
    hnh.ok("recover", "Ann", "--hours", "8", "-o", "treatment-bonus=3", "--roll", "treatment=+,+,0")
    assert show(hnh, "Ann")["hp"] == 5


def test_a_failed_treatment_check_does_not_double(hnh: Cli) -> None:
    """gameplay.txt, Recovery: the doubling needs the DC 5 check to succeed."""
    hnh.ok("damage", "Ann", "--amount", "3")
    hnh.ok("recover", "Ann", "--hours", "8", "-o", "treatment-bonus=3", "--roll", "treatment=-,-,0")
    assert show(hnh, "Ann")["hp"] == 4


def test_a_treatment_check_with_a_patient_stabilizes_the_dying(hnh: Cli) -> None:
    """conditions.txt, Dying: "Another character can stabilize a dying character with a successful Treatment check
    (DC 5)": `check Doc treatment --dc 5 -o patient=Cy`."""
    _dying(hnh)
    undo_and_retract_restore(
        hnh, ("Cy", "Doc"), "check", "Doc", "treatment", "--dc", "5", "-o", "patient=Cy", "--roll", "check=+,0,0"
    )
    hnh.ok("check", "Doc", "treatment", "--dc", "5", "-o", "patient=Cy", "--roll", "check=+,0,0")
    assert "stabilized" in conditions(hnh, "Cy")


def test_a_failed_treatment_check_leaves_the_patient_dying(hnh: Cli) -> None:
    """conditions.txt, Dying: only a successful check stabilizes."""
    _dying(hnh)
    hnh.ok("check", "Doc", "treatment", "--dc", "5", "-o", "patient=Cy", "--roll", "check=-,0,0")
    assert "dying" in conditions(hnh, "Cy")


def test_a_patient_who_is_not_dying_is_refused(hnh: Cli) -> None:
    """conditions.txt, Dying: Treatment's DC 5 stabilizes the dying; a healthy patient is bad input, nothing
    appended."""
    r = hnh("check", "Doc", "treatment", "--dc", "5", "-o", "patient=Cy", "--roll", "check=+,0,0")
    assert r.exit_code == 2 and "not dying" in r.stderr


# -- victory point Recover ends the affliction -----------------------------------------------------------
def test_recovering_with_a_victory_point_ends_the_affliction_behind_it(hnh: Cli) -> None:
    """the-basics.txt, Recover ("recover from a dazed ... condition"): the affliction that imposed it stops running:
    no end-of-turn check, no progression to stunned."""
    hnh.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=9", "--init", "Bob=1")
    hnh.ok(
        "act",
        "Bob",
        "affliction",
        "--against",
        "Ann",
        "-o",
        "rank=1",
        "-o",
        "conditions=dazed,stunned,incapacitated",
        "-o",
        "progressive=yes",
        "--roll",
        "power=0,0,0",
        "--roll",
        "toughness=-,0,0",
    )
    assert "dazed" in conditions(hnh, "Ann")
    undo_and_retract_restore(hnh, ("Ann",), "spend", "Ann", "victory-points", "--purpose", "recover:dazed")
    hnh.ok("spend", "Ann", "victory-points", "--purpose", "recover:dazed")
    assert not [k for k in show(hnh, "Ann")["counters"] if k.startswith("affliction:")]
    hnh.ok("encounter", "next", "--roll", "ongoing-affliction=-,-,-")
    hnh.ok("encounter", "next")
    assert not conditions(hnh, "Ann") & {"dazed", "stunned"}


# -- unarmed without strength ------------------------------------------------------------------------------
def test_an_unarmed_attack_by_a_sheet_without_strength_is_rank_0(hnh: Cli) -> None:
    """gameplay.txt, Strength And Damage (unarmed damage is Strength) with docs/interpretations.md: an absent
    ability is 0 -- the attack, an aid and an aimed punch are all allowed."""
    r = hnh.json("attack", "Doc", "Bob", "--roll", "attack=+,+,+", "--roll", "defense=-,-,-")
    assert event(r, "AttackResolved")["rank"] == 0
    hnh.ok("attack", "Doc", "Bob", "--maneuver", "aid", "-o", "ally=Ann", "--roll", "attack=0,0,0")


# -- a hold ends with the held character's death ------------------------------------------------------------
def test_a_grab_ends_when_the_held_character_dies(hnh: Cli) -> None:
    """gameplay.txt, Grab ("hindered and vulnerable while grabbing and holding an opponent") and conditions.txt,
    Dead: a dead body is no opponent -- the grabber's hold and its conditions end."""
    hnh.ok("act", "Ann", "grab", "--against", "Bob", *EVEN, "--roll", "strength=+,+,0", "--roll", "against=-,-,0")
    assert {"hindered", "vulnerable"} <= conditions(hnh, "Ann")
    undo_and_retract_restore(hnh, ("Ann", "Bob"), "damage", "Bob", "--amount", "9")
    hnh.ok("damage", "Bob", "--amount", "9")
    assert not conditions(hnh, "Ann") & {"hindered", "vulnerable"}
    assert "grabbing:Bob" not in show(hnh, "Ann")["counters"]


def test_a_hold_ends_when_the_grabber_dies(hnh: Cli) -> None:
    """gameplay.txt, Grab and conditions.txt, Dead: the held character is free of restrained when the holder dies."""
    hnh.ok("act", "Ann", "grab", "--against", "Bob", *EVEN, "--roll", "strength=+,+,0", "--roll", "against=-,-,0")
    assert conditions(hnh, "Bob") & {"restrained", "bound"}
    hnh.ok("damage", "Ann", "--amount", "9")
    assert not conditions(hnh, "Bob") & {"restrained", "bound"}


# -- until the end of the next turn --------------------------------------------------------------------------
def test_until_end_set_during_the_own_turn_lasts_through_the_next_turn(hnh: Cli) -> None:
    """gameplay.txt, Taking Your Turn, with `act NAME until`'s help ("until the end of your next turn"): set during
    Ann's own turn, it outlasts that turn's end and ends at the end of her next one."""
    hnh.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=9", "--init", "Bob=1")
    hnh.ok("act", "Ann", "until", "-o", "condition=hindered", "-o", "until=end")
    hnh.ok("encounter", "next")  # Ann's turn ends: not yet
    assert "hindered" in conditions(hnh, "Ann")
    hnh.ok("encounter", "next")  # Bob's ends; Ann's next turn starts
    assert "hindered" in conditions(hnh, "Ann")
    hnh.ok("encounter", "next")  # Ann's next turn ends
    assert "hindered" not in conditions(hnh, "Ann")


# -- the action budget -----------------------------------------------------------------------------------
def _fight(cli: Cli) -> None:
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=9", "--init", "Bob=1")


MISS = ("--roll", "attack=-,-,-")


def test_a_second_standard_action_in_a_turn_is_refused(hnh: Cli) -> None:
    """gameplay.txt, Standard Action: "you can only use 1 standard action during your turn": the second attack is
    refused (exit 2, nothing appended)."""
    from tests.conftest import event_count

    _fight(hnh)
    hnh.ok("attack", "Ann", "Bob", *MISS)
    before = event_count(hnh.db)
    r = hnh("attack", "Ann", "Bob", *MISS)
    assert r.exit_code == 2 and "standard action" in r.stderr and "per turn" in r.stderr
    assert event_count(hnh.db) == before
    hnh.ok("encounter", "next")
    hnh.ok("encounter", "next")  # Ann's next turn: a new budget
    hnh.ok("attack", "Ann", "Bob", *MISS)


def test_a_standard_action_traded_for_a_move_leaves_no_standard(hnh: Cli) -> None:
    """gameplay.txt, Number Of Actions: a standard and a move a turn, the standard tradeable for a move: two move
    actions (escapes) use the turn, and a standard after them is refused."""
    _fight(hnh)
    hit = ("--roll", "attack=+,+,+", "--roll", "defense=-,-,-", "--roll", "strength=+,+,+", "--roll", "against=-,-,-")
    hnh.ok("act", "Bob", "grab", "--against", "Ann", *hit)
    for _ in range(2):
        hnh.ok("act", "Ann", "escape", "--against", "Bob", "--roll", "check=-,-,-")
    r = hnh("attack", "Ann", "Bob", *MISS)
    assert r.exit_code == 2


def test_extra_effort_action_gives_one_more_standard_action(hnh: Cli) -> None:
    """the-basics.txt, Using Extra Effort, Action: "Gain an additional standard action during your turn"."""
    _fight(hnh)
    hnh.ok("attack", "Ann", "Bob", *MISS)
    hnh.ok("act", "Ann", "extra-effort", "-o", "benefit=action")
    hnh.ok("attack", "Ann", "Bob", *MISS)
    assert hnh("attack", "Ann", "Bob", *MISS).exit_code == 2


@pytest.mark.parametrize("mode", ["warn", "off"])
def test_action_economy_warn_records_the_second_attack_with_a_warning(cli: Cli, mode: str) -> None:
    """gameplay.txt, Standard Action, with `init -o action-economy=warn`: recorded, with a warning; `off`: no count."""
    cli.ok("init", "--system", "hnh", "-o", f"action-economy={mode}")
    cli.ok("character", "add", "Ann", "--trait", "fighting=5")
    cli.ok("character", "add", "Bob")
    _fight(cli)
    cli.ok("attack", "Ann", "Bob", *MISS)
    r = cli.json("attack", "Ann", "Bob", *MISS)
    assert ("warning" in r) == (mode == "warn")  # type: ignore[operator]


def test_the_tracker_says_what_each_one_has_done_this_round(hnh: Cli) -> None:
    """gameplay.txt, Number Of Actions ("You get a standard and a move action each turn"): `encounter show` notes on
    Ann's row what her turn has used (acted: standard), and --json keeps the tally (`spent`); an escape adds the move;
    the note lasts the round and is gone in the next."""

    def ann() -> tuple[str, dict[str, object]]:
        line = next(x for x in hnh.ok("encounter", "show").stdout.splitlines() if x[4:].startswith("Ann "))
        row = next(e for e in hnh.json("encounter", "show")["order"] if e["name"] == "Ann")  # type: ignore[index]
        return line, row

    _fight(hnh)
    line, row = ann()
    assert "acted" not in line and "spent" not in row
    hnh.ok("attack", "Ann", "Bob", *MISS)
    line, row = ann()
    assert line.endswith("acted: standard") and row["spent"]["standard"] == 1, (line, row)  # type: ignore[index]
    hit = ("--roll", "attack=+,+,+", "--roll", "defense=-,-,-", "--roll", "strength=+,+,+", "--roll", "against=-,-,-")
    hnh.ok("act", "Bob", "grab", "--against", "Ann", *hit)  # out of Bob's turn: his budget is untouched
    hnh.ok("act", "Ann", "escape", "--against", "Bob", "--roll", "check=-,-,-")
    assert ann()[0].endswith("acted: standard, move")
    hnh.ok("encounter", "next")
    hnh.ok("encounter", "next")  # round 2, Ann's turn again
    line, row = ann()
    assert "acted" not in line and "spent" not in row, (line, row)


def test_an_attack_out_of_turn_is_not_counted(hnh: Cli) -> None:
    """gameplay.txt, Reaction ("reactions happen on anyone's turn"): Bob attacking during Ann's turn takes nothing
    from Bob's own budget."""
    _fight(hnh)
    hnh.ok("attack", "Bob", "Ann", *MISS)
    hnh.ok("encounter", "next")
    hnh.ok("attack", "Bob", "Ann", *MISS)


def test_undo_and_retract_restore_the_action_count(hnh: Cli) -> None:
    """gameplay.txt, Standard Action: the count is state like any other -- undone or retracted, the attack is
    available again; `--json encounter show` and the sheets come back exactly."""
    _fight(hnh)
    before = [hnh.json("encounter", "show"), show(hnh, "Ann"), show(hnh, "Bob")]
    n = hnh.json("attack", "Ann", "Bob", *MISS)["ruling"]  # type: ignore[index]
    hnh.ok("undo")
    assert [hnh.json("encounter", "show"), show(hnh, "Ann"), show(hnh, "Bob")] == before
    hnh.ok("redo")
    hnh.ok("retract", str(n), "--yes")
    assert [hnh.json("encounter", "show"), show(hnh, "Ann"), show(hnh, "Bob")] == before
    hnh.ok("attack", "Ann", "Bob", *MISS)


# -- aim at a target -------------------------------------------------------------------------------------
def test_aim_against_a_target_gives_the_bonus_against_it(hnh: Cli) -> None:
    """gameplay.txt, Aim - Standard Action: "a bonus to hit when you make the attack against that target" (+2 close)."""
    undo_and_retract_restore(hnh, ("Ann",), "act", "Ann", "aim", "--against", "Bob")
    hnh.ok("act", "Ann", "aim", "--against", "Bob")
    r = hnh.json("attack", "Ann", "Bob", *EVEN)
    assert event(r, "AttackResolved")["modifiers"].get("aim") == 2


def test_attacking_a_different_target_spoils_the_aim(hnh: Cli) -> None:
    """gameplay.txt, Aim: "attacking a different target spoils your aim and you lose the bonus"."""
    hnh.ok("act", "Ann", "aim", "--against", "Bob")
    r = hnh.json("attack", "Ann", "Cy", *EVEN)
    assert "aim" not in event(r, "AttackResolved")["modifiers"]
    assert "aim" not in show(hnh, "Ann")["counters"] and "vulnerable" not in conditions(hnh, "Ann")
    r = hnh.json("attack", "Ann", "Bob", *EVEN)
    assert "aim" not in event(r, "AttackResolved")["modifiers"]


def test_aim_without_a_target_binds_to_the_next_attack(hnh: Cli) -> None:
    """gameplay.txt, Aim: with no target named, the next attack is the aimed one, whoever it is at."""
    hnh.ok("act", "Ann", "aim")
    r = hnh.json("attack", "Ann", "Cy", *EVEN)
    assert event(r, "AttackResolved")["modifiers"].get("aim") == 2


def test_an_until_end_condition_undone_and_retracted_restores_the_sheet(hnh: Cli) -> None:
    """gameplay.txt, Taking Your Turn: the lasting condition's ruling, undone, redone and retracted, gives back
    `--json character show` exactly."""
    hnh.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=9", "--init", "Bob=1")
    undo_and_retract_restore(hnh, ("Ann",), "act", "Ann", "until", "-o", "condition=hindered", "-o", "until=end")
