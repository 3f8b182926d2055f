"""Deciders of the campaign's own commands: play sessions and characters."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ledger.aggregates import Campaign
from ledger.errors import BadInput, Conflict
from ledger.rulings.deciders.common import GM, resource_holder, rules_of
from ledger.rulings.draft import Draft

if TYPE_CHECKING:
    from ledger.rulings.intents import (
        CharacterAddIntent,
        CharacterResult,
        SessionEndIntent,
        SessionResult,
        SessionStartIntent,
    )

TRAIT_KEY = re.compile(r"^[a-z][a-z0-9\-]*$")


def session_start(d: Draft, i: SessionStartIntent) -> SessionResult:
    """Open a play session (and run what the system does at one: P&P's new issue)."""
    if d.campaign.open_session is not None:
        raise Conflict(f"session {d.campaign.open_session} is still open", "end it first: ledger session end")
    number = len(d.campaign.domain["sessions"]) + 1
    title = i.get("title") or f"Session {number}"
    d.campaign_event(Campaign.SessionStarted, number=number, title=title, at=d.at)
    commitment = i.get("commitment")
    if commitment:  # verifiable dice: only the secret's SHA-256 (ledger/audit/dice_proof.py)
        d.campaign_event(Campaign.DiceCommitted, number=number, commitment=commitment)
    rules = rules_of(d)
    heroes = [d.sheet(e["name"]) for e in d.campaign.domain["roster"].values() if e["name"] != GM]
    heroes = [h for h in heroes if h.pc]
    gm = resource_holder(d, rules, GM) if heroes and rules.gm_sheet() is not None else None
    d.apply(rules.session_started(heroes, gm))
    if i.get("new_day"):
        d.apply(rules.day_started(heroes))
    result: SessionResult = {"session": number, "title": title}
    if commitment:
        result["commitment"] = commitment
    return result


def session_end(d: Draft, i: SessionEndIntent) -> SessionResult:
    """Close the open play session."""
    number = d.campaign.open_session
    if number is None:
        raise Conflict("no session is open", "start one: ledger session start")
    d.campaign_event(Campaign.SessionEnded, number=number, at=d.at)
    from ledger.storage.secrets import reveal

    return {"session": number, **reveal(d, number, i.get("reveal"))}


def character_add(d: Draft, i: CharacterAddIntent) -> CharacterResult:
    """A new character from validated traits (and, from a creator file, typed traits and powers)."""
    rules = rules_of(d)
    parsed: dict[str, Any] = dict(i.get("typed_traits") or {})
    for key, value in i["traits"].items():
        k = key.strip().lower().replace(" ", "-").replace("_", "-")
        if not TRAIT_KEY.match(k):
            raise BadInput(
                f"'{key}' is not a trait key", "lower-case words joined by hyphens, e.g. improved-initiative"
            )
        parsed[k] = rules.parse_trait(k, value)
    sheet = rules.new_sheet(i["name"], parsed, minion=i["minion"], count=i["count"], pc=i["pc"])
    if i.get("powers"):
        sheet = replace(sheet, powers={k: dict(v) for k, v in i["powers"].items()})
    d.add_character(sheet)
    return {"character": sheet.to_dict()}
