"""A retraction's walk: decide a later ruling again only if something it read differs at that point.

Every ruling records what its decider read (the chain link's `reads`; an amended outcome's own `reads`). Walking
the later rulings in order, the walk keeps the aggregates whose state differs, at that point, between the history
without the contested ruling and the history as it stands (`world`, nothing else). A ruling that read none of
them is a pure function of the same states, intent and dice, so its recorded outcome stands without deciding it.
A ruling is decided again when it read one of them, when it has no record of its reads (older ledgers), or when
its reads may be out of date (a live retraction re-derived it after they were recorded). Aggregates it did not
change are loaded as the history stands at that point (`Shadow`: each aggregate's events folded once, forward).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any
from uuid import UUID

import orjson
from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import StoredEvent

from ledger.aggregates import (
    CAMPAIGN_ID,
    Campaign,
    Character,
    Record,
    Ruling,
    fold_campaign,
    fold_character,
    live_records,
    ruling_id,
)
from ledger.encounter import Encounter, fold_encounter
from ledger.history.reach import MOST, links_after, query, raw_recorder, touched_by
from ledger.model.event_names import DAMAGE_APPLIED, HEALTH_RECOVERED

if TYPE_CHECKING:
    from ledger.storage.store import EventStore

Fields = dict[str, Any]


class _Gone:
    """In the world: an aggregate that the history without the contested ruling does not have (copies are itself)."""

    def __deepcopy__(self, memo: Any) -> _Gone:
        return self


GONE = _Gone()
HP_EVENTS = (DAMAGE_APPLIED, HEALTH_RECOVERED)


def rows(
    store: EventStore,
    aid: UUID,
    *,
    since: int = 0,
    topic: str | None = None,
    skip: frozenset[str] = frozenset(),
    limit: int | None = None,
) -> list[tuple[int, str, bytes]]:
    """An aggregate's stored events after version `since` as (version, topic, state), read raw on the recorder's
    own connection: of one topic, or without the topics in `skip` (what is left out is never even fetched)."""
    recorder, sqlite, mark = raw_recorder(store)
    sql = f"SELECT originator_version, topic, state FROM {recorder.events_table_name} WHERE originator_id = {mark}"
    sql += f" AND originator_version > {mark}"
    params: list[Any] = [aid.hex if sqlite else aid, since]
    if topic is not None:
        sql += f" AND topic = {mark}"
        params.append(topic)
    if skip:
        sql += f" AND topic NOT IN ({', '.join([mark] * len(skip))})"
        params += sorted(skip)
    sql += " ORDER BY originator_version" + (f" LIMIT {int(limit)}" if limit is not None else "")
    return [(int(v), str(t), bytes(state)) for v, t, state in query(recorder, sql, params)]


def decoded(store: EventStore, aid: UUID, found: list[tuple[int, str, bytes]]) -> list[Any]:
    """Raw rows of one aggregate as its domain events."""
    decode = store.mapper.to_domain_event
    return [decode(StoredEvent(originator_id=aid, originator_version=v, topic=t, state=s)) for v, t, s in found]


def advance(kind: type, fields: Fields | None, records: list[Record]) -> Fields:
    """An aggregate's restorable state after `records`, from `fields` (None: before its first record)."""
    if issubclass(kind, Character):
        return fold_character(records, fields)
    if issubclass(kind, Campaign):
        return {"domain": fold_campaign(records, fields["domain"] if fields else None)}
    if issubclass(kind, Encounter):
        return {"state": fold_encounter(records, fields["state"] if fields else None)}
    raise TypeError(f"no fold for {kind.__name__}")


class Shadow:
    """One aggregate in the history as it stands, walked forward ruling by ruling."""

    def __init__(self, kind: type, records: list[Record]) -> None:
        self.kind = kind
        self.records = records  # live records in ruling order (ledger/aggregates.py live_records)
        self.at = 0
        self.fields: Fields | None = None

    def before(self, number: int) -> Fields | None:
        """The state after every live record of the rulings before `number` (None: it does not exist yet)."""
        end = self.at
        while end < len(self.records) and self.records[end][0] < number:
            end += 1
        if end > self.at:
            self.fields = advance(self.kind, self.fields, self.records[self.at : end])
            self.at = end
        return self.fields


def stale(number: int, decided: int, retractions: list[tuple[int, int]]) -> bool:
    """Whether ruling `number`'s recorded reads may be out of date: a live retraction made after its decision
    (`decided`: the ruling itself, or the retraction that amended it) re-derived it without recording them."""
    return any(target < number < by and by > decided for target, by in retractions)


def live_retractions(campaign: Campaign) -> list[tuple[int, int]]:
    """Every live retraction as (the ruling it retracted, its own number); undos are not retractions."""
    dead, meta = campaign.dead_set(), set(campaign.meta)
    return [(int(t), by) for t, by in campaign.dead.items() if int(t) in dead and by not in meta]


def reads_of(link: Any, amendment: Mapping[str, Any] | None) -> Iterable[str] | None:
    """What the decision that made a ruling's current outcome read (aggregate ids): its amendment's, else its
    chain link's; None when it was not recorded."""
    if amendment is not None:
        reads: Iterable[str] | None = amendment.get("reads")
        return reads
    return link.get("reads") if link is not None else None


class Walk:
    """The incremental half of ledger/history/rederive.py's Rederiver (a mixin: it uses the planner's state)."""

    if TYPE_CHECKING:
        store: EventStore
        campaign: Campaign
        target: int
        number: int
        incremental: bool
        dead: set[int]
        live: dict[int, int]
        amend: dict[int, list[dict[str, Any]]]
        world: dict[UUID, Any]

        def history(self, aid: UUID) -> list[Any]: ...
        def ruling(self, n: int) -> Ruling: ...
        def hypothetical(self, aid: UUID) -> Any: ...
        def _amendment(self, n: int, by: int) -> dict[str, Any]: ...
        def _mine(self, aid: UUID, amend: Any, below: int | None = None) -> dict[int, Any]: ...
        def _effective(self, n: int, ruling: Ruling) -> list[dict[str, Any]]: ...
        def decide(self, n: int, ruling: Ruling, campaign: Any, loader: Any) -> Any: ...

    def start_walk(self) -> None:
        """The history as it stands: who is dead, which amendments are live, the live retractions."""
        self.now_dead = self.campaign.dead_set()
        self.now_live = self.campaign.live_amendments()
        self.now_amend = {n: self._amendment(n, by)["records"] for n, by in self.now_live.items()}
        self.retractions = live_retractions(self.campaign)
        self.shadows: dict[UUID, Shadow] = {}
        self.templates: dict[UUID, Any] = {}
        self.links: dict[int, Any] = {}
        self.suspects: dict[str, bool] = {}
        self.dirty: set[str] = set()  # the world's ids, as the reads name them

    # -- the history as it stands -----------------------------------------------------------
    def template(self, aid: UUID) -> Any:
        """The aggregate as stored now (a copy of it carries each state built for a decision)."""
        if aid not in self.templates:
            self.templates[aid] = self.store.repository.get(aid) if self.history(aid) else None
        return self.templates[aid]

    def shadow(self, aid: UUID) -> Shadow:
        """The aggregate in the history as it stands (the contested ruling live)."""
        if aid not in self.shadows:
            history = self.history(aid)
            template = self.template(aid)
            records = live_records(history, self.now_dead, self._mine(aid, self.now_amend)) if history else []
            self.shadows[aid] = Shadow(type(template) if template is not None else Character, records)
        return self.shadows[aid]

    def build(self, like: Any, fields: Fields) -> Any:
        """An aggregate like `like` carrying `fields`, for a decision to read and change (never saved)."""
        aggregate: Any = copy.copy(like)
        aggregate._pending_events = []
        event_class, _ = type(aggregate).restoration([], set(), {})
        aggregate.trigger_event(event_class, ruling=0, **orjson.loads(orjson.dumps(fields)))
        aggregate._pending_events = []
        return aggregate

    def is_ruling(self, aid: UUID) -> bool:
        """Whether an id is a Ruling aggregate's (a ruling's own record, never read by a later one)."""
        history = self.history(aid)
        return bool(history) and isinstance(history[0], Ruling.RulingRecorded)

    # -- where the two histories part -------------------------------------------------------
    def dirty_at_start(self, target: Ruling) -> None:
        """The aggregates that differ just after the contested ruling, in the world as the history without it has
        them."""
        candidates = {CAMPAIGN_ID.hex, *target.touched}
        candidates.update(r["aggregate"] for r in self._effective(self.target, target))
        moved = (self.now_dead ^ self.dead) - {self.target}
        moved |= {n for n in {*self.now_live, *self.live} if self.now_live.get(n) != self.live.get(n)}
        for m in moved:
            candidates.update(self.ruling(m).touched)
            candidates.update(r["aggregate"] for r in [*self.now_amend.get(m, []), *self.amend.get(m, [])])
        for hex_id in candidates:
            aid = UUID(hex_id)
            if self.is_ruling(aid):
                continue
            hyp = self.hypothetical(aid)
            if (hyp.restorable() if hyp is not None else None) != self.shadow(aid).before(self.target + 1):
                self.world[aid] = hyp if hyp is not None else GONE
        self.dirty = {aid.hex for aid in self.world}

    def first_link(self) -> int:
        """The campaign's version before the first event a ruling after the target wrote, found by bisecting its
        versions (what comes before is never read)."""
        decode = self.store.mapper.transcoder.decode

        def ruling_at(version: int) -> int:
            found = rows(self.store, CAMPAIGN_ID, since=version - 1, limit=1)
            return int(decode(found[0][2])["ruling"]) if found else self.number

        low, high = 1, self.campaign.version + 1  # the first version whose ruling is after the target
        while low < high:
            mid = (low + high) // 2
            if ruling_at(mid) > self.target:
                high = mid
            else:
                low = mid + 1
        return low - 1

    def later(self) -> Iterator[int]:
        """The later rulings to look at, in order: every one when deciding every one again, or when a live
        retraction or amendment has reads checked ruling by ruling; else only those whose chain link names an
        aggregate that differs at that point or may be suspect, or records no reads (ledger/history/reach.py)."""
        if not self.incremental:
            yield from range(self.target + 1, self.number)
            return
        since = self.first_link()
        if self.retractions or self.now_live:
            self.links = {int(link["number"]): link for _, link in self._links(since, None)}
            yield from range(self.target + 1, self.number)
            return
        # an aggregate a dead ruling made is among what it touched (undo restores exactly those): the suspects
        suspects = {h for h in touched_by(self.store, self.now_dead) if self.suspect(h)}
        asked: set[str] = set()
        found: list[tuple[int, dict[str, Any]]] = []
        while True:
            names = self.dirty | suspects
            if not names <= asked:  # an aggregate newly differs: links already found may have passed it by
                asked, found = names, []
            if not found:
                found = self._links(since, asked if len(asked) <= MOST else None, 64)
                if not found:
                    return
            since, link = found.pop(0)
            n = int(link["number"])
            if n >= self.number:  # a ruling recorded after the campaign this plan reads
                return
            self.links[n] = link
            yield n

    def _links(self, since: int, names: set[str] | None, limit: int | None = None) -> list[tuple[int, Any]]:
        out = []
        for version, state in links_after(self.store, since, sorted(names) if names is not None else None, limit):
            out.append((version, orjson.loads(state)))  # plain data but for its timestamp, which is never read here
        return out

    def skip(self, n: int) -> bool:
        """Whether ruling n keeps its recorded outcome without being decided (or is not a play ruling at all)."""
        if not self.incremental:
            return False
        link = self.links.get(n)
        if link is None:
            return False
        if link["kind"] in ("undo", "redo", "retract", "ask"):
            return True
        by = self.now_live.get(n)
        reads = reads_of(link, self._amendment(n, by) if by is not None else None)
        if reads is None or (self.retractions and stale(n, by or n, self.retractions)):
            return False
        for h in reads:
            if h in self.dirty or self.suspects.get(h) or (h not in self.suspects and self.suspect(h)):
                return False
        return True

    def suspect(self, hex_id: str) -> bool:
        """Whether an aggregate was made by a ruling now retracted or amended: it may then be in the store while
        the live history has no record of it, so a decision that read it may have seen what a refold does not."""
        if hex_id not in self.suspects:
            first = rows(self.store, UUID(hex_id), limit=1)
            made = int(self.store.mapper.transcoder.decode(first[0][2])["ruling"]) if first else None
            self.suspects[hex_id] = made is not None and (made in self.now_dead or made in self.now_live)
        return self.suspects[hex_id]

    # -- deciding one ruling again ----------------------------------------------------------
    def decide_at(self, n: int, ruling: Ruling, before: list[dict[str, Any]]) -> Any:
        """Decide ruling n again on the world where it differs and the history as it stands elsewhere; then keep in
        the world exactly the aggregates that differ after it."""
        loaded: dict[UUID, Any] = {}

        def load(aid: UUID) -> Any:  # a copy: the world changes only once the decision stands
            if aid in loaded:
                return loaded[aid]
            if aid in self.world:
                held = self.world[aid]
                if held is GONE:
                    raise AggregateNotFoundError(aid)
                aggregate = self.build(held, held.restorable())
            else:
                fields = self.shadow(aid).before(n)
                if fields is None:
                    raise AggregateNotFoundError(aid)
                aggregate = self.build(self.template(aid), fields)
            loaded[aid] = aggregate
            return aggregate

        self.before_hp: dict[str, int] = {}
        for r in before:
            if r["type"] in HP_EVENTS and r["aggregate"] not in self.before_hp:
                fields = self.shadow(UUID(r["aggregate"])).before(n)
                hp = ((fields or {}).get("sheet") or {}).get("hp")
                if type(hp) is int:
                    self.before_hp[r["aggregate"]] = hp
        campaign = load(CAMPAIGN_ID)
        records, refused, dice, hp, reads, sim = self.decide(n, ruling, campaign, load)
        made: dict[UUID, Any] = {}
        if sim is not None:
            made = {a.id: a for a in [*loaded.values(), *sim.characters.values(), *sim.extra_aggregates]}
        touched = {UUID(r["aggregate"]) for r in [*before, *records]} | set(made)
        touched.discard(ruling_id(n))
        for aid in touched:
            if aid in made:
                aggregate = made[aid]
            elif aid in self.world:
                aggregate = self.world[aid]
            else:
                fields = self.shadow(aid).before(n)
                aggregate = self.build(self.template(aid), fields) if fields is not None else GONE
            now = self.shadow(aid).before(n + 1)
            if (aggregate.restorable() if aggregate is not GONE else None) == now:
                self.world.pop(aid, None)
            else:
                self.world[aid] = aggregate
        self.dirty = {aid.hex for aid in self.world}
        return records, refused, dice, hp, reads

    def hp_before(self, n: int, records: list[dict[str, Any]]) -> list[int | None]:
        """The HP each character had, in the history as it stands, before its first HP change in ruling n's
        recorded outcome (None where the walk did not follow it: the describer works it out from the change)."""
        known = dict(getattr(self, "before_hp", {})) if self.incremental else {}
        out: list[int | None] = []
        for r in records:
            out.append(known.pop(r["aggregate"], None) if r["type"] in HP_EVENTS else None)
        return out

    def forget(self, n: int) -> None:
        """Drop what was cached for ruling n alone."""
        if n != self.target:
            self.rulings.pop(n, None)  # type: ignore[attr-defined]
            self.histories.pop(ruling_id(n), None)  # type: ignore[attr-defined]
            self.by_ruling.pop(ruling_id(n), None)  # type: ignore[attr-defined]
