"""Shareable histories from the read models: one `History` (rulings with their events, sessions, HP series), as CSV or Markdown.

The HTML report (projections/report.py) renders the same `History`. Retracted rulings stay in, marked.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import select

from ledger.dice import show_faces
from ledger.errors import NotFound
from ledger.sheet import is_gm_pool
from projections import queries
from projections.db import ReadSide, hp_timeline, rulings, sheets

SYSTEMS = {"hnh": "Humans & Heroes", "d20": "d20 Supers", "pnp": "Prowlers & Paragons"}
QUIET = frozenset({"RulingRecorded", "CharacterEnrolled", "Opened", "RulingRetracted", "RulingReinstated"})
CSV_COLUMNS = (
    "seq", "ruling", "session", "at", "actor", "command", "character", "type", "roll", "notation", "faces", "total",
    "source", "amount", "hp", "condition", "outcome", "retracted_by", "summary", "data",
)
Step = Callable[[int], None]


@dataclass
class History:
    """Everything a shared history shows, read from the views."""

    name: str
    system: str
    session: int | None
    sessions: dict[int, dict[str, Any]]
    rulings: list[dict[str, Any]]
    hp: list[dict[str, Any]] = field(default_factory=list)
    encounters: list[dict[str, Any]] = field(default_factory=list)

    @property
    def events(self) -> int:
        """How many events the history shows."""
        return sum(len(r["events"]) for r in self.rulings)

    @property
    def span(self) -> tuple[int, int]:
        """The first and last ruling shown."""
        return (self.rulings[0]["ruling"], self.rulings[-1]["ruling"]) if self.rulings else (0, 0)


def load(read: ReadSide, session: int | None = None) -> History:
    """The history of the whole ledger, or of play session `session` (NotFound if there is none)."""
    rows = queries.events(read)
    name, system = "Campaign", ""
    sessions: dict[int, dict[str, Any]] = {}
    for e in rows:
        d = e["data"] or {}
        if e["type"] == "CampaignCreated":
            name, system = str(d.get("name", name)), str(d.get("system", ""))
        elif e["type"] == "SessionStarted" and not e["retracted"]:
            sessions[d["number"]] = {"number": d["number"], "title": d.get("title", ""), "started": d.get("at"), "ended": None}
        elif e["type"] == "SessionEnded" and not e["retracted"] and d.get("number") in sessions:
            sessions[d["number"]]["ended"] = d.get("at")
    if session is not None and session not in sessions:
        known = f"sessions run 1 to {max(sessions)}" if sessions else "this ledger has no play sessions yet"
        raise NotFound(f"there is no session {session}", known)
    kinds = {r["number"]: (r["kind"], r["command"], r["intent"]) for r in queries.ruling_rows(read)}
    grouped: list[dict[str, Any]] = []
    for e in rows:
        if session is not None and e["session"] != session:
            continue
        if not grouped or grouped[-1]["ruling"] != e["ruling"]:
            kind, command, intent = kinds.get(e["ruling"], ("play", "", {}))
            grouped.append({
                "ruling": e["ruling"], "session": e["session"], "actor": e["actor"], "at": e["at"], "kind": kind,
                "command": command, "intent": intent, "retracted": e["retracted"], "events": [],
            })
        grouped[-1]["events"].append(e)
    h = History(name, system, session, sessions, grouped)
    h.hp = hp_series(read, h)
    h.encounters = _encounters(read, h)
    return h


def hp_series(read: ReadSide, h: History) -> list[dict[str, Any]]:
    """Per character, the live HP points within the history's span (and the HP it entered with)."""
    first, last = h.span
    with read.engine.connect() as conn:
        rows = conn.execute(select(sheets.c.character_id, sheets.c.name, sheets.c.added, sheets.c.sheet)).all()
        names = {r[0]: (r[1], r[2]) for r in rows}
        pools = {r[0] for r in rows if is_gm_pool(r[3])}  # the GM's hidden Adversity pool has no HP to chart
        points = conn.execute(
            select(hp_timeline.c.character_id, hp_timeline.c.ruling, hp_timeline.c.hp, hp_timeline.c.max_hp, rulings.c.retracted_by, rulings.c.kind)
            .join(rulings, rulings.c.number == hp_timeline.c.ruling, isouter=True)
            .where(hp_timeline.c.ruling <= last)
            .order_by(hp_timeline.c.seq)
        ).all()
    shown = {r["ruling"] for r in h.rulings}
    series: dict[str, dict[str, Any]] = {}
    for cid, ruling, hp, max_hp, retracted_by, kind in points:
        if retracted_by is not None or kind in ("undo", "redo") or cid in pools:
            continue
        s = series.setdefault(cid, {"name": names.get(cid, ("?", 0))[0], "added": names.get(cid, ("?", 0))[1], "before": None, "points": []})
        point = {"ruling": ruling, "hp": hp, "max_hp": max_hp}
        if ruling < first:
            s["before"] = point
        elif ruling in shown or h.session is None:
            s["points"].append(point)
    out = []
    for s in sorted(series.values(), key=lambda s: s["added"]):
        pts = ([{**s["before"], "ruling": first}] if s["before"] else []) + s["points"]
        if s["points"]:
            out.append({"name": s["name"], "points": pts})
    return out


def _encounters(read: ReadSide, h: History) -> list[dict[str, Any]]:
    """The encounters that started within the history, from the encounter log."""
    numbers = [e["data"].get("number") for r in h.rulings if not r["retracted"] for e in r["events"] if e["type"] == "EncounterStarted"]
    found = []
    for n in numbers:
        try:
            enc = queries.encounter_log(read, n)
        except (NotFound, AttributeError):
            continue
        order = [o for r in h.rulings for e in r["events"] if e["type"] == "EncounterStarted" and e["data"].get("number") == n for o in e["data"].get("order", [])]
        found.append({"number": n, "rounds": enc.get("round"), "turns": len(enc.get("turns", [])), "active": enc.get("active"), "order": order})
    return found


# -- describing one event ------------------------------------------------------------------------
faces = show_faces  # one rendering of dice faces (ledger/dice.py)


def intent_text(command: str, intent: dict[str, Any]) -> str:
    """A ruling's command and arguments on one line."""
    parts = [command]
    for k, v in (intent or {}).items():
        if k == "powers" and isinstance(v, dict):  # an imported character: name the powers, not their specs
            parts.append(f"powers={', '.join(v)}")
        elif k == "typed_traits" and isinstance(v, dict):
            parts.append(f"({len(v)} traits imported)")
        elif k == "count" and v == 1:
            continue
        elif isinstance(v, dict):
            parts += [f"{k2}={v2}" for k2, v2 in v.items() if v2 not in (None, False, "", [], {})]
        elif v not in (None, False, "", [], {}):
            parts.append(f"{k}={', '.join(map(str, v)) if isinstance(v, list) else v}")
    return " ".join(parts)


def describe(e: dict[str, Any]) -> str:
    """One plain-text line for an event, as a GM would say it."""
    d, t = e["data"] or {}, e["type"]
    who = e.get("character") or d.get("for") or d.get("character") or ""
    if t == "DiceRolled":
        unused = ", unused" if d.get("used") is False else ""
        owner = f"{d['for']}: " if d.get("for") and d.get("for") != d.get("name") else ""
        return f"{owner}{d.get('name')} {d.get('notation', '')} [{faces(d)}] = {d.get('total')} ({d.get('source')}{unused})"
    if t == "RulingRecorded":
        return intent_text(str(d.get("command", "")), d.get("intent") or {})
    if t == "CampaignCreated":
        return f"campaign {d.get('name')} begins ({SYSTEMS.get(str(d.get('system')), d.get('system'))})"
    if t == "DamageApplied":
        return f"{who} takes {d.get('amount')}{' subdual' if d.get('subdual') else ''} damage -> HP {d.get('hp')}"
    if t == "HealthRecovered":
        return f"{who} recovers {d.get('amount')} -> HP {d.get('hp')}"
    if t in ("ConditionImposed", "ConditionRemoved"):
        return f"{who} {'is' if t == 'ConditionImposed' else 'is no longer'} {d.get('condition')}"
    if t == "ResourceChanged":
        return f"{who}: {d.get('resource')} {d.get('delta', 0):+} -> {d.get('value')}"
    if t == "CharacterAdded":
        s = d.get("sheet", {})
        if is_gm_pool(s):
            return f"the GM's Adversity pool opens ({s.get('name', who)})"
        return f"{s.get('name', who)} joins: HP {s.get('hp')}/{s.get('max_hp')}"
    if t == "StateRestored":
        s = d.get("sheet") or {}
        return f"{who} restored: HP {s.get('hp')}" if d.get("active") else f"{who} restored: not in play"
    if t == "AttackResolved":
        result = "hit" if d.get("hit") else "miss"
        crit = ", critical hit" if d.get("critical_hit") else (", critical threat" if d.get("critical_threat") else "")
        auto = ", automatic miss" if (d.get("attack") or {}).get("automatic_failure") else ""
        return f"{d.get('attacker')} attacks {d.get('target')} with {d.get('with', 'an attack')}: {result}{crit}{auto}"
    if t == "ResistanceResolved":
        degrees = f" ({d['degrees']} degree{'s' if d['degrees'] != 1 else ''})" if isinstance(d.get("degrees"), int) else ""
        return f"{who} resists rank {d.get('rank')} with {d.get('defense')}: {d.get('outcome')}{degrees}"
    if t == "CheckResolved" and "check" in d:
        outcome = d.get("outcome") or ("success" if d.get("success") else ("failure" if d.get("success") is False else ""))
        return f"{who} {d.get('check')} check: total {d.get('total')}" + (f", {outcome}" if outcome else "")
    if t == "SessionStarted":
        return f"session {d.get('number')} starts: {d.get('title')}"
    if t == "SessionEnded":
        return f"session {d.get('number')} ends"
    if t == "EncounterStarted":
        order = ", ".join(f"{o['name']} {o.get('initiative')}" for o in d.get("order", []))
        return f"encounter {d.get('number')} begins; initiative: {order}"
    if t in ("TurnAdvanced", "TurnDelayed", "DelayedTurnTaken", "ParticipantJoined"):
        lead = {"TurnDelayed": f"{d.get('name')} delays; ", "DelayedTurnTaken": f"{d.get('name')} takes the delayed turn; ",
                "ParticipantJoined": f"{d.get('name')} joins the encounter; "}.get(t, "")
        rnd = f"round {d['round']}: " if "round" in d else ""
        return f"{lead}{rnd}{d.get('current', '')}'s turn" if d.get("current") else lead.rstrip("; ")
    if t == "EncounterEnded":
        return f"encounter {d.get('number')} ends"
    if t in ("RulingUndone", "RulingRedone"):
        return f"{'undoes' if t == 'RulingUndone' else 'redoes'} ruling {d.get('target')}"
    skip = {"character", "for", "faces"}
    scalars = ", ".join(f"{k}={v}" for k, v in d.items() if k not in skip and not isinstance(v, (dict, list)))
    return f"{who + ' ' if who else ''}{t}" + (f": {scalars}" if scalars else "")


def outcome(e: dict[str, Any]) -> str:
    """The short result of a resolution event, if it has one."""
    d = e["data"] or {}
    if "hit" in d:
        return "hit" if d["hit"] else "miss"
    value = d.get("outcome") or d.get("result")
    return str(value) if value is not None else ""


def visible(e: dict[str, Any]) -> bool:
    """Whether an event gets its own line in Markdown and HTML (some only repeat another)."""
    return e["type"] not in QUIET


# -- CSV --------------------------------------------------------------------------------------------
def csv_rows(h: History) -> Iterator[list[Any]]:
    """One row per event with its ruling's envelope and the main values (CSV_COLUMNS)."""
    for r in h.rulings:
        retracted_by = r["retracted"]["by"] if r["retracted"] else ""
        for e in r["events"]:
            d = e["data"] or {}
            dice = e["type"] == "DiceRolled"
            yield [
                e["seq"], e["ruling"], e["session"] if e["session"] is not None else "", e["at"], _cell(e["actor"]),
                _cell(r["command"]), _cell(e["character"] or ""), e["type"], _cell(d.get("name", "")) if dice else "",
                d.get("notation", "") if dice else "", orjson.dumps(d["faces"]).decode() if "faces" in d else "",
                _num(d.get("total")), d.get("source", "") if dice else "", _num(d.get("amount")), _num(d.get("hp")),
                _cell(d.get("condition", "")), outcome(e), retracted_by, _cell(describe(e)), orjson.dumps(d).decode(),
            ]


def to_csv(h: History, step: Step | None = None) -> str:
    """The history as CSV text, a header row first."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for row in csv_rows(h):
        w.writerow(row)
        if step:
            step(1)
    return buf.getvalue()


def _num(v: Any) -> Any:
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else ""


def _cell(v: Any) -> str:
    """Text a spreadsheet must not run as a formula (=, +, -, @ first) gets a leading apostrophe."""
    s = "" if v is None else str(v)
    return "'" + s if s[:1] in ("=", "+", "-", "@", "\t", "\r") else s


# -- Markdown ---------------------------------------------------------------------------------------
def _md(text: Any) -> str:
    """Escape Markdown's inline markup in user text."""
    s = str(text)
    for ch in "\\`*_[]<|~":
        s = s.replace(ch, "\\" + ch)
    return s


def title(h: History) -> str:
    """The document's title."""
    if h.session is not None:
        s = h.sessions[h.session]
        return f"{h.name}: session {h.session}, {s['title']}"
    return f"{h.name}: play history"


def session_heading(h: History, number: int | None) -> str:
    """A session's heading text."""
    if number is None:
        return "Outside play sessions"
    s = h.sessions.get(number, {"title": ""})
    return f"Session {number}: {s['title']}" if s["title"] else f"Session {number}"


def to_markdown(h: History, step: Step | None = None) -> str:
    """A readable history to paste into a wiki: sessions, rulings, dice with faces, outcomes, retractions."""
    first, last = h.span
    out = [f"# {_md(title(h))}", "", f"*{SYSTEMS.get(h.system, h.system)} · rulings {first}–{last} · {h.events} events*", ""]
    if h.encounters:
        out += ["## Encounters", ""]
        for enc in h.encounters:
            order = ", ".join(f"{_md(o['name'])} ({o.get('initiative')})" for o in enc["order"])
            state = "still running" if enc["active"] else f"{enc['rounds']} round{'s' if enc['rounds'] != 1 else ''}"
            out.append(f"- Encounter {enc['number']}: {state}; initiative order: {order}")
        out.append("")
    current: object = object()
    for r in h.rulings:
        if r["session"] != current:
            current = r["session"]
            out += [f"## {_md(session_heading(h, r['session']))}", ""]
        head = f"Ruling {r['ruling']}: {intent_text(r['command'], r['intent'])}"
        out.append(f"### ~~{_md(head)}~~" if r["retracted"] else f"### {_md(head)}")
        out += ["", f"*{_md(r['actor'])}, {r['at']}*", ""]
        if r["retracted"]:
            x = r["retracted"]
            out += [f"> **Retracted** by ruling {x['by']} ({_md(x['actor'])}, {x['at']}).", ""]
        lines = [e for e in r["events"] if visible(e)]
        for e in lines:
            text = _md(describe(e))
            if e["type"] == "DiceRolled":
                text = text.replace(f"\\[{_md(faces(e['data']))}\\]", f"`[{faces(e['data'])}]`")
            out.append(f"- {text}")
        if lines:
            out.append("")
        if step:
            step(len(r["events"]))
    if h.hp:
        out += ["## Hit points", "", "| Character | HP by ruling |", "|---|---|"]
        for s in h.hp:
            trail = " → ".join(f"{p['hp']} (#{p['ruling']})" for p in s["points"])
            out.append(f"| {_md(s['name'])} | {trail} |")
        out.append("")
    return "\n".join(out)
