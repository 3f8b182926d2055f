"""The character sheet as a value, and the outcome vocabulary that evolves it.

Rules return `Effect`s; `apply_effect` is the one pure function that turns a sheet and an effect into the
next sheet. The Character aggregate folds its events through the same function, so what a rule predicts
and what the store replays can never disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from ledger.model.event_names import (
    ATTACK_RESOLVED,
    CHECK_RESOLVED,
    CONDITION_IMPOSED,
    CONDITION_REMOVED,
    COUNTERS_CHANGED,
    DAMAGE_APPLIED,
    EFFECT_RESOLVED,
    HEALTH_RECOVERED,
    MINIONS_DEFEATED,
    NOTE_RECORDED,
    RESISTANCE_RESOLVED,
    RESOURCE_CHANGED,
    TRAITS_CHANGED,
)

Value = int | str


class SheetData(TypedDict):
    """A sheet as plain data (`Sheet.to_dict`): what events, snapshots, projections and `--json` output carry."""

    name: str
    system: str
    traits: dict[str, Value]
    hp: int
    max_hp: int
    conditions: list[str]
    resources: dict[str, int]
    counters: dict[str, int]
    powers: dict[str, dict[str, Any]]
    minion: bool
    count: int
    pc: bool


# Effects that change a character's sheet (each becomes an event on the Character aggregate).
SHEET_EFFECTS = frozenset(
    {
        DAMAGE_APPLIED,  # {amount, hp, counters?}: hp is the value after floors and thresholds
        HEALTH_RECOVERED,  # {amount, hp, counters?}
        CONDITION_IMPOSED,  # {condition, note?}
        CONDITION_REMOVED,  # {condition, note?}
        COUNTERS_CHANGED,  # {counters: {key: int | None}}: None deletes the key
        RESOURCE_CHANGED,  # {resource, delta, value}
        MINIONS_DEFEATED,  # {defeated, count}
        TRAITS_CHANGED,  # {traits: {key: value | None}}
    }
)

# Effects that record a resolution without changing any sheet (events on the Ruling aggregate).
RULING_EFFECTS = frozenset(
    {
        CHECK_RESOLVED,  # a check against a DC, threshold or opposed check
        ATTACK_RESOLVED,  # hit or miss, with totals and the defense it met
        RESISTANCE_RESOLVED,  # a resistance check (H&H Toughness vs power), its degree and outcome
        EFFECT_RESOLVED,  # any other rule outcome worth reading in the log (durations, chains)
        NOTE_RECORDED,  # free text for the GM's record
    }
)


@dataclass(frozen=True)
class Effect:
    """One outcome of a rule: an event name, the character it is about ('' for none), and its data."""

    event: str
    target: str
    data: Mapping[str, Any]

    def __post_init__(self) -> None:
        if self.event not in SHEET_EFFECTS and self.event not in RULING_EFFECTS:
            raise ValueError(f"unknown effect {self.event!r}")


@dataclass(frozen=True)
class Sheet:
    """A character's state: traits, HP, conditions, resources, and system-specific counters."""

    name: str
    system: str
    traits: Mapping[str, Value] = field(default_factory=dict)
    hp: int = 0
    max_hp: int = 0
    conditions: tuple[str, ...] = ()
    resources: Mapping[str, int] = field(default_factory=dict)
    counters: Mapping[str, int] = field(default_factory=dict)
    powers: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    minion: bool = False
    count: int = 1
    pc: bool = False

    def has(self, condition: str) -> bool:
        """Whether the condition is imposed on the sheet."""
        return condition in self.conditions

    def trait(self, key: str, default: int = 0) -> int:
        """A numeric trait, or the default when the character lacks it."""
        v = self.traits.get(key, default)
        return v if isinstance(v, int) else default

    def counter(self, key: str) -> int:
        """A system-specific counter (bruises, subdual damage, ...); 0 when never set."""
        return self.counters.get(key, 0)

    def to_dict(self) -> SheetData:
        """Plain data for events, snapshots and projections."""
        return {
            "name": self.name,
            "system": self.system,
            "traits": dict(self.traits),
            "hp": self.hp,
            "max_hp": self.max_hp,
            "conditions": list(self.conditions),
            "resources": dict(self.resources),
            "counters": dict(self.counters),
            "powers": {k: dict(v) for k, v in self.powers.items()},
            "minion": self.minion,
            "count": self.count,
            "pc": self.pc,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Sheet:
        """The inverse of to_dict."""
        return cls(
            name=d["name"],
            system=d["system"],
            traits=dict(d.get("traits", {})),
            hp=d.get("hp", 0),
            max_hp=d.get("max_hp", 0),
            conditions=tuple(d.get("conditions", ())),
            resources=dict(d.get("resources", {})),
            counters=dict(d.get("counters", {})),
            powers={k: dict(v) for k, v in d.get("powers", {}).items()},
            minion=d.get("minion", False),
            count=d.get("count", 1),
            pc=d.get("pc", False),
        )


def is_gm_pool(sheet: Mapping[str, Any]) -> bool:
    """Whether a sheet (as plain data) is the hidden one that holds a GM's pool (P&P Adversity): not a character."""
    return holds_gm_pool(sheet.get("resources") or {})


def holds_gm_pool(resources: Mapping[str, int]) -> bool:
    """Whether a sheet's resources are those of the GM's pool (`is_gm_pool`, for a Sheet without its plain copy)."""
    return "adversity" in resources


def _merge(base: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in changes.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = v
    return out


def apply_effect_dict(sheet: dict[str, Any], event: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """The next sheet (as plain data) after a sheet effect; ruling effects leave it as it is.

    The one definition of what each effect does: the aggregates and the read models fold plain data
    through it, and `apply_effect` wraps it for the rules' Sheet values.
    """
    if event in (DAMAGE_APPLIED, HEALTH_RECOVERED):
        out = {**sheet, "hp": data["hp"]}
        if "counters" in data:
            out["counters"] = _merge(sheet.get("counters", {}), data["counters"])
        return out
    if event == CONDITION_IMPOSED:
        conditions = sheet.get("conditions", [])
        return sheet if data["condition"] in conditions else {**sheet, "conditions": [*conditions, data["condition"]]}
    if event == CONDITION_REMOVED:
        return {**sheet, "conditions": [c for c in sheet.get("conditions", []) if c != data["condition"]]}
    if event == COUNTERS_CHANGED:
        return {**sheet, "counters": _merge(sheet.get("counters", {}), data["counters"])}
    if event == RESOURCE_CHANGED:
        return {**sheet, "resources": {**sheet.get("resources", {}), data["resource"]: data["value"]}}
    if event == MINIONS_DEFEATED:
        return {**sheet, "count": data["count"]}
    if event == TRAITS_CHANGED:  # `character set` also carries the max HP the new traits give, and the HP it moves
        out = {**sheet, "traits": _merge(sheet.get("traits", {}), data["traits"])}
        return {**out, **{k: data[k] for k in ("max_hp", "hp") if k in data}}
    return sheet


def apply_effect(sheet: Sheet, event: str, data: Mapping[str, Any]) -> Sheet:
    """The next sheet after a sheet effect (the Sheet-valued face of `apply_effect_dict`)."""
    if event not in SHEET_EFFECTS:
        return sheet
    return Sheet.from_dict(apply_effect_dict(dict(sheet.to_dict()), event, data))


def apply_all(sheet: Sheet, effects: list[Effect]) -> Sheet:
    """Fold the effects aimed at this sheet's character, in order."""
    for e in effects:
        if e.target == sheet.name and e.event in SHEET_EFFECTS:
            sheet = apply_effect(sheet, e.event, e.data)
    return sheet
