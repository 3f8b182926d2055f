"""Durations on conditions, the same in every system: counted in turns of the encounter, or until the scene ends.

A duration is kept as counters on the sheet of the one who bears the condition, so undo, redo and retraction
restore it exactly with the sheet (a refold; never a reverse delta):

- `rounds:COND` = N: ends at the end of the bearer's Nth turn from now; `rounds-held:COND` = 1 while the bearer's
  turn in progress when it was imposed runs (that turn does not count);
- `until-start:WHO:COND` / `until-end:WHO:COND` = N: ends at the start (end) of WHO's next turn; N is how many
  such points are still to pass (2 for `--until end` imposed during WHO's own turn: that turn does not count);
- `scene:COND` = 1: ends when the scene ends (P&P: `scene end`, `encounter end`).

Pure functions on sheets; the encounter's deciders call them from the turn hooks (ledger/rulings/deciders/turns.py).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from ledger.model.sheet import COUNTERS_CHANGED, Effect, Sheet
from ledger.rules import get_rules
from ledger.rules.common import parse_duration

ROUNDS, HELD, TOTAL, SCENE = "rounds:", "rounds-held:", "rounds-total:", "scene:"


def name_key(name: str) -> str:
    """Names are matched case-insensitively (as ledger.aggregates.name_key, without importing the aggregates)."""
    return name.strip().casefold()


def counters_for(
    condition: str,
    *,
    rounds: int | None = None,
    until: str | None = None,
    of: str | None = None,
    scene: bool = False,
    held: bool = False,
) -> dict[str, int]:
    """The counters that give `condition` its duration (`held`: the turn it is counted by is in progress)."""
    if rounds is not None:
        return {
            f"{ROUNDS}{condition}": rounds,
            f"{TOTAL}{condition}": rounds,
            **({f"{HELD}{condition}": 1} if held else {}),
        }
    if until is not None and of is not None:
        return {f"until-{until}:{of}:{condition}": 2 if held and until == "end" else 1}
    if scene:
        return {f"{SCENE}{condition}": 1}
    return {}


def retimed(effects: list[Effect], convert: Callable[[str, dict[str, Any]], dict[str, Any]]) -> list[Effect]:
    """Each CountersChanged's counters as `convert(bearer, counters)` gives them (the rules' own timed effects given
    their durations); every other effect as it is."""
    return [
        Effect(e.event, e.target, {**e.data, "counters": convert(e.target, dict(e.data.get("counters") or {}))})
        if e.event == COUNTERS_CHANGED
        else e
        for e in effects
    ]


def parse(key: str) -> tuple[str, str | None, str] | None:
    """A duration counter's (kind, whose turn counts it, condition); None for another counter."""
    return parse_duration(key)


def of_condition(sheet: Sheet, condition: str) -> dict[str, None]:
    """Counters that delete every duration of `condition` (it was removed some other way)."""
    return {k: None for k in sheet.counters if (p := parse(k)) is not None and p[2] == condition}


def holds_duration(sheet: Sheet, name: str) -> bool:
    """Whether a duration counts this condition or rules' own effect on the sheet (the rules' own hooks leave it be)."""
    return any((p := parse(k)) is not None and p[2] == name for k in sheet.counters)


def tick(
    sheet: Sheet, who: str, when: str, held: Collection[str] = ()
) -> tuple[dict[str, int | None], list[tuple[str, str]]]:
    """At the start or end of `who`'s turn: the bearer's changed counters and the conditions (or the rules' own
    effects the sheet holds, `held`: RuleSystem.held_effects) that run out, with why."""
    changes: dict[str, int | None] = {}
    ended: list[tuple[str, str]] = []
    own = name_key(sheet.name) == name_key(who)
    for key, value in sorted(sheet.counters.items()):
        p = parse(key)
        if p is None:
            continue
        kind, by, condition = p
        if kind == "rounds" and own and when == "end":
            if sheet.counter(f"{HELD}{condition}"):
                continue  # the turn in progress when it was imposed does not count
            if value <= 1:
                changes[key] = changes[f"{TOTAL}{condition}"] = None
                total = value_of(sheet, condition)
                ended.append((condition, f"{total} round{'s' if total != 1 else ''} ran out"))
            else:
                changes[key] = value - 1
        elif kind == "rounds-held" and own and when == "end":
            changes[key] = None
        elif kind == f"until-{when}" and by is not None and name_key(by) == name_key(who):
            if value <= 1:
                changes[key] = None
                ended.append((condition, f"until the {when} of {by}'s turn"))
            else:
                changes[key] = value - 1
    return changes, [(c, why) for c, why in ended if sheet.has(c) or c in held]


def value_of(sheet: Sheet, condition: str) -> int:
    """How many rounds a `--rounds` duration was given (kept in `rounds-total:COND` when known), else 1."""
    return sheet.counter(f"{TOTAL}{condition}") or 1


def ending(sheet: Sheet, kinds: tuple[str, ...], held: Collection[str] = ()) -> tuple[dict[str, int | None], list[str]]:
    """Every duration of these kinds ends at once (the scene or the encounter ended): counters and conditions (and
    the rules' own effects the sheet holds, `held`)."""
    changes: dict[str, int | None] = {}
    ended: list[str] = []
    for key in sorted(sheet.counters):
        p = parse(key)
        if p is not None and p[0] in kinds:
            changes[key] = None
            if p[0] not in ("rounds-held", "rounds-total") and (sheet.has(p[2]) or p[2] in held) and p[2] not in ended:
                ended.append(p[2])
    return changes, ended


def left(sheet: Mapping[str, Any]) -> dict[str, str]:
    """What is left of each condition's duration, as the tracker shows it: `1` round, `until end of Bob`, `scene`;
    the rules' own timed effects (`RuleSystem.timed`) show the same way."""
    conditions = set(sheet.get("conditions") or ())
    out: dict[str, str] = {}
    if sheet.get("system"):
        rules, plain = get_rules(str(sheet["system"])), Sheet.from_dict(sheet)
        conditions |= rules.held_effects(plain)  # the rules' own timed effects that are no condition (H&H aim)
        out = {c: v for c, v in rules.timed(plain).items() if c in conditions}
    for key, value in sorted((sheet.get("counters") or {}).items()):
        p = parse(key)
        if p is None or p[2] not in conditions or not value:
            continue
        kind, by, condition = p
        if kind == "rounds":
            out[condition] = str(value)
        elif kind.startswith("until-"):
            out[condition] = f"until {kind[6:]} of {by}"
        elif kind == "scene":
            out[condition] = "scene"
    return out


def shown(conditions: Iterable[str], timed: Mapping[str, str], skip: Collection[str] = ()) -> list[str]:
    """Conditions as the tracker, the toolbar and the players' screen show them, each with what is left of it
    (`dazed 1`), then the rules' own timed effects that are no condition (`aim until end of Ann`)."""
    conditions = [c for c in conditions if c not in skip]
    out = [f"{c} {timed[c]}" if c in timed else c for c in conditions]
    return out + [f"{n} {v}" for n, v in timed.items() if n not in conditions and n not in skip]
