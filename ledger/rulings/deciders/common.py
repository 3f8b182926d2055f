"""What the deciders share: the campaign's rules, whose each roll is, and the GM's hidden pool."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from eventsourcing.application import AggregateNotFoundError

from ledger.aggregates import name_key
from ledger.errors import BadInput
from ledger.model.dice import DiceSpec
from ledger.model.sheet import Effect, Sheet
from ledger.rules import get_rules
from ledger.rules.contract import RuleSystem
from ledger.rulings.draft import Draft

if TYPE_CHECKING:
    from ledger.intents import EconomyWarning, TurnNote

GM = "GM"  # the name of the hidden sheet that holds a GM's pool (P&P Adversity)


def rules_of(d: Draft) -> RuleSystem:
    """The campaign's rule system, as it decided rulings of this ruling's version (RuleSystem.at)."""
    intent = d.intent or {}
    return get_rules(d.campaign.system).at(int(intent.get("tracker") or intent.get("rules") or 0))


def own_rolls(
    d: Draft, rules: RuleSystem, command: str, actor: str | None, other: str | None, opts: Mapping[str, Any]
) -> None:
    """Name whose each roll of the command is, and which names an entered-but-unused roll may have."""
    owners = rules.roll_owners(command)
    for roll, role in owners.items():
        who = actor if role == "actor" else other if role == "other" else None
        if who:
            d.expect_roll(roll, owner=who)
    d.allow_entered(lambda name, text: loose_spec(rules, name, text, owners, opts))


def loose_spec(
    rules: RuleSystem, name: str, text: str, owners: Mapping[str, str], opts: Mapping[str, Any]
) -> DiceSpec | None:
    """The spec an unused entered roll is validated against: the system's dice (a pool sized by what was entered)."""
    if name not in owners and not any(name.startswith(p) for p in rules.turn_rolls if p.endswith("-")):
        return None
    return rules.entered_spec(name, text, opts)


def resource_holder(d: Draft, rules: RuleSystem, name: str) -> Sheet:
    """The sheet that holds a resource; a system's hidden GM sheet is made on first use."""
    if name.strip().casefold() == GM.casefold() and d.campaign.character(GM) is None:
        gm = rules.gm_sheet()
        if gm is None:
            raise BadInput(f"{rules.title} has no GM pool", "name a character")
        d.add_character(gm)
    return d.sheet(name)


def apply_and_settle(d: Draft, rules: RuleSystem, effects: list[Effect]) -> None:
    """Record a rule's effects, then pay what an NPC's boosts owe the GM's pool in the same ruling."""
    d.apply(effects)
    for purpose, owed in rules.gm_debts(effects):
        d.apply(rules.spend(resource_holder(d, rules, GM), "adversity", owed, purpose))


def turn_note(d: Draft, name: str) -> TurnNote:
    """`{"not_up": ...}` when `name` acts during a running encounter in which someone else is up, else nothing.

    Not a refusal: reactions, readied actions and opposed checks happen out of turn. The CLI says it on stderr.
    """
    # lazy: the encounter, only while one runs; kept out of a one-shot write
    from ledger.encounter import ENCOUNTER_ID, find

    try:
        enc = d.load(ENCOUNTER_ID)
    except AggregateNotFoundError:
        return {}
    if not enc.active or not enc.order:
        return {}
    up = enc.current["name"]
    if name_key(up) == name_key(name):
        return {}
    return {"not_up": {"name": name, "up": up, "in_encounter": find(enc.order, name) is not None}}


def warned(warning: str | None) -> EconomyWarning:
    """`{"warning": ...}` when the action economy has one, else nothing."""
    return {"warning": warning} if warning else {}
