"""The ruling being decided: what a command loads, the dice it takes, the effects it records.

A `Draft` collects the events of one ruling, across aggregates, in the order they happened. Committing
it chains the ruling's hash to the previous one and writes every event in one transaction.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ledger.aggregates import (
    CAMPAIGN_ID,
    RESOLUTION_EVENTS,
    SHEET_EVENTS,
    Campaign,
    Character,
    Ruling,
    character_id,
    name_key,
    ruling_id,
)
from ledger.dice import DiceBox, DiceSpec, Roll
from ledger.errors import Conflict, no_character
from ledger.sheet import SHEET_EFFECTS, Effect, Sheet

if TYPE_CHECKING:
    from eventsourcing.persistence import StoredEvent

    from ledger.store import EventStore

GENESIS = "0" * 64


def chain_hash(prev_hash: str, stored: Iterable[StoredEvent]) -> str:
    """sha256 over the previous hash and the exact stored bytes of a ruling's events, in order."""
    h = hashlib.sha256(prev_hash.encode())
    for s in stored:
        oid = s.originator_id.hex if hasattr(s.originator_id, "hex") else str(s.originator_id)
        h.update(f"\n{s.topic}\n{oid}\n{s.originator_version}\n".encode())
        state = s.state
        h.update(state if isinstance(state, (bytes, bytearray, memoryview)) else str(state).encode())
    return h.hexdigest()


class Draft:
    """One ruling in the making."""

    def __init__(
        self,
        store: EventStore,
        campaign: Campaign | None,
        number: int,
        *,
        kind: str,
        command: str,
        intent: dict[str, Any],
        actor: str,
        at: str,
        dice: DiceBox,
    ) -> None:
        self.store = store
        self.loader: Callable[[Any], Any] = store.repository.get
        self.number = number
        self.kind = kind
        self.dice = dice
        self.roll_specs: dict[str, DiceSpec] = {}
        self.roll_owners: dict[str, str] = {}
        self.roll_allowed: Callable[[str, str], DiceSpec | None] | None = None
        self.events: list[Any] = []
        self.characters: dict[str, Character] = {}
        self.extra_aggregates: list[Any] = []
        self.touched: dict[str, None] = {}
        self._flushed: set[str] = set()
        self.campaign: Campaign = campaign  # type: ignore[assignment]
        session = campaign.open_session if campaign is not None else None
        if command == "session start" and campaign is not None:
            session = len(campaign.domain["sessions"]) + 1  # the opening ruling belongs to the session it opens
        self.ruling = Ruling._create(
            Ruling.RulingRecorded,
            id=ruling_id(number),
            ruling=number,
            kind=kind,
            command=command,
            intent=intent,
            actor=actor,
            session=session,
            at=at,
            targets=[],  # a field every stored RulingRecorded has; nothing sets it
        )
        self._take(self.ruling)
        self.actor = actor
        self.at = at

    # -- recording -------------------------------------------------------------------------
    def _take(self, aggregate: Any) -> Any:
        """Move an aggregate's newest pending event into the ruling's ordered list."""
        event = aggregate.pending_events.pop()
        self.events.append(event)
        return event

    def trigger(self, aggregate: Any, event_class: type, **kwargs: Any) -> Any:
        """Trigger an event on an aggregate as part of this ruling."""
        aggregate.trigger_event(event_class, ruling=self.number, **kwargs)
        return self._take(aggregate)

    def campaign_event(self, event_class: type, *, touches: bool = True, **kwargs: Any) -> None:
        """A campaign event; one that changes roster or sessions marks the campaign touched (for undo)."""
        self.trigger(self.campaign, event_class, **kwargs)
        if touches:
            self.touched[CAMPAIGN_ID.hex] = None

    def flush_dice(self) -> None:
        """Record every die taken so far as its own DiceRolled event."""
        for name, roll in self.dice.taken.items():
            if name not in self._flushed:
                self._flushed.add(name)
                self._dice_event(roll)

    def _dice_event(self, roll: Roll) -> None:
        data = roll.to_data()
        if roll.name in self.roll_owners:
            data["for"] = self.roll_owners[roll.name]
        self.trigger(self.ruling, Ruling.DiceRolled, data=data)

    def apply(self, effects: Iterable[Effect]) -> None:
        """Record a rule's effects: sheet changes on characters, resolutions on the ruling."""
        self.flush_dice()
        for e in effects:
            if e.event in SHEET_EFFECTS:
                ch = self.character(e.target)
                self.trigger(ch, SHEET_EVENTS[e.event], data=dict(e.data))
                self.touched[ch.id.hex] = None
            else:
                data = dict(e.data)
                if e.target:
                    data.setdefault("character", e.target)
                self.trigger(self.ruling, RESOLUTION_EVENTS[e.event], data=data)

    def summary(self) -> list[dict[str, Any]]:
        """What this ruling recorded, for the command's output: dice, resolutions and sheet changes."""
        out = []
        for e in self.events:
            name = type(e).__name__
            if name in ("RulingRecorded", "Touched", "RulingChained"):
                continue
            data = getattr(e, "data", None)
            if data is None:
                data = {k: v for k, v in vars(e).items() if k not in ("originator_id", "originator_version", "timestamp", "ruling", "originator_topic")}
            character = None
            if isinstance(e, Character.Event) or isinstance(e, Character.CharacterAdded):
                ch = next((c for c in [*self.characters.values(), *self.extra_aggregates] if c.id == e.originator_id), None)
                character = ch.sheet["name"] if ch is not None and ch.sheet else None
            elif isinstance(data, dict):
                character = data.get("for") or data.get("character")
            out.append({"type": name, "character": character, "data": data})
        return out

    # -- loading ---------------------------------------------------------------------------
    def character(self, name: str) -> Character:
        """The live character called `name` (case-insensitive), loaded once per ruling."""
        key = name_key(name)
        if key in self.characters:
            return self.characters[key]
        entry = self.campaign.character(name)
        if entry is None:
            raise no_character(name, self.campaign.names())
        ch: Character = self.load(_uuid(entry["id"]))
        if not ch.active:
            raise no_character(name, self.campaign.names())
        self.characters[key] = ch
        return ch

    def load(self, aggregate_id: Any) -> Any:
        """Any aggregate as this ruling sees it (the store in play; the re-derived world in a retraction)."""
        return self.loader(aggregate_id)

    def sheet(self, name: str) -> Sheet:
        """The current sheet of a character, as this ruling has left it so far."""
        return Sheet.from_dict(self.character(name).sheet)

    def add_character(self, sheet: Sheet) -> Character:
        """A new character, enrolled on the roster."""
        key = name_key(sheet.name)
        if self.campaign.character(sheet.name) is not None or key in self.characters:
            raise Conflict(f"there is already a character called '{sheet.name}'", "pick another name")
        cid = character_id(key, self.number)
        ch = Character._create(Character.CharacterAdded, id=cid, ruling=self.number, sheet=sheet.to_dict())
        self._take(ch)
        self.characters[key] = ch
        self.touched[cid.hex] = None
        self.campaign_event(Campaign.CharacterEnrolled, name=sheet.name, character_id=cid.hex)
        return ch

    # -- committing ------------------------------------------------------------------------
    def finish(self) -> list[Any]:
        """Close the ruling: unused entered dice, touched aggregates, then the chain link."""
        self.flush_dice()
        for roll in self.dice.unused(self.roll_specs, self.roll_allowed):
            self._dice_event(roll)
        first: dict[str, int] = {}
        for e in self.events:
            h = e.originator_id.hex
            if h in self.touched and h not in first:
                first[h] = e.originator_version
        self.trigger(self.ruling, Ruling.Touched, ids=list(self.touched), first=first)
        return self.events

    def chain(self, stored: list[StoredEvent]) -> Any:
        """The campaign's RulingChained event, carrying the hash over this ruling's stored events."""
        prev = self.campaign.last_hash or GENESIS
        return self.trigger(
            self.campaign,
            Campaign.RulingChained,
            number=self.number,
            kind=self.kind,
            prev_hash=prev,
            hash=chain_hash(prev, stored),
        )


def _uuid(hex_id: str) -> Any:
    from uuid import UUID

    return UUID(hex_id)
