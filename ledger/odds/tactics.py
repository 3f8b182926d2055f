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


def _hnh_spend() -> tuple[str, int, dict[str, Any]]:
    """H&H (the-basics.txt, Improve Roll): a hero holding a victory point re-rolls the attack roll of each attack and
    keeps the better (`-o improve=attack`, 1 point, paid before the outcome is known), while points last."""
    from ledger.rules.hnh.health import VP  # lazy: H&H's own resource name, for H&H campaigns only

    return VP, 1, {"improve": "attack"}


def _pnp_spend() -> tuple[str, int, dict[str, Any]]:
    """Prowlers & Paragons (Resolve and Adversity): a hero holding Resolve adds one die to each attack's pool
    (`-o extra-dice=1`, 1 Resolve), while Resolve lasts; the GM's Adversity is never spent for NPCs."""
    from ledger.rules.pnp.core import EXTRA_DIE_COST  # lazy: P&P's own cost, for P&P campaigns only

    return "resolve", EXTRA_DIE_COST, {"extra-dice": 1}


SPEND: dict[str, Callable[[], tuple[str, int, dict[str, Any]]]] = {"hnh": _hnh_spend, "pnp": _pnp_spend}


def spending(rules: RuleSystem, sheet: Sheet, given: dict[str, Any]) -> tuple[str, int, dict[str, Any]] | None:
    """The stated rule for points (docs/odds.md): (resource, cost, the attack's options when it spends), or None when
    the system or the sheet has no points to spend (d20 Supers has none)."""
    rule = SPEND.get(rules.key)
    if rule is None:
        return None
    resource, cost, extra = rule()
    if resource not in sheet.resources:
        return None
    return resource, cost, {**given, **extra}
