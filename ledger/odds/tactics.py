"""Each combatant's plain attack: the option `--with POWER` names its best attack, as docs/odds.md says.

The choice reads the sheet through each system's own rules (the weapon the rules would strike with), so the forecast's
attack is the ruling `ledger attack NAME TARGET --with POWER` would record, with no other option.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.errors import LedgerError
from ledger.model.sheet import Sheet
from ledger.rules.contract import RuleSystem

ATTACKING = ("Damage", "Affliction", "Weaken", "Nullify")


def _hnh(rules: RuleSystem, sheet: Sheet) -> tuple[dict[str, Any], int]:
    """H&H: the Damage (or Affliction, Weaken, Nullify) power, or unarmed Strength, with the highest attack bonus plus
    effect rank (ties: the power's name)."""
    from ledger.rules.hnh.combat import weapon  # lazy: H&H's own weapon reading, for H&H campaigns only

    best: tuple[int, str] | None = None
    for name in sorted(sheet.powers, key=str.casefold):
        power = sheet.powers[name]
        if str(power.get("effect", "Damage")) not in ATTACKING:
            continue
        try:
            w = weapon(sheet, {"with": name})
        except LedgerError:
            continue
        score = w.bonus + w.rank
        if best is None or score > best[0]:
            best = (score, name)
    w = weapon(sheet, {"with": "unarmed"})
    if best is None or w.bonus + w.rank > best[0]:
        return {}, w.bonus + w.rank  # `ledger attack NAME TARGET`: unarmed
    return {"with": best[1]}, best[0]


def _d20(rules: RuleSystem, sheet: Sheet) -> tuple[dict[str, Any], int]:
    """d20 Supers: the sheet names no weapon, so the attack is the fists' (`ledger attack NAME TARGET`); its danger is
    the attack bonus with Strength."""
    derived = rules.derived(sheet)
    return {}, int(derived["attack-bonus"])


def _pnp(rules: RuleSystem, sheet: Sheet) -> tuple[dict[str, Any], int]:
    """Prowlers & Paragons: the Power, Might or Agility with the most dice (ties: the name); a minion group attacks
    with its Threat."""
    if sheet.minion:
        return {}, sheet.trait("threat")
    from ledger.rules.pnp.core import is_power  # lazy: P&P's own trait kinds, for P&P campaigns only

    ranked = [
        (-v, k) for k, v in sheet.traits.items() if isinstance(v, int) and (is_power(k) or k in ("might", "agility"))
    ]
    if not ranked:
        return {"with": "might"}, 0
    v, k = min(ranked)
    return {"with": k}, -v


BEST: dict[str, Callable[[RuleSystem, Sheet], tuple[dict[str, Any], int]]] = {"hnh": _hnh, "d20": _d20, "pnp": _pnp}


def best_attack(rules: RuleSystem, sheet: Sheet) -> tuple[dict[str, Any], int]:
    """(the `attack` options as given on the command line, how hard it hits): its plain attack with its best weapon."""
    pick = BEST.get(rules.key)
    return pick(rules, sheet) if pick is not None else ({}, 0)
