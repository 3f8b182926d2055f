"""Undo exactness as a property: undoing the last ruling equals the same history without it (DESIGN.md, The ruling:
Exactness)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.application import Ledger
from ledger.errors import LedgerError
from ledger.storage.target import parse_target
from projections import queries
from projections.db import ReadSide
from projections.views import catch_up

NAMES = ["Ann", "Bob", "Cy"]
CONDITIONS = {"hnh": ["dazed", "prone", "vulnerable"], "d20": ["prone", "flat-footed"], "pnp": ["stunned", "prone"]}
TRAITS = {
    "hnh": {"toughness": "3"},
    "d20": {"hp": "9", "dex": "12"},
    "pnp": {"toughness": "3", "might": "2", "willpower": "4"},
}

op = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(NAMES), st.booleans()),
    st.tuples(st.just("damage"), st.sampled_from(NAMES), st.integers(0, 9), st.booleans()),
    st.tuples(st.just("cond+"), st.sampled_from(NAMES), st.integers(0, 2)),
    st.tuples(st.just("cond-"), st.sampled_from(NAMES), st.integers(0, 2)),
    st.tuples(st.just("session"), st.booleans()),
    st.tuples(st.just("roll"), st.sampled_from(NAMES)),
)


def run(led: Ledger, system: str, o: tuple) -> None:  # type: ignore[type-arg]
    """Apply one generated operation (it may be refused: then nothing was appended)."""
    kind = o[0]
    if kind == "add":
        led.add_character(
            o[1], TRAITS[system], minion=o[2] and system != "d20", count=3 if o[2] and system == "pnp" else 1
        )
    elif kind == "damage":
        led.damage(o[1], o[2], subdual=o[3] and system == "d20")
    elif kind in ("cond+", "cond-"):
        conds = CONDITIONS[system]
        led.condition(o[1], conds[o[2] % len(conds)], add=kind == "cond+")
    elif kind == "session":
        led.start_session() if o[1] else led.end_session()
    else:
        led.roll("1d20", for_name=o[1])


def state(led: Ledger, db: str) -> tuple:  # type: ignore[type-arg]
    """Everything a GM can see: write-side sheets, campaign roster and sessions, and the read-side sheets."""
    camp = led.campaign()
    sheets = {}
    for key, entry in camp.domain["roster"].items():
        sheets[key] = led.sheet(entry["name"]).to_dict()
    sessions = [(s["number"], s["title"], "ended" in s) for s in camp.domain["sessions"]]
    read = ReadSide(parse_target(db))
    catch_up(read)
    views = queries.characters(read)
    read.close()
    return sheets, sessions, camp.open_session, views


def assert_refold_agrees(led: Ledger) -> None:
    """The fast restore (from the state before the ruling) equals the full refold of every live event (DESIGN.md,
    Exactness)."""
    from uuid import UUID

    from ledger.aggregates import ruling_id

    camp = led.campaign()
    target = led.store.repository.get(ruling_id(int(max(camp.dead, key=int))))  # the ruling just undone
    dead, amendments = camp.dead_set(), led.store.amendments(camp)
    for hex_id in target.touched:
        aid = UUID(hex_id)
        agg = camp if hex_id == camp.id.hex else led.store.repository.get(aid)
        mine = {n: [r for r in recs if r["aggregate"] == hex_id] for n, recs in amendments.items()}
        _, fields = type(agg).restoration(list(led.store.events.get(aid)), dead, mine)
        assert fields == agg.restorable()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(system=st.sampled_from(["hnh", "d20", "pnp"]), ops=st.lists(op, min_size=1, max_size=14))
def test_undoing_the_last_ruling_equals_the_history_without_it(system, ops):
    """DESIGN.md, Exactness: the state after undoing ruling R equals the state of the same history without R."""
    with tempfile.TemporaryDirectory() as tmp:
        a_db, b_db = str(Path(tmp) / "a.ledger"), str(Path(tmp) / "b.ledger")
        a = Ledger(a_db, actor="gm", seed=5)
        a.init(system)
        done = []
        for o in ops:
            try:
                run(a, system, o)
                done.append(o)
            except LedgerError:
                pass
        b = Ledger(b_db, actor="gm", seed=5)
        b.init(system)
        for o in done[:-1]:
            run(b, system, o)
        before = state(a, a_db)
        if done:
            a.undo()
            assert_refold_agrees(a)
        try:
            assert state(a, a_db) == state(b, b_db)
            if done:  # DESIGN.md, The ruling: redo restores the latest undone one
                a.redo()
                assert state(a, a_db) == before
        finally:
            a.close()
            b.close()
