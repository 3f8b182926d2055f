"""The chain link's hash: SHA-256 over the previous link's hash and every stored byte of a ruling's events.

Pure functions of stored rows (docs/verify.md, the chain): the ruling loop computes a new link with them, verify and
`ledger import` recompute every link of a log or an export file with them.
"""

from __future__ import annotations

from collections.abc import Iterable
from hashlib import sha256
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from eventsourcing.persistence import StoredEvent

GENESIS = "0" * 64


SCHEME = 2  # the chain link's hashing scheme (docs/verify.md): 1 = the first release's, 2 = every stored byte
PLACEHOLDER = "?" * 64  # the link's own `hash` while its bytes are hashed
_HASH_KEY = b'"hash":"'


def chain_hash(prev_hash: str, stored: Iterable[StoredEvent]) -> str:
    """Scheme 1 (the first release): sha256 over the previous hash and each event's topic, id, version and state."""
    h = sha256(prev_hash.encode())
    for s in stored:
        oid = s.originator_id.hex if hasattr(s.originator_id, "hex") else str(s.originator_id)
        h.update(f"\n{s.topic}\n{oid}\n{s.originator_version}\n".encode())
        state = s.state
        h.update(state if isinstance(state, (bytes, bytearray, memoryview)) else str(state).encode())
    return h.hexdigest()


def _part(h: Any, topic: str, oid: Any, version: int, state: Any) -> None:
    if type(oid) is not str:  # a UUID (the recorder's), or anything else a damaged row holds
        oid = oid.hex if hasattr(oid, "hex") else str(oid)
    data = (
        state
        if type(state) is bytes
        else bytes(state)
        if isinstance(state, (bytearray, memoryview))
        else str(state).encode()
    )
    h.update(f"\n{len(topic)}:{topic}\n{oid}\n{version}\n{len(data)}:".encode() + data)


def _with_link(h: Any, link_state: bytes) -> str:
    h.update(b"\nlink:")
    h.update(link_state)
    return str(h.hexdigest())


def unhashed_link(state: bytes) -> bytes | None:
    """A scheme-2 link's stored bytes with its hash value replaced by PLACEHOLDER; None if it has not exactly one."""
    state = bytes(state)
    at = state.find(_HASH_KEY)
    if at < 0 or state.find(_HASH_KEY, at + 1) >= 0:
        return None
    start = at + len(_HASH_KEY)
    if state[start + 64 : start + 65] != b'"':
        return None
    return state[:start] + PLACEHOLDER.encode() + state[start + 64 :]


def link_hash(prev_hash: str, stored: Iterable[Any], link: Any) -> str | None:
    """Scheme 2's hash of a ruling whose link is the stored event `link` (None if the link's bytes are malformed)."""
    body = unhashed_link(link.state)
    if body is None:
        return None
    h = sha256(b"ledger-chain/2\n" + prev_hash.encode())
    for s in stored:
        _part(h, s.topic, s.originator_id, s.originator_version, s.state)
    oid = link.originator_id
    _part(h, link.topic, oid, link.originator_version, b"")
    return _with_link(h, body)
