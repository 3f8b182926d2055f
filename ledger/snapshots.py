"""Snapshots the ledger can check before it folds one: each is tied to the chain link of the ruling that took it.

A ruling that carries an aggregate across a snapshot interval snapshots it before its chain link is made
(the campaign at the version just before the link), and the link records `snapshots: {id: [version, digest]}`
where the digest is a SHA-256 over the snapshot's canonical JSON. The link is covered by the chain hash, so
a snapshot edited in the file no longer matches its link, and editing the link breaks the chain (`verify`).
A loaded snapshot is used only when its link says so; otherwise it is ignored (and reported when it is
wrong), and the aggregate is folded from its events. Snapshots of the first release carry no link: they
can't be checked at load, so they are never folded (verify still compares them with a fresh fold).
"""

from __future__ import annotations

from collections.abc import Iterator
from hashlib import sha256
from typing import Any
from uuid import UUID

import orjson
from eventsourcing.domain import Snapshot

from ledger.aggregates import CAMPAIGN_ID
from ledger.model.event_names import CHAIN_TOPIC
from ledger.model.lean import LeanEventType

REPORTS: list[str] = []  # snapshots ignored at load because they don't match their link (the CLI warns once)


class LedgerSnapshot(Snapshot, metaclass=LeanEventType):
    """An eventsourcing snapshot plus `link`: the campaign version of the chain link that records its digest."""

    link: int


def take(aggregate: Any, link: int) -> LedgerSnapshot:
    """Snapshot an aggregate as it stands, naming the link that will record its digest."""
    s = Snapshot.take(aggregate)
    return LedgerSnapshot(
        originator_id=s.originator_id,
        originator_version=s.originator_version,
        timestamp=s.timestamp,
        topic=s.topic,
        state=s.state,
        link=link,
    )


def digest(transcoder: Any, snap: Any) -> str:
    """SHA-256 over a snapshot's aggregate topic, version and state, as canonical JSON (sorted keys)."""
    body = transcoder.encode({"topic": snap.topic, "version": snap.originator_version, "state": snap.state})
    return sha256(orjson.dumps(orjson.loads(body), option=orjson.OPT_SORT_KEYS)).hexdigest()


def link_record(recorder: Any, version: int) -> dict[str, Any] | None:
    """The decoded chain link at campaign version `version`, or None."""
    try:
        rows = recorder.select_events(CAMPAIGN_ID, gt=version - 1, lte=version)
    except Exception:  # noqa: BLE001 - a damaged row is no link
        return None
    return decoded_link(rows[0] if len(rows) == 1 else None)


def decoded_link(row: Any) -> dict[str, Any] | None:
    """A stored campaign event decoded as a chain link, or None (no row, another topic, not a JSON object)."""
    if row is None or row.topic != CHAIN_TOPIC:
        return None
    try:
        value = orjson.loads(row.state)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def recorded(link: dict[str, Any] | None, snap: Any) -> Any:
    """What a link records for this snapshot's aggregate: [version, digest], or None."""
    if link is None or not isinstance(link.get("snapshots"), dict):
        return None
    return link["snapshots"].get(_hex(snap.originator_id))


_ASK = object()


def problem(store: Any, snap: Any, link: Any = _ASK) -> str | None:
    """Why a snapshot can't be trusted (None if its link records exactly this snapshot); '' if it has no link.
    `link`: the decoded link already read with the snapshot (ledger/storage/pg.py reads both in one query)."""
    link_version = getattr(snap, "link", None)
    if not isinstance(link_version, int):
        return ""
    found = link_record(store.recorder, link_version) if link is _ASK else link
    want = recorded(found, snap)
    if want != [snap.originator_version, digest(store.mapper.transcoder, snap)]:
        return (
            f"snapshot of aggregate {_hex(snap.originator_id)[:8]} at version {snap.originator_version} does not "
            "match the chain link that took it"
        )
    return None


class CheckedSnapshots:
    """The repository's snapshot store: hands out only snapshots their chain link vouches for."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.inner = store.snapshots

    def get(
        self,
        originator_id: UUID,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Iterator[Any]:
        """The newest trusted snapshot at or below `lte` (the repository asks for exactly that)."""
        upto = lte
        for _ in range(20):  # an aggregate with many bad snapshots in a row is folded from its events
            found = list(self.inner.get(originator_id, lte=upto, desc=True, limit=1))
            if not found or (gt is not None and found[0].originator_version <= gt):
                return
            snap = found[0]
            why = problem(self.store, snap)
            if why is None:
                yield snap
                return
            if why and why not in REPORTS:
                REPORTS.append(why)
            upto = snap.originator_version - 1
            if upto < 1:
                return

    def put(self, snapshots: Any, **kwargs: Any) -> Any:
        """Store snapshots as they are."""
        return self.inner.put(snapshots, **kwargs)


def _hex(oid: Any) -> str:
    return oid.hex if isinstance(oid, UUID) else str(oid).replace("-", "")
