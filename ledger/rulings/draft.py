"""The ruling being decided: what a command loads, the dice it takes, the effects it records.

A `Draft` collects the events of one ruling, across aggregates, in the order they happened. Committing
it chains the ruling's hash to the previous one and writes every event in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any
from uuid import UUID

from ledger import snapshots as snaps
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
from ledger.errors import Conflict, no_character
from ledger.model.bounds import check_actor, check_intent, check_stored
from ledger.model.chain import GENESIS, PLACEHOLDER, SCHEME, link_hash
from ledger.model.dice import DiceBox, DiceSpec, Roll
from ledger.model.event_names import (
    DAMAGE_APPLIED,
    DICE_COUNTED,
    DICE_SCHEME,
    HEALTH_RECOVERED,
    RULING_CHAINED,
    RULING_RECORDED,
    TOUCHED,
)
from ledger.model.sheet import SHEET_EFFECTS, Effect, Sheet
from ledger.rules import get_rules
from ledger.storage.store import SNAPSHOT_INTERVAL, write_error

if TYPE_CHECKING:
    from eventsourcing.persistence import StoredEvent

    from ledger.storage.store import EventStore


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
        intent: Mapping[str, Any],
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
        dice.owner_of = self.roll_owners.get
        dice.owners = self.roll_owners
        self.events: list[Any] = []
        self.characters: dict[str, Character] = {}
        self.extra_aggregates: list[Any] = []
        self.touched: dict[str, None] = {}
        self.hp_before: dict[
            int, int
        ] = {}  # id(event) -> the character's HP just before it (for the output's `HP 6 -> 1`)
        self._flushed: set[str] = set()
        self.campaign: Campaign = campaign  # type: ignore[assignment]
        # every aggregate the decider read, with the version read (0: not there): kept in the chain link, so a
        # retraction knows which later rulings read what it changes (ledger/history/rederive.py)
        self.reads: dict[str, int] = {CAMPAIGN_ID.hex: campaign.version} if campaign is not None else {}
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
        self.take(self.ruling)
        self.intent = intent
        self.actor = actor
        self.at = at

    # -- recording -------------------------------------------------------------------------
    def take(self, aggregate: Any) -> Any:
        """Move an aggregate's newest pending event (one created or triggered outside `trigger`) into the ruling."""
        event = aggregate.pending_events.pop()
        self.events.append(event)
        return event

    def open_campaign(self, campaign: Campaign) -> None:
        """Ruling 1 (`init`): the campaign this ruling creates becomes the draft's campaign."""
        self.campaign = campaign
        self.take(campaign)
        self.touch(CAMPAIGN_ID)

    def save_also(self, aggregate: Any) -> None:
        """An aggregate loaded outside the draft that this ruling changed: saved with the ruling (once)."""
        if not any(a is aggregate for a in self.extra_aggregates):
            self.extra_aggregates.append(aggregate)

    def touch(self, aggregate_id: Any) -> None:
        """Mark an aggregate as changed by this ruling (undo and retraction restore exactly these)."""
        self.touched[aggregate_id.hex] = None

    def expect_roll(self, name: str, spec: DiceSpec | None = None, *, owner: str | None = None) -> None:
        """Declare a roll this ruling takes: its spec (for entered faces) and whose roll it is (named in its event)."""
        if spec is not None:
            self.roll_specs[name] = spec
        if owner:
            self.roll_owners[name] = owner

    def allow_entered(self, spec_of: Callable[[str, str], DiceSpec | None]) -> None:
        """How an entered roll this ruling did not need is checked (its spec by name and faces; None: not a roll of
        this command)."""
        self.roll_allowed = spec_of

    def trigger(self, aggregate: Any, event_class: type, **kwargs: Any) -> Any:
        """Trigger an event on an aggregate as part of this ruling."""
        aggregate.trigger_event(event_class, ruling=self.number, **kwargs)
        return self.take(aggregate)

    def campaign_event(self, event_class: type, *, touches: bool = True, **kwargs: Any) -> None:
        """A campaign event; one that changes roster or sessions marks the campaign touched (for undo)."""
        self.trigger(self.campaign, event_class, **kwargs)
        if touches:
            self.touch(CAMPAIGN_ID)

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
        batch = list(effects)
        for e in batch:
            if e.event in SHEET_EFFECTS:
                ch = self.character(e.target)
                hp = (ch.sheet or {}).get("hp")
                event = self.trigger(ch, SHEET_EVENTS[e.event], data=dict(e.data))
                if isinstance(hp, int):
                    self.hp_before[id(event)] = hp
                self.touch(ch.id)
            else:
                data = dict(e.data)
                if e.target:
                    data.setdefault("character", e.target)
                self.trigger(self.ruling, RESOLUTION_EVENTS[e.event], data=data)
        if self.campaign is not None and batch:
            # the rules say what follows on others (H&H: a hold on the fallen ends)
            intent = self.intent or {}
            version = int(intent.get("tracker") or intent.get("rules") or 0)
            self.apply(get_rules(self.campaign.system).at(version).aftermath(batch, self.sheet))

    def summary(self) -> list[dict[str, Any]]:
        """What this ruling recorded, for the command's output: dice, resolutions and sheet changes."""
        out = []
        for e in self.events:
            name = type(e).__name__
            if name in (RULING_RECORDED, TOUCHED, RULING_CHAINED, DICE_COUNTED, DICE_SCHEME):
                continue
            data = getattr(e, "data", None)
            if data is None:
                data = {
                    k: v
                    for k, v in vars(e).items()
                    if k not in ("originator_id", "originator_version", "timestamp", "ruling", "originator_topic")
                }
            character = None
            if isinstance(e, Character.Event) or isinstance(e, Character.CharacterAdded):
                ch = next(
                    (c for c in [*self.characters.values(), *self.extra_aggregates] if c.id == e.originator_id), None
                )
                character = ch.sheet["name"] if ch is not None and ch.sheet else None
            elif isinstance(data, dict):
                character = data.get("for") or data.get("character")
            item = {"type": name, "character": character, "data": data}
            if id(e) in self.hp_before and name in (DAMAGE_APPLIED, HEALTH_RECOVERED):
                item["hp_before"] = self.hp_before[id(e)]
            out.append(item)
        return out

    # -- loading ---------------------------------------------------------------------------
    def character(self, name: str) -> Character:
        """The live character called `name` (case-insensitive), loaded once per ruling."""
        key = name_key(name)
        if key in self.characters:
            return self.characters[key]
        entry = self.campaign.character(name)
        if entry is None:
            raise no_character(name, self.campaign.names(), retired=self.campaign.retired_names())
        ch: Character = self.load(_uuid(entry["id"]))
        if not ch.active:
            raise no_character(name, self.campaign.names(), retired=self.campaign.retired_names())
        self.characters[key] = ch
        return ch

    def load(self, aggregate_id: Any) -> Any:
        """Any aggregate as this ruling sees it (the store in play; the re-derived world in a retraction), noted
        as read (an aggregate not there yet is read too: its absence can decide)."""
        try:
            aggregate = self.loader(aggregate_id)
        except Exception:
            self.reads.setdefault(aggregate_id.hex, 0)
            raise
        self.reads.setdefault(aggregate_id.hex, int(getattr(aggregate, "version", 0) or 0))
        return aggregate

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
        self.take(ch)
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
        self._count_committed()
        first: dict[str, int] = {}
        for e in self.events:
            h = e.originator_id.hex
            if h in self.touched and h not in first:
                first[h] = e.originator_version
        self.trigger(self.ruling, Ruling.Touched, ids=list(self.touched), first=first)
        return self.events

    def _count_committed(self) -> None:
        """Scheme 2: note the session's next committed-roll counter after the ones this ruling used."""
        counters = [
            d["counter"]
            for e in self.events
            for d in ([getattr(e, "data", None)] + list(getattr(e, "dice", None) or []))
            if isinstance(d, dict) and isinstance(d.get("counter"), int)
        ]
        if counters and self.campaign is not None and self.dice.session:
            nxt = max(max(counters) + 1, self.dice.counter)  # a player's die takes its ask's (earlier) counter
            self.campaign_event(
                Campaign.DiceCounted,
                touches=False,
                number=self.dice.session,
                next=nxt,
                commitment=self.dice.commitment,
            )
        closed: set[int] = set()  # an ask of several rolls (one card) is answered once, by its first die here
        for roll in self.dice.taken.values():
            if roll.ask is not None and self.campaign is not None and roll.ask not in closed:
                closed.add(roll.ask)  # the ask's fate: answered, by this ruling
                self.campaign_event(
                    Campaign.AskClosed,
                    touches=False,
                    ask=roll.ask,
                    fate="answered",
                    why=f"used by ruling {self.number}",
                    alone=False,
                    seed=roll.player_seed,
                )

    def chain(self, stored: list[StoredEvent], snapshots: dict[str, list[Any]] | None = None) -> Any:
        """The campaign's RulingChained event (scheme 2): its hash covers this ruling's stored events and the link
        itself."""
        prev = self.campaign.last_hash or GENESIS
        link = self.trigger(
            self.campaign,
            Campaign.RulingChained,
            number=self.number,
            kind=self.kind,
            prev_hash=prev,
            hash=PLACEHOLDER,
            scheme=SCHEME,
            snapshots=snapshots or {},
            reads=self.reads,
        )
        mapper = self.store.mapper
        digest = link_hash(prev, stored, mapper.to_stored_event(link))
        assert digest is not None, "a link this ledger just encoded is well formed"
        object.__setattr__(link, "hash", digest)
        self.campaign.last_hash = digest
        return link


def commit(store: EventStore, draft: Draft) -> None:
    """Write a ruling in one transaction: its events, the snapshots it takes and the chain link that vouches for them.

    The intent, the actor and every number the events carry are checked first (ledger/model/bounds.py): a ruling the
    read models could not hold is refused, never appended. An aggregate this ruling carries across a snapshot interval
    is snapshotted before the link (the campaign at the version just before it), and the link records each snapshot's
    digest (ledger/snapshots.py).
    """

    check_intent(
        draft.intent
    )  # a new ruling only: re-deciding a recorded one (ledger/history/rederive.py) never comes here
    check_actor(draft.actor)
    events = draft.finish()
    check_stored([vars(e) for e in events])
    mapper = store.mapper
    stored = [mapper.to_stored_event(e) for e in events]
    campaign = draft.campaign
    link_version = campaign.version + 1
    crossed = {e.originator_id for e in events if e.originator_version % SNAPSHOT_INTERVAL == 0}
    if link_version % SNAPSHOT_INTERVAL == 0:
        crossed.add(campaign.id)
    taken = []
    if crossed and store.snapshots is not None:
        seen: set[Any] = set()
        for a in [campaign, draft.ruling, *draft.characters.values(), *draft.extra_aggregates]:
            if a is not None and a.id in crossed and a.id not in seen:
                seen.add(a.id)
                taken.append(snaps.take(a, link_version))
    digests = {s.originator_id.hex: [s.originator_version, snaps.digest(mapper.transcoder, s)] for s in taken}
    stored.append(mapper.to_stored_event(draft.chain(stored, digests)))
    # lazy: the schema check's module; kept out of reads
    from ledger.storage.schema import insert_checked

    try:
        insert_checked(store.recorder, stored)
    except Exception as e:
        if type(e).__name__ == "IntegrityError":
            raise  # another writer took this ruling number: the caller decides again
        refused = write_error(e)
        if refused is None:
            raise
        raise refused from None
    if taken and store.snapshots is not None:
        try:
            store.snapshots.put(taken)
        except Exception as e:  # the ruling is saved; a snapshot is only a shortcut (loads fold from events without it)
            if write_error(e) is None:
                raise


def _uuid(hex_id: str) -> Any:
    return UUID(hex_id)
