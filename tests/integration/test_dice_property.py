"""Committed dice survive undo and retraction, as a property (docs/verifiable-dice.md, The scheme: "an undo or a
retraction never gives a counter back"): any honest sequence of session starts with committed dice, rolls, undos,
redos, retractions and session ends, in any order, passes `verify --dice`, on SQLite and on PostgreSQL."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.application import Ledger
from ledger.errors import LedgerError
from tests.conftest import PG_ADMIN_URL, _pg_database, _pg_drop
from tests.integration.test_dice_forgeries import decoded

op = st.one_of(
    st.just(("start",)),
    st.just(("roll",)),
    st.just(("roll",)),
    st.just(("undo",)),
    st.just(("redo",)),
    st.tuples(st.just("retract"), st.integers(0, 30)),
    st.just(("end",)),
)


def play(led: Ledger, o: tuple) -> None:  # type: ignore[type-arg]
    """Apply one generated step as a GM would (a refused step appends nothing)."""
    kind = o[0]
    if kind == "start":
        led.start_session(commit_dice=True)
    elif kind == "roll":
        led.roll("3dF")
    elif kind == "undo":
        led.undo()
    elif kind == "redo":
        led.redo()
    elif kind == "end":
        led.end_session()
    else:
        camp = led.campaign()
        live = [n for n in range(2, camp.rulings + 1) if n not in camp.dead_set() and n not in set(camp.meta)]
        if live:
            led.retract(live[o[1] % len(live)], reason="the table agreed")


def check(db: str, ops: list[tuple]) -> None:  # type: ignore[type-arg]
    led = Ledger(db, actor="gm")
    try:
        led.init("hnh", "Dice")
        for o in ops:
            try:
                play(led, o)
            except LedgerError:
                pass
        if led.campaign().open_session is not None:
            led.end_session()  # reveal the last secret: every committed die is then recomputed
        report = led.verify(dice=True)
        assert report.problems == [], (ops, [p.message for p in report.problems])
    finally:
        led.close()


SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
STEPS = st.lists(op, min_size=1, max_size=12)


@SETTINGS
@given(ops=STEPS)
def test_honest_sequences_verify_on_sqlite(ops):
    """SQLite: a fresh ledger file per sequence."""
    with tempfile.TemporaryDirectory() as folder:
        check(str(Path(folder) / "dice.ledger"), ops)


@pytest.mark.skipif(not PG_ADMIN_URL, reason="LEDGER_TEST_POSTGRES is not set")
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=STEPS)
def test_honest_sequences_verify_on_postgres(ops):
    """PostgreSQL: a fresh database per sequence."""
    url, name = _pg_database()
    try:
        check(url, ops)
    finally:
        _pg_drop(name)


def test_the_issues_two_sequences_verify(db: str):
    """The two honest sequences that once failed: a committed session started, rolled, undone twice and started again;
    and a committed session start retracted after a later session began."""
    check(db, [("start",), ("roll",), ("undo",), ("undo",), ("start",), ("roll",), ("end",)])


def test_a_retracted_session_start_verifies(db: str):
    """A retraction renumbers the later session (its commitment, and so its count, stay its own)."""
    led = Ledger(db, actor="gm")
    try:
        led.init("hnh", "Dice")
        led.start_session(commit_dice=True)
        led.roll("3dF")
        led.end_session()
        led.start_session(commit_dice=True)
        led.roll("3dF")
        led.retract(2, reason="that session never happened")
        led.roll("3dF")
        led.end_session()
        assert led.verify(dice=True).problems == []
    finally:
        led.close()


def _start_retract_start_retract(led: Ledger) -> None:
    """Rulings 2-5: a committed session started, its start retracted, another started, the retraction retracted."""
    led.init("hnh", "Dice")
    led.start_session(commit_dice=True)  # ruling 2
    led.retract(2, reason="that session never happened")  # ruling 3
    led.start_session(commit_dice=True)  # ruling 4
    led.retract(3, reason="it did happen")  # ruling 5


def test_a_retracted_retraction_verifies(db: str):
    """Retracting a retraction brings its target back, and the later session start is decided again in that history
    (docs/verifiable-dice.md, The scheme; ledger/history/rederive.py): ruling 2's session is the open one, and ruling
    4's start, now refused ("session 1 is still open"), committed nothing that must be revealed."""
    led = Ledger(db, actor="gm")
    try:
        _start_retract_start_retract(led)
        started = [s["commitment"] for s in led.campaign().domain["sessions"]]
        led.roll("3dF")
        led.end_session()
        led.start_session(commit_dice=True)
        led.roll("3dF")
        led.end_session()
        report = led.verify(dice=True)
        assert report.problems == [] and report.dice["sessions_revealed"] == 2, report.dice
        assert len(started) == 1
    finally:
        led.close()


def test_retracting_it_again_gives_the_later_start_its_session_back(db: str):
    """Retracting ruling 5 in turn retracts ruling 2 again: ruling 4's start stands as first recorded, its session
    is the open one, and its end reveals its own secret."""
    led = Ledger(db, actor="gm")
    try:
        _start_retract_start_retract(led)
        revived = led.campaign().domain["sessions"][0]["commitment"]
        led.retract(5, reason="it did not, after all")
        back = led.campaign().domain["sessions"]
        assert len(back) == 1 and back[0]["commitment"] != revived and led.campaign().open_session == 1
        led.roll("3dF")
        led.end_session()
        report = led.verify(dice=True)
        assert report.problems == [] and report.dice["sessions_revealed"] == 1, report.dice
    finally:
        led.close()


def test_the_retracted_retraction_sequence_as_generated_verifies(db: str):
    """The sequence as the property drew it: start, retract it, start, retract the retraction, end, start."""
    check(db, [("start",), ("retract", 0), ("start",), ("retract", 0), ("end",), ("start",)])


def test_a_session_end_decided_again_reveals_the_session_it_ends_now(db: str):
    """Retracting the retraction of a session start after a later session started and ended: the end is decided
    again in a history where it ends the revived session (docs/verifiable-dice.md, The scheme: a session's end
    reveals its secret), so the retraction's amended end reveals that session's secret, from the ledger's side table,
    and `verify --dice` recomputes every die of both sessions."""
    led = Ledger(db, actor="gm")
    try:
        led.init("hnh", "Dice")
        led.start_session(commit_dice=True)  # ruling 2
        revived = led.campaign().domain["sessions"][0]["commitment"]
        led.roll("3dF")  # ruling 3
        led.retract(2, reason="that session never happened")  # ruling 4
        led.start_session(commit_dice=True)  # ruling 5
        led.roll("3dF")  # ruling 6
        led.end_session()  # ruling 7: reveals ruling 5's secret
        led.retract(4, reason="it did happen")  # ruling 8: ruling 2's session is back, ruling 7 now ends it
        assert led.campaign().open_session is None
        led.start_session(commit_dice=True)
        led.end_session()
        report = led.verify(dice=True)
        assert report.problems == [], [p.message for p in report.problems]
        assert report.dice["sessions_revealed"] == 3 and report.dice["dice_checked"] == 6, report.dice
    finally:
        led.close()
    amended = [st for _, topic, st in decoded(db) if topic.endswith("OutcomeAmended") and st["target"] == 7]
    reveals = [r["data"]["commitment"] for st in amended for r in st["records"] if r["type"] == "DiceRevealed"]
    assert reveals == [revived]
