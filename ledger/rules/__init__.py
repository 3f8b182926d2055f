"""The rules engines: one pure module per game system behind one Protocol.

A rule is a pure function of (sheets, intent, dice faces) -> effects. No I/O, no randomness: dice come
from a `Dice` provider that hands back recorded or entered faces (or rolls them, outside the rule).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ledger.dice import Dice, DiceSpec
from ledger.errors import BadInput
from ledger.sheet import Effect, Sheet, Value

SYSTEMS = ("hnh", "d20", "pnp")


class RuleSystem(Protocol):
    """What every game system provides to the ledger."""

    key: str
    title: str
    core_traits: tuple[str, ...]
    conditions: frozenset[str]

    def parse_trait(self, key: str, value: str) -> Value:
        """Validate one `--trait KEY=VALUE`; raise BadInput on a bad value."""
        ...

    def new_sheet(self, name: str, traits: Mapping[str, Value], *, minion: bool, count: int, pc: bool) -> Sheet:
        """A fresh character: max HP (or Health) and starting resources derived from the traits."""
        ...

    def damage(self, sheet: Sheet, amount: int, *, subdual: bool) -> list[Effect]:
        """Direct loss of `amount` HP (no resistance roll), with the system's floors and HP conditions."""
        ...

    def impose(self, sheet: Sheet, condition: str) -> list[Effect]:
        """Impose a condition the GM rules (progressions and supersession applied)."""
        ...

    def remove(self, sheet: Sheet, condition: str) -> list[Effect]:
        """Remove a condition the GM rules gone."""
        ...

    def derived(self, sheet: Sheet) -> dict[str, Any]:
        """Values computed from the sheet for display: implied conditions, modifiers, defenses."""
        ...

    def roll_spec(self, expr: str) -> DiceSpec:
        """How this system reads free-roll notation (a bare Nd6 is a pool in P&P)."""
        ...


def get_rules(system: str) -> RuleSystem:
    """The rules module for a system key; an unknown key is bad input."""
    if system == "hnh":
        from ledger.rules import hnh

        return hnh.RULES
    if system == "d20":
        from ledger.rules import d20

        return d20.RULES
    if system == "pnp":
        from ledger.rules import pnp

        return pnp.RULES
    raise BadInput(f"unknown system '{system}'", f"choose one of: {', '.join(SYSTEMS)}")


def parse_int(key: str, value: str, *, lo: int | None = None, hi: int | None = None) -> int:
    """A whole-number trait value within bounds, or BadInput naming the trait."""
    try:
        n = int(value.strip())
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
            effects.append(Effect("ConditionRemoved", sheet.name, {"condition": c, **extra}))
    for c in sorted(wanted):
        if c not in sheet.conditions:
            effects.append(Effect("ConditionImposed", sheet.name, {"condition": c, **extra}))
    return effects


__all__ = ["SYSTEMS", "Dice", "DiceSpec", "Effect", "RuleSystem", "Sheet", "get_rules", "parse_int", "set_conditions"]
