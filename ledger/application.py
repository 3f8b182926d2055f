"""The one way in: one method per GM command, each appending exactly one ruling (or refusing, appending nothing)."""

from __future__ import annotations

import getpass
import os
import random
import re
import time
from collections.abc import Callable, Mapping
from typing import Any
from uuid import UUID

from ledger.aggregates import (
    CAMPAIGN_ID,
    Campaign,
    Character,
    Ruling,
    ruling_id,
)
from ledger import deciders
from ledger.deciders import decider
from ledger.bounds import check_intent, check_name, whole
from ledger.dice import DiceBox
from ledger.encounters import EncounterCommands
from ledger.play import PlayCommands
from ledger.errors import BadInput, Conflict, LedgerError, NotFound, NotInitialised, StoreError
from ledger.rules import SYSTEMS, RuleSystem, get_rules
from ledger.ruling import Draft
from ledger.sheet import Sheet
from ledger.store import EventStore, Target, WriterLock, now_iso, open_store, parse_target

MAX_RETRIES = 200
_TRAIT_KEY = re.compile(r"^[a-z][a-z0-9\-]*$")

Decide = Callable[[Draft], dict[str, Any]]


def default_actor() -> str:
    """Who records when --as is not given: the OS user."""
    try:
        return getpass.getuser()
    except Exception:  # no user database entry (containers)
        return "gm"


class Ledger(PlayCommands, EncounterCommands):
    """A campaign ledger on one database: the core (rulings, campaign, characters, undo) plus the play and encounter commands."""

    def __init__(self, target: str | None = None, *, actor: str | None = None, seed: int | None = None) -> None:
        self.target: Target = parse_target(target)
        self.actor = actor or default_actor()
        self.seed = seed
        self._store: EventStore | None = None
        self._lock = WriterLock(self.target)

    @property
    def store(self) -> EventStore:
        """The event store, opened (and created) on first use."""
        if self._store is None:
            self._store = open_store(self.target)
        return self._store

    def close(self) -> None:
        """Release database connections."""
        if self._store is not None:
            self._store.close()
            self._store = None
        self._lock.close()

    # -- queries ----------------------------------------------------------------------------
    def campaign(self) -> Campaign:
        """The campaign aggregate; NotInitialised before `ledger init`."""
        from eventsourcing.application import AggregateNotFoundError

        if self._store is None and self.target.kind == "sqlite" and not os.path.exists(self.target.path):
            raise NotInitialised(f"no campaign in {self.target.describe()}", "start one: ledger init --system hnh")
        try:
            return self.store.repository.get(CAMPAIGN_ID)  # type: ignore[no-any-return]
        except AggregateNotFoundError:
            raise NotInitialised(
                f"no campaign in {self.target.describe()}", "start one: ledger init --system hnh"
            ) from None

    def rules(self) -> RuleSystem:
        """The campaign's rule system."""
        return get_rules(self.campaign().system)

    def sheet(self, name: str) -> Sheet:
        """A live character's sheet, read from the write side."""
        entry = self.campaign().character(name)
        if entry is None:
            raise NotFound(f"no character called '{name}'", "see: ledger character list")
        ch: Character = self.store.repository.get(UUID(entry["id"]))
        return Sheet.from_dict(ch.sheet)

    # -- the ruling loop --------------------------------------------------------------------
    def rule(
        self,
        command: str,
        intent: dict[str, Any],
        decide: Decide | None = None,
        *,
        rolls: Mapping[str, str] | None = None,
        kind: str = "play",
    ) -> dict[str, Any]:
        """Decide and record one ruling; on a concurrent writer's conflict, reload and decide again.

        Without `decide`, the command's registered decider decides from the intent (ledger/deciders.py).
        """
        from eventsourcing.persistence import IntegrityError

        if decide is None:
            fn = deciders.get(command)
            decide = lambda d: fn(d, intent)  # noqa: E731

        for attempt in range(MAX_RETRIES):
            try:
                with self._lock:
                    campaign = self.campaign()
                    number = campaign.rulings + 1
                    draft = self._draft(campaign, number, kind, command, intent, rolls)
                    result = decide(draft)
                    self._commit(draft)
            except IntegrityError:
                # another writer took this ruling number: back off a little (jittered) and decide again
                time.sleep(random.uniform(0, min(0.002 * 2**attempt, 0.25)))
                continue
            return {"ruling": number, **result, "events": draft.summary()}
        raise StoreError("the ledger is too busy: another writer kept winning", "try the command again")

    def _draft(
        self, campaign: Campaign | None, number: int, kind: str, command: str, intent: dict[str, Any], rolls: Any
    ) -> Draft:
        box = DiceBox(entered=dict(rolls or {}), seed=self.seed, salt=str(number))
        return Draft(
            self.store, campaign, number, kind=kind, command=command, intent=intent, actor=self.actor, at=now_iso(), dice=box
        )

    def _commit(self, draft: Draft) -> None:
        """Write the ruling's events, snapshots and chain link in one transaction (ledger/ruling.py `commit`)."""
        from ledger.ruling import commit

        try:
            commit(self.store, draft)
        except LedgerError:
            raise
        except Exception as e:
            if type(e).__name__ == "IntegrityError":
                raise
            if "locked" in str(e):
                raise StoreError("the ledger database is locked by another program", "try again in a moment") from None
            raise

    # -- campaign ---------------------------------------------------------------------------
    def init(self, system: str, name: str | None = None) -> dict[str, Any]:
        """Create the campaign (ruling 1)."""
        if system not in SYSTEMS:
            raise BadInput(f"unknown system '{system}'", f"choose one of: {', '.join(SYSTEMS)}")
        check_intent({"system": system, "name": name})  # refused before the database file is created
        from eventsourcing.application import AggregateNotFoundError

        try:
            existing: Campaign = self.store.repository.get(CAMPAIGN_ID)
        except AggregateNotFoundError:
            existing = None  # type: ignore[assignment]
        if existing is not None:
            raise Conflict(
                f"{self.target.describe()} already holds a {existing.system} campaign", "use another --db for a new campaign"
            )
        title = name or "Campaign"
        draft = self._draft(None, 1, "play", "init", {"system": system, "name": title}, None)
        draft.campaign = Campaign._create(
            Campaign.CampaignCreated, id=CAMPAIGN_ID, ruling=1, system=system, name=title, settings={}
        )
        draft._take(draft.campaign)
        draft.touched[CAMPAIGN_ID.hex] = None
        from eventsourcing.persistence import IntegrityError

        try:
            self._commit(draft)
        except IntegrityError:
            raise Conflict(f"{self.target.describe()} already holds a campaign") from None
        return {"ruling": 1, "system": system, "name": title}

    def start_session(self, title: str | None = None) -> dict[str, Any]:
        """Open a play session."""
        return self.rule("session start", {"title": title})

    def end_session(self) -> dict[str, Any]:
        """Close the open play session."""
        return self.rule("session end", {})

    # -- characters -------------------------------------------------------------------------
    def add_character(
        self,
        name: str,
        traits: Mapping[str, str],
        *,
        minion: bool = False,
        count: int = 1,
        pc: bool = False,
        powers: Mapping[str, Mapping[str, Any]] | None = None,
        typed_traits: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Add a character with validated traits."""
        name = check_name(name)
        count = whole("count", count)
        if count > 1 and not minion:
            raise BadInput("--count is for minion groups", "add --minion")

        intent = {"name": name, "traits": dict(traits), "minion": minion, "count": count, "pc": pc}
        if powers:
            intent["powers"] = {k: dict(v) for k, v in powers.items()}
        if typed_traits:
            intent["typed_traits"] = dict(typed_traits)
        return self.rule("character add", intent)

    # -- undo and redo ----------------------------------------------------------------------
    def undo(self) -> dict[str, Any]:
        """Retract the latest live ruling; state becomes the refold of the history without it."""

        def decide(d: Draft) -> dict[str, Any]:
            target = d.campaign.latest_live()
            if target is None:
                raise Conflict("nothing to undo")
            return self._set_live(d, target, live=False)

        return self.rule("undo", {}, decide, kind="undo")

    def redo(self) -> dict[str, Any]:
        """Restore the latest undone ruling (until a new ruling is made)."""

        def decide(d: Draft) -> dict[str, Any]:
            if not d.campaign.redo:
                raise Conflict("nothing to redo")
            return self._set_live(d, d.campaign.redo[-1], live=True)

        return self.rule("redo", {}, decide, kind="redo")

    def _set_live(self, d: Draft, target: int, *, live: bool) -> dict[str, Any]:
        """Mark `target` dead or live, and restore every aggregate it touched by refolding live events."""
        r: Ruling = self.store.repository.get(ruling_id(target))
        d.extra_aggregates.append(r)
        d.trigger(r, Ruling.RulingReinstated if live else Ruling.RulingRetracted, actor=d.actor, at=d.at)
        d.campaign_event(Campaign.RulingRedone if live else Campaign.RulingUndone, touches=False, target=target)
        first = getattr(r, "first", {})
        if first and set(first) >= set(r.touched):
            # the target is the latest live ruling (undo) or the latest undone one (redo): each aggregate's state is
            # the one it had right before the target wrote to it, plus (redo) the target's own events; loaded from
            # the nearest snapshot, so the cost does not grow with history
            for hex_id in r.touched:
                self._restore_around(d, UUID(hex_id), target, first[hex_id], live)
        else:
            dead = d.campaign.dead_set()
            amendments = self.amendments(d.campaign)
            for hex_id in r.touched:
                self.restore(d, UUID(hex_id), dead, amendments)
        return {"target": target, "command": r.command, "undone" if not live else "redone": target}

    def _restore_around(self, d: Draft, aid: UUID, target: int, first: int, live: bool) -> None:
        """Restore one aggregate to its state before `target`'s first event on it (and, to redo, through them)."""
        aggregate = d.campaign if aid == CAMPAIGN_ID else self.store.repository.get(aid)
        before = self.store.repository.get(aid, version=first - 1) if first > 1 else None
        if live:
            for e in self.store.events.get(aid, gt=first - 1):
                if e.ruling != target:
                    break
                before = e.mutate(None) if before is None else _apply(e, before)
        event_class, blank = type(aggregate).restoration([], set(), {})
        fields = before.restorable() if before is not None else blank
        d.trigger(aggregate, event_class, **fields)
        if aggregate is not d.campaign:
            d.extra_aggregates.append(aggregate)
        d.touched[aid.hex] = None

    def plan_retraction(self, target: int, *, rolls: Mapping[str, str] | None = None) -> Any:
        """What retracting ruling `target` would change (nothing is appended): see ledger/rederive.py."""
        from ledger.rederive import Rederiver, validate_target

        campaign = self.campaign()
        validate_target(campaign, target)
        return Rederiver(self, campaign, target, _retract_rolls(rolls), {}).plan()

    def retract(self, target: int, *, rolls: Mapping[str, str] | None = None, fixed: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Retract a contested ruling: re-derive later rulings and append the retraction with the amended outcomes.

        `fixed` holds rolls an earlier plan made (so a confirmed plan appends exactly what was shown).
        """
        from ledger.rederive import Rederiver, commit, validate_target

        entered = _retract_rolls(rolls)

        def decide(d: Draft) -> dict[str, Any]:
            validate_target(d.campaign, target)
            plan = Rederiver(self, d.campaign, target, entered, dict(fixed or {})).plan()
            return commit(d, plan)

        return self.rule("retract", {"target": target}, decide, kind="retract")

    def restore(self, d: Draft, aid: UUID, dead: set[int], amendments: Mapping[int, list[dict[str, Any]]]) -> None:
        """Append the event that sets one aggregate to the refold of its live history."""
        history = list(self.store.events.get(aid))
        aggregate = d.campaign if aid == CAMPAIGN_ID else self.store.repository.get(aid)
        mine = {n: [rec for rec in recs if rec["aggregate"] == aid.hex] for n, recs in amendments.items()}
        event_class, fields = type(aggregate).restoration(history, dead, mine)
        d.trigger(aggregate, event_class, **fields)
        if aggregate is not d.campaign:
            d.extra_aggregates.append(aggregate)
        d.touched[aid.hex] = None

    def amendments(self, campaign: Campaign) -> dict[int, list[dict[str, Any]]]:
        """The records of every live amendment: {re-derived ruling: [{aggregate, type, data}, ...]}."""
        out: dict[int, list[dict[str, Any]]] = {}
        for n, by in campaign.live_amendments().items():
            x: Ruling = self.store.repository.get(ruling_id(by))
            out[n] = x.amendments[str(n)]["records"]
        return out


def _apply(event: Any, aggregate: Any) -> Any:
    """Apply one stored event to an aggregate loaded at an earlier version (its version moves with it)."""
    event.apply(aggregate)
    aggregate.version = event.originator_version
    return aggregate


def _retract_rolls(rolls: Mapping[str, str] | None) -> dict[str, str]:
    """`--roll N.NAME=FACES` for rolls re-derivation needs that were never made."""
    out = {}
    for key, faces in (rolls or {}).items():
        number, dot, name = key.partition(".")
        if not dot or not number.isdigit() or not name:
            raise BadInput(f"--roll '{key}' must name the ruling: N.NAME=FACES", "for example --roll 7.damage=5")
        out[key] = faces
    return out


# -- core deciders ------------------------------------------------------------------------------
@decider("session start")
def _session_start(d: Draft, i: dict[str, Any]) -> dict[str, Any]:
    if d.campaign.open_session is not None:
        raise Conflict(f"session {d.campaign.open_session} is still open", "end it first: ledger session end")
    number = len(d.campaign.domain["sessions"]) + 1
    title = i.get("title") or f"Session {number}"
    d.campaign_event(Campaign.SessionStarted, number=number, title=title, at=d.at)
    from ledger.play import start_of_issue

    start_of_issue(d)
    return {"session": number, "title": title}


@decider("session end")
def _session_end(d: Draft, i: dict[str, Any]) -> dict[str, Any]:
    number = d.campaign.open_session
    if number is None:
        raise Conflict("no session is open", "start one: ledger session start")
    d.campaign_event(Campaign.SessionEnded, number=number, at=d.at)
    return {"session": number}


@decider("character add")
def _character_add(d: Draft, i: dict[str, Any]) -> dict[str, Any]:
    rules = get_rules(d.campaign.system)
    parsed: dict[str, Any] = dict(i.get("typed_traits") or {})
    for key, value in i["traits"].items():
        k = key.strip().lower().replace(" ", "-").replace("_", "-")
        if not _TRAIT_KEY.match(k):
            raise BadInput(f"'{key}' is not a trait key", "lower-case words joined by hyphens, e.g. improved-initiative")
        parsed[k] = rules.parse_trait(k, value)
    sheet = rules.new_sheet(i["name"], parsed, minion=i["minion"], count=i["count"], pc=i["pc"])
    if i.get("powers"):
        from dataclasses import replace

        sheet = replace(sheet, powers={k: dict(v) for k, v in i["powers"].items()})
    d.add_character(sheet)
    return {"character": sheet.to_dict()}
