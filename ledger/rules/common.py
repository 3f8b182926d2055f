"""Small helpers every rule system shares: whole-number traits and managed condition sets."""

from __future__ import annotations

from ledger.errors import BadInput
from ledger.model.dice import BOUNDS, ascii_int
from ledger.model.sheet import CONDITION_IMPOSED, CONDITION_REMOVED, Effect, Sheet


def parse_int(key: str, value: str, *, lo: int | None = None, hi: int | None = None) -> int:
    """A whole-number trait value within bounds (by default the bounds of a roll's modifier, which every roll of the
    trait adds), or BadInput naming the trait."""
    lo = BOUNDS["modifier"][0] if lo is None else lo
    hi = BOUNDS["modifier"][1] if hi is None else hi
    try:
        n = ascii_int(value)
    except ValueError:
        raise BadInput(f"trait '{key}' needs a whole number, got '{value}'") from None
    if lo is not None and n < lo:
        raise BadInput(f"trait '{key}' can't be below {lo}, got {n}")
    if hi is not None and n > hi:
        raise BadInput(f"trait '{key}' can't be above {hi}, got {n}")
    return n


def set_conditions(sheet: Sheet, wanted: set[str], managed: frozenset[str], note: str = "") -> list[Effect]:
    """Effects that make the managed conditions on the sheet exactly `wanted` (others untouched)."""
    effects: list[Effect] = []
    extra = {"note": note} if note else {}
    for c in sheet.conditions:
        if c in managed and c not in wanted:
            effects.append(Effect(CONDITION_REMOVED, sheet.name, {"condition": c, **extra}))
    for c in sorted(wanted):
        if c not in sheet.conditions:
            effects.append(Effect(CONDITION_IMPOSED, sheet.name, {"condition": c, **extra}))
    return effects


DURATION_PREFIXES = ("rounds:", "rounds-held:", "rounds-total:", "scene:")  # ledger/rules/durations.py's counters
UNTIL = ("start", "end")


def parse_duration(key: str) -> tuple[str, str | None, str] | None:
    """A duration counter's (kind, whose turn counts it, condition); None for another counter
    (ledger/rules/durations.py: `rounds:COND`, `until-start:WHO:COND`, ...)."""
    for prefix in DURATION_PREFIXES:
        if key.startswith(prefix):
            return prefix[:-1], None, key[len(prefix) :]
    for when in UNTIL:
        head = f"until-{when}:"
        if key.startswith(head):
            who, _, condition = key[len(head) :].rpartition(":")
            return f"until-{when}", who, condition
    return None
