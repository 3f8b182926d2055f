"""`ledger verify`: recompute the hash chain and every aggregate's version sequence from the stored log.

Problems are data (a small record), one line each; small check functions, each given the whole picture.
The walk takes any iterable of stored events with a position (`id`), so an export file is checked the same
way as the database before anything is written (`ledger import`). The log is read as raw rows, so a damaged
row is reported, never a crash. Chain link schemes (docs/verify.md): 1 hashes each event's topic, id,
version and state; 2 also hashes the link's own bytes (its hash value aside). A scheme-1 link after a
scheme-2 one is a downgrade and is reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple
from uuid import UUID

import orjson

from ledger.model.chain import GENESIS, SCHEME, chain_hash, link_hash
from ledger.model.event_names import CHAIN_TOPIC

PAGE = 5000


@dataclass(frozen=True)
class Problem:
    """One thing verify found wrong: where, and what."""

    seq: int
    ruling: int | None
    message: str

    def line(self) -> str:
        """One line for the terminal."""
        if not self.seq:
            return self.message
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
    expected_found: bool = False
    versions: dict[Any, int] = field(default_factory=dict)
    vouched: dict[str, tuple[int, int, str]] = field(default_factory=dict)  # aggregate id (as its link writes it) ->
    # the latest snapshot a chain link records for it: (snapshot version, the link's campaign version, digest)

    def counts(self) -> dict[str, int]:
        """The counts `ledger verify` reports."""
        return {"events": self.events, "rulings": self.rulings, "aggregates": self.aggregates}


class Row(NamedTuple):
    """One stored event as read raw from the database (nothing decoded yet)."""

    id: int
    originator_id: Any
    originator_version: Any
    topic: Any
    state: Any


def verify(recorder: Any, expect: str | None = None) -> tuple[list[Problem], dict[str, int]]:
    """Walk the recorded log once: chain links, hashes, ruling numbers, and contiguous aggregate versions."""
    walk = walk_events(notifications(recorder), expect)
    return walk.problems, walk.counts()


def notifications(recorder: Any, stop: int | None = None) -> Iterator[Any]:
    """Every stored event of a recorder in log order (up to position `stop`), a page at a time, read raw."""
    sqlite = type(recorder).__module__.endswith("sqlite")
    pos = "rowid" if sqlite else "notification_id"
    mark = "?" if sqlite else "%s"
    table = recorder.events_table_name
    sql = f"SELECT {pos}, originator_id, originator_version, topic, state FROM {table} WHERE {pos} > {mark}"
    sql += f" AND {pos} <= {mark}" if stop is not None else ""
    sql += f" ORDER BY {pos} LIMIT {PAGE}"
    start = 0
    while True:
        rows = raw(recorder, sql, (start, stop) if stop is not None else (start,))
        if not rows:
            return
        for r in rows:
            yield Row(r[0], _oid(r[1]), r[2], r[3], r[4])
        start = rows[-1][0]


def raw(recorder: Any, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Rows of a query on the recorder's own connection, as plain tuples."""
    with recorder.datastore.transaction(commit=False) as cur:
        cur.execute(sql, params)
        return [tuple(r.values()) if isinstance(r, dict) else tuple(r) for r in cur.fetchall()]


def walk_events(events: Iterable[Any], expect: str | None = None) -> Walk:
    """Check stored events (`id`, `originator_id`, `originator_version`, `topic`, `state`, optionally the decoded
    `ruling`) in order."""
    walk = Walk()
    problems = walk.problems
    versions = walk.versions
    pending: list[Any] = []
    prev_hash, expected, scheme_seen, count = GENESIS, 1, 1, 0
    for n in events:
        count += 1
        oid, version = n.originator_id, n.originator_version
        if not (
            type(version) is int and type(oid) in _ID_TYPES and type(n.topic) is str and type(n.state) is bytes
        ) and not _sound(n):
            problems.append(Problem(n.id, None, "damaged row: its id, version, topic or state has the wrong type"))
            continue
        last = versions.get(oid, 0)
        if version != last + 1:
            problems.append(Problem(n.id, None, f"aggregate {_short(oid)} jumps from version {last} to {version}"))
        versions[oid] = version
        if n.topic != CHAIN_TOPIC:
            pending.append(n)
            continue
        walk.rulings += 1
        link = _decode(n.state)
        number = link.get("number")
        if number != expected:
            problems.append(
                Problem(
                    n.id,
                    _num(number),
                    f"ruling {_num(number)} follows ruling {expected - 1}: a ruling is missing or out of order",
                )
            )
        for p in pending:
            r = p.ruling if hasattr(p, "ruling") else _decode(p.state).get("ruling")
            if r != number:
                problems.append(
                    Problem(p.id, _num(number), f"event of ruling {_num(r)} recorded inside ruling {_num(number)}")
                )
        if link.get("prev_hash") != prev_hash:
            problems.append(Problem(n.id, _num(number), "chain broken: previous hash does not match the ruling before"))
        scheme = link.get("scheme", 1)
        if scheme not in (1, SCHEME) or type(scheme) is not int:
            problems.append(Problem(n.id, _num(number), f"unknown chain link scheme {str(scheme)[:20]}"))
        elif scheme < scheme_seen:
            problems.append(
                Problem(n.id, _num(number), f"chain link downgraded to scheme {scheme} after scheme {scheme_seen}")
            )
        else:
            scheme_seen = scheme
            prev = str(link.get("prev_hash", ""))
            got = chain_hash(prev, pending) if scheme == 1 else link_hash(prev, pending, n)
            if got != link.get("hash"):
                problems.append(
                    Problem(
                        n.id, _num(number), "hash mismatch: an event of this ruling was changed, removed or reordered"
                    )
                )
        recorded = link.get("snapshots")
        if recorded and type(recorded) is dict:
            for hex_id, rec in recorded.items():
                if type(rec) is list and len(rec) == 2 and type(rec[0]) is int:
                    walk.vouched[hex_id] = (rec[0], n.originator_version, str(rec[1]))
        prev_hash = str(link.get("hash", ""))
        if expect and prev_hash == expect:
            walk.expected_found = True
        expected = (number if type(number) is int else expected) + 1
        pending = []
    for p in pending:
        problems.append(Problem(p.id, None, "event after the last chain link: a partial or forged ruling"))
    walk.events = count
    walk.aggregates = len(versions)
    walk.last_hash = prev_hash
    return walk


_ID_TYPES = (str, UUID)  # the exact types the fast check in walk_events takes; anything else asks _sound


def _sound(n: Any) -> bool:
    return (
        type(n.originator_version) is int
        and isinstance(n.topic, str)
        and isinstance(n.state, (bytes, bytearray, memoryview))
        and isinstance(n.originator_id, (UUID, str))
    )


def _oid(value: Any) -> Any:
    """An originator id as the recorder would give it (a UUID), or the raw value when it is not one."""
    if isinstance(value, UUID):
        return value
    try:
        return UUID(str(value))
    except (ValueError, TypeError, AttributeError):
        return value


def _num(value: Any) -> int | None:
    return value if type(value) is int else None


def _decode(state: Any) -> dict[str, Any]:
    try:
        value = orjson.loads(bytes(state) if isinstance(state, (bytearray, memoryview)) else state)
    except (orjson.JSONDecodeError, TypeError):
        return {}
    return value if isinstance(value, dict) else {}


def _short(oid: Any) -> str:
    return (oid.hex if hasattr(oid, "hex") else str(oid))[:8]
