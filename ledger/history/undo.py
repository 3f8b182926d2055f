"""Undo and redo: set a ruling dead or live, and restore every aggregate it touched by refolding live events.

Never a reverse delta: each touched aggregate gets the state it has in the history without (undo) or with
(redo) the ruling, from the nearest snapshot when the ruling is the latest, else by a full live refold.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from uuid import UUID

from ledger.aggregates import CAMPAIGN_ID, Amendments, Campaign, Ruling, ruling_id
from ledger.errors import Conflict
from ledger.rulings.draft import Draft

if TYPE_CHECKING:
    from ledger.storage.store import EventStore


def sealed(ruling: Any, how: str) -> None:
    """Refuse to take back a `session end` that revealed its dice secret: with the secret public, every later die of
    a reopened session could be foreseen, so a committed session never continues after its reveal."""
    if getattr(ruling, "command", None) == "session end" and (getattr(ruling, "intent", None) or {}).get("reveal"):
        raise Conflict(
            f"can't {how} ruling {ruling.number}: that session end revealed its dice secret, and a committed session"
            " never continues once its secret is public (start a new one: ledger session start)"
        )


def set_live(store: EventStore, d: Draft, target: int, *, live: bool) -> dict[str, Any]:
    """Mark `target` dead or live, and restore every aggregate it touched by refolding live events."""
    r: Ruling = store.repository.get(ruling_id(target))
    if not live:
        sealed(r, "undo")
    d.save_also(r)
    d.trigger(r, Ruling.RulingReinstated if live else Ruling.RulingRetracted, actor=d.actor, at=d.at)
    d.campaign_event(Campaign.RulingRedone if live else Campaign.RulingUndone, touches=False, target=target)
    first: dict[str, int] = getattr(r, "first", {})  # a ruling with no Touched event yet has none
    if first and set(first) >= set(r.touched):
        # the target is the latest live ruling (undo) or the latest undone one (redo): each aggregate's state is
        # the one it had right before the target wrote to it, plus (redo) the target's own events; loaded from
        # the nearest snapshot, so the cost does not grow with history
        for hex_id in r.touched:
            restore_around(store, d, UUID(hex_id), target, first[hex_id], live)
    else:
        dead = d.campaign.dead_set()
        found = store.amendments(d.campaign)
        for hex_id in r.touched:
            restore(store, d, UUID(hex_id), dead, found)
    return {"target": target, "command": r.command, "undone" if not live else "redone": target}


def restore_around(store: EventStore, d: Draft, aid: UUID, target: int, first: int, live: bool) -> None:
    """Restore one aggregate to its state before `target`'s first event on it (and, to redo, through them)."""
    aggregate = d.campaign if aid == CAMPAIGN_ID else store.repository.get(aid)
    before = store.repository.get(aid, version=first - 1) if first > 1 else None
    if live:
        e: Any
        for e in store.events.get(aid, gt=first - 1):
            if e.ruling != target:
                break
            before = e.mutate(None) if before is None else _apply(e, before)
    event_class, blank = type(aggregate).restoration([], set(), {})
    fields = before.restorable() if before is not None else blank
    _restored(d, aggregate, aid, event_class, fields)


def restore(store: EventStore, d: Draft, aid: UUID, dead: set[int], found: Amendments) -> None:
    """Append the event that sets one aggregate to the refold of its live history."""
    history = list(store.events.get(aid))
    aggregate = d.campaign if aid == CAMPAIGN_ID else store.repository.get(aid)
    mine = {n: [rec for rec in recs if rec["aggregate"] == aid.hex] for n, recs in found.items()}
    event_class, fields = type(aggregate).restoration(history, dead, mine)
    _restored(d, aggregate, aid, event_class, fields)


def _restored(d: Draft, aggregate: Any, aid: UUID, event_class: type, fields: dict[str, Any]) -> None:
    d.trigger(aggregate, event_class, **fields)
    if aggregate is not d.campaign:
        d.save_also(aggregate)
    d.touch(aid)


def _apply(event: Any, aggregate: Any) -> Any:
    """Apply one stored event to an aggregate loaded at an earlier version (its version moves with it)."""
    event.apply(aggregate)
    aggregate.version = event.originator_version
    return aggregate
