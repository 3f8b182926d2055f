"""Humans & Heroes actions and maneuvers (hnh-site/gameplay.txt, Actions and Maneuvers sections) through `ledger act`,
citing their passages."""

from __future__ import annotations

import pytest

from tests.cli.hnh_helpers import event, show, undo_and_retract_restore
from tests.conftest import Cli, Recorded, event_count

EVEN = ("--roll", "attack=0,0,0", "--roll", "defense=0,0,0")


def _record_hnh(cli: Cli) -> None:
    """Ann (a strong hero), Bob (a thug), Cy (a helper)."""
    cli.ok("init", "--system", "hnh")
    cli.ok(
        "character",
        "add",
        "Ann",
        "--pc",
        "--trait",
        "strength=3",
        "--trait",
        "fighting=5",
        "--trait",
        "agility=2",
        "--trait",
        "deception=6",
        "--trait",
        "intimidation=6",
        "--trait",
        "seize-initiative=1",
        "--trait",
        "stamina=2",
    )
    cli.ok(
        "character",
        "add",
        "Bob",
        "--trait",
        "strength=1",
        "--trait",
        "fighting=2",
        "--trait",
        "agility=1",
        "--trait",
        "stamina=2",
        "--trait",
        "insight=1",
        "--trait",
        "presence=0",
    )
    cli.ok("character", "add", "Cy", "--trait", "fighting=4")


@pytest.fixture
def hnh(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_hnh records, recorded once and copied for this test."""
    return recorded(cli, _record_hnh)


def conditions(cli: Cli, name: str) -> set[str]:
    """The imposed conditions on a sheet."""
    return set(show(cli, name)["conditions"])


# -- Grab, Escape ------------------------------------------------------------------------------------------
def test_a_grab_won_by_one_degree_restrains_and_the_holder_is_hindered_and_vulnerable(hnh: Cli) -> None:
    """gameplay.txt, Grab: "If you win by 1, the target is restrained"; "You are hindered and vulnerable while
    grabbing"."""
    hnh.ok("act", "Ann", "grab", "--against", "Bob", *EVEN, "--roll", "strength=0,0,0", "--roll", "against=0,0,0")
    assert conditions(hnh, "Bob") == {"restrained"}
    assert conditions(hnh, "Ann") == {"hindered", "vulnerable"}


def test_improving_a_hold_binds_without_an_attack_check(hnh: Cli) -> None:
    """gameplay.txt, Grab: "improve an existing hold ... does not use an attack check ... If you win the target becomes
    bound"."""
    hnh.ok("act", "Ann", "grab", "--against", "Bob", *EVEN, "--roll", "strength=0,0,0", "--roll", "against=0,0,0")
    r = hnh.json("act", "Ann", "grab", "--against", "Bob", "--roll", "strength=0,0,0", "--roll", "against=0,0,0")
    assert "attack" not in event(r, "EffectResolved") and set(r["against"]["conditions"]) == {"bound"}


def test_a_grab_won_by_two_degrees_binds(hnh: Cli) -> None:
    """gameplay.txt, Grab: "If you win by 2 or more your opponent becomes bound"."""
    r = hnh.json(
        "act",
        "Ann",
        "grab",
        "--against",
        "Bob",
        "-o",
        "rank=8",
        *EVEN,
        "--roll",
        "strength=0,0,0",
        "--roll",
        "against=0,0,0",
    )
    assert set(r["against"]["conditions"]) == {"bound"}


def test_escaping_a_grab_ends_it_on_both_sides(hnh: Cli) -> None:
    """gameplay.txt, Escape: "a skill check ... against the routine check of your opponent's Strength ... you end the
    grab"."""
    hnh.ok("act", "Ann", "grab", "--against", "Bob", *EVEN, "--roll", "strength=0,0,0", "--roll", "against=0,0,0")
    r = hnh.json("act", "Bob", "escape", "--against", "Ann", "--roll", "check=+,0,0")  # Strength 1 + 1 < 3: fails
    assert event(r, "CheckResolved")["success"] is False and conditions(hnh, "Bob") == {"restrained"}
    r = hnh.json("act", "Bob", "escape", "--against", "Ann", "--roll", "check=+,+,+")  # 1 + 3 + 1 >= 3
    assert event(r, "CheckResolved")["success"] is True
    assert conditions(hnh, "Bob") == set() and conditions(hnh, "Ann") == set()


def test_escaping_a_hold_that_does_not_exist_is_refused(hnh: Cli, db: str) -> None:
    """gameplay.txt, Escape: "You attempt to escape from a successful grab"."""
    before = event_count(db)
    assert hnh("act", "Bob", "escape", "--against", "Ann").exit_code == 2 and event_count(db) == before


# -- Trip, Disarm, Smash ---------------------------------------------------------------------------------------
def test_a_trip_that_wins_leaves_the_defender_prone(hnh: Cli) -> None:
    """gameplay.txt, Trip: "a close attack check with a -1 ... an opposed check of your damage against ... Acrobatics
    ... prone"."""
    r = hnh.json("act", "Ann", "trip", "--against", "Bob", *EVEN, "--roll", "power=0,0,0", "--roll", "against=0,0,0")
    data = event(r, "EffectResolved")
    assert data["modifier"] == -1 and data["resisted_with"] == "agility" and "prone" in r["against"]["conditions"]


def test_a_disarm_of_a_held_item_is_at_minus_two_and_against_strength(hnh: Cli) -> None:
    """gameplay.txt, Disarm: "-2 penalty if hand held ... your attack's damage against the defender's Strength"."""
    r = hnh.json(
        "act",
        "Ann",
        "disarm",
        "--against",
        "Bob",
        "-o",
        "item=pistol",
        *EVEN,
        "--roll",
        "power=0,0,0",
        "--roll",
        "against=0,0,0",
    )
    data = event(r, "EffectResolved")
    assert data["modifier"] == -2 and data["against"]["bonus"] == 1 and data["dropped"] is True


@pytest.mark.parametrize(("state", "after"), [("intact", "bent"), ("bent", "broken")])
def test_a_smash_damages_the_object_by_degrees(hnh: Cli, state: str, after: str) -> None:
    """gameplay.txt, Smash; effect-damage.txt, Damaging Objects: one degree of failure bends, two break; cumulative."""
    r = hnh.json(
        "act",
        "Ann",
        "smash",
        "--against",
        "Bob",
        "-o",
        "object-toughness=1",
        "-o",
        f"object-state={state}",
        *EVEN,
        "--roll",
        "power=0,0,0",
        "--roll",
        "toughness=0,0,0",
    )
    assert event(r, "EffectResolved")["object_state"] == after


# -- Feint, Demoralize, Aim, Aid -----------------------------------------------------------------------------------
def test_a_feint_leaves_the_target_vulnerable_to_the_next_attack(hnh: Cli) -> None:
    """gameplay.txt, Feint: "the target is vulnerable against your next attack or until the end of your next turn"."""
    hnh.ok("act", "Ann", "feint", "--against", "Bob", "--roll", "check=0,0,0", "--roll", "against=0,0,0")
    assert show(hnh, "Ann")["counters"] == {"feint:Bob": 1}
    r = hnh.json(
        "attack",
        "Ann",
        "Bob",
        "--roll",
        "attack=0,0,0",
        "--roll",
        "defense=+,+,0",
        "--roll",
        "power=0,0,0",
        "--roll",
        "toughness=0,0,0",
    )
    assert event(r, "AttackResolved")["defense_check"]["total"] == 2  # Parry 2 + 2 = 4, halved
    assert r["attacker"]["counters"] == {}


def test_demoralize_impairs_until_the_end_of_the_targets_next_turn(hnh: Cli) -> None:
    """gameplay.txt, Demoralize: an Intimidation check "to undermine an opponent's confidence"."""
    hnh.ok("act", "Ann", "demoralize", "--against", "Bob", "--roll", "check=0,0,0", "--roll", "against=0,0,0")
    assert conditions(hnh, "Bob") == {"impaired"}
    hnh.ok("encounter", "start", "Bob", "--roll", "Bob=0,0,0")
    hnh.ok("encounter", "next")
    assert conditions(hnh, "Bob") == set()


def test_an_aimed_attack_gets_the_aim_bonus_and_ends_the_vulnerability(hnh: Cli) -> None:
    """gameplay.txt, Aim: "a close attack ... +2 circumstance bonus"; "You are vulnerable while aiming"."""
    hnh.ok("act", "Ann", "aim")
    assert conditions(hnh, "Ann") == {"vulnerable"}
    r = hnh.json("attack", "Ann", "Bob", *EVEN, "--roll", "power=0,0,0", "--roll", "toughness=0,0,0")
    assert event(r, "AttackResolved")["modifiers"]["aim"] == 2 and r["attacker"]["conditions"] == []


def test_aid_is_kept_for_the_allys_next_attack(hnh: Cli) -> None:
    """gameplay.txt, Aid: "success grants your ally ... a +1 circumstance bonus on an attack check against that
    opponent"."""
    hnh.ok(
        "attack",
        "Cy",
        "Bob",
        "--rank",
        "1",
        "--maneuver",
        "aid",
        "-o",
        "ally=Ann",
        "-o",
        "aid-for=attack",
        "--roll",
        "attack=0,0,0",
    )
    assert show(hnh, "Ann")["counters"] == {"aid-attack:Bob": 1}
    r = hnh.json("attack", "Ann", "Bob", *EVEN, "--roll", "power=0,0,0", "--roll", "toughness=0,0,0")
    assert event(r, "AttackResolved")["modifiers"]["aid"] == 1 and r["attacker"]["counters"] == {}


# -- Extra Effort, Seize Initiative, lasting effects, ongoing damage --------------------------------------------------
def test_extra_effort_fatigues_at_the_start_of_the_next_turn(hnh: Cli) -> None:
    """the-basics.txt, Cost Of Extra Effort: "At the start of the turn immediately after using extra effort, the hero
    becomes fatigued"."""
    hnh.ok("encounter", "start", "Ann", "Bob", "--roll", "Ann=+,+,+", "--roll", "Bob=-,-,-")
    hnh.ok("act", "Ann", "extra-effort", "-o", "benefit=strength")
    assert show(hnh, "Ann")["traits"]["strength"] == 4
    assert hnh("act", "Ann", "extra-effort", "-o", "benefit=bonus").exit_code == 2  # "limited to once per turn"
    hnh.ok("encounter", "next")
    assert "fatigued" not in conditions(hnh, "Ann")
    hnh.ok("encounter", "next")  # Ann's next turn starts
    ann = show(hnh, "Ann")
    assert "fatigued" in ann["conditions"] and ann["traits"]["strength"] == 3


def test_seize_initiative_goes_first(hnh: Cli) -> None:
    """gameplay.txt, Initiative: "The only other modifiers to initiative are using Seize Initiative and being
    Surprised"."""
    hnh.ok("act", "Ann", "seize-initiative")
    assert show(hnh, "Ann")["resources"]["victory-points"] == 1
    r = hnh.json("encounter", "start", "Ann", "Bob", "--roll", "Ann=-,-,-", "--roll", "Bob=+,+,+")
    assert r["current"] == "Ann" and "seize-initiative" not in show(hnh, "Ann")["counters"]


def test_seize_initiative_needs_the_advantage(hnh: Cli, db: str) -> None:
    """gameplay.txt, Initiative: Seize Initiative is something a character uses (the advantage)."""
    before = event_count(db)
    assert hnh("act", "Bob", "seize-initiative").exit_code == 2 and event_count(db) == before


@pytest.mark.parametrize(("until", "turns"), [("start", 1), ("end", 2)])
def test_a_condition_until_the_start_or_end_of_the_next_turn(hnh: Cli, until: str, turns: int) -> None:
    """gameplay.txt, Taking Your Turn: effects that last until the start or the end of your next turn."""
    hnh.ok("encounter", "start", "Ann", "Bob", "--roll", "Ann=+,+,+", "--roll", "Bob=-,-,-")
    hnh.ok("act", "Bob", "until", "-o", "condition=dazed", "-o", f"until={until}")
    hnh.ok("encounter", "next")  # Bob's turn starts
    assert ("dazed" in conditions(hnh, "Bob")) is (until == "end")
    hnh.ok("encounter", "next")  # Bob's turn ends
    assert "dazed" not in conditions(hnh, "Bob")


def test_ongoing_damage_strikes_at_each_end_of_turn(hnh: Cli) -> None:
    """gameplay.txt, Ending Your Turn: "taking damage each turn ... standing in a fire"."""
    hnh.ok("act", "Bob", "ongoing-damage", "-o", "rank=6")
    hnh.ok("encounter", "start", "Bob", "--roll", "Bob=0,0,0")
    r = hnh.json("encounter", "next", "--roll", "power=0,0,0", "--roll", "toughness=0,0,0")
    assert any(e["type"] == "ResistanceResolved" for e in r["events"]) and show(hnh, "Bob")["hp"] == 2
    hnh.ok("act", "Bob", "ongoing-damage", "-o", "rank=0")
    assert "ongoing-damage" not in show(hnh, "Bob")["counters"]


# -- undo and retraction around each new action ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        ("act", "Ann", "grab", "--against", "Bob", *EVEN, "--roll", "strength=0,0,0", "--roll", "against=0,0,0"),
        ("act", "Ann", "trip", "--against", "Bob", *EVEN, "--roll", "power=0,0,0", "--roll", "against=0,0,0"),
        ("act", "Ann", "feint", "--against", "Bob", "--roll", "check=0,0,0", "--roll", "against=0,0,0"),
        ("act", "Ann", "demoralize", "--against", "Bob", "--roll", "check=0,0,0", "--roll", "against=0,0,0"),
        ("act", "Ann", "aim"),
        ("act", "Ann", "extra-effort", "-o", "benefit=bonus"),  # out of a fight: fatigued at once
        ("act", "Ann", "seize-initiative"),
        ("act", "Ann", "until", "-o", "condition=dazed"),
        ("act", "Ann", "ongoing-damage", "-o", "rank=3"),
    ],
)
def test_each_action_undone_and_retracted_restores_the_sheets(hnh: Cli, args: tuple[str, ...]) -> None:
    """DESIGN.md, The ruling: undo and retraction restore the exact earlier state."""
    undo_and_retract_restore(hnh, ("Ann", "Bob"), *args)


def test_escape_and_release_undone_and_retracted_restore_the_sheets(hnh: Cli) -> None:
    """DESIGN.md, The ruling: undo and retraction restore the exact earlier state."""
    hnh.ok("act", "Ann", "grab", "--against", "Bob", *EVEN, "--roll", "strength=0,0,0", "--roll", "against=0,0,0")
    undo_and_retract_restore(hnh, ("Ann", "Bob"), "act", "Bob", "escape", "--against", "Ann", "--roll", "check=+,+,+")
    undo_and_retract_restore(hnh, ("Ann", "Bob"), "act", "Ann", "release", "--against", "Bob")
