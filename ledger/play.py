"""Table commands: rolls, damage, conditions, and the rules engines' actions (attack, check, recover, ...)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ledger.errors import BadInput, Conflict
from ledger.rules import get_rules

if TYPE_CHECKING:
    from ledger.ruling import Draft


class PlayCommands:
    """Mixed into Ledger: each method decides one ruling through `self.rule`."""

    rule: Callable[..., dict[str, Any]]

    # -- play -------------------------------------------------------------------------------
    def roll(self, expr: str, *, for_name: str | None = None, rolls: Mapping[str, str] | None = None) -> dict[str, Any]:
        """A free roll, recorded as a ruling with one DiceRolled event (roll name: `roll`)."""

        def decide(d: Draft) -> dict[str, Any]:
            spec = get_rules(d.campaign.system).roll_spec(expr)
            owner = d.character(for_name).name if for_name else None
            d.roll_specs["roll"] = spec
            if owner:
                d.roll_owners["roll"] = owner
            r = d.dice.take("roll", spec)
            d.flush_dice()
            return {"roll": r.to_data()}

        return self.rule("roll", {"expr": expr, "for": for_name}, decide, rolls=rolls)

    def damage(self, target: str, amount: int, *, subdual: bool = False) -> dict[str, Any]:
        """Direct HP loss (no resistance roll)."""
        if amount < 0:
            raise BadInput(f"damage can't be negative, got {amount}", "to heal, use: ledger recover")

        def decide(d: Draft) -> dict[str, Any]:
            sheet = d.sheet(target)
            d.apply(get_rules(d.campaign.system).damage(sheet, amount, subdual=subdual))
            return {"character": d.sheet(target).to_dict()}

        return self.rule("damage", {"target": target, "amount": amount, "subdual": subdual}, decide)

    def condition(self, target: str, condition: str, *, add: bool) -> dict[str, Any]:
        """Impose or remove a known condition of the campaign's system."""
        cond = condition.strip().lower().replace(" ", "-").replace("_", "-")

        def decide(d: Draft) -> dict[str, Any]:
            rules = get_rules(d.campaign.system)
            if cond not in rules.conditions:
                raise BadInput(
                    f"unknown condition '{condition}' in {rules.title}", f"known: {', '.join(sorted(rules.conditions))}"
                )
            sheet = d.sheet(target)
            if add and sheet.has(cond):
                raise Conflict(f"{sheet.name} is already {cond}")
            if not add and not sheet.has(cond):
                raise Conflict(f"{sheet.name} is not {cond}", f"conditions now: {', '.join(sheet.conditions) or 'none'}")
            d.apply(rules.impose(sheet, cond) if add else rules.remove(sheet, cond))
            return {"character": d.sheet(target).to_dict()}

        verb = "condition add" if add else "condition remove"
        return self.rule(verb, {"target": target, "condition": cond}, decide)

