"""H&H conditions: what each implies, what supersedes what, and how progressive conditions add degrees.

Source: hnh-site/conditions.txt (Progressive Conditions, Basic Conditions, Combined Conditions, Damage
Conditions and the condition cards). Readings are in docs/interpretations.md (Humans & Heroes).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from ledger.errors import BadInput, ImpossibleAction, did_you_mean
from ledger.model.sheet import CONDITION_IMPOSED, CONDITION_REMOVED, Effect, Sheet
from ledger.rules.common import parse_duration
from ledger.rules.hnh.options import BASIC, COMBINED, HP_CONDITIONS

CONDITIONS = BASIC | COMBINED | HP_CONDITIONS  # conditions.txt, declared in ledger/rules/hnh/options.py

# What each condition is made of or makes the character (cards: "Made of", "is ...").
COMPONENTS: dict[str, frozenset[str]] = {
    "asleep": frozenset({"defenseless", "stunned", "unaware"}),
    "blind": frozenset({"hindered", "defenseless"}),
    "bound": frozenset({"defenseless", "immobile", "impaired"}),
    "exhausted": frozenset({"impaired", "hindered"}),
    "incapacitated": frozenset({"defenseless", "stunned", "unaware"}),
    "paralyzed": frozenset({"defenseless", "immobile"}),
    "restrained": frozenset({"hindered", "vulnerable"}),
    "staggered": frozenset({"dazed", "hindered"}),
    "battered": frozenset({"dazed", "hindered"}),
    "dying": frozenset({"incapacitated"}),
    "stabilized": frozenset({"incapacitated"}),
    "dead": frozenset({"incapacitated"}),
    "entranced": frozenset({"stunned"}),
    "fatigued": frozenset({"hindered"}),
    "prone": frozenset({"hindered"}),
    "surprised": frozenset({"vulnerable"}),
}

# "X supersedes Y" in conditions.txt; a superseded condition has no effect while X applies.
SUPERSEDES: dict[str, frozenset[str]] = {
    "controlled": frozenset({"compelled"}),
    "compelled": frozenset({"dazed"}),  # Compelled: "the dazed is ignored"
    "stunned": frozenset({"dazed"}),
    "incapacitated": frozenset({"dazed", "stunned"}),
    "exhausted": frozenset({"fatigued"}),
    "immobile": frozenset({"hindered"}),
    "disabled": frozenset({"impaired"}),
    "defenseless": frozenset({"vulnerable"}),
    "bound": frozenset({"restrained"}),
    "debilitated": frozenset({"weakened"}),
}

# Progressive Conditions table: rows of first, second and third degree (None: no such degree).
ROWS: tuple[tuple[str | None, ...], ...] = (
    (None, "compelled", "controlled"),
    ("dazed", "stunned", "incapacitated"),
    ("fatigued", "exhausted", "asleep"),
    ("hindered", "immobile"),
    ("impaired", "disabled"),
    ("vulnerable", "defenseless"),
)


def row_of(condition: str) -> tuple[tuple[str | None, ...], int] | None:
    """The progression row of a condition and its degree (1-3), or None if it does not progress."""
    for row in ROWS:
        if condition in row:
            return row, row.index(condition) + 1
    return None


def closure(conditions: Iterable[str]) -> set[str]:
    """Every condition the given ones are or imply, transitively."""
    return set(_closure(tuple(conditions)))


# Cached (a pure function of the names; ledger odds asks it hundreds of thousands of times per forecast, and its
# benchmark halves the time of these helpers with the cache): the names are the key, in the order given.
@lru_cache(maxsize=4096)
def _closure(conditions: tuple[str, ...]) -> frozenset[str]:
    out: set[str] = set()
    todo = list(conditions)
    while todo:
        c = todo.pop()
        if c not in out:
            out.add(c)
            todo.extend(COMPONENTS.get(c, ()))
    return frozenset(out)


def implied(imposed: Iterable[str]) -> list[str]:
    """Conditions implied by the imposed ones (incapacitated -> defenseless, stunned, unaware, ...)."""
    imposed = set(imposed)
    return sorted(closure(imposed) - imposed)


def effective(imposed: Iterable[str]) -> list[str]:
    """Imposed plus implied conditions, minus those another effective condition supersedes."""
    return list(_effective(tuple(imposed)))


@lru_cache(maxsize=4096)  # cached as _closure is (a pure function of the names)
def _effective(imposed: tuple[str, ...]) -> tuple[str, ...]:
    everything = _closure(imposed)
    out = set(everything)
    for c in everything:
        for lesser in SUPERSEDES.get(c, ()):
            if lesser not in _closure((c,)):
                out.discard(lesser)
    if "dead" in everything:  # Death removes all other conditions; the body lies prone
        out = set(_closure(("dead", *(("prone",) if "prone" in everything else ()))))
    return tuple(sorted(out))


def has(sheet: Sheet, condition: str) -> bool:
    """Whether the condition applies to the sheet, imposed or implied (and not superseded)."""
    return condition in effective(sheet.conditions)


def check_penalty(sheet: Sheet) -> int:
    """Impaired -1, disabled -2 on the character's checks (Impaired, Disabled; disabled supersedes)."""
    eff = effective(sheet.conditions)
    return -2 if "disabled" in eff else -1 if "impaired" in eff else 0


def penalty_source(sheet: Sheet) -> str:
    """The condition behind the check penalty, as a die line names it: the imposed condition that brings Impaired or
    Disabled (exhausted, bound, ...), else that condition itself."""
    want = "disabled" if check_penalty(sheet) == -2 else "impaired"
    return next((c for c in sheet.conditions if want in closure([c])), want)


def require_able(sheet: Sheet, doing: str = "act") -> None:
    """The dead and the stunned (incapacitated, asleep, dying, ...) take no actions (Stunned, Dead)."""
    if sheet.has("dead"):
        raise ImpossibleAction(f"{sheet.name} is dead and can't {doing}")
    if "stunned" in effective(sheet.conditions):
        why = next((c for c in sheet.conditions if "stunned" in closure([c])), "stunned")
        raise ImpossibleAction(f"{sheet.name} is {why} and can't {doing}", "stunned characters take no actions")


def known(condition: str) -> str:
    """A condition name in CLI spelling, or BadInput."""
    c = condition.strip().lower()
    if c not in CONDITIONS:
        hint = did_you_mean(c, CONDITIONS, f"conditions: {', '.join(sorted(CONDITIONS))}")
        raise BadInput(f"'{condition}' is not a Humans & Heroes condition", hint)
    return c


def imposed(sheet: Sheet, condition: str, note: str) -> Effect:
    """The effect of a condition imposed (no progression: see impose_effects)."""
    return Effect(CONDITION_IMPOSED, sheet.name, {"condition": condition, **({"note": note} if note else {})})


def removed(sheet: Sheet, condition: str, note: str) -> Effect:
    """The effect of a condition removed as such."""
    return Effect(CONDITION_REMOVED, sheet.name, {"condition": condition, **({"note": note} if note else {})})


def impose_effects(sheet: Sheet, condition: str, note: str = "") -> list[Effect]:
    """Impose a condition: progressive rows add degrees, higher degrees replace lower, repeats are redundant."""
    if sheet.has("dead"):
        raise ImpossibleAction(f"{sheet.name} is dead: no other condition applies", "revive the character first")
    found = row_of(condition)
    if found is None:
        if condition in sheet.conditions or (condition == "restrained" and sheet.has("bound")):
            return []
        out = [imposed(sheet, condition, note)]
        if condition == "bound" and sheet.has("restrained"):
            out.insert(0, removed(sheet, "restrained", note or "bound supersedes restrained"))
        return out
    row, degree = found
    present = [row.index(c) + 1 for c in sheet.conditions if c in row]
    existing = max(present, default=0)
    new_degree = min(len(row), existing + degree) if existing else degree
    result = row[new_degree - 1]
    assert result is not None
    keep: set[str] = {result}
    if result == "asleep":  # "Asleep doesn't replace fatigued or exhausted"
        below = [c for c in (*sheet.conditions, condition) if c in ("fatigued", "exhausted")]
        if below:
            keep.add("exhausted" if "exhausted" in below else "fatigued")
    out = [removed(sheet, c, note) for c in sheet.conditions if c in row and c not in keep]
    out += [imposed(sheet, c, note) for c in sorted(keep) if c not in sheet.conditions]
    if result == "incapacitated" and "prone" not in sheet.conditions:
        out.append(imposed(sheet, "prone", note or "the incapacitated fall prone"))
    return out


def remove_effects(sheet: Sheet, condition: str, note: str = "") -> list[Effect]:
    """Remove a condition; removing one part of an imposed combined condition leaves the other parts."""
    if condition in sheet.conditions:
        return [removed(sheet, condition, note)]
    for combined in sheet.conditions:
        parts = COMPONENTS.get(combined, frozenset())
        if condition in parts and combined not in HP_CONDITIONS:
            out = [removed(sheet, combined, note or f"{condition} resolved on its own")]
            out += [imposed(sheet, p, note) for p in sorted(parts - {condition}) if p not in sheet.conditions]
            return out
    if condition in effective(sheet.conditions):
        raise BadInput(f"{sheet.name} is {condition} only through an HP condition", "HP conditions follow HP")
    raise BadInput(f"{sheet.name} is not {condition}")


def withdraw(sheet: Sheet, condition: str, note: str = "") -> list[Effect]:
    """Take back a condition an effect imposed: removed as such, or, if it progressed a row, that row goes back by
    its degree (an Affliction's fatigued that made a fatigued hero exhausted leaves the hero fatigued when it ends).

    gameplay.txt, Ongoing Effects: "A successful check ends the effect and removes conditions imposed by it."
    """
    if condition in sheet.conditions:
        return [removed(sheet, condition, note)]
    found = row_of(condition)
    present = [c for c in sheet.conditions if found is not None and c in found[0]]
    if found is None or not present:
        return []
    row, degree = found
    top = max(present, key=row.index)
    left = row.index(top) + 1 - degree
    out = [removed(sheet, top, note)]
    below = row[left - 1] if left >= 1 else None
    if below is not None and below not in sheet.conditions:
        out.append(imposed(sheet, below, note))
    return out


def progressed(sheet: Sheet) -> set[str]:
    """The conditions a duration counts that the sheet holds through a progression, not as such: the GM's `stunned
    --rounds 1` on a dazed hero made the hero incapacitated (Progressive Conditions: "add the degrees together"), and
    the stunned lasts while the row stands at its degree or above; when it runs out, `withdraw` moves the row back by
    its degree (the dazed stays)."""
    out: set[str] = set()
    for key in sheet.counters:
        p = parse_duration(key)
        if p is None or p[2] in sheet.conditions or p[2] in out:
            continue
        found = row_of(p[2])
        if found is not None and any(c in found[0] and found[0].index(c) + 1 >= found[1] for c in sheet.conditions):
            out.add(p[2])
    return out


def wake(sheet: Sheet) -> list[Effect]:
    """An effect that gets past a sleeper's defense check wakes them (Asleep: "Any effect allowing a defense check
    will wake you up unless it fails to affect you")."""
    return [removed(sheet, "asleep", "woken by an effect that affected them")] if "asleep" in sheet.conditions else []


def break_trance(sheet: Sheet) -> list[Effect]:
    """An attack breaks a trance before it lands (Entranced: "Any attack or other obvious treat removes Entranced and
    allows you to avoid that attack")."""
    return [removed(sheet, "entranced", "an attack breaks the trance")] if "entranced" in sheet.conditions else []
