"""Humans & Heroes, second pass (hnh-site/*.txt): each rule through the real CLI, citing its passage."""

from __future__ import annotations

import pytest

from tests.cli.hnh_helpers import event
from tests.conftest import Cli, Recorded, event_count


def conditions(cli: Cli, name: str) -> set[str]:
    """The imposed conditions on a character's sheet."""
    shown = cli.json("character", "show", name)
    assert isinstance(shown, dict)
    return set(shown["conditions"])


def _record_hnh(cli: Cli) -> None:
    """An hnh campaign; Ann has only abilities, Bob a full sheet."""
    cli.ok("init", "--system", "hnh")
    cli.ok(
        "character",
        "add",
        "Ann",
        "--pc",
        "--trait",
        "agility=3",
        "--trait",
        "fighting=4",
        "--trait",
        "stamina=2",
        "--trait",
        "presence=1",
        "--trait",
        "strength=2",
        "--trait",
        "awareness=2",
    )
    cli.ok(
        "character",
        "add",
        "Bob",
        "--trait",
        "fighting=5",
        "--trait",
        "strength=3",
        "--trait",
        "parry=5",
        "--trait",
        "dodge=5",
        "--trait",
        "toughness=3",
        "--trait",
        "fortitude=3",
        "--trait",
        "will=3",
        "--trait",
        "perception=3",
        "--trait",
        "agility=2",
    )


@pytest.fixture
def hnh(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_hnh records, recorded once and copied for this test."""
    return recorded(cli, _record_hnh)


# -- 1. defenses from abilities -------------------------------------------------------------------
def test_defense_checks_default_to_the_associated_ability(hnh: Cli) -> None:
    """defenses.txt, Defense Rank: "Your base defense ranks are equal to your ranks in their associated abilities"."""
    for trait, ability in (("dodge", 3), ("parry", 4), ("fortitude", 2), ("toughness", 2), ("will", 1)):
        r = hnh.json("check", "Ann", trait, "--dc", "0", "--roll", "check=0,0,0")
        assert event(r, "CheckResolved")["total"] == ability, trait


def test_an_attack_meets_the_parry_its_target_gets_from_fighting(hnh: Cli) -> None:
    """defenses.txt, Parry: "Parry defense is based on Fighting" -- the attack's defense check uses it."""
    r = hnh.json(
        "attack",
        "Bob",
        "Ann",
        "--roll",
        "attack=0,0,0",
        "--roll",
        "defense=0,0,0",
        "--roll",
        "power=0,0,0",
        "--roll",
        "toughness=0,0,0",
    )
    attack = event(r, "AttackResolved")
    assert attack["defense_check"]["total"] == 4 and attack["hit"] is True  # 5 vs Parry 4 (Fighting)
    assert event(r, "ResistanceResolved")["resistance"]["total"] == 2  # Toughness from Stamina 2


def test_an_affliction_is_resisted_with_will_from_presence(hnh: Cli) -> None:
    """defenses.txt, Will: "Will defense is based on Presence rank"."""
    r = hnh.json(
        "act",
        "Bob",
        "affliction",
        "--against",
        "Ann",
        "-o",
        "rank=1",
        "-o",
        "conditions=dazed",
        "-o",
        "resisted-by=will",
        "--roll",
        "power=0,0,0",
        "--roll",
        "toughness=0,0,0",
    )
    assert event(r, "ResistanceResolved")["resistance"]["total"] == 1


def test_initiative_ties_read_dodge_from_agility(hnh: Cli) -> None:
    """gameplay.txt, Initiative (ties: higher Dodge first) with defenses.txt, Dodge: "based on Agility rank"."""
    hnh.ok("character", "add", "Cy", "--trait", "agility=3", "--trait", "dodge=2")
    r = hnh.json("encounter", "start", "Cy", "Ann", "--roll", "Cy=0,0,0", "--roll", "Ann=0,0,0")
    assert [o["name"] for o in r["order"]][:2] == ["Ann", "Cy"]  # both 3; Ann's Dodge 3 (Agility) beats 2


# -- 2. progressive conditions ---------------------------------------------------------------------
def test_a_second_fatigued_is_exhausted_and_a_third_asleep(hnh: Cli, db: str) -> None:
    """conditions.txt, Progressive Conditions: "add the degrees together ... with a maximum degree of three"."""
    hnh.ok("condition", "add", "Ann", "fatigued")
    hnh.ok("condition", "add", "Ann", "fatigued")
    assert conditions(hnh, "Ann") == {"exhausted"}
    hnh.ok("condition", "add", "Ann", "fatigued")
    assert conditions(hnh, "Ann") == {"exhausted", "asleep"}  # "* Asleep doesn't replace fatigued or exhausted."
    before = event_count(db)
    r = hnh("condition", "add", "Ann", "asleep")
    assert r.exit_code == 2 and "highest degree" in r.stderr and event_count(db) == before


def test_dazed_on_a_dazed_character_is_stunned(hnh: Cli) -> None:
    """conditions.txt, Progressive Conditions: dazed, stunned, incapacitated are one row."""
    hnh.ok("condition", "add", "Bob", "dazed")
    hnh.ok("condition", "add", "Bob", "dazed")
    assert conditions(hnh, "Bob") == {"stunned"}


def test_a_non_progressive_condition_twice_is_still_refused(hnh: Cli, db: str) -> None:
    """conditions.txt: "Multiple instances of the same condition are redundant if they haven't progressed"."""
    hnh.ok("condition", "add", "Bob", "prone")
    before = event_count(db)
    assert hnh("condition", "add", "Bob", "prone").exit_code == 2 and event_count(db) == before


# -- 3. removing a part of a combined condition ------------------------------------------------------
def test_a_staggered_character_who_loses_dazed_is_only_hindered(hnh: Cli) -> None:
    """conditions.txt, Combined Conditions: staggered is dazed and hindered; removing dazed leaves hindered."""
    hnh.ok("condition", "add", "Bob", "staggered")
    hnh.ok("condition", "remove", "Bob", "dazed")
    assert conditions(hnh, "Bob") == {"hindered"}


def test_removing_a_condition_the_character_does_not_have_is_refused(hnh: Cli, db: str) -> None:
    """conditions.txt: nothing to remove when the condition is neither imposed nor a part of one."""
    hnh.ok("condition", "add", "Bob", "staggered")
    before = event_count(db)
    assert hnh("condition", "remove", "Bob", "prone").exit_code == 2 and event_count(db) == before


# -- 4. afflictions take back what progressed ------------------------------------------------------
def test_an_ended_affliction_takes_back_the_degree_it_added(hnh: Cli) -> None:
    """gameplay.txt, Ongoing Effects: "A successful check ends the effect and removes conditions imposed by it"."""
    hnh.ok("condition", "add", "Bob", "fatigued")
    hnh.ok(
        "act",
        "Ann",
        "affliction",
        "--against",
        "Bob",
        "-o",
        "name=hex",
        "-o",
        "rank=4",
        "-o",
        "conditions=fatigued,exhausted,asleep",
        "--roll",
        "power=0,0,0",
        "--roll",
        "toughness=0,0,0",
    )
    assert conditions(hnh, "Bob") == {"exhausted"}  # fatigued + fatigued
    hnh.ok("encounter", "start", "Bob", "--roll", "Bob=0,0,0")
    hnh.ok("encounter", "next", "--roll", "ongoing-hex=+,+,+")  # Fortitude 3 + 4 >= DC 4: the affliction ends
    assert conditions(hnh, "Bob") == {"fatigued"}  # the GM's fatigued stays


# -- 5. asleep and entranced --------------------------------------------------------------------------
def test_a_failed_defense_check_wakes_a_sleeper(hnh: Cli) -> None:
    """conditions.txt, Asleep: "Any effect allowing a defense check will wake you up unless it fails to affect you"."""
    hnh.ok("condition", "add", "Bob", "asleep")
    hnh.ok("damage", "Bob", "--rank", "0", "--roll", "power=0,0,0", "--roll", "toughness=0,0,0")  # 0 vs 3: unaffected
    assert "asleep" in conditions(hnh, "Bob")
    hnh.ok("damage", "Bob", "--rank", "5", "--roll", "power=0,0,0", "--roll", "toughness=0,0,0")  # 5 vs 3: affected
    assert "asleep" not in conditions(hnh, "Bob")


def test_an_attack_breaks_a_trance_before_it_lands(hnh: Cli) -> None:
    """conditions.txt, Entranced: "Any attack or other obvious treat removes Entranced and allows you to avoid that
    attack"."""
    hnh.ok("condition", "add", "Bob", "entranced")
    r = hnh.json("attack", "Ann", "Bob", "--roll", "attack=0,0,0", "--roll", "defense=0,0,0")
    kinds = [e["type"] for e in r["events"] if e["type"] in ("ConditionRemoved", "AttackResolved")]
    assert kinds[:2] == ["ConditionRemoved", "AttackResolved"]
    assert "entranced" not in r["target"]["conditions"]


# -- 6. the incapacitated fall prone ----------------------------------------------------------------------
@pytest.mark.parametrize(("amount", "state"), [(7, "dying"), (9, "dead")])
def test_the_incapacitated_by_hp_fall_prone(hnh: Cli, amount: int, state: str) -> None:
    """conditions.txt, Incapacitated: "Incapacitated characters generally also fall prone" (dying and dead are
    incapacitated)."""
    r = hnh.json("damage", "Bob", "--amount", str(amount))
    assert set(r["character"]["conditions"]) == {state, "prone"}


# -- 7. minion groups ----------------------------------------------------------------------------------------
def test_the_next_member_of_a_minion_group_starts_fresh(hnh: Cli) -> None:
    """gameplay.txt, Minion Rules: the fallen minion suffers the worst degree; the next one has none of its bruises or
    conditions."""
    hnh.ok("character", "add", "Goons", "--minion", "--count", "3", "--trait", "toughness=0")
    hnh.ok("damage", "Goons", "--rank", "0", "--roll", "power=0,0,0", "--roll", "toughness=0,0,0")  # tie: a bruise
    hnh.ok("condition", "add", "Goons", "dazed")
    r = hnh.json("damage", "Goons", "--rank", "4", "--roll", "power=0,0,0", "--roll", "toughness=0,0,0")
    sheet = r["character"]
    assert sheet["count"] == 2 and sheet["conditions"] == [] and sheet["counters"] == {} and sheet["hp"] == 1


def test_a_minion_group_member_knocked_out_by_an_affliction_falls_and_the_next_starts_fresh(hnh: Cli) -> None:
    """gameplay.txt, Minion Rules: "If a minion fails a defense check, the minion suffers the worst degree of the
    effect"."""
    hnh.ok("character", "add", "Goons", "--minion", "--count", "3", "--trait", "fortitude=0")
    r = hnh.json(
        "act",
        "Bob",
        "affliction",
        "--against",
        "Goons",
        "-o",
        "rank=2",
        "-o",
        "conditions=dazed,stunned,incapacitated",
        "--roll",
        "power=0,0,0",
        "--roll",
        "toughness=0,0,0",
    )
    assert r["against"]["count"] == 2 and r["against"]["conditions"] == [] and r["against"]["counters"] == {}


# -- 8. routine opposition ------------------------------------------------------------------------------------
def test_routine_opposition_is_a_dc_that_meeting_succeeds(hnh: Cli) -> None:
    """the-basics.txt, Routine Opposition: "the DC ... is the opposing character's modifier +0"; Difficulty Class:
    "equal or exceed"."""
    hnh.ok("character", "add", "Sly", "--trait", "stealth=3")
    r = hnh.json(
        "check",
        "Sly",
        "stealth",
        "--against",
        "Bob",
        "perception",
        "-o",
        "routine-against=yes",
        "--roll",
        "check=0,0,0",
    )
    data = event(r, "CheckResolved")
    assert data["dc"] == 3 and data["success"] is True and data["winner"] == "Sly"


# -- 9. automatic failure degrees ---------------------------------------------------------------------------------
@pytest.mark.parametrize("bonus", ["9", "20"])
def test_an_automatic_failure_is_one_degree_whatever_the_bonus(hnh: Cli, bonus: str) -> None:
    """the-basics.txt, Critical Success/failure: Ability/Skill "Automatic failure"; Graded Checks: degrees by the
    difference."""
    hnh.ok("character", "add", f"Ace{bonus}", "--trait", f"awareness={bonus}")
    r = hnh.json("check", f"Ace{bonus}", "awareness", "--dc", "0", "--roll", "check=-,-,-")
    data = event(r, "CheckResolved")
    assert data["success"] is False and data["degrees"] == 1


# -- 10. hp_lost ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("extra", "hp", "lost"), [((), -3, 9), (("-o", "nonlethal=yes"), -1, 7)])
def test_hp_lost_is_the_hp_actually_lost(hnh: Cli, extra: tuple[str, ...], hp: int, lost: int) -> None:
    """gameplay.txt, Health Points: "At HP -3 (which is the minimum)"; effect-damage.txt, Non-Lethal: stops at -1."""
    r = hnh.json("damage", "Ann", "--rank", "12", *extra, "--roll", "power=0,0,0", "--roll", "toughness=0,0,0")
    assert r["character"]["hp"] == hp and event(r, "ResistanceResolved")["hp_lost"] == lost


# -- 11. unarmed range, the dead and victory points -------------------------------------------------------------------
def test_an_unarmed_attack_is_always_close(hnh: Cli, db: str) -> None:
    """gameplay.txt, Attack Check: "An unarmed attack is always close range"."""
    before = event_count(db)
    r = hnh("attack", "Bob", "Ann", "--range", "ranged")
    assert r.exit_code == 2 and "close range" in r.stderr and event_count(db) == before


@pytest.mark.parametrize("command", ["spend", "gain"])
def test_the_dead_neither_gain_nor_spend_victory_points(hnh: Cli, db: str, command: str) -> None:
    """gameplay.txt, Death: "he loses all victory points"."""
    hnh.ok("damage", "Ann", "--amount", "9")
    before = event_count(db)
    r = hnh(command, "Ann", "victory-points", "1")
    assert r.exit_code == 2 and "dead" in r.stderr and event_count(db) == before


# -- 12. fatigue and rest ----------------------------------------------------------------------------------------------
def test_an_hour_of_rest_removes_fatigue_even_awake(hnh: Cli) -> None:
    """conditions.txt, Fatigued: "Characters recover from a fatigued condition after 1 hour of rest (even if awake)"."""
    hnh.ok("condition", "add", "Ann", "fatigued")
    hnh.ok("recover", "Ann", "--hours", "1")
    assert "fatigued" not in conditions(hnh, "Ann")
