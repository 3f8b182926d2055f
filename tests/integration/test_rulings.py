"""The ruling on a real database: one ruling per command, atomic, refusals append nothing (DESIGN.md, The ruling)."""

from __future__ import annotations

import pytest

from ledger.aggregates import ruling_id
from ledger.application import Ledger
from ledger.errors import BadInput, Conflict, LedgerError, NotFound, NotInitialised
from ledger.rules.contract import CURRENT
from tests.conftest import event_count


@pytest.fixture
def hnh(db):
    led = Ledger(db, actor="gm", seed=3)
    led.init("hnh", "Test")
    led.add_character("Ann", {"agility": "3", "toughness": "4"}, pc=True)
    yield led
    led.close()


def test_every_command_appends_exactly_one_ruling_numbered_in_order(hnh):
    """DESIGN.md, The ruling: the Campaign records each ruling in order."""
    assert hnh.damage("Ann", 2)["ruling"] == 3
    assert hnh.condition("Ann", "dazed", add=True)["ruling"] == 4
    assert hnh.campaign().rulings == 4


def test_hnh_hp_never_goes_below_minus_three_and_dead_replaces_other_conditions(hnh):
    """humans-and-heroes.txt, Health Points: at HP -3 (the minimum) you are dead, which removes all other conditions."""
    hnh.condition("Ann", "dazed", add=True)
    hnh.damage("Ann", 50)
    s = hnh.sheet("Ann")
    assert s.hp == -3 and set(s.conditions) == {
        "dead",
        "prone",
    }  # and the body falls prone (conditions.txt, Incapacitated)


def test_undo_restores_exactly_the_hp_before_a_clamped_hit(hnh):
    """DESIGN.md, What it is for: undoing 50 damage on a character clamped at the floor restores the earlier HP, not a
    reverse delta."""
    hnh.damage("Ann", 4)  # 6 -> 2
    hnh.damage("Ann", 50)  # clamped at -3, dead
    hnh.undo()
    s = hnh.sheet("Ann")
    assert (s.hp, s.conditions) == (2, ())


def test_undo_then_redo_brings_the_ruling_back(hnh):
    """DESIGN.md, The ruling: redo restores the latest undone ruling."""
    hnh.damage("Ann", 7)
    after = hnh.sheet("Ann")
    hnh.undo()
    hnh.redo()
    assert hnh.sheet("Ann") == after


def test_redo_is_gone_after_a_new_ruling(hnh):
    """README, Undo and redo: a new ruling ends the redo stack (as in every editor)."""
    hnh.damage("Ann", 1)
    hnh.undo()
    hnh.damage("Ann", 2)
    with pytest.raises(Conflict):
        hnh.redo()


def test_undo_walks_back_through_rulings_and_skips_undo_rulings(hnh):
    """DESIGN.md, The ruling: undo retracts the latest live ruling (undo rulings are not themselves undone by undo)."""
    hnh.damage("Ann", 1)  # ruling 3
    hnh.damage("Ann", 1)  # ruling 4
    assert hnh.undo()["target"] == 4
    assert hnh.undo()["target"] == 3
    assert hnh.sheet("Ann").hp == 6
    assert hnh.redo()["target"] == 3
    assert hnh.sheet("Ann").hp == 5


def test_undoing_character_add_removes_the_character_and_the_name_can_be_reused(hnh):
    """DESIGN.md, The ruling: the state after undo equals the history without the ruling."""
    hnh.add_character("Bob", {})
    hnh.undo()
    with pytest.raises(NotFound):
        hnh.sheet("Bob")
    hnh.add_character("Bob", {"toughness": "2"})
    assert hnh.sheet("Bob").traits == {"toughness": 2}


def test_undo_of_session_start_closes_it(hnh):
    """CLI.md, session start / end: undoing a session start leaves no session open."""
    hnh.start_session("One")
    hnh.undo()
    assert hnh.campaign().open_session is None


def test_undo_survives_a_process_restart(db):
    """DESIGN.md, The ruling: the unit of play, of audit and of undo: across process restarts (a fresh Ledger on the
    same database)."""
    a = Ledger(db, actor="gm")
    a.init("d20")
    a.add_character("Bo", {"hp": "10"})
    a.damage("Bo", 4)
    a.close()
    b = Ledger(db, actor="other")
    b.undo()
    assert b.sheet("Bo").hp == 10
    b.close()


def test_nothing_to_undo_on_a_fresh_campaign(db):
    """CLI.md, undo: the campaign's creation is not undoable; a clear refusal."""
    led = Ledger(db)
    led.init("pnp")
    with pytest.raises(Conflict):
        led.undo()
    led.close()


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda led: led.damage("Nobody", 1), NotFound),
        (lambda led: led.damage("Ann", -1), BadInput),
        (lambda led: led.add_character("ann", {}), Conflict),
        (lambda led: led.add_character("Cy", {"agility": "lots"}), BadInput),
        (lambda led: led.condition("Ann", "sparkly", add=True), BadInput),
        (lambda led: led.condition("Ann", "dazed", add=False), Conflict),
        (lambda led: led.roll("3dF", rolls={"roll": "+,+"}), BadInput),
        (lambda led: led.roll("2x6"), BadInput),
        (lambda led: led.end_session(), Conflict),
    ],
)
def test_refusals_append_nothing(hnh, db, call, error):
    """DESIGN.md, Errors and bad input: nothing appended on refusal (unknown character, duplicate name, negative damage,
    bad faces, bad trait value)."""
    before = event_count(db)
    with pytest.raises(error):
        call(hnh)
    assert event_count(db) == before


def test_commands_before_init_say_there_is_no_campaign(db):
    """CLI.md, Exit codes: bad usage is refused, and the database gets no campaign by accident."""
    led = Ledger(db)
    with pytest.raises(NotInitialised):
        led.damage("Ann", 1)
    led.close()


def test_init_twice_is_refused(hnh):
    """One ledger holds one campaign (CLI.md, init)."""
    with pytest.raises(Conflict):
        hnh.init("d20")


def test_every_die_is_its_own_dice_rolled_event_with_faces_total_and_source(hnh, db):
    """CLI.md, Entering dice: every die roll is its own DiceRolled event with name, faces, total and source."""
    from ledger.storage.target import parse_target
    from projections.db import ReadSide

    hnh.roll("3dF+2", rolls={"roll": "+,0,+"})
    read = ReadSide(parse_target(db))
    with read.engine.connect() as conn:
        rolled = [e for e in read.read_events(conn, 0, 1000) if e.type == "DiceRolled"]
    read.close()
    data = rolled[-1].state["data"]
    assert {k: data[k] for k in ("name", "faces", "total", "source")} == {
        "name": "roll",
        "faces": [1, 0, 1],
        "total": 4,
        "source": "entered",
    }


def test_a_ruling_keeps_actor_session_and_intent(hnh):
    """DESIGN.md, The ruling: intent, actor, session and time are kept on every ruling (and the rules' version it was
    decided by, `rules`, out of an encounter)."""
    hnh.start_session("Night one")
    n = hnh.damage("Ann", 1)["ruling"]
    r = hnh.store.repository.get(ruling_id(n))
    assert r.intent == {"target": "Ann", "amount": 1, "subdual": False, "rules": CURRENT}
    assert r.command == "damage"


def test_ledger_errors_have_one_line_messages(hnh):
    """CLI.md, Exit codes: an error is one line saying what is wrong."""
    with pytest.raises(LedgerError) as e:
        hnh.damage("Nobody", 1)
    assert "\n" not in e.value.message
