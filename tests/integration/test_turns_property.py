"""Turns under retraction (CLI.md, Additions agreed in the second round: `encounter next`; DESIGN.md, The ruling): with
encounters whose turns pass over the dead and defeated, participants removed and initiative set by hand, retracting any
ruling equals a fresh ledger fed the same intents and dice without it, encounter included."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.application import Ledger
from ledger.audit.chain import verify
from ledger.errors import LedgerError
from tests.integration.test_retract_property import NAMES, TRAITS, replay_without, state

op = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(NAMES)),
    st.tuples(st.just("damage"), st.sampled_from(NAMES), st.integers(1, 12)),
    st.tuples(st.just("start"), st.lists(st.integers(-3, 12), min_size=3, max_size=3)),
    st.tuples(st.just("next")),
    st.tuples(st.just("next")),
    st.tuples(st.just("delay")),
    st.tuples(st.just("remove"), st.sampled_from(NAMES)),
    st.tuples(st.just("end")),
)


def run(led: Ledger, system: str, o: tuple[Any, ...]) -> None:
    kind = o[0]
    if kind == "add":
        led.add_character(o[1], TRAITS[system], pc=True)
    elif kind == "damage":
        led.damage(o[1], o[2])
    elif kind == "start":
        names = [e["name"] for e in led.campaign().domain["roster"].values()]
        led.start_encounter(names, init=dict(zip(names, o[1], strict=False)))  # more values drawn than names at times
    elif kind == "next":
        led.next_turn()
    elif kind == "delay":
        led.delay_turn()
    elif kind == "remove":
        led.remove_from_encounter(o[1])
    else:
        led.end_encounter()


def encounter(led: Ledger) -> dict[str, Any] | None:
    try:
        return led.encounter()
    except LedgerError:
        return None


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    system=st.sampled_from(["hnh", "d20", "pnp"]),
    ops=st.lists(op, min_size=4, max_size=14),
    pick=st.integers(0, 1000),
    seed=st.integers(0, 9),
)
def test_retracting_a_ruling_among_turns_equals_a_fresh_ledger_without_it(
    system: str, ops: list[tuple[Any, ...]], pick: int, seed: int
) -> None:
    """DESIGN.md, The ruling: the unit of play, of audit and of undo (undo and retraction refold): who is passed over is
    decided again from the re-derived world."""
    with tempfile.TemporaryDirectory() as tmp:
        a_db, b_db = str(Path(tmp) / "a.ledger"), str(Path(tmp) / "b.ledger")
        a = Ledger(a_db, actor="gm", seed=seed)
        a.init(system)
        a.add_character("Ann", TRAITS[system], pc=True)
        for o in ops:
            try:
                run(a, system, o)
            except LedgerError:
                pass
        last = a.campaign().rulings
        target = 2 + pick % (last - 1)
        plan = a.plan_retraction(target)
        a.retract(target, fixed={r.name: r for r in plan.rolled})
        assert verify(a.store.recorder)[0] == []
        new_rolls: dict[int, dict[str, str]] = {}
        for r in plan.rolled:
            n, name = r.name.split(".", 1)
            new_rolls.setdefault(int(n), {})[name] = ",".join(str(f) for f in r.faces)
        b = Ledger(b_db, actor="gm", seed=seed)
        b.init(system)
        replay_without(a, b, target, new_rolls)
        try:
            assert state(a, a_db) == state(b, b_db)
            assert encounter(a) == encounter(b)
        finally:
            a.close()
            b.close()
