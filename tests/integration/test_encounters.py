"""Encounters on a real database: initiative per system, turns and rounds, join, delay, and exact undo/redo (CLI.md,
Commands; DESIGN.md, The ruling)."""

from __future__ import annotations

import pytest

from ledger.application import Ledger
from ledger.errors import LedgerError
from ledger.storage.target import parse_target
from projections import queries
from projections.db import ReadSide
from projections.views import catch_up


@pytest.fixture
def hnh(db: str):
    led = Ledger(db, actor="gm", seed=3)
    led.init("hnh")
    led.add_character("Ann", {"agility": "3", "dodge": "5", "improved-initiative": "2"}, pc=True)
    led.add_character("Bob", {"agility": "1", "dodge": "7", "awareness": "1"})
    led.add_character("Cy", {"agility": "1", "dodge": "7", "awareness": "4"})
    led.add_character("Thugs", {"agility": "1"}, minion=True, count=5)
    yield led
    led.close()


def names(view: dict) -> list[str]:
    return [e["name"] for e in view["order"]]


def test_hnh_initiative_is_3dF_plus_agility_plus_improved_initiative(hnh: Ledger):
    """hnh-site/gameplay.txt, Initiative: 3dF + Agility + Improved Initiative ranks, highest first."""
    v = hnh.start_encounter(["Ann", "Bob"], rolls={"Ann": "+,0,0", "Bob": "+,+,0"})
    assert [(e["name"], e["initiative"]) for e in v["order"]] == [("Ann", 6), ("Bob", 3)]
    assert v["round"] == 1 and v["current"] == "Ann"


def test_hnh_ties_go_to_higher_dodge_then_awareness(hnh: Ledger):
    """hnh-site/gameplay.txt, Initiative: ties act in order of highest Dodge, then Agility, then Awareness."""
    v = hnh.start_encounter(["Ann", "Bob", "Cy"], rolls={"Ann": "-,-,0", "Bob": "+,+,0", "Cy": "+,+,0"})
    assert [(e["name"], e["initiative"]) for e in v["order"]] == [("Cy", 3), ("Bob", 3), ("Ann", 3)]


def test_hnh_a_tie_the_traits_leave_open_is_a_rolloff(hnh: Ledger):
    """hnh-site/gameplay.txt, Initiative: "each tied player should roll dice, with the highest roll going first"."""
    hnh.add_character("Dee", {"agility": "1", "dodge": "7", "awareness": "4"})
    v = hnh.start_encounter(
        ["Cy", "Dee"], rolls={"Cy": "0,0,0", "Dee": "0,0,0", "rolloff-Cy": "-,0,0", "rolloff-Dee": "+,0,0"}
    )
    assert names(v) == ["Dee", "Cy"]
    rolled = [e["data"]["name"] for e in v["events"] if e["type"] == "DiceRolled"]
    assert rolled == ["Cy", "Dee", "rolloff-Cy", "rolloff-Dee"]


def test_surprised_takes_minus_10_and_is_vulnerable_until_their_turn(hnh: Ledger):
    """hnh-site/conditions.txt, Surprised: -10 to initiative, vulnerable; removed at the start of their turn."""
    v = hnh.start_encounter(["Ann", "Thugs"], surprised=["Thugs"], rolls={"Ann": "0,0,0", "Thugs": "0,0,0"})
    assert [(e["name"], e["initiative"]) for e in v["order"]] == [("Ann", 5), ("Thugs", -9)]
    assert hnh.sheet("Thugs").conditions == ("surprised",)  # surprised implies vulnerable (conditions.txt cards)
    hnh.next_turn()
    assert hnh.sheet("Thugs").conditions == ()


def test_surprise_ends_when_the_combat_ends(hnh: Ledger):
    """hnh-site/conditions.txt, Surprised: "removed at the start of your turn or when the combat ends"."""
    hnh.start_encounter(["Ann", "Thugs"], surprised=["Thugs"], rolls={"Ann": "0,0,0", "Thugs": "0,0,0"})
    hnh.end_encounter()
    assert hnh.sheet("Thugs").conditions == ()


def test_a_round_ends_when_the_order_comes_back_to_the_same_character(hnh: Ledger):
    """hnh-site/gameplay.txt, Initiative: a round is the time it takes to get back to the same character's next turn."""
    hnh.start_encounter(["Ann", "Bob", "Thugs"], rolls={"Ann": "0,0,0", "Bob": "0,0,0", "Thugs": "0,0,0"})
    seen = [(hnh.next_turn()["round"], hnh.encounter()["current"]) for _ in range(4)]
    assert seen == [(1, "Bob"), (1, "Thugs"), (2, "Ann"), (2, "Bob")]


def test_undo_of_next_gives_back_the_exact_turn_round_and_conditions(hnh: Ledger):
    """DESIGN.md, The ruling: the state after undoing ruling R equals the history without R (no reverse deltas)."""
    hnh.start_encounter(["Ann", "Thugs"], surprised=["Thugs"], rolls={"Ann": "0,0,0", "Thugs": "0,0,0"})
    before = hnh.encounter()
    hnh.next_turn()  # Thugs' turn starts: surprise ends
    assert hnh.encounter()["current"] == "Thugs" and hnh.sheet("Thugs").conditions == ()
    hnh.undo()
    assert hnh.encounter() == before and hnh.sheet("Thugs").conditions == ("surprised",)
    hnh.redo()
    assert hnh.encounter()["current"] == "Thugs" and hnh.sheet("Thugs").conditions == ()


def test_undoing_the_first_start_leaves_no_encounter(hnh: Ledger):
    """CLI.md, encounter show: with no encounter running it is bad input; undo restores by refolding."""
    hnh.start_encounter(["Ann", "Bob"])
    hnh.undo()
    with pytest.raises(LedgerError):
        hnh.encounter()
    assert hnh.start_encounter(["Ann", "Bob"])["encounter"] == 1


def test_a_newcomer_rolls_and_acts_when_their_place_comes(hnh: Ledger):
    """hnh-site/gameplay.txt, Initiative: "they roll initiative when they join-in and act when their turn comes up"."""
    hnh.start_encounter(["Ann", "Bob"], rolls={"Ann": "0,0,0", "Bob": "0,0,0"})  # Ann 5, Bob 1
    v = hnh.join_encounter("Cy", rolls={"Cy": "+,+,0"})  # 3: between them
    assert names(v) == ["Ann", "Cy", "Bob"] and v["current"] == "Ann"
    assert hnh.next_turn()["current"] == "Cy"


def test_a_newcomer_ahead_of_the_current_turn_waits_for_the_next_round(hnh: Ledger):
    """hnh-site/gameplay.txt, Initiative: a newcomer takes their place in the existing order."""
    hnh.start_encounter(["Ann", "Bob"], rolls={"Ann": "0,0,0", "Bob": "0,0,0"})
    hnh.next_turn()  # Bob's turn
    v = hnh.join_encounter("Cy", rolls={"Cy": "+,+,0"})  # 3: ahead of Bob, whose turn it is
    assert names(v) == ["Ann", "Cy", "Bob"] and v["current"] == "Bob" and v["round"] == 1
    assert hnh.next_turn()["current"] == "Ann" and hnh.encounter()["round"] == 2


def test_delay_then_act_moves_the_delayer_into_the_new_place(hnh: Ledger):
    """hnh-site/gameplay.txt, Delay: act after any other character; "your initiative moves into the new place"."""
    hnh.start_encounter(["Ann", "Bob", "Cy"], rolls={"Ann": "0,0,0", "Bob": "0,0,0", "Cy": "-,-,-"})
    v = hnh.delay_turn()  # Ann 5 waits; Bob 1 acts
    assert v["current"] == "Bob" and v["order"][0]["delayed"]
    v = hnh.act_now("Ann")  # after Bob's turn
    assert names(v) == ["Bob", "Ann", "Cy"] and v["current"] == "Ann" and v["round"] == 1
    assert [e["initiative"] for e in v["order"]] == [1, 1, -3]
    assert hnh.next_turn()["current"] == "Cy"
    assert (hnh.next_turn()["current"], hnh.encounter()["round"]) == ("Bob", 2)


def test_a_delayer_whose_place_comes_round_again_is_forced_to_act(hnh: Ledger):
    """hnh-site/gameplay.txt, Delay: "If you do not act before your turn would come up again then you are forced"."""
    hnh.start_encounter(["Ann", "Bob"], rolls={"Ann": "0,0,0", "Bob": "0,0,0"})
    hnh.delay_turn()  # Ann waits; Bob's turn
    v = hnh.next_turn()
    assert v["current"] == "Ann" and v["forced"] and v["round"] == 2
    assert not any(e["delayed"] for e in v["order"])


def test_the_dying_check_runs_at_the_start_of_their_turn_with_the_entered_roll(hnh: Ledger):
    """hnh-site/gameplay.txt, Starting Your Turn: "If you are dying make a Fortitude check (DC 5)"."""
    hnh.start_encounter(["Ann", "Bob"], rolls={"Ann": "0,0,0", "Bob": "0,0,0"})
    hnh.damage("Bob", 7)  # HP -1: dying
    assert "dying" in hnh.sheet("Bob").conditions
    r = hnh.next_turn(rolls={"fortitude": "-,-,-"})
    checks = [e["data"] for e in r["events"] if e["type"] == "CheckResolved"]
    assert checks and checks[0]["check"] == "dying" and checks[0]["outcome"] == "lose 1 HP"
    assert hnh.sheet("Bob").hp == -2


def test_an_unneeded_turn_roll_is_kept_as_unused(hnh: Ledger):
    """CLI.md, Entering dice: a roll entered but not needed after all is kept, marked unused, not an error."""
    hnh.start_encounter(["Ann", "Bob"])
    r = hnh.next_turn(rolls={"fortitude": "+,+,+"})
    assert [e["data"]["used"] for e in r["events"] if e["type"] == "DiceRolled"] == [False]


@pytest.mark.parametrize(
    "bad",
    [
        lambda led: led.start_encounter(["Ann", "Nobody"]),
        lambda led: led.start_encounter(["Ann", "Bob"], rolls={"Ann": "1,2,3"}),
        lambda led: led.start_encounter(["Ann", "Bob"], rolls={"Zed": "0,0,0"}),
        lambda led: led.next_turn(),
        lambda led: led.join_encounter("Ann"),
        lambda led: led.end_encounter(),
    ],
)
def test_bad_input_appends_nothing(hnh: Ledger, bad):
    """CLI.md, encounter: unknown participant, no encounter, faces of the wrong kind: refused, nothing appended."""
    before = hnh.campaign().rulings
    with pytest.raises(LedgerError):
        bad(hnh)
    assert hnh.campaign().rulings == before


def test_the_dead_do_not_join(hnh: Ledger):
    """CLI.md, encounter join: a dead participant joining is refused."""
    hnh.start_encounter(["Ann", "Bob"])
    hnh.damage("Cy", 9)  # HP -3: dead (humans-and-heroes.txt, Health Points)
    with pytest.raises(LedgerError, match="dead"):
        hnh.join_encounter("Cy")


def test_d20_initiative_is_1d20_plus_dex_modifier(db: str):
    """d20-supers.txt, Initiative: "Your initiative is 1d20+Dexterity Modifier"; running ends at the next turn."""
    led = Ledger(db, actor="gm", seed=1)
    led.init("d20")
    led.add_character("Rex", {"dex": "16"})
    led.add_character("Vex", {"dex": "8"})
    v = led.start_encounter(["Rex", "Vex"], rolls={"Rex": "10", "Vex": "14"})
    assert [(e["name"], e["initiative"]) for e in v["order"]] == [("Rex", 13), ("Vex", 13)]  # tie: higher Dex first
    led.act("Rex", "run")
    led.next_turn()
    assert "running" in led.sheet("Rex").conditions
    led.next_turn()
    assert "running" not in led.sheet("Rex").conditions
    led.close()


def test_pnp_acts_in_order_of_edge_without_a_roll_and_a_minion_group_acts_as_one(db: str):
    """prowlers-and-paragons.txt, Combat: act in order of Edge = Perception + the greater of Agility and Intellect."""
    led = Ledger(db, actor="gm", seed=1)
    led.init("pnp")
    led.add_character("Mara", {"perception": "3", "agility": "2", "intellect": "4"}, pc=True)
    led.add_character("Gunsel", {"perception": "2", "agility": "4"})
    led.add_character("Goons", {"threat": "2"}, minion=True, count=6)
    v = led.start_encounter(["Gunsel", "Goons", "Mara"])
    assert [(e["name"], e["initiative"]) for e in v["order"]] == [("Mara", 7), ("Gunsel", 6), ("Goons", 4)]
    assert not [e for e in v["events"] if e["type"] == "DiceRolled"]
    with pytest.raises(LedgerError):
        led.start_encounter(["Mara"], rolls={"Mara": "6"})
    led.close()


def test_encounter_log_and_timeline_stay_right_through_undo_and_redo(hnh: Ledger, db: str):
    """DESIGN.md, The ruling: the unit of play, of audit and of undo: logs and timelines stay right through undo and
    redo (undone rulings left out, redone ones back)."""
    read = ReadSide(parse_target(db))
    hnh.start_encounter(["Ann", "Bob"], rolls={"Ann": "0,0,0", "Bob": "0,0,0"})
    hnh.damage("Bob", 2)
    hnh.next_turn()
    hnh.damage("Ann", 1)
    hnh.undo()
    catch_up(read)
    turns = queries.encounter_log(read)["turns"]
    assert [(t["round"], t["actor"]) for t in turns] == [(0, None), (1, "Ann")]  # the damage in Bob's turn is undone
    assert [r["command"] for r in turns[1]["rulings"]] == ["damage", "encounter next"]
    assert [p["hp"] for p in queries.timeline(read, "Ann")] == [6]
    hnh.redo()
    catch_up(read)
    bob_turn = queries.encounter_log(read)["turns"][-1]
    assert (bob_turn["actor"], [r["command"] for r in bob_turn["rulings"]]) == ("Bob", ["damage"])
    assert [p["hp"] for p in queries.timeline(read, "Ann")] == [6, 5]
    assert (queries.sheet_at(read, "Bob", 6)["hp"], queries.sheet_at(read, "Bob", 7)["hp"]) == (
        6,
        4,
    )  # damage was ruling 7
    read.close()
