"""Shareable histories from the read models: one `History` (rulings with their events, sessions, HP series), as CSV or
Markdown.

The HTML report (projections/report.py) renders the same `History`. Retracted rulings stay in, marked.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import select

from ledger.errors import NotFound
from ledger.model.event_names import (
    CAMPAIGN_CREATED,
    DICE_ROLLED,
    ENCOUNTER_ENDED,
    RULING_RECORDED,
    SESSION_ENDED,
    SESSION_STARTED,
)
from ledger.model.sheet import is_gm_pool
from ledger.rules import round_word
from ledger.rules import title as system_title
from ledger.words.asked import asked
from ledger.words.describe import HpFold, dice_parts, event_line
from ledger.words.describe import sentence as ruling_sentence
from ledger.words.summary import from_history, lines
from projections import queries
from projections.db import ReadSide, encounter_log, hp_timeline, rulings, sheets
from projections.recap import arrange, initiative, joined, minion_series
from projections.shown import checked, encounter_numbers, encounter_rows, timeline_rows

CSV_COLUMNS = (
    "seq",
    "ruling",
    "session",
    "at",
    "actor",
    "command",
    "character",
    "type",
    "roll",
    "notation",
    "faces",
    "total",
    "source",
    "amount",
    "hp",
    "condition",
    "outcome",
    "retracted_by",
    "summary",
    "data",
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
    head: str = ""  # the chain's head hash when exported (`ledger verify --expect HEAD` checks it later)

    @property
    def events(self) -> int:
        """How many events the history shows."""
        return sum(len(r["events"]) for r in self.rulings)

    @property
    def span(self) -> tuple[int, int]:
        """The first and last ruling shown."""
        return (self.rulings[0]["ruling"], self.rulings[-1]["ruling"]) if self.rulings else (0, 0)


@checked
def load(read: ReadSide, session: int | None = None) -> History:
    """The history of the whole ledger, or of play session `session` (NotFound if there is none)."""
    rows = queries.events(read)
    name, system = "Campaign", ""
    sessions: dict[int, dict[str, Any]] = {}
    for e in rows:
        d = e["data"] or {}
        if e["type"] == CAMPAIGN_CREATED:
            name, system = str(d.get("name", name)), str(d.get("system", ""))
        elif e["type"] == SESSION_STARTED and not e["retracted"]:
            sessions[d["number"]] = {
                "number": d["number"],
                "title": d.get("title", ""),
                "started": d.get("at"),
                "ended": None,
            }
        elif e["type"] == SESSION_ENDED and not e["retracted"] and d.get("number") in sessions:
            sessions[d["number"]]["ended"] = d.get("at")
    if session is not None and session not in sessions:
        known = f"sessions run 1 to {max(sessions)}" if sessions else "this ledger has no play sessions yet"
        raise NotFound(f"there is no session {session}", known)
    kinds = {r["number"]: (r["kind"], r["command"], r["intent"]) for r in queries.ruling_rows(read)}
    places = _places(read)
    fold = HpFold()
    grouped: list[dict[str, Any]] = []
    for e in rows:
        before = fold.before(e)  # every event folds, so a session's first HP change knows the HP it started from
        if before is not None:
            e["hp_before"] = before
        if session is not None and e["session"] != session:
            continue
        if not grouped or grouped[-1]["ruling"] != e["ruling"]:
            kind, command, intent = kinds.get(e["ruling"], ("play", "", {}))
            grouped.append(
                {
                    "ruling": e["ruling"],
                    "session": e["session"],
                    "actor": e["actor"],
                    "at": e["at"],
                    "kind": kind,
                    "command": command,
                    "intent": intent,
                    "retracted": e["retracted"],
                    "events": [],
                    "encounter": None,
                    "round": None,
                    "groups": fold.groups,  # minion groups of several (a group stays one: the set only grows)
                }
            )
        grouped[-1]["events"].append(e)
        if grouped[-1]["encounter"] is None and e["seq"] in places:
            grouped[-1]["encounter"], grouped[-1]["round"] = places[e["seq"]]
    _carry_encounters(grouped)
    h = History(name, system, session, sessions, grouped)
    h.hp = hp_series(read, h)
    skip = {n for n, (kind, _, _) in kinds.items() if kind in ("undo", "redo", "ask")}
    shown = {r["ruling"] for r in grouped}
    counts = {s["name"]: s for s in minion_series(rows, skip, shown, h.span[0], session is None)}
    h.hp = [counts.pop(s["name"], s) for s in h.hp] + list(counts.values())
    return h


def _carry_encounters(grouped: list[dict[str, Any]]) -> None:
    """A ruling made while an encounter runs (an undo, a free roll) belongs to it, at the round it had reached."""
    current: tuple[int, int] | None = None
    for r in grouped:
        if r["encounter"] is not None:
            current = (r["encounter"], r["round"])
        elif current is not None:
            r["encounter"], r["round"] = current
        if not r["retracted"] and any(e["type"] == ENCOUNTER_ENDED for e in r["events"]):
            current = None


def _places(read: ReadSide) -> dict[int, tuple[int, int]]:
    """Each encounter event's (encounter, round), from the encounter log view (each encounter's rows checked against
    the events of its span)."""
    with read.engine.connect() as conn:
        rows = conn.execute(select(encounter_log)).all()
        if not read.trusted:
            by: dict[int, list[Any]] = {}
            for r in rows:
                by.setdefault(int(r[1]), []).append(r)
            for number in sorted(set(by) | set(encounter_numbers(read, conn))):
                encounter_rows(read, conn, number, None, by.get(number, []))
        return {int(r[0]): (int(r[1]), int(r[2])) for r in rows}


def hp_series(read: ReadSide, h: History) -> list[dict[str, Any]]:
    """Per character, the live HP points within the history's span (and the HP it entered with)."""
    first, last = h.span
    with read.engine.connect() as conn:
        rows = conn.execute(select(sheets.c.character_id, sheets.c.name, sheets.c.added, sheets.c.sheet)).all()
        if not read.trusted:  # every character's HP timeline against its own events
            every: dict[str, list[Any]] = {}
            for seq, cid, ruling, hp, max_hp, at in conn.execute(select(hp_timeline)).all():
                every.setdefault(cid, []).append((seq, ruling, hp, max_hp, at))
            for cid in sorted(set(every) | {r[0] for r in rows}):
                timeline_rows(read, conn, cid, every.get(cid, []), None)
        names = {r[0]: (r[1], r[2]) for r in rows}
        pools = {r[0] for r in rows if is_gm_pool(r[3])}  # the GM's hidden Adversity pool has no HP to chart
        points = conn.execute(
            select(
                hp_timeline.c.character_id,
                hp_timeline.c.ruling,
                hp_timeline.c.hp,
                hp_timeline.c.max_hp,
                rulings.c.retracted_by,
                rulings.c.kind,
            )
            .join(rulings, rulings.c.number == hp_timeline.c.ruling, isouter=True)
            .where(hp_timeline.c.ruling <= last)
            .order_by(hp_timeline.c.seq)
        ).all()
    shown = {r["ruling"] for r in h.rulings}
    series: dict[str, dict[str, Any]] = {}
    for cid, ruling, hp, max_hp, retracted_by, kind in points:
        if retracted_by is not None or kind in ("undo", "redo", "ask") or cid in pools:
            continue
        s = series.setdefault(
            cid,
            {"name": names.get(cid, ("?", 0))[0], "added": names.get(cid, ("?", 0))[1], "before": None, "points": []},
        )
        point = {"ruling": ruling, "hp": hp, "max_hp": max_hp}
        if ruling < first:
            s["before"] = point
        elif ruling in shown or h.session is None:
            s["points"].append(point)
    out = []
    for s in sorted(series.values(), key=lambda s: s["added"]):
        pts = ([{**s["before"], "ruling": first}] if s["before"] else []) + s["points"]
        if s["points"] and any(p["max_hp"] for p in pts):  # a pool without HP (P&P's GM) has no chart
            out.append({"name": s["name"], "points": pts})
    return out


# -- describing one event (ledger/words/describe.py says it; these are the exports' views of it) --------
def describe(e: dict[str, Any], system: str = "", groups: Collection[str] = ()) -> str:
    """One plain-text line for an event (its `hp_before` was folded in by `load`)."""
    return event_line(e, e.get("hp_before"), system, groups)


def outcome(e: dict[str, Any]) -> str:
    """The short result of a resolution event, if it has one."""
    d = e["data"] or {}
    if "hit" in d:
        return "hit" if d["hit"] else "miss"
    value = d.get("outcome") or d.get("result")
    return str(value) if value is not None else ""


# -- CSV --------------------------------------------------------------------------------------------
def csv_rows(h: History) -> Iterator[list[Any]]:
    """One row per event with its ruling's envelope and the main values (CSV_COLUMNS)."""
    for r in h.rulings:
        retracted_by = r["retracted"]["by"] if r["retracted"] else ""
        for e in r["events"]:
            d = e["data"] or {}
            dice = e["type"] == DICE_ROLLED
            yield [
                e["seq"],
                e["ruling"],
                e["session"] if e["session"] is not None else "",
                e["at"],
                _cell(e["actor"]),
                _cell(r["command"]),
                _cell(e["character"] or ""),
                e["type"],
                _cell(d.get("name", "")) if dice else "",
                d.get("notation", "") if dice else "",
                orjson.dumps(d["faces"]).decode() if "faces" in d else "",
                _num(d.get("total")),
                d.get("source", "") if dice else "",
                _num(d.get("amount")),
                _num(d.get("hp")),
                _cell(d.get("condition", "")),
                outcome(e),
                retracted_by,
                _cell(describe(e, h.system, r.get("groups", ()))),
                orjson.dumps(d).decode(),
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


def counts(h: History) -> str:
    """The one way every format counts what it holds: `12 rulings, 57 events` (rulings and events shown)."""
    n = len(h.rulings)
    return f"{n} ruling{'s' if n != 1 else ''}, {h.events} event{'s' if h.events != 1 else ''}"


def meta(h: History) -> str:
    """The line under the title: system, span of rulings, counts."""
    first, last = h.span
    return f"{system_title(h.system)} · rulings {first}–{last} · {counts(h)}"


def round_heading(system: str, number: int | None) -> str:
    """`Round 2` (`Page 2` in P&P), or the setting up before the first turn."""
    return f"{'Page' if system == 'pnp' else 'Round'} {number}" if number else "Before the first turn"


def ruling_text(r: dict[str, Any], system: str = "") -> tuple[str, list[tuple[str, str | None, str]]]:
    """A ruling's sentence (what happened) and its dice lines in parts (label and notation, faces, the rest), from
    ledger/words/describe.py."""
    evs = [e for e in r["events"] if e["type"] != RULING_RECORDED]
    return ruling_sentence(evs, HpFold(r.get("groups", ())), system=system), [
        dice_parts(e["data"] or {}, evs) for e in evs if e["type"] == DICE_ROLLED
    ]


def heading(r: dict[str, Any], sentence: str) -> str:
    """A ruling's heading where players read: its number; what was asked only when no sentence says what happened."""
    base = f"#{r['ruling']}" if sentence else f"#{r['ruling']} {asked(r['command'], r['intent'])}"
    said = [f"{k}: {v}" for k in ("note", "reason") if (v := (r.get("intent") or {}).get(k))]  # the GM's own words
    return f"{base} ({'; '.join(said)})" if said else base


def _md_summary(h: History, number: int) -> list[str]:
    """The encounter's summary (ledger/words/summary.py): rounds, who fell and when, damage dealt and taken."""
    s = from_history(h.rulings, number, h.system)
    head = lines(s, round_word(h.system))
    table = ["| Combatant | Dealt | Taken |", "|---|---|---|"]
    table += [f"| {_md(c['name'])} | {c['dealt']} | {c['taken']} |" for c in s["combatants"]]
    return [f"**Summary.** {_md(' '.join(head[:2]))}", "", *(table if s["combatants"] else []), ""]


def to_markdown(h: History, step: Step | None = None) -> str:
    """A readable history to paste into a wiki: by session (with a recap), encounter and round; dice with faces."""
    out = [f"# {_md(title(h))}", "", f"*{meta(h)}*", ""]
    if h.head:
        out += [f"Chain head: `{h.head}` (check: `ledger verify --expect {h.head}`)", ""]
    for part in arrange(h.rulings, h.system):
        out += [f"## {_md(session_heading(h, part.number))}", ""]
        if part.recap:
            out += [f"> **Recap.** {_md('. '.join(part.recap))}.", ""]
        for block in part.blocks:
            if block.encounter is not None:
                out += [f"### Encounter {block.encounter}", "", *_md_summary(h, block.encounter)]
                order = initiative(part.rulings, block.encounter)
                if order:
                    out += [
                        "Initiative: " + ", ".join(f"{_md(o['name'])} {o.get('initiative')}" for o in order) + ".",
                        "",
                    ]
                late = joined(h.rulings, block.encounter)
                if late:
                    out += ["Joined mid-fight: " + _md(", ".join(late)) + ".", ""]
            for rnd in block.rounds:
                if block.encounter is not None:
                    out += [f"#### {round_heading(h.system, rnd.number)}", ""]
                for r in rnd.rulings:
                    out += _md_ruling(r, h.system)
                    if step:
                        step(len(r["events"]))
                out.append("")
    if h.hp:
        out += ["## Hit points", "", "| Character | HP by ruling |", "|---|---|"]
        for s in h.hp:
            unit = " left" if s.get("minions") else ""
            trail = " → ".join(f"{p['hp']}{unit} (#{p['ruling']})" for p in s["points"])
            out.append(f"| {_md(s['name'])}{' (minions)' if s.get('minions') else ''} | {trail} |")
        out.append("")
    return "\n".join(out)


def _md_ruling(r: dict[str, Any], system: str) -> list[str]:
    """One ruling: its number and intent, who and when, the sentence, the dice; struck through if retracted."""
    sentence, dice = ruling_text(r, system)
    head = heading(r, sentence)
    head = f"~~{_md(head)}~~" if r["retracted"] else f"**{_md(head)}**"
    lines = [f"- {head} · *{_md(r['actor'])}, {r['at']}*"]
    if r["retracted"]:
        x = r["retracted"]
        taken = "Undone" if x.get("how") == "undone" else "Retracted"
        lines.append(f"  - **{taken}** by ruling {x['by']} ({_md(x['actor'])}, {x['at']}).")
    if sentence:
        lines.append(f"  - {_md(sentence)}")
    for d in dice:
        lines.append(f"  - {_dice_md(d)}")
    return lines


def _dice_md(parts: tuple[str, str | None, str]) -> str:
    """A dice line with its faces as code."""
    head, faces_, tail = parts
    if faces_ is None:
        return _md(head + tail)
    return f"{_md(head)} `[{faces_}]`{_md(tail)}"
