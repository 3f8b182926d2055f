"""Deciders of the campaign's own commands: play sessions and characters."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ledger.aggregates import Campaign, Character
from ledger.encounter import find
from ledger.errors import BadInput, Conflict
from ledger.model.event_names import TRAITS_CHANGED
from ledger.model.sheet import Effect, Sheet, SheetData, is_gm_pool
from ledger.rules.contract import FOURTH
from ledger.rulings.deciders import encounter
from ledger.rulings.deciders.common import GM, resource_holder, rules_of
from ledger.rulings.draft import Draft
from ledger.storage.secrets import reveal

if TYPE_CHECKING:
    from ledger.intents import (
        CharacterAddIntent,
        CharacterCopyIntent,
        CharacterResult,
        CharacterSetIntent,
        NameIntent,
        RetireResult,
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
    if commitment:  # verifiable dice: only the secret's SHA-256 (ledger/model/dice_scheme.py)
        d.campaign_event(Campaign.DiceCommitted, number=number, commitment=commitment)
        if i.get("scheme"):  # scheme 2 and later say so; a session without this event is scheme 1
            d.campaign_event(
                Campaign.DiceScheme, number=number, version=int(i["scheme"]), player_dice=bool(i.get("player_dice"))
            )
    rules = rules_of(d)
    heroes = [d.sheet(e["name"]) for e in d.campaign.domain["roster"].values() if e["name"] != GM]
    heroes = [h for h in heroes if h.pc]
    gm = resource_holder(d, rules, GM) if heroes and rules.gm_sheet() is not None else None
    d.apply(rules.session_started(heroes, gm))
    result: SessionResult = {"session": number, "title": title}
    if i.get("new_day"):
        d.apply(rules.day_started(heroes))
        result["new_day"] = {h.name: dict(d.sheet(h.name).resources) for h in heroes if not d.sheet(h.name).has("dead")}
    if commitment:
        result["commitment"] = commitment
    return result


def session_end(d: Draft, i: SessionEndIntent) -> SessionResult:
    """Close the open play session."""
    number = d.campaign.open_session
    if number is None:
        raise Conflict("no session is open", "start one: ledger session start")
    d.campaign_event(Campaign.SessionEnded, number=number, at=d.at)
    for ask in sorted(d.campaign.open_asks()):  # nothing asked in this session will be recorded now
        d.campaign_event(
            Campaign.AskClosed, touches=False, ask=ask, fate="cancelled", why="the session ended", alone=False
        )
    return {"session": number, **reveal(d, number, i.get("reveal"))}


def parse_traits(d: Draft, traits: dict[str, str]) -> dict[str, Any]:
    """`--trait KEY=VALUE` pairs typed and checked by the campaign's rules (BadInput for a value they can't hold)."""
    rules = rules_of(d)
    parsed: dict[str, Any] = {}
    for key, value in traits.items():
        k = key.strip().lower().replace(" ", "-").replace("_", "-")
        if not TRAIT_KEY.match(k):
            raise BadInput(
                f"'{key}' is not a trait key", "lower-case words joined by hyphens, e.g. improved-initiative"
            )
        parsed[k] = rules.parse_trait(k, value)
    return parsed


def copy_names(name: str, copies: int | None) -> list[str]:
    """`NAME 1` .. `NAME N` for `--copies N`; the name alone without it."""
    return [name] if not copies else [f"{name} {n}" for n in range(1, copies + 1)]


def character_add(d: Draft, i: CharacterAddIntent) -> CharacterResult:
    """A new character from validated traits (and, from a creator file, typed traits and powers); with `copies`,
    NAME 1 .. NAME N with the same sheet, in one ruling."""
    rules = rules_of(d)
    parsed: dict[str, Any] = {**dict(i.get("typed_traits") or {}), **parse_traits(d, i["traits"])}
    sheets: list[SheetData] = []
    for name in copy_names(i["name"], i.get("copies")):
        if name.strip().casefold() == GM.casefold() and rules.gm_sheet() is not None:
            raise Conflict(
                f"'{name}' is the name of the GM's hidden {rules.title} pool, not free for a character",
                "pick another name (the pool: ledger character show GM)",
            )
        sheet = rules.new_sheet(name, parsed, minion=i["minion"], count=i["count"], pc=i["pc"])
        if i.get("powers"):
            sheet = replace(sheet, powers={k: dict(v) for k, v in i["powers"].items()})
        d.add_character(sheet)
        sheets.append(sheet.to_dict())
    result: CharacterResult = {"character": sheets[0]}
    if i.get("copies"):
        result["characters"] = sheets
    return result


def character_copy(d: Draft, i: CharacterCopyIntent) -> CharacterResult:
    """A new character with another's stat block: its traits, powers, minion group and PC flag, fresh (full HP, no
    conditions, starting resources); `copies` makes NEW 1 .. NEW N."""
    rules = rules_of(d)
    source = d.sheet(i["name"])
    sheets: list[SheetData] = []
    for name in copy_names(i["new"], i.get("copies")):
        count = int(i.get("count") or max(source.count, 1))
        sheet = rules.new_sheet(name, dict(source.traits), minion=source.minion, count=count, pc=source.pc)
        sheet = replace(sheet, powers={k: dict(v) for k, v in source.powers.items()})
        d.add_character(sheet)
        sheets.append(sheet.to_dict())
    result: CharacterResult = {"character": sheets[0], "source": source.name}
    if i.get("copies"):
        result["characters"] = sheets
    return result


def character_set(d: Draft, i: CharacterSetIntent) -> CharacterResult:
    """Change traits by the GM's ruling; the max HP (Health) they give follows, and HP moves with it (the damage
    taken stays the same)."""
    rules = rules_of(d)
    sheet = d.sheet(i["name"])
    if is_gm_pool(sheet.to_dict()):
        raise BadInput(f"{sheet.name} is the GM's pool, not a character")
    changed = parse_traits(d, i["traits"])
    if not changed:
        raise BadInput("give at least one --trait KEY=VALUE")
    traits = {**sheet.traits, **changed}
    fresh = rules.new_sheet(sheet.name, traits, minion=sheet.minion, count=max(sheet.count, 1), pc=sheet.pc)
    data: dict[str, Any] = {"traits": changed, "note": "set by the GM"}
    if fresh.max_hp != sheet.max_hp:
        data["max_hp"] = fresh.max_hp
        data["hp"] = min(fresh.max_hp, sheet.hp + fresh.max_hp - sheet.max_hp)
    d.apply([Effect(TRAITS_CHANGED, sheet.name, data)])
    if "hp" in data and rules.since(FOURTH):  # the HP conditions follow the HP the GM set (from version 4)
        d.apply(rules.settle_hp(d.sheet(sheet.name)))
    return {"character": d.sheet(sheet.name).to_dict()}


def character_retire(d: Draft, i: NameIntent) -> RetireResult:
    """Take a character out of play (lists, trackers, completion), keeping its history; out of a running encounter
    too."""
    ch = d.character(i["name"])
    if is_gm_pool(ch.sheet):
        raise BadInput(f"{ch.name} is the GM's pool, not a character")
    enc = encounter.current(d)
    if enc is not None and enc.active and find(enc.order, ch.name) is not None:
        encounter.remove(d, {"name": ch.name})
    d.trigger(ch, Character.CharacterRetired)
    d.touch(ch.id)
    d.campaign_event(Campaign.CharacterRetired, name=ch.name, character_id=ch.id.hex)
    return {"retired": ch.name, "character": Sheet.from_dict(ch.sheet).to_dict()}
