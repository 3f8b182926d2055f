"""Read models: incremental updates equal a rebuild from zero (DESIGN.md, Layout: projections rebuildable from zero)."""

from __future__ import annotations

from sqlalchemy import select

from ledger.application import Ledger
from ledger.storage.target import parse_target
from projections import queries
from projections.db import VIEW_TABLES, ReadSide
from projections.views import catch_up, rebuild


def dump(read):
    with read.engine.connect() as conn:
        return {
            t.name: [tuple(r) for r in conn.execute(select(t).order_by(*t.primary_key.columns)).all()]
            for t in VIEW_TABLES
        }


def test_rebuild_gives_exactly_what_the_incremental_updates_gave(db):
    """DESIGN.md, Storage and scale: `ledger rebuild` rebuilds them from the log with identical results (a retraction's
    amended outcomes and retracted ruling included)."""
    led = Ledger(db, actor="gm", seed=11)
    read = ReadSide(parse_target(db))
    led.init("d20")
    for i, name in enumerate(["Ann", "Bob", "Cy", "Dee"]):
        led.add_character(name, {"hp": str(8 + i)})
        catch_up(read)  # incrementally, after every command, as the CLI does
    led.start_session("one")
    for i in range(40):
        name = ["Ann", "Bob", "Cy", "Dee"][i % 4]
        led.damage(name, i % 5, subdual=i % 3 == 0)
        if i % 7 == 0:
            led.undo()
        if i % 11 == 0:
            led.roll("1d20+1", for_name=name)
        catch_up(read)
    led.retract(10)  # Bob's first damage retracted: amended outcomes, a retracted ruling, restored states
    catch_up(read)
    led.damage("Ann", 1)
    led.end_session()
    catch_up(read)
    incremental = dump(read)
    assert incremental["ledger_amendments"] and any(r[9] for r in incremental["ledger_rulings"])
    rebuild(read)
    assert dump(read) == incremental
    with read.engine.connect() as conn:
        total = read.max_seq(conn)
    everything = queries.events(read, everything=True)  # the bookkeeping events come from the event log itself
    assert [e["seq"] for e in everything] == list(range(1, total + 1)) and total > 200
    assert len(incremental["ledger_log"]) == len(queries.events(read)) > 100
    read.close()
    led.close()


def test_catch_up_is_idempotent_and_resumable(db):
    """DESIGN.md, Facts: write view rows and tracking in one transaction: idempotent and resumable."""
    led = Ledger(db, actor="gm")
    led.init("pnp")
    led.add_character("Mara", {"toughness": "3", "might": "3"})
    read = ReadSide(parse_target(db))
    assert catch_up(read) > 0
    assert catch_up(read) == 0
    led.damage("Mara", 1)
    assert catch_up(read) > 0
    read.close()
    led.close()
