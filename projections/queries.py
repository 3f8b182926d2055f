"""Reading the views: sheets, the roster, the log and HP timelines."""

from __future__ import annotations

from typing import Any

import orjson
from sqlalchemy import and_, func, select

from ledger.errors import BadInput, NotFound, no_character
from ledger.model.bounds import whole
from ledger.model.event_names import (
    CHARACTER_ADDED,
    DAMAGE_APPLIED,
    DICE_ROLLED,
    HEALTH_RECOVERED,
    RESOURCE_CHANGED,
    RULING_RECORDED,
)
from ledger.model.sheet import SHEET_EFFECTS, Sheet, apply_effect, is_gm_pool
from ledger.rules import get_rules
from projections.db import (
    ReadSide,
    amendments,
    encounters,
    event_data,
    hp_timeline,
    log,
    resolve_data,
    rulings,
    sessions,
    sheet_events,
    sheets,
    stamp,
    topic_names,
)
from projections.db import encounter_log as enc_log
from projections.shown import (
    ENVELOPE,
    Forged,
    amendment_rows,
    character_complete,
    checked,
    encounter_rows,
    envelope_rows,
    log_complete,
    log_rows,
    retraction_rows,
    rulings_complete,
    tail_complete,
    timeline_rows,
)
from projections.views import position as views_position

GM_POOL_HINT = "the GM's Adversity changes with: ledger spend GM adversity N, ledger gain GM adversity N"


def campaign_settings(conn: Any) -> dict[str, Any]:
    """The campaign's settings as `init` recorded them (its typed `-o` options, in ruling 1's intent)."""
    first = conn.execute(select(rulings.c.intent).where(rulings.c.number == 1)).first()
    return dict(((first[0] if first else None) or {}).get("settings") or {})


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
        raise _no_character(read, name)
    if is_gm_pool(row["sheet"]):
        return pool_json(row["sheet"])
    return sheet_json(row)


def pool_json(sheet: dict[str, Any]) -> dict[str, Any]:
    """The GM's hidden pool (P&P Adversity) as the GM's own terminal shows it; never on the players' screen."""
    left = int(sheet["resources"].get("adversity", 0))
    return {
        "name": sheet["name"],
        "system": sheet["system"],
        "gm_pool": True,
        "adversity": left,
        "resources": dict(sheet["resources"]),
        "note": "the GM's Adversity pool, not a character: " + GM_POOL_HINT.split(": ", 1)[1],
    }


def characters(read: ReadSide) -> list[dict[str, Any]]:
    """Every live character, in the order they were added."""
    with read.engine.connect() as conn:
        rows = conn.execute(select(sheets).where(sheets.c.active).order_by(sheets.c.added)).mappings().all()
    return [sheet_json(r) for r in rows if not is_gm_pool(r["sheet"])]  # not the GM's hidden pool


def groups(read: ReadSide) -> set[str]:
    """The names of minion groups of several (`Thugs fail`, not `fails`): what a reader that starts mid-log (a tail,
    a session, an encounter, the players' screen) tells the describer, which otherwise learns it from the additions."""
    with read.engine.connect() as conn:
        rows = conn.execute(select(sheets.c.name, sheets.c.sheet)).all()
    return {str(n) for n, sheet in rows if (sheet or {}).get("minion") and int((sheet or {}).get("count") or 1) > 1}


def sheets_of(read: ReadSide, ids: list[str]) -> list[dict[str, Any]]:
    """The sheets of these characters (in play or not), in the order they were added."""
    if not ids:
        return []
    with read.engine.connect() as conn:
        q = select(sheets).where(sheets.c.character_id.in_(ids)).order_by(sheets.c.added)
        rows = conn.execute(q).mappings().all()
    return [sheet_json(r) for r in rows]


@checked
def events(
    read: ReadSide,
    *,
    session: int | None = None,
    character_name: str | None = None,
    everything: bool = False,
    tail: int | None = None,
) -> list[dict[str, Any]]:
    """The event log, in order, each with its ruling's actor, session and retraction (`tail`: only the last N rulings'
    events, and only they are checked)."""
    stored, position, state = read.stored_states()
    q = (
        select(
            log,
            rulings.c.actor,
            rulings.c.session,
            rulings.c.retracted_by,
            rulings.c.retracted_actor,
            rulings.c.retracted_at,
            rulings.c.kind,
            state.label("event_state"),
            stored.c.topic.label("event_topic"),
            stored.c.originator_id.label("event_origin"),
        )
        .join(rulings, rulings.c.number == log.c.ruling, isouter=True)
        .join(stored, position == log.c.seq, isouter=True)
        .order_by(log.c.seq)
    )
    if not everything:
        q = q.where(log.c.bookkeeping.is_(False))
    if session is not None:
        q = q.where(rulings.c.session == session)
    shown_name = _canonical_name(read, character_name) if character_name is not None else None
    if shown_name is not None:
        q = q.where(log.c.character == shown_name)
    with read.engine.connect() as conn:
        rows: list[Any] = list(conn.execute(q).mappings().all())
        if tail is not None:
            keep = set(sorted({r["ruling"] for r in rows})[-tail:])
            rows = [r for r in rows if r["ruling"] in keep]
        log_rows(read, conn, rows)
        envelope_rows(
            read, conn, {r["ruling"]: {k: r[k] for k in ("actor", "session", "kind")} for r in rows if r["ruling"]}
        )
        if session is None and character_name is None and tail is None:  # the whole log: a row per event kept
            log_complete(read, conn, len(rows), views_position(conn))
        elif session is None and character_name is None and rows:  # the last rulings: every event of theirs, no other
            tail_complete(read, conn, min(r["ruling"] for r in rows), [r["seq"] for r in rows], views_position(conn))
        elif session is None and tail is None and character_name is not None:  # every event of the character's own
            key = character_name.strip().casefold()
            cids = [str(c) for (c,) in conn.execute(select(sheets.c.character_id).where(sheets.c.key == key))]
            character_complete(read, conn, str(shown_name), cids, [r["seq"] for r in rows], views_position(conn))
        elif session is not None and character_name is None:
            numbers = sorted(
                {int(r[0]) for r in conn.execute(select(rulings.c.number).where(rulings.c.session == session))}
            )
            rulings_complete(read, conn, numbers, [r["seq"] for r in rows if not r["bookkeeping"]], session, tail)
        dead = retracted_rulings(conn)
        retraction_rows(
            read,
            conn,
            {
                r["ruling"]: (r["retracted_by"], r["retracted_actor"], r["retracted_at"])
                for r in rows
                if r["ruling"] in dead
            },
        )
        if everything and character_name is None:  # bookkeeping events have no row of their own: read them from the log
            rows = _with_bookkeeping(read, conn, rows, session)
        undoers = _undoers(conn, {r["retracted_by"] for r in rows if r["ruling"] in dead})
    out = []
    for r in rows:
        retracted = None
        if r["ruling"] in dead:
            retracted = {"by": r["retracted_by"], "actor": r["retracted_actor"], "at": r["retracted_at"]}
            retracted["how"] = "undone" if r["retracted_by"] in undoers else "retracted"
        out.append(
            {
                "seq": r["seq"],
                "ruling": r["ruling"],
                "type": r["type"],
                "character": r["character"],
                "data": resolve_data(r["data"], r["event_state"]),
                "actor": r["actor"],
                "session": r["session"],
                "at": r["at"],
                "retracted": retracted,
            }
        )
    return out


def _retraction(row: Any) -> tuple[Any, Any, Any]:
    """A rulings row's retraction as shown: (by, actor, at)."""
    return row["retracted_by"], row["retracted_actor"], row["retracted_at"]


def _with_bookkeeping(read: ReadSide, conn: Any, rows: list[Any], session: int | None) -> list[Any]:
    """The log's rows and the bookkeeping events the views keep no row for, in order (a row already there wins)."""
    have = {r["seq"] for r in rows}
    envelopes = {
        e[0]: dict(
            zip(("actor", "session", "retracted_by", "retracted_actor", "retracted_at", "kind"), e[1:], strict=True)
        )
        for e in conn.execute(
            select(
                rulings.c.number,
                rulings.c.actor,
                rulings.c.session,
                rulings.c.retracted_by,
                rulings.c.retracted_actor,
                rulings.c.retracted_at,
                rulings.c.kind,
            )
        )
    }
    blank = dict.fromkeys(("actor", "session", "retracted_by", "retracted_actor", "retracted_at", "kind"))
    extra = []
    for seq, topic, raw in read.bookkeeping(conn):
        if seq in have:
            continue
        st = orjson.loads(bytes(raw))
        ruling = st.get("ruling", 0)
        env = envelopes.get(ruling, blank)
        if session is not None and env["session"] != session:
            continue
        kind, name = topic_names(topic)
        extra.append(
            {
                "seq": seq,
                "ruling": ruling,
                "type": name,
                "aggregate": kind,
                "character": None,
                "data": event_data(st),
                "at": stamp(st),
                "bookkeeping": True,
                "event_state": None,
                **env,
            }
        )
    return sorted([*rows, *extra], key=lambda r: r["seq"]) if extra else rows


def _undoers(conn: Any, numbers: set[Any]) -> set[int]:
    """Which of these rulings are undos (the others that take a ruling out are retractions)."""
    wanted = [int(n) for n in numbers if n is not None]
    if not wanted:
        return set()
    found = conn.execute(
        select(rulings.c.number).where(rulings.c.number.in_(wanted)).where(rulings.c.command == "undo")
    )
    return {int(n) for (n,) in found}


def retracted_rulings(conn: Any) -> set[int]:
    """Rulings retracted by a ruling that is itself live (undoing or retracting a retraction revives its target)."""
    # lazy: the event classes (eventsourcing); kept out of `character list`
    from ledger.aggregates import retracted

    return retracted(
        dict(
            conn.execute(
                select(rulings.c.number, rulings.c.retracted_by).where(rulings.c.retracted_by.is_not(None))
            ).all()
        )
    )


def _canonical_name(read: ReadSide, name: str) -> str:
    with read.engine.connect() as conn:
        row = conn.execute(
            select(sheets.c.name).where(sheets.c.key == name.strip().casefold()).order_by(sheets.c.added.desc())
        ).first()
    if row is None:
        raise _no_character(read, name)
    return str(row[0])


def live_amendments(
    conn: Any, dead: set[int], read: ReadSide | None = None
) -> dict[int, tuple[int, list[dict[str, Any]]]]:
    """For each re-derived ruling, the live retraction holding its outcome and that outcome's records (checked against
    the retractions' own events when `read` is given)."""
    found = conn.execute(
        select(amendments.c.seq, amendments.c.ruling, amendments.c.by, amendments.c.records).order_by(amendments.c.seq)
    ).all()
    if read is not None:
        retractions = conn.execute(select(rulings.c.retracted_by).where(rulings.c.retracted_by.is_not(None))).all()
        amendment_rows(read, conn, found, [r[0] for r in retractions])
    out: dict[int, tuple[int, list[dict[str, Any]]]] = {}
    for _seq, ruling, by, records in found:
        if by not in dead:
            out[ruling] = (by, records)
    return out


def _hp_of(record: dict[str, Any]) -> int | None:
    data = record["data"]
    if record["type"] == CHARACTER_ADDED:
        return int(data["sheet"]["hp"])
    if record["type"] in (DAMAGE_APPLIED, HEALTH_RECOVERED):
        return int(data["data"]["hp"])
    return None


@checked
def timeline(read: ReadSide, name: str) -> list[dict[str, Any]]:
    """Every HP change of a live character in the live history: retracted rulings left out, re-derived ones as
    amended."""
    with read.engine.connect() as conn:
        row = conn.execute(
            select(sheets.c.character_id, sheets.c.max_hp, sheets.c.sheet).where(
                and_(sheets.c.key == name.strip().casefold(), sheets.c.active)
            )
        ).first()
        if row is None:
            raise _no_character(read, name)
        if is_gm_pool(row[2]):
            pool = str(row[2]["name"])
            conn.close()
            return _pool_timeline(read, pool)
        cid, max_hp, _ = row
        points = conn.execute(
            select(hp_timeline.c.ruling, hp_timeline.c.seq, hp_timeline.c.hp, hp_timeline.c.max_hp, hp_timeline.c.at)
            .where(hp_timeline.c.character_id == cid)
            .order_by(hp_timeline.c.seq)
        ).all()
        timeline_rows(read, conn, cid, [(s, n, h, m, a) for n, s, h, m, a in points], None)
        dead = retracted_rulings(conn)
        amended = live_amendments(conn, dead, read)
        envelopes = {
            r[0]: r[1:]
            for r in conn.execute(
                select(rulings.c.number, rulings.c.kind, rulings.c.session, rulings.c.command, rulings.c.at)
            )
        }
        used = {p[0] for p in points} | set(amended)
        envelope_rows(
            read,
            conn,
            {
                n: dict(zip(("kind", "session", "command", "at"), envelopes.get(n, (None,) * 4), strict=True))
                for n in used
            },
        )
    candidates: list[tuple[int, float, int, int, str]] = []
    for ruling, seq, hp, top, at in points:
        kind = envelopes.get(ruling, ("play",))[0]
        if ruling in dead or ruling in amended or kind in ("undo", "redo", "retract", "ask"):
            continue
        candidates.append((ruling, seq, hp, top, at))
    for ruling, (_by, records) in amended.items():
        if ruling in dead:
            continue
        for i, rec in enumerate(records):
            hp = _hp_of(rec) if rec["aggregate"] == cid else None
            if hp is not None:
                at = str(envelopes.get(ruling, ("", None, None, ""))[3])[:19] + "Z"
                candidates.append((ruling, i / 1000, hp, max_hp, at))
    candidates.sort(key=lambda c: (c[0], c[1]))
    out: list[dict[str, Any]] = []
    for ruling, _, hp, top, at in candidates:
        if out and out[-1]["hp"] == hp:
            continue
        _, session, command, _ = envelopes.get(ruling, (None, None, None, None))
        out.append({"ruling": ruling, "hp": hp, "max_hp": top, "at": at, "session": session, "command": command})
    return out


def _pool_timeline(read: ReadSide, name: str) -> list[dict[str, Any]]:
    """The GM's Adversity over the live history: each change with its ruling (retracted rulings left out)."""
    out: list[dict[str, Any]] = []
    for e in events(read, character_name=name):
        data = e["data"] if isinstance(e["data"], dict) else {}
        if e["retracted"] or e["type"] != RESOURCE_CHANGED or data.get("resource") != "adversity":
            continue
        why = data.get("purpose") or data.get("reason")
        out.append(
            {
                "ruling": e["ruling"],
                "adversity": data.get("value"),
                "at": e["at"],
                "session": e["session"],
                "purpose": why,
            }
        )
    return out


@checked
def ruling_rows(read: ReadSide) -> list[dict[str, Any]]:
    """Every ruling's envelope, in order (each checked against its RulingRecorded event)."""
    with read.engine.connect() as conn:
        out = [dict(r) for r in conn.execute(select(rulings).order_by(rulings.c.number)).mappings().all()]
        envelope_rows(read, conn, {r["number"]: {k: r[k] for k in ENVELOPE} for r in out})
    return out


@checked
def sheet_at(read: ReadSide, name: str, ruling: int) -> dict[str, Any]:
    """A character's sheet as the live history stood right after ruling `ruling` (retracted rulings left out)."""
    key = name.strip().casefold()
    with read.engine.connect() as conn:
        top = conn.execute(select(func.max(rulings.c.number))).scalar() or 0
        if not 1 <= ruling <= top:
            raise BadInput(f"there is no ruling {ruling}", f"rulings run 1 to {top}")
        row = conn.execute(
            select(sheets.c.character_id, sheets.c.name, sheets.c.sheet)
            .where(and_(sheets.c.key == key, sheets.c.added <= ruling))
            .order_by(sheets.c.added.desc())
        ).first()
        if row is None:
            raise _no_character(read, name, f" at ruling {ruling}")
        if is_gm_pool(row[2]):
            raise NotFound(f"no character called '{name}' at ruling {ruling}", "see: ledger character list")
        dead = retracted_rulings(conn)
        amended = live_amendments(conn, dead, read)
        stored, at, state = read.stored_states()
        found = (
            conn.execute(
                select(
                    sheet_events.c.seq.label("history_seq"),
                    sheet_events.c.ruling.label("history_ruling"),
                    log,
                    state.label("event_state"),
                    stored.c.topic.label("event_topic"),
                    stored.c.originator_id.label("event_origin"),
                )
                .join(log, log.c.seq == sheet_events.c.seq, isouter=True)
                .join(stored, at == sheet_events.c.seq, isouter=True)
                .where(sheet_events.c.character_id == row[0])
                .order_by(sheet_events.c.seq)
            )
            .mappings()
            .all()
        )
        timeline_rows(read, conn, row[0], None, [(r["history_seq"], r["history_ruling"]) for r in found])
        if any(r["seq"] is None for r in found) and not read.trusted:
            raise Forged("ledger_log lacks a row ledger_sheet_events names")
        log_rows(read, conn, found)
        events = [
            (r["history_ruling"], r["type"], r["data"], r["event_state"])
            for r in found
            if r["history_ruling"] <= ruling
        ]
    merged = [
        (n, i, k, resolve_data(d, st)) for i, (n, k, d, st) in enumerate(events) if n not in dead and n not in amended
    ]
    for n, (_, records) in amended.items():
        if n <= ruling:
            merged += [
                (n, -1, r["type"], r["data"].get("data", r["data"])) for r in records if r["aggregate"] == row[0]
            ]
    merged.sort(key=lambda m: (m[0], m[1] if m[1] >= 0 else 0))
    sheet: Sheet | None = None
    for _, _, kind, data in merged:
        if kind == CHARACTER_ADDED:
            sheet = Sheet.from_dict(data["sheet"])
        elif kind in SHEET_EFFECTS and sheet is not None:
            sheet = apply_effect(sheet, kind, data)
    if sheet is None:
        raise NotFound(f"{row[1]} was not in play at ruling {ruling}")
    return {**sheet_json({"sheet": sheet.to_dict()}), "at": ruling}


@checked
def encounter_log(read: ReadSide, number: int | None = None) -> dict[str, Any]:
    """One encounter turn by turn: each turn's live rulings with their dice, outcomes and conditions."""
    with read.engine.connect() as conn:
        q = select(encounters).order_by(encounters.c.number.desc())
        enc = conn.execute(q if number is None else q.where(encounters.c.number == number)).mappings().first()
        if enc is None:
            raise NotFound(
                "no such encounter" if number else "no encounter has been run",
                "start one: ledger encounter start NAME...",
            )
        stored, position, state = read.stored_states()
        rows = (
            conn.execute(
                select(
                    enc_log,
                    log.c.ruling,
                    log.c.type,
                    log.c.character,
                    log.c.data,
                    log.c.aggregate,
                    log.c.at,
                    log.c.bookkeeping,
                    state.label("event_state"),
                    stored.c.topic.label("event_topic"),
                    stored.c.originator_id.label("event_origin"),
                    rulings.c.command,
                    rulings.c.intent,
                    rulings.c.actor,
                    rulings.c.at.label("ruled_at"),
                )
                .join(log, log.c.seq == enc_log.c.seq)
                .join(stored, position == log.c.seq, isouter=True)
                .join(rulings, rulings.c.number == log.c.ruling)
                .where(enc_log.c.encounter == enc["number"])
                .order_by(enc_log.c.seq)
            )
            .mappings()
            .all()
        )
        if not read.trusted:
            turn_rows = conn.execute(select(enc_log).where(enc_log.c.encounter == enc["number"])).all()
            encounter_rows(read, conn, int(enc["number"]), enc, turn_rows)
            if len(turn_rows) != len(rows):
                raise Forged("ledger_log or ledger_rulings lacks a row of ledger_encounter_log")
            log_rows(read, conn, rows)
            envelope_rows(
                read,
                conn,
                {r["ruling"]: {"command": r["command"], "intent": r["intent"], "at": r["ruled_at"]} for r in rows},
            )
        dead = retracted_rulings(conn)
        amended = live_amendments(conn, dead, read)
        names = _names(conn) if amended else {}
    turns: list[dict[str, Any]] = []
    live = [{**r, "data": resolve_data(r["data"], r["event_state"])} for r in rows if r["ruling"] not in dead]
    for r in _effective_rows(live, amended, names):
        if not turns or (turns[-1]["round"], turns[-1]["actor"]) != (r["round"], r["actor"]):
            turns.append({"round": r["round"], "actor": r["actor"], "rulings": []})
        rulings_ = turns[-1]["rulings"]
        if not rulings_ or rulings_[-1]["ruling"] != r["ruling"]:
            rulings_.append(
                {
                    "ruling": r["ruling"],
                    "command": r["command"],
                    "intent": r["intent"],
                    "actor": r["actor"],
                    "at": r["ruled_at"],
                    "events": [],
                }
            )
        rulings_[-1]["events"].append(
            {"seq": r["seq"], "type": r["type"], "character": r["character"], "data": r["data"]}
        )
    return {
        "number": enc["number"],
        "system": enc["system"],
        "started": enc["started"],
        "ended": enc["ended"],
        "active": enc["active"],
        "round": enc["round"],
        "current": enc["current"],
        "turns": turns,
    }


def amended_log(read: ReadSide, rows: list[dict[str, Any]], character_name: str | None = None) -> list[dict[str, Any]]:
    """Log rows (`events`) with each ruling a live retraction re-derived shown by its amended outcome, as the encounter
    log and the recap show it: its request and its dice stay, its outcome events are the amendment's (marked
    `amended_by`); the rows of one character (`character_name`) keep only that character's."""
    with read.engine.connect() as conn:
        dead = retracted_rulings(conn)
        amended = live_amendments(conn, dead, read)
        names = _names(conn) if amended else {}
    if not amended:
        return rows
    out: list[dict[str, Any]] = []
    done: set[int] = set()
    key = character_name.strip().casefold() if character_name is not None else None
    for r in rows:
        n = r["ruling"]
        if n not in amended or n in dead or r["type"] in (DICE_ROLLED, RULING_RECORDED):
            out.append(r)
            continue
        if n in done:
            continue
        done.add(n)
        out.extend(
            x
            for x in _amendment_rows(r, amended[n], names)
            if key is None or str(x["character"] or "").casefold() == key
        )
    return out


def _names(conn: Any) -> dict[str, str]:
    return {cid: name for cid, name in conn.execute(select(sheets.c.character_id, sheets.c.name))}


def _effective_rows(
    rows: list[dict[str, Any]], amended: dict[int, tuple[int, list[dict[str, Any]]]], names: dict[str, str]
) -> list[dict[str, Any]]:
    """Log rows with each re-derived ruling's outcome events replaced by its live amendment (its dice stay)."""
    out: list[dict[str, Any]] = []
    done: set[int] = set()
    for r in rows:
        n = r["ruling"]
        if n not in amended or r["type"] == DICE_ROLLED:
            out.append(r)
            continue
        if n in done:
            continue
        done.add(n)
        out.extend(_amendment_rows(r, amended[n], names))
    return out


def _amendment_rows(
    r: dict[str, Any], amendment: tuple[int, list[dict[str, Any]]], names: dict[str, str]
) -> list[dict[str, Any]]:
    """Row `r`'s ruling as its live amendment re-derived it: a row per amended outcome event (marked `amended_by`)."""
    by, records = amendment
    out: list[dict[str, Any]] = []
    for rec in records:
        data = rec["data"]
        inner = data["data"] if isinstance(data.get("data"), dict) else data
        who = names.get(rec["aggregate"]) or inner.get("character") or inner.get("for")
        out.append({**r, "type": rec["type"], "character": who, "data": inner, "amended_by": by})
    return out


@checked
def session_history(read: ReadSide, number: int) -> dict[str, Any]:
    """Every ruling of a play session, in order, with its events; retracted rulings marked."""
    with read.engine.connect() as conn:
        s = conn.execute(select(sessions).where(sessions.c.number == number)).mappings().first()
        if s is None:
            raise NotFound(f"there is no session {number}", "see: ledger log, or start one: ledger session start")
        found = (
            conn.execute(select(rulings).where(rulings.c.session == number).order_by(rulings.c.number)).mappings().all()
        )
        numbers = [r["number"] for r in found]
        stored, position, state = read.stored_states()
        evs = (
            conn.execute(
                select(
                    log,
                    state.label("event_state"),
                    stored.c.topic.label("event_topic"),
                    stored.c.originator_id.label("event_origin"),
                )
                .join(stored, position == log.c.seq, isouter=True)
                .where(and_(log.c.ruling.in_(numbers), log.c.bookkeeping.is_(False)))
                .order_by(log.c.seq)
            )
            .mappings()
            .all()
            if numbers
            else []
        )
        log_rows(read, conn, evs)
        rulings_complete(read, conn, numbers, [e["seq"] for e in evs], number)
        envelope_rows(read, conn, {r["number"]: {k: r[k] for k in ENVELOPE} for r in found})
        dead = retracted_rulings(conn)
        retraction_rows(
            read,
            conn,
            {
                r["number"]: (r["retracted_by"], r["retracted_actor"], r["retracted_at"])
                for r in found
                if r["number"] in dead
            },
        )
        amended = live_amendments(conn, dead, read)
        names = _names(conn) if amended else {}
        undoers = _undoers(conn, {r["retracted_by"] for r in found if r["number"] in dead})
    rows = [
        {
            "ruling": e["ruling"],
            "seq": e["seq"],
            "type": e["type"],
            "character": e["character"],
            "data": resolve_data(e["data"], e["event_state"]),
        }
        for e in evs
        if e["type"] != RULING_RECORDED
    ]
    by_ruling: dict[int, list[dict[str, Any]]] = {}
    for e in _effective_rows(rows, amended, names):
        by_ruling.setdefault(e["ruling"], []).append(
            {"seq": e["seq"], "type": e["type"], "character": e["character"], "data": e["data"]}
        )
    out = []
    for r in found:
        retracted = None
        if r["number"] in dead:
            retracted = {"by": r["retracted_by"], "actor": r["retracted_actor"], "at": r["retracted_at"]}
            retracted["how"] = "undone" if r["retracted_by"] in undoers else "retracted"
        out.append(
            {
                "ruling": r["number"],
                "kind": r["kind"],
                "command": r["command"],
                "intent": r["intent"],
                "actor": r["actor"],
                "at": r["at"],
                "retracted": retracted,
                "events": by_ruling.get(r["number"], []),
            }
        )
    return {"session": s["number"], "title": s["title"], "started": s["started"], "ended": s["ended"], "rulings": out}


def session_number(read: ReadSide, value: str | int | None) -> int | None:
    """A `--session` value: a number, or `current` for the open play session (NotFound when none is open)."""
    if value is None or isinstance(value, int):
        return value
    text = str(value).strip().lower()
    if text.lstrip("+-").isdigit():
        return whole("session", text)
    if text not in ("current", "open", "now"):
        raise BadInput(
            f"--session takes a number or 'current', not '{value}'", "for example: --session 2 or --session current"
        )
    with read.engine.connect() as conn:
        found = conn.execute(
            select(sessions.c.number).where(sessions.c.ended.is_(None)).order_by(sessions.c.number.desc())
        ).first()
    if found is None:
        raise NotFound("no play session is open", "start one: ledger session start TITLE, or give --session N")
    return int(found[0])


def _no_character(read: ReadSide, name: str, suffix: str = "") -> NotFound:
    """The refusal of an unknown name, suggesting the nearest live character's name."""
    with read.engine.connect() as conn:
        known = [
            str(r[0])
            for r in conn.execute(select(sheets.c.name, sheets.c.sheet).where(sheets.c.active))
            if not is_gm_pool(r[1])
        ]
    return no_character(name, known, suffix)
