"""`ledger verify`: the hash chain and version sequences catch edited, removed and reordered events (DESIGN.md, The
ruling)."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from ledger.application import Ledger
from ledger.audit.chain import verify
from ledger.storage.target import parse_target
from projections.db import ReadSide


@pytest.fixture
def played(db):
    led = Ledger(db, actor="gm", seed=9)
    led.init("hnh")
    led.add_character("Ann", {"toughness": "3"})
    led.damage("Ann", 2)
    led.condition("Ann", "dazed", add=True)
    led.damage("Ann", 1)
    led.undo()
    yield led
    led.close()


def _events(db):
    read = ReadSide(parse_target(db))
    with read.engine.connect() as conn:
        evs = read.read_events(conn, 0, 10_000)
    return read, evs


def _exec(read, sql, **params):
    with read.engine.begin() as conn:
        conn.execute(text(sql), params)


def test_an_untouched_ledger_verifies(played):
    """DESIGN.md, The ruling: the chain verifies after undo and redo."""
    played.redo()
    problems, counts = verify(played.store.recorder)
    assert problems == [] and counts["rulings"] == 7


def test_an_edited_event_breaks_its_rulings_hash(played, db):
    """DESIGN.md, The ruling: `ledger verify` detects any edited event."""
    read, evs = _events(db)
    dmg = next(e for e in evs if e.type == "DamageApplied")
    new_state = bytes(dmg_state(read, dmg.seq)).replace(b'"amount":2', b'"amount":1')
    _exec(read, f"UPDATE {read.events_table} SET state = :s WHERE {read.id_column} = :i", s=new_state, i=dmg.seq)
    problems, _ = verify(played.store.recorder)
    assert any("hash mismatch" in p.message and p.ruling == dmg.state["ruling"] for p in problems)


def test_a_removed_event_is_detected(played, db):
    """DESIGN.md, The ruling: `ledger verify` detects any removed event."""
    read, evs = _events(db)
    cond = next(e for e in evs if e.type == "ConditionImposed")
    _exec(read, f"DELETE FROM {read.events_table} WHERE {read.id_column} = :i", i=cond.seq)
    problems, _ = verify(played.store.recorder)
    assert any("jumps from version" in p.message for p in problems)
    assert any("hash mismatch" in p.message for p in problems)


def test_reordered_events_are_detected(played, db):
    """DESIGN.md, The ruling: `ledger verify` detects reordered events (states swapped between positions)."""
    read, evs = _events(db)
    a, b = [e for e in evs if e.type == "DamageApplied"][:2]
    sa, sb = dmg_state(read, a.seq), dmg_state(read, b.seq)
    _exec(read, f"UPDATE {read.events_table} SET state = :s WHERE {read.id_column} = :i", s=sb, i=a.seq)
    _exec(read, f"UPDATE {read.events_table} SET state = :s WHERE {read.id_column} = :i", s=sa, i=b.seq)
    problems, _ = verify(played.store.recorder)
    assert len([p for p in problems if "hash mismatch" in p.message]) >= 2


def test_a_removed_whole_ruling_breaks_the_chain(played, db):
    """DESIGN.md, The ruling: each ruling carries the previous one's hash, so removing one is detected."""
    read, evs = _events(db)
    victims = [e.seq for e in evs if e.state.get("ruling") == 3 and e.aggregate != "Character"]
    victims += [e.seq for e in evs if e.type == "RulingChained" and e.state.get("number") == 3]
    for seq in victims:
        _exec(read, f"DELETE FROM {read.events_table} WHERE {read.id_column} = :i", i=seq)
    problems, _ = verify(played.store.recorder)
    assert any("is missing or out of order" in p.message or "chain broken" in p.message for p in problems)


def dmg_state(read, seq):
    with read.engine.connect() as conn:
        return bytes(
            conn.execute(
                text(f"SELECT state FROM {read.events_table} WHERE {read.id_column} = :i"), {"i": seq}
            ).scalar_one()
        )
