"""The players' screen as data: campaign, tracker, last rulings and heroes' HP, with what players may not see hidden.

`ledger serve` renders this model (commands/serve.py). Hidden from players, unless the GM opts in:
NPC HP (shown as a word: unhurt, hurt, bloodied, down); always hidden from players: the P&P GM sheet
(Adversity) and every event on it. The GM's view (`gm=True`) shows everything.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_, select

from ledger.model.event_names import (
    CAMPAIGN_CREATED,
    CHARACTER_ADDED,
    DAMAGE_APPLIED,
    DICE_COMMITTED,
    DICE_ROLLED,
    HEALTH_RECOVERED,
    NOTE_RECORDED,
    STATE_RESTORED,
)
from ledger.rules import health_word, round_word, title
from ledger.rules.durations import shown
from ledger.words.asked import asked
from ledger.words.describe import HpFold, dice_line
from ledger.words.describe import sentence as describe_sentence
from ledger.words.tracker import MARKS, marks_of
from projections import queries
from projections.db import ReadSide, log, resolve_data, rulings, sessions, sheets
from projections.hidden import Hidden, hidden
from projections.shown import ENVELOPE, checked, envelope_rows, log_rows
from projections.tracker import tracker

LAST_RULINGS = 8
RECENT_ROLLS = 5  # a hero's own rolls listed on their page
BEHIND = "The GM makes a ruling behind the screen."
DOWN_MARKS = frozenset(MARKS) - {"disabled"}
HP_EVENTS = frozenset({DAMAGE_APPLIED, HEALTH_RECOVERED, CHARACTER_ADDED, STATE_RESTORED})


@dataclass(frozen=True)
class Visibility:
    """Who is looking: the GM (everything), or players with the NPCs whose HP the GM chose to show."""

    gm: bool = False
    all_hp: bool = False
    show_hp: frozenset[str] = field(default_factory=frozenset)  # case-folded names

    def hp_shown(self, name: str, pc: bool) -> bool:
        """Whether this character's HP numbers are shown."""
        return self.gm or pc or self.all_hp or name.casefold() in self.show_hp


def hp_word(hp: int, max_hp: int, conditions: list[str] | tuple[str, ...] = ()) -> str:
    """NPC HP as players see it: unhurt, hurt, bloodied (half or less) or down (out of the fight, below 0 HP, or at 0
    unless still standing there: hnh battered)."""
    if DOWN_MARKS.intersection(conditions) or hp < 0 or (hp == 0 and "battered" not in conditions):
        return "down"
    if hp >= max_hp:
        return "unhurt"
    return "bloodied" if hp * 2 <= max_hp else "hurt"


def standing(c: dict[str, Any], vis: Visibility) -> dict[str, Any]:
    """HP as shown: numbers and a bar when visible, else the word alone; the bar's fill in percent."""
    hp, top = c.get("hp"), c.get("max_hp")
    if hp is None or top is None:
        return {"shown": False, "text": "", "word": "", "percent": None}
    word = hp_word(hp, top, [*c.get("marks", ()), *c.get("conditions", ())])
    percent = max(0, min(100, round(100 * hp / top))) if top > 0 else 0
    if vis.hp_shown(c["name"], bool(c.get("pc"))):
        return {"shown": True, "text": f"{hp}/{top}", "word": word, "percent": percent}
    return {"shown": False, "text": word, "word": word, "percent": None}


def hidden_sheets(conn: Any) -> dict[str, str]:
    """The GM's hidden sheets (P&P Adversity): character id -> name."""
    rows = conn.execute(select(sheets.c.character_id, sheets.c.name, sheets.c.sheet)).all()
    return {cid: name for cid, name, sheet in rows if "adversity" in (sheet.get("resources") or {})}


@checked
def page(read: ReadSide, vis: Visibility) -> dict[str, Any]:
    """Everything the page shows, filtered for who is looking."""
    with read.engine.connect() as conn:
        head = read.max_seq(conn)
        created = _logged(read, conn, log.c.type == CAMPAIGN_CREATED, limit=1)
        session = conn.execute(select(sessions).order_by(sessions.c.number.desc()).limit(1)).mappings().first()
        gm_only = hidden_sheets(conn)
        commitment = (
            _commitment(read, conn, session["number"]) if session is not None and session["ended"] is None else None
        )
        heroes = [
            r[0]
            for r in conn.execute(
                select(sheets.c.name, sheets.c.sheet).where(sheets.c.active).order_by(sheets.c.added)
            ).all()
            if (r[1] or {}).get("pc")
        ]
        kept = hidden(read, conn, {h.casefold() for h in heroes})
    data = created[0]["data"] if created else {}
    system = str(data.get("system", ""))
    enc = tracker(read, required=False)
    if enc is not None:
        for row in enc["order"]:
            row["standing"] = standing(row, vis)
            timed = row.get("left") or {}
            row["notes"] = shown(row["conditions"], timed, row["marks"])
            row["hidden"] = kept.hides(row["name"])
        enc = enc if vis.gm else unseen(enc, kept)
    roster = (
        []
        if enc is not None
        else [
            {**c, "marks": marks_of(c), "standing": standing({**c, "marks": marks_of(c)}, vis), "hidden": True}
            if kept.hides(c["name"])
            else {**c, "marks": marks_of(c), "standing": standing({**c, "marks": marks_of(c)}, vis)}
            for c in queries.characters(read)
            if vis.gm or not kept.hides(c["name"])
        ]
    )
    out: dict[str, Any] = {
        "head": head,
        "gm": vis.gm,
        "campaign": {"name": data.get("name", "Campaign"), "system": system, "system_name": title(system)},
        "session": dict(session) if session is not None and session["ended"] is None else None,
        "commitment": commitment,
        "hp_label": health_word(system),
        "round_word": round_word(system),
        "tracker": enc,
        "roster": roster,
        "rulings": last_rulings(read, vis, gm_only, system, kept),
        "heroes": [hero_chart(read, name) for name in heroes],
    }
    if vis.gm:
        out["gm_sheets"] = [queries.sheet_json(r) for r in _sheet_rows(read, list(gm_only))]
    return out


def unseen(enc: dict[str, Any], kept: Hidden) -> dict[str, Any]:
    """The tracker as players see it: hidden participants left out; while one of them is up, the turn is the GM's
    (no name), and a hidden participant up next is not named."""
    return {
        **enc,
        "order": [r for r in enc["order"] if not r["hidden"]],
        "current": None if kept.hides(enc["current"]) else enc["current"],
        "next": None if kept.hides(enc.get("next")) else enc.get("next"),
    }


def _logged(
    read: ReadSide, conn: Any, where: Any, *, limit: int | None = None, newest_first: bool = False
) -> list[dict[str, Any]]:
    """Log rows (ruling, type, character, aggregate, data) with their data resolved (the log view keeps it by
    reference)."""
    stored, position, state = read.stored_states()
    q = (
        select(
            log.c.seq,
            log.c.ruling,
            log.c.type,
            log.c.character,
            log.c.aggregate,
            log.c.data,
            log.c.at,
            log.c.bookkeeping,
            state.label("event_state"),
            stored.c.topic.label("event_topic"),
            stored.c.originator_id.label("event_origin"),
        )
        .join(stored, position == log.c.seq, isouter=True)
        .where(where)
        .order_by(log.c.seq.desc() if newest_first else log.c.seq)
    )
    if limit is not None:
        q = q.limit(limit)
    found = conn.execute(q).mappings().all()
    log_rows(read, conn, found)
    out = []
    for r in found:
        row = {k: r[k] for k in ("seq", "ruling", "type", "character", "aggregate")}
        row["data"] = resolve_data(r["data"], r["event_state"])
        out.append(row)
    return out


def _commitment(read: ReadSide, conn: Any, number: int) -> str | None:
    """The open session's dice commitment (the latest live DiceCommitted for it), for players to note."""
    dead = queries.retracted_rulings(conn)
    rows = _logged(read, conn, log.c.type == DICE_COMMITTED, newest_first=True)
    return next(
        (str(r["data"]["commitment"]) for r in rows if r["ruling"] not in dead and r["data"].get("number") == number),
        None,
    )


def _sheet_rows(read: ReadSide, ids: list[str]) -> list[Any]:
    if not ids:
        return []
    with read.engine.connect() as conn:
        return list(
            conn.execute(select(sheets).where(and_(sheets.c.character_id.in_(ids), sheets.c.active))).mappings().all()
        )


def hero_chart(read: ReadSide, name: str) -> dict[str, Any]:
    """A hero's live HP points (for the inline SVG chart)."""
    points = [p for p in queries.timeline(read, name) if "hp" in p]  # never the GM's pool (no HP, hidden)
    return {"name": name, "points": [{"ruling": p["ruling"], "hp": p["hp"], "max_hp": p["max_hp"]} for p in points]}


def last_rulings(
    read: ReadSide,
    vis: Visibility,
    hidden: dict[str, str],
    system: str = "",
    kept: Hidden | None = None,
    limit: int = LAST_RULINGS,
) -> list[dict[str, Any]]:
    """The latest `limit` rulings, newest first, each as a sentence with its dice; undone ones stay, marked. Players
    see a ruling that names a hidden character, or was recorded `--secret`, only as "The GM makes a ruling behind the
    screen." (no dice, no note); the GM's view marks them."""
    with read.engine.connect() as conn:
        found = conn.execute(select(rulings).order_by(rulings.c.number.desc()).limit(limit)).mappings().all()
    return described(read, vis, hidden, system, kept or Hidden(), found)


def described(
    read: ReadSide, vis: Visibility, hidden: dict[str, str], system: str, kept: Hidden, found: Any
) -> list[dict[str, Any]]:
    """Rulings (rows of the rulings view) in words with their dice, as `vis` may see them."""
    with read.engine.connect() as conn:
        envelope_rows(read, conn, {r["number"]: {k: r[k] for k in ENVELOPE} for r in found})
        numbers = [r["number"] for r in found]
        events = _logged(read, conn, and_(log.c.ruling.in_(numbers), log.c.bookkeeping.is_(False))) if numbers else []
        dead = queries.retracted_rulings(conn)
        every = list(conn.execute(select(sheets.c.name, sheets.c.sheet)))
        pcs = {name.casefold() for name, sheet in every if (sheet or {}).get("pc")}
        groups = {  # minion groups of several: `Thugs fail`, as the terminal says it
            str(name)
            for name, sheet in every
            if (sheet or {}).get("minion") and int((sheet or {}).get("count") or 1) > 1
        }
    by_ruling: dict[int, list[dict[str, Any]]] = {}
    for e in events:
        by_ruling.setdefault(e["ruling"], []).append(dict(e))
    hidden_names = {n.casefold() for n in hidden.values()}
    out = []
    for r in found:
        evs = by_ruling.get(r["number"], [])
        kept_back = r["number"] in kept.secret or kept.mentions((r["intent"] or {}).values())
        kept_back = kept_back or any(kept.hides(e["character"]) for e in evs)
        secret = not vis.gm and (_names_hidden(r, hidden_names) or kept_back)
        if not vis.gm:
            evs = [e for e in evs if (e["character"] or "").casefold() not in hidden_names]
        out.append(
            {
                "number": r["number"],
                "command": r["command"],
                "actor": r["actor"],
                "at": r["at"],
                "retracted": r["number"] in dead,
                "sentence": BEHIND if secret else sentence(r, evs, vis, pcs, system, groups),
                "dice": [] if secret else [dice_text(e, evs) for e in evs if e["type"] == DICE_ROLLED],
                "lines": {} if secret else {e["seq"]: dice_text(e, evs) for e in evs if e["type"] == DICE_ROLLED},
                "note": None if secret else note_of(r["intent"]),
                "kept_back": vis.gm and kept_back,
            }
        )
    return out


def campaign_system(read: ReadSide) -> str:
    """The campaign's system key (from its creation in the log)."""
    with read.engine.connect() as conn:
        created = _logged(read, conn, log.c.type == CAMPAIGN_CREATED, limit=1)
    return str((created[0]["data"] if created else {}).get("system", ""))


def hero_rolls(read: ReadSide, hero: str, n: int = RECENT_ROLLS) -> list[dict[str, Any]]:
    """A hero's own rolls of their latest `n` rulings, newest first, for the dice card on their page: each die line
    as the GM's terminal prints it, with what the roll was for, and the ruling in the describer's words, as players
    see it (a ruling kept back from them shows neither)."""
    with read.engine.connect() as conn:
        dice = _logged(
            read, conn, and_(log.c.type == DICE_ROLLED, log.c.character == hero), limit=8 * n, newest_first=True
        )
        numbers = sorted({int(d["ruling"]) for d in dice}, reverse=True)[:n]
        found = conn.execute(select(rulings).where(rulings.c.number.in_(numbers))).mappings().all() if numbers else []
        gm_only = hidden_sheets(conn)
        heroes = {
            str(name).casefold() for name, sheet in conn.execute(select(sheets.c.name, sheets.c.sheet))
            if (sheet or {}).get("pc")
        }  # fmt: skip
        kept = hidden(read, conn, heroes)
    said = {r["number"]: r for r in described(read, Visibility(), gm_only, campaign_system(read), kept, found)}
    out: list[dict[str, Any]] = []
    for number in numbers:
        r = said.get(number)
        if r is None or r["sentence"] == BEHIND:
            continue
        mine = sorted((d for d in dice if int(d["ruling"]) == number), key=lambda d: int(d["seq"]))
        out.append(
            {
                "ruling": number,
                "seq": max(int(d["seq"]) for d in mine),
                "command": r["command"],
                "rolls": [
                    {"roll": str((d["data"] or {}).get("name", "")), "line": r["lines"].get(d["seq"])} for d in mine
                ],
                "sentence": r["sentence"],
                "retracted": r["retracted"],
            }
        )
    return out


def note_of(intent: Any) -> str | None:
    """The GM's `--note` (or a retraction's `--reason`) given with a ruling, if any (the page escapes it)."""
    found = intent or {}
    return str(found.get("note") or found.get("reason") or "") or None


def _names_hidden(r: Any, hidden_names: set[str]) -> bool:
    """Whether a ruling's intent names a hidden GM sheet (`spend GM adversity 2`): players see only that the GM
    ruled."""
    if not hidden_names:
        return False
    return any(isinstance(v, str) and v.strip().casefold() in hidden_names for v in (r["intent"] or {}).values())


def sentence(
    r: Any, events: list[dict[str, Any]], vis: Visibility, pcs: set[str], system: str = "", groups: Collection[str] = ()
) -> str:
    """One ruling in words (NPC HP hidden unless shown): the one place that calls the describer.

    Uses ledger/words/describe.py, the terminal's describer.
    """
    shown = [_masked(e) if _hides_hp(e, vis, pcs) else e for e in events if e["type"] != DICE_ROLLED]
    said = describe_sentence([{**e, "data": e["data"] or {}} for e in shown], HpFold(groups), system=system)
    return said or _capital(asked(r["command"], r["intent"] or {}))


def _capital(text: str) -> str:
    """What was asked, as a sentence."""
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _hides_hp(e: dict[str, Any], vis: Visibility, pcs: set[str]) -> bool:
    who = e["character"] or ""
    return e["type"] in HP_EVENTS and bool(who) and not vis.hp_shown(who, who.casefold() in pcs)


def _masked(e: dict[str, Any]) -> dict[str, Any]:
    """An HP event of a character whose HP players don't see, as a note without numbers."""
    who, t = e["character"], e["type"]
    words = {DAMAGE_APPLIED: "takes damage", HEALTH_RECOVERED: "recovers", CHARACTER_ADDED: "joins"}.get(
        t, "is restored"
    )
    return {**e, "type": NOTE_RECORDED, "data": {"note": f"{who} {words}"}, "masked": True}


def dice_text(e: dict[str, Any], ruling: list[dict[str, Any]] | None = None) -> str:
    """One roll as a line, as the terminal says it (with the terms its ruling's events give)."""
    return dice_line(e["data"] or {}, ruling or ())
