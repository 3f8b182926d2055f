"""Prowlers & Paragons powers with parts: defense, Travel Power, special effect and the trait that resists it.

Text: prowlers-and-paragons.txt, Attacks and Defenses ("a passive defense like Armor"; "These Powers always
specify the Traits used to resist them"); Range and Movement ("a Travel Power"). A power's rank is a trait;
its parts are kept in `Sheet.powers[name]` and read by defenses, attacks, chases and moves (core.power_meta).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.errors import BadInput
from ledger.rules.options import FALSE, TRUE, suggest
from ledger.rules.pnp.core import EFFECT_CONDITIONS, NOT_DEFENSES, THREAT, is_power, norm

PARTS = ("defense", "travel", "effect", "resist")


def _part(power: str, part: str, raw: str) -> Any:
    """One typed part of a power."""
    value = norm(raw)
    if part == "defense":
        if value not in ("active", "passive"):
            raise BadInput(f"power '{power}': defense is active or passive, not '{raw}'")
        return value
    if part == "travel":
        if value not in TRUE | FALSE:
            raise BadInput(f"power '{power}': travel is yes or no, not '{raw}'")
        return value in TRUE
    if part == "effect":
        effect = {c: e for e, c in EFFECT_CONDITIONS.items()}.get(value, value)
        if effect not in EFFECT_CONDITIONS:
            raise BadInput(f"power '{power}': '{raw}' is not a special effect", suggest(value, EFFECT_CONDITIONS))
        return effect
    if value == THREAT:
        raise BadInput(f"power '{power}': Threat is a minion's, not a trait that resists")
    return value  # resist: the target's trait, by name


def power_parts(given: Mapping[str, Mapping[str, str]], traits: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """Validated, typed parts of each power; the power must be a trait of the sheet (its rank in dice)."""
    ranked = {norm(k) for k in traits}
    out: dict[str, dict[str, Any]] = {}
    for name, parts in given.items():
        power = norm(name)
        if not is_power(power):
            raise BadInput(
                f"'{power}' is an Ability or Talent, not a power", "parts are for powers such as webs or force-field"
            )
        if power not in ranked:
            raise BadInput(f"power '{power}' has no rank", f"give it one: --trait {power}=4")
        typed: dict[str, Any] = {}
        for raw_key, raw in parts.items():
            part = norm(raw_key)
            if part not in PARTS:
                raise BadInput(f"power '{power}' has no part '{part}'", suggest(part, PARTS))
            typed[part] = _part(power, part, raw)
        if "resist" in typed and "effect" not in typed:
            raise BadInput(f"power '{power}': resist names what resists its special effect: give effect= too")
        if power in NOT_DEFENSES and "defense" in typed:
            raise BadInput(f"{power} is never a defense")
        out[power] = typed
    return out
