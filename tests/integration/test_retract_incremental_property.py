"""Retraction decides again only what can change (DESIGN.md, The ruling: "Rules are pure functions of (state,
intent, dice faces)", so a later ruling that read nothing the retraction changes keeps its recorded outcome):
over random fights in all three systems, with undos, encounters and earlier retractions, the plan that deciding
only the rulings that read a changed aggregate makes is the plan that deciding every later ruling makes,
record for record (what the retraction appends is a function of the plan)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.application import Ledger
from ledger.audit.chain import verify
from ledger.errors import LedgerError
from ledger.history.rederive import Plan, Rederiver, validate_target
from tests.conftest import SHARED
from tests.integration.test_retract_property import TRAITS
from tests.integration.test_retract_property import run as base_run

NAMES = ["Ann", "Bob", "Cy", "Dee"]

op = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(NAMES)),
    st.tuples(st.just("attack"), st.sampled_from(NAMES), st.sampled_from(NAMES)),
    st.tuples(st.just("damage"), st.sampled_from(NAMES), st.integers(1, 6)),
    st.tuples(st.just("damage"), st.sampled_from(NAMES), st.integers(1, 3)),
    st.tuples(st.just("cond"), st.sampled_from(NAMES), st.booleans()),
    st.tuples(st.just("check"), st.sampled_from(NAMES)),
    st.tuples(st.just("session"), st.booleans()),
    st.tuples(st.just("start"), st.lists(st.integers(-3, 12), min_size=4, max_size=4)),
    st.tuples(st.just("next")),
    st.tuples(st.just("undo")),
)


def run(led: Ledger, system: str, o: tuple[Any, ...]) -> None:
    kind = o[0]
    if kind in ("add", "attack", "damage", "cond", "check", "session"):
        base_run(led, system, o)  # the same operations as the every-ruling property test
    elif kind == "start":
        names = [e["name"] for e in led.campaign().domain["roster"].values()]
        led.start_encounter(names, init=dict(zip(names, o[1], strict=False)))
    elif kind == "next":
        led.next_turn()
    else:
        led.undo()


def play(led: Ledger, system: str, ops: list[tuple[Any, ...]]) -> None:
    for o in ops:
        try:
            run(led, system, o)
        except LedgerError:
            pass


def record(plan: Plan) -> tuple[Any, ...]:
    """Everything a committed plan appends (ledger/history/rederive.py commit) and what it showed."""
    changes = [(c.ruling, c.command, c.before, c.after, c.refused, c.dice, c.reads) for c in plan.changes]
    rolls = [(r.name, r.to_data()) for r in plan.rolled]
    return changes, plan.states, plan.kinds, plan.created, rolls, plan.summary()["outcomes"]


def both(led: Ledger, seed: int, target: int) -> tuple[Plan, Plan]:
    """The retraction of `target` planned twice: deciding only what read a change, and deciding every later ruling."""
    camp = led.campaign()
    made = [Rederiver(led.store, seed, camp, target, {}, {}, incremental=inc).plan() for inc in (True, False)]
    return made[0], made[1]


def retract_both_ways(led: Ledger, seed: int, pick: int) -> None:
    """Plan one retraction both ways, check they agree, and commit the incremental one."""
    camp = led.campaign()
    target = 2 + pick % (camp.rulings - 1)
    try:
        validate_target(camp, target)
    except LedgerError:
        return
    inc, every = both(led, seed, target)
    assert record(inc) == record(every)
    assert inc.decided <= every.decided
    led.retract(target, plan=inc)
    assert verify(led.store.recorder)[0] == []


@settings(max_examples=35, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    system=st.sampled_from(["hnh", "d20", "pnp"]),
    first=st.lists(op, min_size=3, max_size=14),
    then=st.lists(op, min_size=0, max_size=8),
    picks=st.tuples(st.integers(0, 1000), st.integers(0, 1000)),
    seed=st.integers(0, 9),
)
def test_deciding_only_what_read_a_change_equals_deciding_every_later_ruling(system, first, then, picks, seed):
    """Two retractions in a row (the second may retract the first): each planned incrementally equals each planned
    by deciding every later ruling, changes, amended records, what they read, new rolls and final states alike."""
    with tempfile.TemporaryDirectory() as tmp:
        led = Ledger(str(Path(tmp) / "a.ledger"), actor="gm", seed=seed)
        try:
            led.init(system)
            led.add_character("Ann", TRAITS[system], pc=True)
            led.add_character("Bob", TRAITS[system], pc=True)
            play(led, system, first)
            retract_both_ways(led, seed, picks[0])
            play(led, system, then)
            retract_both_ways(led, seed, picks[1])
        finally:
            led.close()


def test_only_the_rulings_that_read_the_changed_character_are_decided_again(tmp_path: Path):
    """humans-and-heroes.txt, Health Points: without ruling 4 Ann has 1 HP more in each later ruling on her; the
    rulings on Bob read nothing that changed and keep their outcomes undecided; the plan equals deciding all."""
    led = Ledger(str(tmp_path / "a.ledger"), actor="gm", seed=1)
    try:
        led.init("hnh")
        led.add_character("Ann", {"toughness": "2"}, pc=True)
        led.add_character("Bob", {"toughness": "2"}, pc=True)
        for _ in range(4):
            led.damage("Ann", 1)
            led.damage("Bob", 1)
        inc, every = both(led, 1, 4)  # ruling 4: Ann's first damage; later on Ann: 6, 8, 10
        assert (inc.decided, every.decided) == (3, 7)
        assert record(inc) == record(every) and [c.ruling for c in inc.changes] == [6, 8, 10]
    finally:
        led.close()


@pytest.mark.parametrize("name", sorted(p.name for p in (SHARED / "fixtures" / "ledgers").glob("*.ledger")))
def test_rulings_of_an_older_ledger_without_recorded_reads_are_all_decided_again(tmp_path: Path, name: str):
    """A fixture ledger from before reads were recorded: every later live play ruling is decided again, as before,
    and the plan is the plan deciding every later ruling makes."""
    shutil.copy(SHARED / "fixtures" / "ledgers" / name, tmp_path / name)
    led = Ledger(str(tmp_path / name), actor="gm", seed=1)
    try:
        camp = led.campaign()
        target = next(n for n in range(3, camp.rulings) if not camp.is_dead(n) and n not in camp.meta)
        inc, every = both(led, 1, target)
        assert inc.decided == every.decided > 0
        assert record(inc) == record(every)
    finally:
        led.close()


def test_the_rulings_that_read_a_change_are_found_in_the_database_of_either_kind(db: str):
    """humans-and-heroes.txt, Health Points: without ruling 4 Ann has 1 HP more in each later ruling on her; the
    database finds the chain links that read her (on SQLite and PostgreSQL alike), an undone character add makes no
    later ruling be decided, and the plan equals deciding every later ruling."""
    led = Ledger(db, actor="gm", seed=1)
    try:
        led.init("hnh")
        led.add_character("Ann", {"toughness": "2"}, pc=True)
        led.add_character("Bob", {"toughness": "2"}, pc=True)
        led.damage("Ann", 1)  # ruling 4, the contested one
        led.add_character("Cy", {"toughness": "2"})  # 5, undone by 6: its Cy is in the store, not in the history
        led.undo()
        led.add_character("Cy", {"toughness": "2"})  # 7
        for name in ("Bob", "Ann", "Cy", "Bob", "Ann"):  # 8 to 12
            led.damage(name, 1)
        inc, every = both(led, 1, 4)
        assert [c.ruling for c in inc.changes] == [9, 12] and inc.decided == 2 < every.decided
        assert record(inc) == record(every)
    finally:
        led.close()
