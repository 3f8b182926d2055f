"""`ledger verify`: recompute the hash chain and every aggregate's version sequence from the stored log.

Problems are data (a small record), one line each; small check functions, each given the whole picture.
The walk takes any iterable of stored events with a position (`id`), so an export file is checked the same
way as the database before anything is written (`ledger import`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from ledger.ruling import GENESIS, chain_hash

CHAIN_TOPIC = "ledger.aggregates:Campaign.RulingChained"
PAGE = 5000


@dataclass(frozen=True)
class Problem:
    """One thing verify found wrong: where, and what."""

    seq: int
    ruling: int | None
    message: str

    def line(self) -> str:
        """One line for the terminal."""
        where = f"event {self.seq}" + (f" (ruling {self.ruling})" if self.ruling else "")
        return f"{where}: {self.message}"


@dataclass
class Walk:
    """What one pass over a log found: problems, counts and the last chain hash."""

    problems: list[Problem] = field(default_factory=list)
    events: int = 0
    rulings: int = 0
    aggregates: int = 0
    last_hash: str = GENESIS

    def counts(self) -> dict[str, int]:
        """The counts `ledger verify` reports."""
        return {"events": self.events, "rulings": self.rulings, "aggregates": self.aggregates}


def verify(recorder: Any) -> tuple[list[Problem], dict[str, int]]:
    """Walk the recorded log once: chain links, hashes, ruling numbers, and contiguous aggregate versions."""
    walk = walk_events(notifications(recorder))
    return walk.problems, walk.counts()


def notifications(recorder: Any, stop: int | None = None) -> Iterator[Any]:
    """Every stored event of a recorder in log order (up to position `stop`), a page at a time."""
    start = 1
    while True:
        page = recorder.select_notifications(start=start, limit=PAGE, stop=stop)
        if not page:
            return
        start = page[-1].id + 1
        yield from page


def walk_events(events: Iterable[Any]) -> Walk:
    """Check stored events (`id`, `originator_id`, `originator_version`, `topic`, `state`, optionally the decoded `ruling`) in order."""
    walk = Walk()
    problems = walk.problems
    versions: dict[Any, int] = {}
    pending: list[Any] = []
    prev_hash, expected = GENESIS, 1
    for n in events:
        walk.events += 1
        last = versions.get(n.originator_id, 0)
        if n.originator_version != last + 1:
            problems.append(Problem(n.id, None, f"aggregate {_short(n.originator_id)} jumps from version {last} to {n.originator_version}"))
        versions[n.originator_id] = n.originator_version
        if n.topic != CHAIN_TOPIC:
            pending.append(n)
            continue
        walk.rulings += 1
        link = _decode(n.state)
        number = link.get("number")
        if number != expected:
            problems.append(Problem(n.id, number, f"ruling {number} follows ruling {expected - 1}: a ruling is missing or out of order"))
        for p in pending:
            r = p.ruling if hasattr(p, "ruling") else _decode(p.state).get("ruling")
            if r != number:
                problems.append(Problem(p.id, number, f"event of ruling {r} recorded inside ruling {number}"))
        if link.get("prev_hash") != prev_hash:
            problems.append(Problem(n.id, number, "chain broken: previous hash does not match the ruling before"))
        if chain_hash(link.get("prev_hash", ""), pending) != link.get("hash"):
            problems.append(Problem(n.id, number, "hash mismatch: an event of this ruling was changed, removed or reordered"))
        prev_hash = link.get("hash", "")
        expected = (number or expected) + 1
        pending = []
    for p in pending:
        problems.append(Problem(p.id, None, "event after the last chain link: a partial or forged ruling"))
    walk.aggregates = len(versions)
    walk.last_hash = prev_hash
    return walk


def _decode(state: bytes) -> dict[str, Any]:
    try:
        value = orjson.loads(state)
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _short(oid: Any) -> str:
    return (oid.hex if hasattr(oid, "hex") else str(oid))[:8]
