"""The tracker: the running encounter as a GM's screen and the players' page show it, read from the views.

One query (`tracker`) answers `ledger encounter show` and `ledger serve`: the round (or P&P page), who is up,
and each participant in turn order with initiative, HP (Health in P&P), conditions, marks and minion counts.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from ledger.errors import NotFound
from ledger.model.sheet import Sheet
from ledger.rules import get_rules, health_word, round_word
from ledger.rules.durations import left
from ledger.rules.durations import shown as durations_shown
from ledger.words.describe import possessive
from ledger.words.summary import from_log
from projections.db import ReadSide, encounters, sheets
from projections.queries import encounter_log

# Conditions that say a participant is out of the fight or close to it, worst first: shown as marks.
MARKS = ("dead", "dying", "stabilized", "defeated", "unconscious", "disabled", "incapacitated")
NO_ENCOUNTER = ("no encounter is running", "start one: ledger encounter start NAME...")


def marks_of(sheet: dict[str, Any], delayed: bool = False) -> list[str]:
    """The marks of one participant: out-of-the-fight conditions, a wiped-out minion group, delaying."""
    conditions = set(sheet.get("conditions") or ())
    out = [m for m in MARKS if m in conditions]
    if sheet.get("minion") and int(sheet.get("count", 1)) <= 0 and "defeated" not in out:
        out.append("defeated")
    if delayed:
        out.append("delaying")
    return out


def row(entry: dict[str, Any], sheet: dict[str, Any] | None, current: str | None) -> dict[str, Any]:
    """One participant of the order with their sheet's standing."""
    s = sheet or {}
    delayed = bool(entry.get("delayed"))
    out: dict[str, Any] = {
        "name": entry["name"],
        "initiative": entry["initiative"],
        "delayed": delayed,
        "up": entry["name"] == current,
        "hp": s.get("hp"),
        "max_hp": s.get("max_hp"),
        "conditions": sorted(s.get("conditions") or ()),
        "left": left(s),
        "marks": marks_of(s, delayed),
        "pc": bool(s.get("pc")),
        "minion": bool(s.get("minion")),
    }
    if s.get("minion"):  # a group whose last member is dead (H&H) has none left
        out["count"] = 0 if "dead" in out["conditions"] else int(s.get("count", 1))
    return out


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
    by_id = {cid: sheet for cid, sheet in found}
    order = [row(e, by_id.get(e.get("id", "")), enc["current"]) for e in enc["order"]]
    return {
        "encounter": enc["number"],
        "system": enc["system"],
        "round_word": round_word(enc["system"]),
        "round": enc["round"],
        "current": enc["current"],
        "next": up_next(enc["system"], enc["order"], by_id, enc["current"]),
        "order": order,
    }


def up_next(system: str, order: list[dict[str, Any]], by_id: dict[str, Any], current: str | None) -> str | None:
    """Who `encounter next` gives the turn to after `current`, as far as the sheets tell now: the next in the order
    the rules still give a turn (`RuleSystem.takes_turn` and `no_turn`, as the turn's decider passes over), or None
    when no one else has one."""
    names = [e["name"] for e in order]
    if current not in names:
        return None
    rules = get_rules(system)
    at = names.index(current)
    for k in range(1, len(order)):
        e = order[(at + k) % len(order)]
        sheet = by_id.get(e.get("id", ""))
        if sheet is None:
            continue
        s = Sheet.from_dict(sheet)
        if rules.takes_turn(s) and rules.no_turn(s) is None:
            return str(e["name"])
    return None


def idle(read: ReadSide) -> dict[str, Any]:
    """No encounter running: `{"running": false, "last": the last encounter's summary or None}`."""
    with read.engine.connect() as conn:
        any_ = conn.execute(select(encounters.c.number).limit(1)).first()
    return {"running": False, "last": from_log(encounter_log(read)) if any_ is not None else None}


def text(v: dict[str, Any]) -> str:
    """The tracker as a compact aligned table, the screen a GM keeps open."""
    word = round_word(v["system"])
    head = f"encounter {v['encounter']} ({v['system']}), {word} {v['round']}: {possessive(str(v['current']))} turn"
    hp_label = health_word(v["system"]).lower()
    rows = []
    for e in v["order"]:
        name = e["name"] + (f" x{e['count']}" if "count" in e else "")
        hp = "" if e["hp"] is None else f"{e['hp']}/{e['max_hp']}"
        timed = e.get("left") or {}
        shown = [m.upper() for m in e["marks"]] + durations_shown(e["conditions"], timed, e["marks"])
        rows.append((">" if e["up"] else " ", name, str(e["initiative"]), hp, ", ".join(shown)))
    widths = [max([len(r[i]) for r in rows] + [len(h)]) for i, h in enumerate(("", "name", "init", hp_label, ""))]
    lines = [head, f"  {'':1} {'name':<{widths[1]}}  {'init':>{widths[2]}}  {hp_label:>{widths[3]}}  conditions"]
    for up, name, init, hp, notes in rows:
        lines.append(f"  {up} {name:<{widths[1]}}  {init:>{widths[2]}}  {hp:>{widths[3]}}  {notes}".rstrip())
    return "\n".join(lines)
