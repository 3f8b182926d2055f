"""What a shared history is arranged by: sessions, then encounters, then rounds; a recap per session; minion counts.

Pure functions on the rulings `projections.history.load` gathers (each with its events, its session, and the
encounter and round it happened in).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ledger.model.event_names import (
    ATTACK_RESOLVED,
    CHARACTER_ADDED,
    CONDITION_IMPOSED,
    DAMAGE_APPLIED,
    ENCOUNTER_STARTED,
    MINIONS_DEFEATED,
    PARTICIPANT_JOINED,
    PARTICIPANT_REMOVED,
    STATE_RESTORED,
)
from ledger.rules import health_word
from ledger.words.summary import how

FELL = ("dead", "dying", "defeated", "incapacitated", "unconscious", "stabilized", "asleep", "disabled")


@dataclass
class Round:
    """The rulings of one round of an encounter (round None: outside any encounter)."""

    number: int | None
    rulings: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Block:
    """A run of rulings in one encounter (None: between encounters), by round."""

    encounter: int | None
    rounds: list[Round] = field(default_factory=list)


@dataclass
class SessionPart:
    """One session's rulings (session None: outside play sessions), its recap, and its blocks."""

    number: int | None
    recap: list[str]
    blocks: list[Block] = field(default_factory=list)
    rulings: list[dict[str, Any]] = field(default_factory=list)


def arrange(rulings: Iterable[dict[str, Any]], system: str = "") -> list[SessionPart]:
    """Rulings grouped by session, then encounter, then round, in the order they happened."""
    parts: list[SessionPart] = []
    for r in rulings:
        if not parts or parts[-1].number != r["session"]:
            parts.append(SessionPart(r["session"], []))
        part = parts[-1]
        part.rulings.append(r)
        if not part.blocks or part.blocks[-1].encounter != r.get("encounter"):
            part.blocks.append(Block(r.get("encounter")))
        block = part.blocks[-1]
        if not block.rounds or block.rounds[-1].number != r.get("round"):
            block.rounds.append(Round(r.get("round")))
        block.rounds[-1].rulings.append(r)
    for part in parts:
        part.recap = recap(part.rulings, system)
    return parts


SEVERITY = {
    "left the fight": 0,
    "disabled": 1,
    "stabilized": 2,
    "asleep": 2,
    "unconscious": 3,
    "incapacitated": 4,
    "dying": 5,
    "defeated": 6,
    "dead": 7,
}


def recap(rulings: list[dict[str, Any]], system: str = "") -> list[str]:
    """A few lines at the top of a session: who fell (the worst that befell each, to the session's end), how many
    of each minion group fell, who was hurt most, criticals, retractions, undos."""
    commands = {r["ruling"]: r["command"] for r in rulings}
    undone: list[str] = []
    fell: dict[str, tuple[int, str]] = {}
    groups: dict[str, dict[str, int]] = {}  # a minion group: its size when first hit, how many fell, when wiped
    hurt: dict[str, int] = {}
    crits: list[str] = []
    retracted: list[str] = []
    for r in rulings:
        if r["retracted"]:
            x = r["retracted"]
            if commands.get(x["by"]) == "undo":  # an undo is the GM taking back a ruling, not contesting it
                undone.append(f"#{r['ruling']} ({r['command']})")
            else:
                retracted.append(f"#{r['ruling']} ({r['command']}) by #{x['by']}")
            continue
        for e in r["events"]:
            t, d, who = e["type"], e.get("data") or {}, e.get("character") or ""
            if t == CONDITION_IMPOSED and d.get("condition") in FELL:
                if who in groups:  # the last member of a group falls: the group is wiped out
                    groups[who].update(lost=groups[who]["start"], wiped=r["ruling"])
                    continue
                rank = SEVERITY.get(str(d["condition"]), 0)
                if who not in fell or rank > fell[who][0]:
                    by = how(r)
                    fell[who] = (rank, f"{who} ({d['condition']}, #{r['ruling']}" + (f", {by})" if by else ")"))
            elif t == PARTICIPANT_REMOVED and d.get("name") and d["name"] not in fell and d["name"] not in groups:
                fell[str(d["name"])] = (0, f"{d['name']} (left the fight, #{r['ruling']})")
            elif t == MINIONS_DEFEATED and d.get("defeated"):
                g = groups.setdefault(who, {"start": int(d.get("count", 0)) + int(d["defeated"]), "lost": 0})
                g["lost"] += int(d["defeated"])
                if d.get("count") == 0:
                    g["wiped"] = r["ruling"]
            elif t == DAMAGE_APPLIED and isinstance(e.get("hp_before"), int) and isinstance(d.get("hp"), int):
                if who not in groups:
                    hurt[who] = hurt.get(who, 0) + max(0, e["hp_before"] - d["hp"])
            elif (
                t == ATTACK_RESOLVED
                and d.get("hit")
                and (d.get("critical_hit") or d.get("critical") is True or d.get("instant-death"))
            ):
                crits.append(f"{d.get('attacker') or who} on {d.get('target') or who} (#{r['ruling']})")
    out = []
    lost = [
        f"{who} (all {g['start']}, the last at #{g['wiped']})"
        if "wiped" in g
        else f"{who} ({g['lost']} of {g['start']})"
        for who, g in groups.items()
    ]
    if fell or lost:
        out.append("Fell: " + ", ".join([text for _, text in fell.values()] + lost))
    worst = sorted(((n, who) for who, n in hurt.items() if n > 0 and who not in groups), key=lambda p: -p[0])
    if worst:
        n, who = worst[0]
        out.append(f"Hurt most: {who} (lost {n} {health_word(system) if system else 'HP'})")
    if crits:
        out.append("Criticals: " + ", ".join(crits))
    if retracted:
        out.append("Retracted: " + ", ".join(retracted))
    if undone:
        out.append("Undone: " + ", ".join(undone))
    return out


def sum_lost(rulings: list[dict[str, Any]], who: str) -> int:
    """How many of a minion group fell in these (live) rulings."""
    return sum(
        int((e.get("data") or {}).get("defeated", 0))
        for r in rulings
        if not r["retracted"]
        for e in r["events"]
        if e["type"] == MINIONS_DEFEATED and e.get("character") == who
    )


def joined(rulings: Iterable[dict[str, Any]], encounter: int) -> list[str]:
    """Who joined an encounter once it had begun: `Boss (round 2, #12)`."""
    return [
        f"{e['data'].get('name')} (round {r.get('round')}, #{r['ruling']})"
        for r in rulings
        if not r["retracted"] and r.get("encounter") == encounter
        for e in r["events"]
        if e["type"] == PARTICIPANT_JOINED
    ]


def initiative(rulings: Iterable[dict[str, Any]], encounter: int) -> list[dict[str, Any]]:
    """The encounter's starting order (name, initiative)."""
    return [
        o
        for r in rulings
        if not r["retracted"]
        for e in r["events"]
        if e["type"] == ENCOUNTER_STARTED and e["data"].get("number") == encounter
        for o in e["data"].get("order", [])
    ]


def minion_series(
    rows: Iterable[dict[str, Any]], skip: set[int], shown: set[int], first: int, whole: bool
) -> list[dict[str, Any]]:
    """Per minion group, how many are left after each live ruling that changed it (the charts' minion losses).

    `skip`: the undo and redo rulings (their restored states are not points, as in the HP charts).
    """
    count: dict[str, int] = {}
    top: dict[str, int] = {}
    series: dict[str, dict[str, Any]] = {}
    for e in rows:
        if e["retracted"] or e["ruling"] in skip:
            continue
        d, who = e.get("data") or {}, e.get("character") or ""
        if e["type"] in (CHARACTER_ADDED, STATE_RESTORED) and (d.get("sheet") or {}).get("minion"):
            s = d["sheet"]
            name = s.get("name") or who
            count[name] = int(s.get("count", 1))
            top.setdefault(name, count[name])
            if e["type"] == CHARACTER_ADDED:
                top[name] = count[name]
        elif e["type"] == MINIONS_DEFEATED and who in count:
            count[who] = int(d.get("count", count[who]))
        elif e["type"] == CONDITION_IMPOSED and who in count and d.get("condition") in FELL and count[who] > 0:
            count[who] = 0  # the last member falls: none of the group is left
        else:
            continue
        name = (d.get("sheet") or {}).get("name") or who
        s = series.setdefault(name, {"name": name, "minions": True, "before": None, "points": []})
        point = {"ruling": e["ruling"], "hp": count[name], "max_hp": top[name]}
        if e["ruling"] < first:
            s["before"] = point
        elif whole or e["ruling"] in shown:
            s["points"] = [p for p in s["points"] if p["ruling"] != e["ruling"]] + [point]
    out = []
    for s in series.values():
        pts = ([{**s["before"], "ruling": first}] if s["before"] else []) + s["points"]
        if len(pts) > 1 or any(p["hp"] != p["max_hp"] for p in pts):
            out.append({"name": s["name"], "minions": True, "points": pts})
    return out
