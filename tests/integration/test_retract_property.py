"""Retraction exactness as a property (DESIGN.md, The ruling): after retracting N, every aggregate
and read model equals a fresh ledger fed the same intents and dice without N."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ledger.aggregates import ruling_id
from ledger.application import Ledger
from ledger.audit.chain import verify
from ledger.catalog import STORED
from ledger.errors import LedgerError
from ledger.storage.target import parse_target
from projections import queries
from projections.db import ReadSide
from projections.views import catch_up

NAMES = ["Ann", "Bob", "Cy"]
TRAITS = {
    "hnh": {"fighting": "4", "parry": "3", "dodge": "3", "toughness": "2", "fortitude": "2", "awareness": "2"},
    "d20": {"hp": "9", "dex": "12", "str": "13", "attack": "2"},
    "pnp": {"toughness": "3", "might": "3", "willpower": "2", "agility": "3", "perception": "2"},
}
ATTACK = {"hnh": {"rank": 4, "bonus": 4}, "d20": {"damage": "1d6"}, "pnp": {"with": "might"}}
CONDITION = {"hnh": "prone", "d20": "prone", "pnp": "prone"}
CHECK = {"hnh": ("awareness", 8), "d20": ("dex", 12), "pnp": ("agility", 2)}

op = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(NAMES)),
    st.tuples(st.just("attack"), st.sampled_from(NAMES), st.sampled_from(NAMES)),
    st.tuples(st.just("damage"), st.sampled_from(NAMES), st.integers(1, 6)),
    st.tuples(st.just("cond"), st.sampled_from(NAMES), st.booleans()),
    st.tuples(st.just("check"), st.sampled_from(NAMES)),
    st.tuples(st.just("session"), st.booleans()),
)


def run(led: Ledger, system: str, o: tuple) -> None:  # type: ignore[type-arg]
    kind = o[0]
    if kind == "add":
        led.add_character(o[1], TRAITS[system], pc=True)
    elif kind == "attack":
        led.attack(o[1], o[2], ATTACK[system])
    elif kind == "damage":
        led.damage(o[1], o[2])
    elif kind == "cond":
        led.condition(o[1], CONDITION[system], add=o[2])
    elif kind == "check":
        trait, dc = CHECK[system]
        led.check(o[1], trait, dc=dc if system != "pnp" else None, options={"threshold": dc} if system == "pnp" else {})
    else:
        led.start_session() if o[1] else led.end_session()


def faces_text(data: dict) -> str:
    return ",".join(str(f) for f in data["faces"])


def replay_without(source: Ledger, fresh: Ledger, target: int, new_rolls: dict[int, dict[str, str]]) -> None:
    """Feed `fresh` every live play ruling of `source` but `target`, with the same intents and dice."""
    camp = source.campaign()
    for n in range(2, camp.rulings + 1):
        if n == target or camp.is_dead(n):
            continue
        r = source.store.repository.get(ruling_id(n))
        if r.kind != "play":
            continue
        rolls = {name: faces_text(d) for name, d in r.dice.items()}
        rolls.update(new_rolls.get(n, {}))
        try:
            fresh.rule(STORED[r.command], dict(r.intent), rolls=rolls)
        except LedgerError:
            pass  # refused without the retracted ruling, as the re-derivation found too


def state(led: Ledger, db: str) -> tuple:  # type: ignore[type-arg]
    camp = led.campaign()
    sheets = {k: led.sheet(e["name"]).to_dict() for k, e in camp.domain["roster"].items()}
    sessions = [(s["number"], s["title"], "ended" in s) for s in camp.domain["sessions"]]
    read = ReadSide(parse_target(db))
    catch_up(read)
    views = queries.characters(read)
    hp = {c["name"]: [p["hp"] for p in queries.timeline(read, c["name"])] for c in views}
    read.close()
    return sheets, sessions, camp.open_session, views, hp


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    system=st.sampled_from(["hnh", "d20", "pnp"]),
    ops=st.lists(op, min_size=3, max_size=12),
    pick=st.integers(0, 1000),
    seed=st.integers(0, 9),
)
@example(
    system="pnp", ops=[("session", True), ("add", "Bob"), ("session", False), ("session", True)], pick=0, seed=0
)  # the GM's pool first made by a later ruling once the only hero is retracted
def test_retracting_a_ruling_equals_a_fresh_ledger_without_it(system, ops, pick, seed):
    """DESIGN.md, The ruling: the unit of play, of audit and of undo (undo and retraction refold): prove it with a
    property test over random campaigns in all three systems."""
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
        assert verify(a.store.recorder)[0] == []  # DESIGN.md, The ruling: the chain verifies after retractions
        new_rolls: dict[int, dict[str, str]] = {}
        for r in plan.rolled:
            n, name = r.name.split(".", 1)
            new_rolls.setdefault(int(n), {})[name] = ",".join(str(f) for f in r.faces)
        b = Ledger(b_db, actor="gm", seed=seed)
        b.init(system)
        replay_without(a, b, target, new_rolls)
        try:
            sa, sb = state(a, a_db), state(b, b_db)
            assert sa[:4] == sb[:4]
            assert sa[4] == sb[4]
        finally:
            a.close()
            b.close()
