"""A die line that adds up: the roll, then every named term the rules put between its faces and the number used.

`Blaze damage: 1d8 [5] +2 Str x2 critical -1 DN = 13`: read left to right, each term applies to everything
before it. The terms come from the ruling's own resolution data (nothing is re-derived here): H&H's critical
+1 (or -1) on a check, the effect rank of its power check (`3dF [+ 0 -] +12 rank = 12`), d20 Supers' attack
parts and its damage chain (ability, critical multiplier, the minimum of 1, DN).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypeGuard

from ledger.model.event_names import DICE_ROLLED

Term = tuple[str, int, str]  # ("+" or "x", value, what it is)
D20_ROLLS = ("attack", "confirm", "death")
ADJUST_WORDS = {"defend": "defend (dice at least 1)", "vulnerable": "vulnerable (halved)"}
ABILITY_NAMES = {"str": "Str", "dex": "Dex", "con": "Con", "int": "Int", "wis": "Wis", "cha": "Cha"}


def terms(d: Mapping[str, Any], events: Iterable[Mapping[str, Any]]) -> tuple[str | None, list[Term], Any]:
    """(notation to show instead of the recorded one, the terms after the faces, the total they reach)."""
    name, base = d.get("name"), d.get("total")
    if not isinstance(base, int) or d.get("used") is False:
        return None, [], base
    events = list(events)
    if d.get("kind") == "fudge" and _is_power(str(name)):  # one power check; an area halves it per target who dodges
        checks = [
            (sub, parent)
            for e in events
            if e.get("type") != DICE_ROLLED
            for sub, parent in _dicts(e.get("data") or {}, {})
            if sub.get("roll") == name and isinstance(sub.get("total"), int) and sub.get("faces") == d.get("faces")
        ]
        if checks:  # the check as rolled (the largest: the Dodge was against it), not a target's halved rank
            sub, parent = max(checks, key=lambda c: int(c[0]["total"]))
            return f"{len(d.get('faces') or [])}dF", power_terms(sub, parent), int(sub["total"])
    for e in events:
        if e.get("type") == DICE_ROLLED:
            continue
        data = e.get("data") or {}
        damage = data.get("damage")
        if name == "damage" and isinstance(damage, dict) and damage.get("faces") == d.get("faces"):
            return None, damage_terms(damage, base), damage.get("dealt", base)
        parts = data.get("attack-parts")
        if name in D20_ROLLS and _several(parts) and sum(parts.values()) == d.get("modifier"):
            shown: list[Term] = [("+", int(v), ABILITY_NAMES.get(str(k), str(k))) for k, v in parts.items() if v]
            return f"{d.get('count', 1) if 'count' in d else 1}d{d.get('sides', 20)}", shown, base
        for sub, parent in _dicts(data, {}):
            named = sub.get("roll") == name or (sub.get("check") == "initiative" and sub.get("character") == name)
            if named and isinstance(sub.get("total"), int) and sub.get("faces") == d.get("faces"):
                if d.get("kind") == "fudge" and _is_power(str(name)):
                    return f"{len(d.get('faces') or [])}dF", power_terms(sub, parent), int(sub["total"])
                diff = int(sub["total"]) - base
                out = [("+", int(v), ADJUST_WORDS.get(str(k), str(k))) for k, v in _adjust(sub).items() if v]
                rest = diff - sum(v for _, v, _ in out)
                out += [("+", rest, "critical" if sub.get("critical") else "adjusted")] if rest else []
                parts = sub.get("parts")
                if _several(parts) and sum(parts.values()) == d.get("modifier") and d.get("kind") == "fudge":
                    named_parts: list[Term] = [("+", int(v), str(k)) for k, v in parts.items() if v]
                    return f"{len(d.get('faces') or [])}dF", named_parts + out, base + diff
                return None, out, base + diff
    return None, [], base


def _adjust(sub: Mapping[str, Any]) -> dict[str, int]:
    """What the rules changed the total by after the dice, by name (H&H: defend's at-least-1, vulnerable's half)."""
    found = sub.get("adjust")
    if not isinstance(found, Mapping):
        return {}
    return {str(k): int(v) for k, v in found.items() if isinstance(v, int) and not isinstance(v, bool)}


def _several(parts: Any) -> TypeGuard[dict[str, int]]:
    """Parts worth naming: more than one (a lone trait reads plainly in the notation, 3dF+4)."""
    return isinstance(parts, dict) and sum(1 for v in parts.values() if v) > 1


def damage_terms(damage: Mapping[str, Any], base: int) -> list[Term]:
    """d20 Supers' damage: weapon dice + ability, x the critical multiplier, at least 1, less the target's DN."""
    out: list[Term] = []
    ability = int(damage.get("ability-mod") or 0)
    if ability:
        out.append(("+", ability, ABILITY_NAMES.get(str(damage.get("ability")), str(damage.get("ability")))))
    value = base + ability
    multiplier = int(damage.get("multiplier") or 1)
    if multiplier != 1:
        out.append(("x", multiplier, "critical"))
        value *= multiplier
    raw = int(damage.get("raw", value))
    if raw != value:
        out.append(("+", raw - value, "minimum"))
    dealt = int(damage.get("dealt", raw))
    if dealt != raw:
        out.append(("+", dealt - raw, "DN"))
    return out


def _is_power(name: str) -> bool:
    """H&H's power check (3dF + the effect rank): `power`, `slam-power`."""
    return name == "power" or name.endswith("-power")


def power_terms(sub: Mapping[str, Any], parent: Mapping[str, Any]) -> list[Term]:
    """H&H's power check: the effect rank, named; a critical hit's +1 (Critical Hits, Increased Effect); the dice's
    own critical (the-basics.txt, Critical Success: all + is +1 on a power check)."""
    bonus = int(sub.get("bonus") or 0)
    ranks = (r for r in (sub.get("rank"), parent.get("rank")) if isinstance(r, int) and not isinstance(r, bool))
    rank = next(ranks, bonus)
    out: list[Term] = [("+", rank, "rank")] if rank else []
    if bonus != rank:
        out.append(("+", bonus - rank, "critical hit" if bonus - rank == 1 else "adjusted"))
    dice = int(sub["total"]) - sum(int(f) for f in sub.get("faces") or []) - bonus
    if dice:
        out.append(("+", dice, "critical" if sub.get("critical") else "adjusted"))
    return out


def _dicts(data: Any, parent: Mapping[str, Any]) -> Iterator[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    """Every mapping inside a resolution's data with the mapping that holds it (an H&H check's roll sits at any
    depth; its effect rank beside it)."""
    if isinstance(data, Mapping):
        yield data, parent
        for v in data.values():
            yield from _dicts(v, data)
    elif isinstance(data, list):
        for v in data:
            yield from _dicts(v, parent)


def shown(t: Term) -> str:
    """`+2 Str`, `-1 DN`, `x2 critical`."""
    op, value, label = t
    if op == "x":
        return f"x{value} {label}"
    return f"{value:+d} {label}"


def apply(start: int, ts: Iterable[Term]) -> int:
    """The total the terms reach from `start`, left to right (a multiplier applies to everything before it)."""
    value = start
    for op, v, _ in ts:
        value = value * v if op == "x" else value + v
    return value
