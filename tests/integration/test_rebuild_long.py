"""Rebuild equality on a long generated campaign: `ledger rebuild` gives exactly what incremental updates gave
(DESIGN.md, Layout)."""

from __future__ import annotations

import random

import pytest
from sqlalchemy import select

from ledger.application import Ledger
from ledger.errors import LedgerError
from ledger.storage.target import parse_target
from projections import views
from projections.db import VIEW_TABLES, ReadSide
from projections.views import catch_up, rebuild

CAST = {"hnh": ["Ann", "Bob", "Cy"], "d20": ["Rex", "Vex", "Max"], "pnp": ["Mara", "Gunsel", "Ivy"]}
TRAITS = {
    "hnh": {"agility": "2", "toughness": "2"},
    "d20": {"dex": "12", "hp": "14"},
    "pnp": {"perception": "2", "agility": "3", "toughness": "3"},
}


def dump(read: ReadSide) -> dict[str, list[tuple]]:
    with read.engine.connect() as conn:
        return {
            t.name: [tuple(r) for r in conn.execute(select(t).order_by(*t.primary_key.columns)).all()]
            for t in VIEW_TABLES
        }


def play(led: Ledger, read: ReadSide, system: str, steps: int, seed: int) -> None:
    """Sessions, encounters turn by turn, damage, conditions, undo and redo; the views caught up after every command."""
    rng = random.Random(seed)
    cast = CAST[system]
    led.init(system)
    for n in cast:
        led.add_character(n, TRAITS[system], pc=True)
    group = system != "d20"  # d20 Supers has no minion groups (docs/interpretations.md, d20 Supers, Minions)
    led.add_character("Mooks", {"threat": "1"} if system == "pnp" else {}, minion=group, count=6 if group else 1)

    def do(fn, *args, **kw) -> None:
        try:
            fn(*args, **kw)
        except LedgerError:
            pass
        catch_up(read)

    do(led.start_session, "One")
    for i in range(steps):
        if i % 25 == 0:
            do(led.end_encounter)
            do(led.start_encounter, [*rng.sample(cast, 2), "Mooks"], surprised=["Mooks"] if system == "hnh" else [])
        r = rng.random()
        who = rng.choice(cast)
        if r < 0.25:
            do(led.damage, who, rng.randint(0, 3))
        elif r < 0.35:
            do(led.condition, who, {"hnh": "dazed", "d20": "prone", "pnp": "stunned"}[system], add=rng.random() < 0.6)
        elif r < 0.45:
            do(led.undo)
        elif r < 0.5:
            do(led.redo)
        elif r < 0.55:
            do(led.join_encounter, who)
        elif r < 0.6:
            do(led.delay_turn)
        elif r < 0.65:
            do(led.roll, "1d20" if system == "d20" else "3dF", for_name=who)
        else:
            do(led.next_turn)
        if i == steps // 2:
            do(led.end_session)
            do(led.start_session, "Two")


@pytest.mark.parametrize("system", ["hnh", "d20", "pnp"])
def test_rebuild_equals_incremental_updates_on_a_long_campaign(db: str, system: str, monkeypatch: pytest.MonkeyPatch):
    """DESIGN.md, Layout: projections incremental and rebuildable from zero, so a rebuild equals the incremental
    views."""
    led = Ledger(db, actor="gm", seed=17)
    read = ReadSide(parse_target(db))
    play(led, read, system, 120, seed=5)
    incremental = dump(read)
    assert len(incremental["ledger_encounter_log"]) > 40 and len(incremental["ledger_sessions"]) == 2
    rebuild(read)
    assert dump(read) == incremental
    monkeypatch.setattr(views, "BATCH", 7)  # batches smaller than most rulings: whole rulings are still folded together
    rebuild(read)
    assert dump(read) == incremental
    read.close()
    led.close()
