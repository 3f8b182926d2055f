"""The tracker in words: each participant of the order with initiative, HP (Health in P&P), conditions and marks, one
line each, as `encounter show`, `encounter next` and the shell's toolbar say it.

Pure functions on the order's entries and the participants' sheets as plain data (the read side's views give them to
`encounter show`, the write side's draft to `encounter next`), so the two never disagree.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ledger.rules import health_word, round_word, tally_room
from ledger.rules.durations import left
from ledger.rules.durations import shown as durations_shown
from ledger.words.describe import possessive

# Conditions that say a participant is out of the fight or close to it, worst first: shown as marks.
MARKS = ("dead", "dying", "stabilized", "defeated", "unconscious", "disabled", "incapacitated")


def marks_of(sheet: Mapping[str, Any], delayed: bool = False) -> list[str]:
    """The marks of one participant: out-of-the-fight conditions, a wiped-out minion group, delaying."""
    conditions = set(sheet.get("conditions") or ())
    out = [m for m in MARKS if m in conditions]
    if sheet.get("minion") and int(sheet.get("count", 1)) <= 0 and "defeated" not in out:
        out.append("defeated")
    if delayed:
        out.append("delaying")
    return out


def row(entry: Mapping[str, Any], sheet: Mapping[str, Any] | None, current: str | None) -> dict[str, Any]:
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
        "left": left(dict(s)),
        "marks": marks_of(s, delayed),
        "pc": bool(s.get("pc")),
        "minion": bool(s.get("minion")),
    }
    if entry.get("spent"):  # the actions taken this round, as the round's tally counts them (the read side's rows)
        out["spent"] = dict(entry["spent"])
    if entry.get("hazard"):  # a turn slot with no sheet: a hazard or a timed event
        out["hazard"] = str(entry.get("note") or "")
    if s.get("minion"):  # a group whose last member is dead (H&H) has none left
        out["count"] = 0 if "dead" in out["conditions"] else int(s.get("count", 1))
    return out


def acted(spent: Mapping[str, Any], room: tuple[str, ...] = ()) -> str:
    """What a participant has done this round, as the round's tally counts it: `acted: standard, move` (H&H),
    `acted: partial` or `acted: full, opportunity (Bob)` (d20); a count above one says so (`2 partial`). `room`: the
    system's keys that count room in the budget, not actions (`ledger.rules.tally_room`)."""
    said = []
    for kind, n in spent.items():
        if isinstance(n, bool) or kind in room:
            continue  # flags (a charge's own attack taken, a single action allowed) and room in the budget
        if isinstance(n, int) and n > 0:
            said.append(kind if n == 1 else f"{n} {kind}")
        elif isinstance(n, str) and n:
            said.append(f"{kind} ({n})" if n != "-" else kind)
    return "acted: " + ", ".join(said) if said else "acted"


def table(v: Mapping[str, Any]) -> str:
    """The tracker as a compact aligned table, the screen a GM keeps open."""
    word = round_word(v["system"])
    head = f"encounter {v['encounter']} ({v['system']}), {word} {v['round']}: {possessive(str(v['current']))} turn"
    hp_label = health_word(v["system"]).lower()
    rows = []
    for e in v["order"]:
        name = e["name"] + (f" x{e['count']}" if "count" in e else "")
        hp = "" if e.get("hp") is None else f"{e['hp']}/{e['max_hp']}"
        timed = e.get("left") or {}
        shown = [m.upper() for m in e.get("marks") or ()] + durations_shown(
            e.get("conditions") or (), timed, e.get("marks") or ()
        )
        if e.get("hazard") is not None:
            shown = ["hazard" + (f": {e['hazard']}" if e["hazard"] else "")]
        if e.get("passed"):
            shown.append(f"(passed over: {e['passed']})")
        if e.get("spent"):
            shown.append(acted(e["spent"], tally_room(v["system"])))
        rows.append((">" if e.get("up") else " ", name, str(e["initiative"]), hp, ", ".join(shown)))
    widths = [max([len(r[i]) for r in rows] + [len(h)]) for i, h in enumerate(("", "name", "init", hp_label, ""))]
    lines = [head, f"  {'':1} {'name':<{widths[1]}}  {'init':>{widths[2]}}  {hp_label:>{widths[3]}}  conditions"]
    for up, name, init, hp, notes in rows:
        lines.append(f"  {up} {name:<{widths[1]}}  {init:>{widths[2]}}  {hp:>{widths[3]}}  {notes}".rstrip())
    return "\n".join(lines)


def natural(name: str) -> list[Any]:
    """A name's sort key with its numbers as numbers: `Goon 2` before `Goon 10`."""
    return [int(part) if part.isdigit() else part.casefold() for part in re.split(r"(\d+)", name)]
