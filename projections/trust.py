"""Read models checked before they are shown: what they say of rulings, retractions, sessions and sheets is compared
with the write side's aggregates (folded from the log, snapshots checked); where they differ or don't parse, the
reader answers from a fresh fold of the log instead (`fold_from_log`), never from the edited rows.

The write side here is what `WriteSide` names (ledger.application.Ledger and ledger.storage.store.LogReader have it):
projections/ never imports the application.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sqlite3
import tempfile
from typing import TYPE_CHECKING, Any, Protocol
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError

from ledger.aggregates import Character
from ledger.encounter import ENCOUNTER_ID, Encounter
from ledger.storage.target import Target
from projections.db import ReadSide, encounters, private_copy, rulings, sessions, sheets
from projections.fold import order_spent
from projections.views import rebuild

if TYPE_CHECKING:
    from ledger.aggregates import Campaign
    from ledger.storage.store import EventStore


class WriteSide(Protocol):
    """What the check reads of the write side: the campaign aggregate and the store its aggregates load from."""

    @property
    def store(self) -> EventStore: ...

    def campaign(self) -> Campaign: ...


def mismatch(read: ReadSide, ledger: WriteSide) -> str | None:
    """The first thing the read models say that the log does not (None when they agree), in a few words.

    Only what costs little whatever the history's length: the rulings' count and who retracted which, the sessions,
    every live sheet (its character's aggregate, from its checked snapshot) and the running encounter. What a reader
    shows of the log, the HP timelines, the encounters' logs and retractions is checked by the reader, row by row
    against the events it is made from (projections/shown.py).
    """
    campaign = ledger.campaign()
    try:
        with read.reading() as conn:
            top = conn.execute(select(func.max(rulings.c.number))).scalar()
            count = conn.execute(select(func.count()).select_from(rulings)).scalar()
            killed = {
                int(n): by
                for n, by in conn.execute(
                    select(rulings.c.number, rulings.c.retracted_by).where(rulings.c.retracted_by.is_not(None))
                ).all()
            }
            session_rows = conn.execute(select(sessions).order_by(sessions.c.number)).mappings().all()
            sheet_rows = conn.execute(select(sheets).where(sheets.c.active)).mappings().all()
            latest = conn.execute(select(encounters).order_by(encounters.c.number.desc()).limit(1)).mappings().first()
    except (SQLAlchemyError, ValueError, TypeError) as e:  # a JSON column that doesn't parse, a dropped table
        return f"a row can't be read ({type(e).__name__})"
    if (top or 0) != campaign.rulings or count != campaign.rulings:
        return f"ledger_rulings holds {count} rulings, the log {campaign.rulings}"
    if killed != {int(n): k for n, k in campaign.dead.items()}:
        return "ledger_rulings.retracted_by differs from the log"
    want = [(s["number"], s["title"], s["started"], s.get("ended")) for s in campaign.domain["sessions"]]
    have = [(s["number"], s["title"], s["started"], s["ended"]) for s in session_rows]
    if have != want:
        return "ledger_sessions differs from the log"
    roster = {str(e["id"]).replace("-", ""): e["name"] for e in campaign.domain["roster"].values()}
    if {r["character_id"] for r in sheet_rows} != set(roster):
        return "ledger_sheets lists other characters than the log"
    for row in sheet_rows:
        if not isinstance(row["sheet"], dict):
            return f"ledger_sheets: the sheet of {row['name']!r} doesn't parse"
        character: Character = ledger.store.repository.get(UUID(row["character_id"]))
        sheet = character.sheet
        if (
            row["sheet"] != sheet
            or row["name"] != sheet.get("name")
            or (row["hp"], row["max_hp"]) != (sheet.get("hp"), sheet.get("max_hp"))
        ):
            return f"ledger_sheets: the sheet of {sheet.get('name')!r} differs from the log"
    return _encounter(latest, ledger)


def _encounter(row: Any, ledger: WriteSide) -> str | None:
    """The newest encounter row against the Encounter aggregate (its snapshot checked): number, round, turn, order."""
    try:
        encounter: Encounter = ledger.store.repository.get(ENCOUNTER_ID)
        state = encounter.state
    except AggregateNotFoundError:
        return None if row is None else "ledger_encounters lists an encounter the log has not"
    if not state.get("number"):
        return None if row is None else "ledger_encounters differs from the log"
    order = state.get("order") or []
    current = order[state["turn"]]["name"] if order else None
    want = (state["number"], state["system"], state["started"], state["ended"], bool(state["active"]))
    if row is None or (row["number"], row["system"], row["started"], row["ended"], bool(row["active"])) != want:
        return "ledger_encounters differs from the log"
    if (row["round"], row["current"], row["order"]) != (state["round"], current, order_spent(state)):
        return "ledger_encounters differs from the log"
    return None


def fold_from_log(target: Target) -> ReadSide:
    """Fresh read models folded from the log alone, in a private SQLite file (removed at exit): a copy of a SQLite
    ledger, or the events of a PostgreSQL one."""
    if target.kind == "sqlite":
        copy = private_copy(target)
    else:
        folder = tempfile.mkdtemp(prefix="ledger-fold-")
        atexit.register(shutil.rmtree, folder, True)
        copy = Target("sqlite", path=os.path.join(folder, "fold.ledger"))
        _copy_postgres_log(target, copy.path)
    read = ReadSide(copy)
    read.ensure_tables()
    rebuild(read)
    read.trusted = True
    _ = sqlite3  # the copy is a plain SQLite file
    return read


def _copy_postgres_log(target: Target, path: str) -> None:
    """The PostgreSQL log's events into a SQLite file laid out as the SQLite store's (positions kept as rowids)."""
    dst = sqlite3.connect(path)
    try:
        dst.execute(
            "CREATE TABLE stored_events (originator_id TEXT, originator_version INTEGER, topic TEXT, state BLOB, "
            "PRIMARY KEY (originator_id, originator_version))"
        )
        with target.pg_connect(autocommit=False) as conn:
            cur = conn.execute(
                "SELECT notification_id, originator_id, originator_version, topic, state FROM ledger_events "
                "ORDER BY notification_id"
            )
            while batch := cur.fetchmany(5000):
                dst.executemany(
                    "INSERT INTO stored_events (rowid, originator_id, originator_version, topic, state) "
                    "VALUES (?, ?, ?, ?, ?)",
                    [(n, UUID(str(o)).hex, v, t, bytes(s)) for n, o, v, t, s in batch],
                )
        dst.commit()
    finally:
        dst.close()
