"""Verifiable dice: a session's secret, its SHA-256 commitment, the dice derived from it, and their check.

`session start --commit-dice` draws a 32-byte secret and records only `commit(secret)`. Every die the ledger
rolls in that session is then `derive(secret, ruling, name, index)`: HMAC-SHA256 keyed by the secret over the
canonical message [ruling number, roll name, die index], read as a big-endian integer modulo the die's number of
faces. `session end` reveals the secret; `check` recomputes every ledger-rolled die of revealed sessions from a
log. Pure functions only: no I/O, no randomness (the application draws the secret).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from ledger.model.event_names import DICE_COMMITTED, DICE_REVEALED, DICE_ROLLED, OUTCOME_AMENDED, RULING_RECORDED

SCHEME = "hmac-sha256-v1"
SECRET_BYTES = 32


def commit(secret: bytes) -> str:
    """The commitment to a secret: its SHA-256, in hex."""
    return hashlib.sha256(secret).hexdigest()


def message(ruling: int, name: str, index: int) -> bytes:
    """The bytes one die is derived from: the JSON array [ruling, name, index], compact, UTF-8."""
    return orjson.dumps([ruling, name, index])


def derive(secret: bytes, ruling: int, name: str, index: int, lo: int, hi: int) -> int:
    """One die's face in lo..hi (a Fudge die is -1..1): the HMAC read as an integer, modulo the number of faces.

    The HMAC is 256 bits, so the modulo's bias is below 2**-248 for any die up to 1000 sides.
    """
    digest = hmac.new(secret, message(ruling, name, index), hashlib.sha256).digest()
    return lo + int.from_bytes(digest, "big") % (hi - lo + 1)


def derive_faces(secret: bytes, ruling: int, name: str, count: int, lo: int, hi: int) -> tuple[int, ...]:
    """Every face of one named roll of `count` dice."""
    return tuple(derive(secret, ruling, name, i, lo, hi) for i in range(count))


def face_range(data: dict[str, Any]) -> tuple[int, int]:
    """The faces a recorded roll's dice can show (from a DiceRolled payload)."""
    return (-1, 1) if data.get("kind") == "fudge" else (1, int(data.get("sides", 6)))


@dataclass(frozen=True)
class DiceProblem:
    """One die (or reveal) that does not check out."""

    seq: int
    ruling: int | None
    message: str


@dataclass
class DiceCheck:
    """What a check of a log's dice found."""

    problems: list[DiceProblem] = field(default_factory=list)
    dice_checked: int = 0  # single dice recomputed from a revealed secret
    rolls_checked: int = 0
    sessions_revealed: int = 0
    dice_unrevealed: int = 0  # committed dice of sessions whose secret is not revealed yet


@dataclass
class _Die:
    seq: int
    ruling: int
    name: str
    data: dict[str, Any]


class Checker:
    """Feed it a log's decoded events in order (`event`), then `result()`: every committed die recomputed."""

    def __init__(self) -> None:
        self.out = DiceCheck()
        self.secrets: dict[str, bytes] = {}  # commitment -> revealed secret
        self.active: dict[int, str] = {}  # session number -> the commitment in force
        self.session: dict[int, int | None] = {}  # ruling -> its session
        self.pending: list[_Die] = []  # committed dice, checked once every secret is known

    def event(self, seq: int, topic: str, state: dict[str, Any]) -> None:
        """Take one event (its topic and decoded state)."""
        kind = topic.rsplit(".", 1)[-1]
        ruling = state.get("ruling")
        if kind == RULING_RECORDED:
            self.session[int(ruling or 0)] = state.get("session")
        elif kind == DICE_COMMITTED:
            self.active[int(state["number"])] = str(state["commitment"])
        elif kind == DICE_REVEALED:
            self._reveal(seq, ruling, state)
        elif kind == DICE_ROLLED:
            self._die(seq, int(ruling or 0), state.get("data") or {}, None)
        elif kind == OUTCOME_AMENDED:
            for data in state.get("dice") or []:
                self._die(seq, int(ruling or 0), data, f"{state.get('target')}.{data.get('name')}")

    def _reveal(self, seq: int, ruling: Any, state: dict[str, Any]) -> None:
        commitment, number = str(state.get("commitment", "")), state.get("number")
        try:
            secret = bytes.fromhex(str(state.get("secret", "")))
        except ValueError:
            secret = b""
        if commit(secret) != commitment:
            self.out.problems.append(
                DiceProblem(seq, ruling, f"the secret revealed for session {number} does not match its commitment")
            )
            return
        self.secrets[commitment] = secret
        self.out.sessions_revealed += 1

    def _die(self, seq: int, ruling: int, data: dict[str, Any], derived_name: str | None) -> None:
        if data.get("source") == "entered":
            return  # physical dice the GM typed: nothing to recompute
        expected = self.active.get(self.session.get(ruling) or 0)
        claimed = data.get("commitment")
        if expected is None and claimed is None:
            return  # no commitment in force: an ordinary roll
        if claimed != expected:
            what = "carries no commitment" if claimed is None else "claims a commitment this session did not make"
            self.out.problems.append(
                DiceProblem(
                    seq, ruling, f"roll '{data.get('name')}' {what}: it was not derived from the session's secret"
                )
            )
            return
        self.pending.append(_Die(seq, ruling, derived_name or str(data.get("name")), data))

    def result(self) -> DiceCheck:
        """Recompute every committed die of a revealed session."""
        for die in self.pending:
            secret = self.secrets.get(str(die.data.get("commitment")))
            faces = list(die.data.get("faces") or [])
            if secret is None:
                self.out.dice_unrevealed += len(faces)
                continue
            lo, hi = face_range(die.data)
            want = list(derive_faces(secret, die.ruling, die.name, len(faces), lo, hi))
            self.out.dice_checked += len(faces)
            self.out.rolls_checked += 1
            if faces != want:
                self.out.problems.append(
                    DiceProblem(
                        die.seq,
                        die.ruling,
                        f"roll '{die.data.get('name')}' shows {faces} but the revealed secret gives {want}",
                    )
                )
        return self.out


def check(events: Iterable[tuple[int, str, dict[str, Any]]]) -> DiceCheck:
    """Check every committed die of a log given as (position, topic, decoded state) in order."""
    checker = Checker()
    for seq, topic, state in events:
        checker.event(seq, topic, state)
    return checker.result()
