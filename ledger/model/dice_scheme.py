"""Verifiable dice, the scheme: a session's secret, its SHA-256 commitment and the dice derived from it.

`session start --commit-dice` draws a 32-byte secret and records only `commit(secret)`. Every die the ledger
rolls in that session is derived from it: HMAC-SHA256 keyed by the secret over a canonical message, read as a
big-endian integer modulo the die's number of faces. `session end` reveals the secret; ledger/audit/dice_proof.py
recomputes every committed die of revealed sessions from a log. Pure functions only: no I/O, no randomness.

Three versions of the message, named by the session's `DiceScheme` event (none: version 1, the first release's):
- version 1: [ruling number, roll name, die index];
- version 2: [session, counter, roll name, die index] for a ledger die and [session, counter, roll name, die
  index, player_seed] for a player's die, where `counter` counts the session's committed rolls (0, 1, 2, ...)
  and `player_seed` is the hex of 16+ random bytes the player's browser made for that roll;
- version 3: [counter, roll name, die index] (and player_seed), the counter kept per commitment: a session number
  can come back after an undo or a retraction, a commitment never does. Its commitment is SHA-256 over a tag naming
  the version (and whether players roll their heroes' dice) followed by the secret, so the scheme is in the
  commitment itself: a log that claims another scheme for it no longer matches the players' noted commitment.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import Any

import orjson

SEED = re.compile(r"[0-9a-f]{32,}")  # a player's seed: lowercase hex of SEED_BYTES bytes or more, nothing else

SCHEME = "hmac-sha256-v1"
SCHEME_V2 = "hmac-sha256-v2"
VERSION = 3  # the scheme new committed sessions use
SECRET_BYTES = 32
SEED_BYTES = 16  # the least a player's seed may have


def seed_ok(seed: Any) -> bool:
    """A player's seed as the log may hold it: canonical lowercase hex (an even number of digits), at least
    SEED_BYTES bytes; spaces, capitals or a prefix would give other bytes to the HMAC than the page sent."""
    return isinstance(seed, str) and SEED.fullmatch(seed) is not None and len(seed) % 2 == 0


def commit(secret: bytes, version: int = 1, players: bool = False) -> str:
    """The commitment to a secret, in hex: its SHA-256 (versions 1 and 2), or from version 3 the SHA-256 of a tag
    naming the version and whether players roll, then the secret."""
    if version >= 3:
        tag = f"ledger dice {version}{' players' if players else ''}\n".encode()
        return hashlib.sha256(tag + secret).hexdigest()
    return hashlib.sha256(secret).hexdigest()


def message_v3(counter: int, name: str, index: int, seed: str | None = None) -> bytes:
    """Version 3: [counter, name, index] (a ledger die) or [..., player_seed] (a player's die)."""
    return orjson.dumps([counter, name, index] + ([seed] if seed is not None else []))


def derive_v3(secret: bytes, counter: int, name: str, index: int, lo: int, hi: int, seed: str | None = None) -> int:
    """Version 3: one die's face."""
    return _face(secret, message_v3(counter, name, index, seed), lo, hi)


def derive_faces_v3(
    secret: bytes, counter: int, name: str, count: int, lo: int, hi: int, seed: str | None = None
) -> tuple[int, ...]:
    """Version 3: every face of the commitment's `counter`-th committed roll (with a player's seed, a player's die)."""
    return tuple(derive_v3(secret, counter, name, i, lo, hi, seed) for i in range(count))


def message(ruling: int, name: str, index: int) -> bytes:
    """Version 1: the bytes one die is derived from, the JSON array [ruling, name, index], compact, UTF-8."""
    return orjson.dumps([ruling, name, index])


def message_v2(session: int, counter: int, name: str, index: int, seed: str | None = None) -> bytes:
    """Version 2: [session, counter, name, index] (a ledger die) or [..., player_seed] (a player's die)."""
    return orjson.dumps([session, counter, name, index] + ([seed] if seed is not None else []))


def _face(secret: bytes, msg: bytes, lo: int, hi: int) -> int:
    digest = hmac.new(secret, msg, hashlib.sha256).digest()
    return lo + int.from_bytes(digest, "big") % (hi - lo + 1)


def derive(secret: bytes, ruling: int, name: str, index: int, lo: int, hi: int) -> int:
    """Version 1: one die's face in lo..hi (a Fudge die is -1..1), the HMAC read as an integer modulo the faces.

    The HMAC is 256 bits, so the modulo's bias is below 2**-248 for any die up to 1000 sides.
    """
    return _face(secret, message(ruling, name, index), lo, hi)


def derive_faces(secret: bytes, ruling: int, name: str, count: int, lo: int, hi: int) -> tuple[int, ...]:
    """Version 1: every face of one named roll of `count` dice."""
    return tuple(derive(secret, ruling, name, i, lo, hi) for i in range(count))


def derive_faces_v2(
    secret: bytes, session: int, counter: int, name: str, count: int, lo: int, hi: int, seed: str | None = None
) -> tuple[int, ...]:
    """Version 2: every face of the session's `counter`-th committed roll (with a player's seed, a player's die)."""
    return tuple(_face(secret, message_v2(session, counter, name, i, seed), lo, hi) for i in range(count))


def derive_v2(
    secret: bytes, session: int, counter: int, name: str, index: int, lo: int, hi: int, seed: str | None = None
) -> int:
    """Version 2: one die's face (an expression's dice are derived one by one, each at its own index)."""
    return _face(secret, message_v2(session, counter, name, index, seed), lo, hi)


def face_range(data: dict[str, Any]) -> tuple[int, int]:
    """The faces a recorded roll's dice can show (from a DiceRolled payload)."""
    return (-1, 1) if data.get("kind") == "fudge" else (1, int(data.get("sides", 6)))


def expected_faces(
    secret: bytes, data: dict[str, Any], *, ruling: int, name: str, version: int, session: int, seed: str | None
) -> list[int]:
    """The faces a committed roll must show, die by die: from its own size for an expression (`sizes`), else one
    range; each face from the version's message (1: the ruling number; 2: the session's counter, a player's seed)."""
    counter = data.get("counter")
    place = counter if isinstance(counter, int) else -1

    def one(i: int, lo: int, hi: int) -> int:
        if version >= 3:
            return derive_v3(secret, place, name, i, lo, hi, seed)
        if version >= 2:
            return derive_v2(secret, session, place, name, i, lo, hi, seed)
        return derive(secret, ruling, name, i, lo, hi)

    if data.get("kind") == "expr" and isinstance(data.get("sizes"), list):
        # lazy: the notation module loads the d20 library (~0.4 s); only for expression rolls
        from ledger.model.notation import FUDGE

        out = []
        for i, size in enumerate(data["sizes"]):
            if size == "%":
                out.append(one(i, 0, 9) * 10)
            else:
                lo, hi = (-1, 1) if size == FUDGE else (1, int(size))
                out.append(one(i, lo, hi))
        return out
    lo, hi = face_range(data)
    return [one(i, lo, hi) for i in range(len(list(data.get("faces") or [])))]
