"""An encounter's summary: rounds, who fell and when, damage dealt and taken per combatant.

`summarise` is a pure function of the encounter's live rulings as plain data (`{"ruling", "round", "command",
"intent", "events": [{"type", "character", "data"}]}`): `encounter end` feeds it from the write side
(`from_store`), `encounter show` and the Markdown and HTML exports from the read side's encounter log, so the
terminal and a shared page say the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError

from ledger.aggregates import live_records, ruling_id
from ledger.encounter import ENCOUNTER_ID
from ledger.model.event_names import (
    CONDITION_IMPOSED,
    DAMAGE_APPLIED,
    ENCOUNTER_STARTED,
    MINIONS_DEFEATED,
    PARTICIPANT_JOINED,
    PARTICIPANT_REMOVED,
)

# Conditions that take a combatant out of the fight (or near it), as the summary names a fall: the same in every
# system (H&H's knocked out are stabilized or incapacitated, d20's unconscious or dying, P&P's defeated).
FALLS = ("dead", "dying", "defeated", "unconscious", "incapacitated", "stabilized", "asleep", "disabled", "staggered")
ATTACKER_KEYS = {"attack": "attacker", "act": "name", "hazard": None}
HOW = {  # how a fall came about, by the command of its ruling (`by Ann's attack`)
    "attack": "{by}'s attack",
    "act": "{by}'s {action}",
    "damage": "damage",
    "hazard": "a hazard",
    "condition add": "the GM's ruling",
    "encounter next": "the turn's end",
    "encounter remove": "leaving the fight",
    "character retire": "leaving play",
}


def how(r: Mapping[str, Any]) -> str:
    """How a ruling took someone out: `Ann's attack`, `damage`, `leaving the fight`."""
    command, intent = str(r.get("command") or ""), r.get("intent") or {}
    key = ATTACKER_KEYS.get(command)
    by = intent.get(key) if key else None
    said = HOW.get(command, "")
    if "{by}" in said and not by:
        return ""
    return said.format(by=by, action=str(intent.get("action", "")).replace("-", " "))


def summarise(
    number: int, system: str, rounds: int, names: Sequence[str], rulings: Iterable[Mapping[str, Any]]
) -> dict[str, Any]:
    """The summary of encounter `number` from its live rulings, in order."""
    dealt: dict[str, int] = {n: 0 for n in names}
    taken: dict[str, int] = {n: 0 for n in names}
    fell: list[dict[str, Any]] = []
    down: set[tuple[str, str]] = set()
    for r in rulings:
        key = ATTACKER_KEYS.get(str(r.get("command") or ""))
        by = (r.get("intent") or {}).get(key) if key else None
        events = list(r.get("events") or ())
        # a minion group's fallen members are its damage taken, one each, in every system (H&H records no HP loss)
        minions = {e.get("character") or "" for e in events if e.get("type") == MINIONS_DEFEATED}

        def deal(who: str, amount: int, by: Any = by) -> None:
            taken[who] = taken.get(who, 0) + amount
            if by and str(by).casefold() != who.casefold():
                name = next((n for n in dealt if n.casefold() == str(by).casefold()), str(by))
                dealt[name] = dealt.get(name, 0) + amount

        for e in events:
            who, data = e.get("character") or "", e.get("data") or {}
            if e.get("type") == DAMAGE_APPLIED and isinstance(data.get("amount"), int) and who not in minions:
                deal(who, int(data["amount"]))
            elif e.get("type") == CONDITION_IMPOSED and data.get("condition") in FALLS and who not in minions:
                if (who, data["condition"]) not in down:
                    down.add((who, data["condition"]))
                    same = next((f for f in fell if f["name"] == who and f["round"] == r["round"]), None)
                    if same is not None:  # more of the same fall: `dying, unconscious`
                        same["as"] += f", {data['condition']}"
                    else:
                        fell.append(
                            {
                                "name": who,
                                "as": data["condition"],
                                "ruling": r["ruling"],
                                "round": r["round"],
                                "how": how(r),
                            }
                        )
            elif e.get("type") == MINIONS_DEFEATED and int(data.get("defeated") or 0) > 0:
                deal(who, int(data["defeated"]))
                fell.append(
                    {
                        "name": who,
                        "as": "defeated",
                        "count": int(data["defeated"]),
                        "ruling": r["ruling"],
                        "round": r["round"],
                        "how": how(r),
                    }
                )
            elif e.get("type") == PARTICIPANT_REMOVED and data.get("name"):
                gone = str(data["name"])
                if not any(f["name"] == gone for f in fell):  # one already down and then removed fell before
                    fell.append(
                        {"name": gone, "as": "left the fight", "ruling": r["ruling"], "round": r["round"], "how": ""}
                    )
    combatants = [{"name": n, "dealt": dealt.get(n, 0), "taken": taken.get(n, 0)} for n in names]
    return {"encounter": number, "system": system, "rounds": rounds, "fell": fell, "combatants": combatants}


def lines(s: Mapping[str, Any], word: str = "round") -> list[str]:
    """The summary in words: one line for the falls, one per combatant with damage dealt and taken."""
    plural = "" if s["rounds"] == 1 else "s"
    out = [f"Encounter {s['encounter']}: {s['rounds']} {word}{plural}."]
    if s["fell"]:
        out.append("Fell: " + "; ".join(fall(f, word) for f in s["fell"]) + ".")
    else:
        out.append("No one fell.")
    width = max((len(c["name"]) for c in s["combatants"]), default=4)
    out += [f"  {c['name']:<{width}}  dealt {c['dealt']:>3}  taken {c['taken']:>3}" for c in s["combatants"]]
    return out


def fall(f: Mapping[str, Any], word: str = "round") -> str:
    """`Bob dying, unconscious (round 2, Ann's attack)`; a group's members by count: `1 of the Thugs defeated`."""
    who = f"{f['count']} of the {f['name']}" if f.get("count") else str(f["name"])
    when = f"{word} {f['round']}" + (f", {f['how']}" if f.get("how") else "")
    return f"{who} {f['as']} ({when})"


def hazard(joined: Mapping[str, Any]) -> bool:
    """Whether a ParticipantJoined's newcomer is a hazard's turn slot (no sheet: no damage dealt or taken)."""
    return any(o.get("hazard") for o in joined.get("order") or () if o.get("name") == joined.get("name"))


def rounds_by_ruling(records: Iterable[tuple[int, str, Mapping[str, Any]]]) -> dict[int, int]:
    """The round each encounter record's ruling left the encounter in (its live records, in order)."""
    out: dict[int, int] = {}
    for n, _, p in records:
        if "round" in p:
            out[n] = int(p["round"])
    return out


def round_at(marks: Mapping[int, int], ruling: int) -> int:
    """The round ruling `ruling` was made in: the round the latest encounter ruling before it left."""
    found = [n for n in marks if n < ruling]
    return marks[max(found)] if found else 1


def from_log(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The summary of an encounter from the read side's encounter log (projections/queries.encounter_log)."""
    flat: list[dict[str, Any]] = []
    names: list[str] = []
    for t in doc["turns"]:
        for r in t["rulings"]:
            for e in r["events"]:
                if e["type"] == ENCOUNTER_STARTED:
                    names = [o["name"] for o in e["data"]["order"]]
                elif e["type"] == PARTICIPANT_JOINED and e["data"].get("name") not in names and not hazard(e["data"]):
                    names.append(e["data"]["name"])
            flat.append({**r, "round": t["round"] or 1})
    return summarise(doc["number"], doc["system"], int(doc["round"] or 0), names, flat)


def from_store(store: Any, campaign: Any) -> dict[str, Any] | None:
    """The summary of the campaign's latest encounter from the write side (None if none was ever started).

    Each participant's live records (undone rulings left out, re-derived ones as amended) from the encounter's
    first ruling on; the round of each from the Encounter's own live records; who dealt it from the ruling's intent.
    """
    try:
        enc = store.repository.get(ENCOUNTER_ID)
    except AggregateNotFoundError:
        return None
    st = enc.state
    if not st["number"] or st["started"] is None:
        return None
    dead, amended = campaign.dead_set(), store.amendments(campaign)

    def live(aid: Any) -> list[tuple[int, str, dict[str, Any]]]:
        mine = {n: [r for r in recs if r["aggregate"] == aid.hex] for n, recs in amended.items()}
        return [r for r in live_records(store.events.get(aid), dead, mine) if r[0] >= st["started"]]

    own = live(ENCOUNTER_ID)
    marks = rounds_by_ruling(own)
    joined: list[dict[str, Any]] = []  # everyone who took part, removed and retired ones too, in order of joining
    for _, kind, p in own:
        if kind in (ENCOUNTER_STARTED, PARTICIPANT_JOINED):
            joined += [e for e in p["order"] if e.get("id") and all(e["id"] != j["id"] for j in joined)]
    by_ruling: dict[int, list[dict[str, Any]]] = {}
    for e in joined:
        for n, kind, p in live(UUID(e["id"])):
            by_ruling.setdefault(n, []).append({"type": kind, "character": e["name"], "data": p.get("data") or {}})
    for n, kind, p in own:  # who left the fight (`encounter remove`): a fall too
        if kind == PARTICIPANT_REMOVED:
            by_ruling.setdefault(n, []).append({"type": kind, "character": None, "data": p})
    end = st["ended"] or campaign.rulings + 1
    flat = []
    for n in sorted(by_ruling):
        if n > end:
            continue
        ruling = store.repository.get(ruling_id(n))
        flat.append(
            {
                "ruling": n,
                "round": round_at(marks, n + 1) if n in marks else round_at(marks, n),
                "command": ruling.command,
                "intent": ruling.intent,
                "events": by_ruling[n],
            }
        )
    return summarise(st["number"], st["system"], int(st["round"]), [e["name"] for e in joined], flat)


def from_history(rulings: Iterable[Mapping[str, Any]], number: int, system: str) -> dict[str, Any]:
    """The summary of encounter `number` from a shared history's rulings (each with its `encounter` and `round`;
    retracted ones left out), as the Markdown and HTML exports head the encounter with it."""
    mine = [r for r in rulings if r.get("encounter") == number and not r.get("retracted")]
    names: list[str] = []
    for r in mine:
        for e in r.get("events") or ():
            data = e.get("data") or {}
            if e.get("type") == ENCOUNTER_STARTED and data.get("number") == number:
                names = [o["name"] for o in data.get("order") or ()]
            elif e.get("type") == PARTICIPANT_JOINED and data.get("name") not in names and not hazard(data):
                names.append(str(data.get("name")))
    flat = [{**r, "round": r.get("round") or 1} for r in mine]
    rounds = max((int(r["round"]) for r in flat), default=0)
    return summarise(number, system, rounds, names, flat)
