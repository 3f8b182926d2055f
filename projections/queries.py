"""Reading the views: sheets, the roster, the log and HP timelines."""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, select

from ledger.errors import NotFound
from ledger.rules import get_rules
from ledger.sheet import Sheet
from projections.db import ReadSide, hp_timeline, log, rulings, sheets


def sheet_json(row: Any) -> dict[str, Any]:
    """The `character show` document for a sheet row."""
    sheet = Sheet.from_dict(row["sheet"])
    d = sheet.to_dict()
    out: dict[str, Any] = {
        "name": d["name"],
        "system": d["system"],
        "hp": d["hp"],
        "max_hp": d["max_hp"],
        "conditions": sorted(d["conditions"]),
        "traits": d["traits"],
        "resources": d["resources"],
        "counters": d["counters"],
        "minion": d["minion"],
        "pc": d["pc"],
    }
    if d["minion"]:
        out["count"] = d["count"]
    if d["powers"]:
        out["powers"] = d["powers"]
    out.update(get_rules(d["system"]).derived(sheet))
    return out


def character(read: ReadSide, name: str) -> dict[str, Any]:
    """One live character's sheet, by name (case-insensitive)."""
    with read.engine.connect() as conn:
        row = (
            conn.execute(select(sheets).where(and_(sheets.c.key == name.strip().casefold(), sheets.c.active)))
            .mappings()
            .first()
        )
    if row is None:
        raise NotFound(f"no character called '{name}'", "see: ledger character list")
    return sheet_json(row)


def characters(read: ReadSide) -> list[dict[str, Any]]:
    """Every live character, in the order they were added."""
    with read.engine.connect() as conn:
        rows = conn.execute(select(sheets).where(sheets.c.active).order_by(sheets.c.added)).mappings().all()
    return [sheet_json(r) for r in rows]


def events(
    read: ReadSide, *, session: int | None = None, character_name: str | None = None, everything: bool = False
) -> list[dict[str, Any]]:
    """The event log, in order, each with its ruling's actor, session and retraction."""
    q = (
        select(log, rulings.c.actor, rulings.c.session, rulings.c.retracted_by, rulings.c.retracted_actor, rulings.c.retracted_at, rulings.c.kind)
        .join(rulings, rulings.c.number == log.c.ruling, isouter=True)
        .order_by(log.c.seq)
    )
    if not everything:
        q = q.where(log.c.bookkeeping.is_(False))
    if session is not None:
        q = q.where(rulings.c.session == session)
    if character_name is not None:
        q = q.where(log.c.character == _canonical_name(read, character_name))
    with read.engine.connect() as conn:
        rows = conn.execute(q).mappings().all()
    out = []
    for r in rows:
        retracted = None
        if r["retracted_by"] is not None:
            retracted = {"by": r["retracted_by"], "actor": r["retracted_actor"], "at": r["retracted_at"]}
        out.append(
            {
                "seq": r["seq"],
                "ruling": r["ruling"],
                "type": r["type"],
                "character": r["character"],
                "data": r["data"],
                "actor": r["actor"],
                "session": r["session"],
                "at": r["at"],
                "retracted": retracted,
            }
        )
    return out


def _canonical_name(read: ReadSide, name: str) -> str:
    with read.engine.connect() as conn:
        row = conn.execute(
            select(sheets.c.name).where(sheets.c.key == name.strip().casefold()).order_by(sheets.c.added.desc())
        ).first()
    if row is None:
        raise NotFound(f"no character called '{name}'", "see: ledger character list")
    return str(row[0])


def timeline(read: ReadSide, name: str) -> list[dict[str, Any]]:
    """Every HP change of a live character: ruling, HP and time, in order, as the history without undone rulings."""
    with read.engine.connect() as conn:
        row = conn.execute(
            select(sheets.c.character_id).where(and_(sheets.c.key == name.strip().casefold(), sheets.c.active))
        ).first()
        if row is None:
            raise NotFound(f"no character called '{name}'", "see: ledger character list")
        points = conn.execute(
            select(hp_timeline.c.ruling, hp_timeline.c.hp, hp_timeline.c.max_hp, hp_timeline.c.at, rulings.c.retracted_by, rulings.c.kind)
            .join(rulings, rulings.c.number == hp_timeline.c.ruling, isouter=True)
            .where(hp_timeline.c.character_id == row[0])
            .order_by(hp_timeline.c.seq)
        ).all()
    return [{"ruling": p[0], "hp": p[1], "max_hp": p[2], "at": p[3]} for p in points if p[4] is None and p[5] not in ("undo", "redo")]


def ruling_rows(read: ReadSide) -> list[dict[str, Any]]:
    """Every ruling's envelope, in order."""
    with read.engine.connect() as conn:
        return [dict(r) for r in conn.execute(select(rulings).order_by(rulings.c.number)).mappings().all()]
