"""The tracker: the running encounter as a GM's screen and the players' page show it, read from the views.

One query (`tracker`) answers `ledger encounter show` and `ledger serve`: the round (or P&P page), who is up,
and each participant in turn order with initiative, HP (Health in P&P), conditions, marks and minion counts.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from ledger.errors import NotFound
from ledger.model.sheet import Sheet
from ledger.rules import get_rules, round_word
from ledger.words.summary import from_log
from ledger.words.tracker import row, table
from projections.db import ReadSide, encounters, sheets
from projections.queries import campaign_settings, encounter_log

NO_ENCOUNTER = ("no encounter is running", "start one: ledger encounter start NAME...")


def tracker(read: ReadSide, *, required: bool = True) -> dict[str, Any] | None:
    """The running encounter: number, system, round, who is up, and the order with each one's standing.

    With `required=False`, None when no encounter runs (the players' page shows the roster instead).
    """
    with read.engine.connect() as conn:
        enc = conn.execute(select(encounters).order_by(encounters.c.number.desc()).limit(1)).mappings().first()
        if enc is None or not enc["active"]:
            if required:
                raise NotFound(*NO_ENCOUNTER)
            return None
        ids = [e.get("id") for e in enc["order"] if e.get("id")]
        found = conn.execute(select(sheets.c.character_id, sheets.c.sheet).where(sheets.c.character_id.in_(ids))).all()
        settings = campaign_settings(conn)
    # lazy: the options' declarations (6 ms), only while an encounter runs
    from ledger.rules.options import passes_over

    by_id = {cid: sheet for cid, sheet in found}
    order = [row(e, by_id.get(e.get("id", "")), enc["current"]) for e in enc["order"]]
    return {
        "encounter": enc["number"],
        "system": enc["system"],
        "round_word": round_word(enc["system"]),
        "round": enc["round"],
        "current": enc["current"],
        "next": up_next(enc["system"], enc["order"], by_id, enc["current"], idle=passes_over(settings)),
        "order": order,
    }


def up_next(
    system: str, order: list[dict[str, Any]], by_id: dict[str, Any], current: str | None, *, idle: bool = True
) -> str | None:
    """Who `encounter next` gives the turn to after `current`, as far as the sheets tell now: the next in the order
    the rules still give a turn (`RuleSystem.takes_turn` and `no_turn`, as the turn's decider passes over) and, with
    `idle` (`init -o pass-over=no-action`, the default), something to do in it (`nothing_to_do`); a hazard's slot
    takes its turn; None when no one else has one."""
    names = [e["name"] for e in order]
    if current not in names:
        return None
    rules = get_rules(system)
    at = names.index(current)
    for k in range(1, len(order)):
        e = order[(at + k) % len(order)]
        if e.get("hazard"):
            return str(e["name"])
        sheet = by_id.get(e.get("id", ""))
        if sheet is None:
            continue
        s = Sheet.from_dict(sheet)
        if rules.takes_turn(s) and rules.no_turn(s) is None and not (idle and rules.nothing_to_do(s)):
            return str(e["name"])
    return None


def idle(read: ReadSide) -> dict[str, Any]:
    """No encounter running: `{"running": false, "last": the last encounter's summary or None}`."""
    with read.engine.connect() as conn:
        any_ = conn.execute(select(encounters.c.number).limit(1)).first()
    return {"running": False, "last": from_log(encounter_log(read)) if any_ is not None else None}


def text(v: dict[str, Any]) -> str:
    """The tracker as a compact aligned table, the screen a GM keeps open (ledger/words/tracker.py)."""
    return table(v)
