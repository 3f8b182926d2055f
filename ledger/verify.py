"""`ledger verify`: recompute the hash chain and every aggregate's version sequence from the stored log.

Problems are data (a small record), one line each; small check functions, each given the whole picture.
"""

from __future__ import annotations

from dataclasses import dataclass
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


def verify(recorder: Any) -> tuple[list[Problem], dict[str, int]]:
    """Walk the log once: chain links, hashes, ruling numbers, and contiguous aggregate versions."""
    problems: list[Problem] = []
    versions: dict[Any, int] = {}
    pending: list[Any] = []
    prev_hash, expected, events, rulings = GENESIS, 1, 0, 0
    start = 1
    while True:
        page = recorder.select_notifications(start=start, limit=PAGE)
        if not page:
            break
        start = page[-1].id + 1
        for n in page:
            events += 1
            last = versions.get(n.originator_id, 0)
            if n.originator_version != last + 1:
                problems.append(Problem(n.id, None, f"aggregate {_short(n.originator_id)} jumps from version {last} to {n.originator_version}"))
            versions[n.originator_id] = n.originator_version
            if n.topic != CHAIN_TOPIC:
                pending.append(n)
                continue
            rulings += 1
            link = _decode(n.state)
            number = link.get("number")
            if number != expected:
                problems.append(Problem(n.id, number, f"ruling {number} follows ruling {expected - 1}: a ruling is missing or out of order"))
            for p in pending:
                r = _decode(p.state).get("ruling")
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
    return problems, {"events": events, "rulings": rulings, "aggregates": len(versions)}


def _decode(state: bytes) -> dict[str, Any]:
    try:
        value = orjson.loads(state)
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _short(oid: Any) -> str:
    return (oid.hex if hasattr(oid, "hex") else str(oid))[:8]
