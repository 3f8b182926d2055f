"""A retraction's diff sorted for a GM: the outcomes that change first, then the values that only shift.

A re-derived ruling changes an outcome when its events differ in anything but the HP numbers they carry (a hit
that now misses, a defeat or death undone or added, a condition gained or lost, a refusal, a roll never made);
otherwise it only shifts values, and those are told once per character (`Bob: 1,500 later rulings, HP +1
throughout`). Pure functions on a plan's summary (ledger/history/rederive.py `Plan.summary`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from ledger.words.describe import HpFold, sentence

SHIFTING = frozenset({"hp"})  # the fields whose numbers may move without the outcome changing


def shifts_only(change: Mapping[str, Any]) -> bool:
    """Whether a re-derived ruling's events differ from its old ones only in the HP numbers they carry."""
    if change.get("refused") or change.get("new_dice"):
        return False
    before, after = change["before"], change["after"]
    if [(r["aggregate"], r["type"]) for r in before] != [(r["aggregate"], r["type"]) for r in after]:
        return False
    return all(_only_shifting(b["data"], a["data"]) for b, a in zip(before, after, strict=True))


def _only_shifting(b: Any, a: Any, key: str = "") -> bool:
    if isinstance(b, Mapping) and isinstance(a, Mapping):
        if set(b) != set(a):
            return False
        return all(_only_shifting(b[k], a[k], k) for k in b)
    if b == a:
        return True
    return key in SHIFTING and type(b) is int and type(a) is int


def hp_deltas(change: Mapping[str, Any]) -> dict[str, list[int]]:
    """For a ruling that only shifts values: each aggregate's HP changes, after minus before, in order."""
    out: dict[str, list[int]] = {}
    for b, a in zip(change["before"], change["after"], strict=True):
        bh, ah = _hp(b["data"]), _hp(a["data"])
        if bh is not None and ah is not None and bh != ah:
            out.setdefault(b["aggregate"], []).append(ah - bh)
    return out


def _hp(data: Any) -> int | None:
    inner = data.get("data", data) if isinstance(data, Mapping) else None
    hp = inner.get("hp") if isinstance(inner, Mapping) else None
    return hp if type(hp) is int else None


def readable(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The summary's rulings split: `outcomes` (rulings whose outcome changes) and `shifts` (one entry per
    character whose values only move: how many rulings, the HP deltas' range, the final HP before and after)."""
    outcomes: list[int] = []
    per: dict[str, dict[str, Any]] = {}
    for c in summary["rederived"]:
        if not shifts_only(c):
            if reads_alike(summary, c):  # a counter moved, nothing a reader is told: not an outcome that changes
                continue
            outcomes.append(c["ruling"])
            continue
        for hex_id, deltas in hp_deltas(c).items():
            entry = per.setdefault(hex_id, {"aggregate": hex_id, "rulings": [], "deltas": set()})
            entry["rulings"].append(c["ruling"])
            entry["deltas"].update(deltas)
    names = summary.get("names", {})
    shifts = []
    for hex_id, entry in per.items():
        state = summary["states"].get(hex_id)
        final = None
        if state and state["before"].get("sheet") and state["after"].get("sheet"):
            final = [state["before"]["sheet"].get("hp"), state["after"]["sheet"].get("hp")]
        shifts.append(
            {
                "aggregate": hex_id,
                "name": names.get(hex_id, hex_id[:8]),
                "rulings": entry["rulings"],
                "hp": [min(entry["deltas"]), max(entry["deltas"])],
                "final_hp": final,
            }
        )
    return {"outcomes": outcomes, "shifts": shifts}


def said(summary: Mapping[str, Any], c: Mapping[str, Any], side: str, groups: Collection[str] = ()) -> str:
    """One side of a re-derived ruling as the describer's sentence (`groups`: minion groups of several)."""
    hp = (c.get("hp_before") or {}).get(side)
    system = str(summary.get("system") or "")
    return sentence(events(c[side], summary.get("names", {}), hp), HpFold(groups), system=system)


def reads_alike(summary: Mapping[str, Any], c: Mapping[str, Any]) -> bool:
    """Whether a re-derived ruling reads the same before and after (its events differ only where no reader looks)."""
    if c.get("refused") or c.get("new_dice"):
        return False
    return said(summary, c, "before") == said(summary, c, "after")


def events(records: list[Mapping[str, Any]], names: Mapping[str, str], hp: list[Any] | None = None) -> list[Any]:
    """A ruling's outcome records as the describer's events (`{"type", "character", "data", "hp_before"}`)."""
    out = []
    for i, r in enumerate(records):
        data = r["data"].get("data", r["data"]) if isinstance(r["data"], Mapping) else r["data"]
        who = names.get(r["aggregate"]) or (data.get("character") if isinstance(data, Mapping) else None)
        e: dict[str, Any] = {"type": r["type"], "character": who, "data": data}
        if hp is not None and i < len(hp) and hp[i] is not None:
            e["hp_before"] = hp[i]
        out.append(e)
    return out
