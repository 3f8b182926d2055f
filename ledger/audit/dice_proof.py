"""Verifiable dice: a session's secret, its SHA-256 commitment, the dice derived from it, and their check.

`session start --commit-dice` draws a 32-byte secret and records only `commit(secret)`. Every die the ledger
rolls in that session is derived from it: HMAC-SHA256 keyed by the secret over a canonical message, read as a
big-endian integer modulo the die's number of faces. `session end` reveals the secret; `check` recomputes every
committed die of revealed sessions from a log. Pure functions only: no I/O, no randomness.

Two versions of the message, named by the session's `DiceScheme` event (none: version 1, the first release's):
- version 1: [ruling number, roll name, die index];
- version 2: [session, counter, roll name, die index] for a ledger die and [session, counter, roll name, die
  index, player_seed] for a player's die, where `counter` counts the session's committed rolls (0, 1, 2, ...)
  and `player_seed` is the hex of 16+ random bytes the player's browser made for that roll.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from ledger.aggregates import retracted
from ledger.model.event_names import (
    CAMPAIGN_CREATED,
    DICE_COMMITTED,
    DICE_REVEALED,
    DICE_ROLLED,
    DICE_SCHEME,
    OUTCOME_AMENDED,
    RETRACTION_RECORDED,
    RULING_RECORDED,
    RULING_REDONE,
    RULING_UNDONE,
    SESSION_ENDED,
)

SCHEME = "hmac-sha256-v1"
SCHEME_V2 = "hmac-sha256-v2"
VERSION = 2  # the scheme new committed sessions use
SECRET_BYTES = 32
SEED_BYTES = 16  # the least a player's seed may have


def commit(secret: bytes) -> str:
    """The commitment to a secret: its SHA-256, in hex."""
    return hashlib.sha256(secret).hexdigest()


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


_COUNT = re.compile(r"^\s*(\d*)\s*d", re.I)


def notation_count(notation: Any) -> int | None:
    """How many dice a recorded notation says (3dF: 3, d20+2: 1), or None if it does not say."""
    m = _COUNT.match(str(notation or ""))
    return (int(m[1]) if m[1] else 1) if m else None


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
    sessions_revealed: int = 0
    dice_unrevealed: int = 0  # committed dice of sessions whose secret is not revealed yet


@dataclass
class _Die:
    seq: int
    ruling: int
    name: str
    data: dict[str, Any]
    session: int


@dataclass
class _Session:
    number: int
    commitment: str
    version: int = 1
    counter: int = 0  # the next committed roll's counter (version 2)
    ended: list[tuple[int, int]] = field(default_factory=list)  # (seq, ruling) of each SessionEnded


class Checker:
    """Feed it a log's decoded events in order (`event`), then `result()`: every committed die recomputed.

    `takes(system, command, intent, name)` answers whether a command takes a roll of that name (None: anything).
    """

    def __init__(self, takes: Any = None) -> None:
        self.out = DiceCheck()
        self.takes = takes
        self.system = ""
        self.secrets: dict[str, bytes] = {}  # commitment -> revealed secret
        self.sessions: dict[int, _Session] = {}  # session number -> its commitment, scheme and counter
        self.used: dict[str, int] = {}  # commitment -> the session that made it
        self.rulings: dict[int, dict[str, Any]] = {}  # ruling -> its session, command and intent
        self.killers: dict[int, int] = {}  # retracted ruling -> the ruling that retracted it
        self.pending: list[_Die] = []  # committed dice, checked once every secret is known

    def event(self, seq: int, topic: str, state: dict[str, Any]) -> None:
        """Take one event (its topic and decoded state)."""
        kind = topic.rsplit(".", 1)[-1]
        ruling = state.get("ruling")
        if kind == CAMPAIGN_CREATED:
            self.system = str(state.get("system", ""))
        elif kind == RULING_RECORDED:
            self.rulings[int(ruling or 0)] = state
        elif kind == DICE_COMMITTED:
            self._committed(seq, ruling, state)
        elif kind == DICE_SCHEME:
            entry = self.sessions.get(int(state.get("number") or 0))
            if entry is not None:
                entry.version = int(state.get("version") or 1)
        elif kind == SESSION_ENDED:
            entry = self.sessions.get(int(state.get("number") or 0))
            if entry is not None:
                entry.ended.append((seq, int(ruling or 0)))
        elif kind == DICE_REVEALED:
            self._reveal(seq, ruling, state)
        elif kind in (RULING_UNDONE, RETRACTION_RECORDED):
            self.killers[int(state.get("target") or 0)] = int(ruling or 0)
        elif kind == RULING_REDONE:
            self.killers.pop(int(state.get("target") or 0), None)
        elif kind == DICE_ROLLED:
            self._die(seq, int(ruling or 0), state.get("data") or {}, None)
        elif kind == OUTCOME_AMENDED:
            for data in state.get("dice") or []:
                self._die(seq, int(ruling or 0), data, f"{state.get('target')}.{data.get('name')}")

    def _problem(self, seq: int, ruling: Any, text: str) -> None:
        self.out.problems.append(DiceProblem(seq, ruling, text))

    def _committed(self, seq: int, ruling: Any, state: dict[str, Any]) -> None:
        number, commitment = int(state.get("number") or 0), str(state.get("commitment", ""))
        if commitment in self.used and self.used[commitment] != number:
            self._problem(
                seq, ruling, f"session {number} re-uses the dice commitment of session {self.used[commitment]}"
            )
        self.used.setdefault(commitment, number)
        self.sessions[number] = _Session(number, commitment)

    def _reveal(self, seq: int, ruling: Any, state: dict[str, Any]) -> None:
        commitment, number = str(state.get("commitment", "")), state.get("number")
        try:
            secret = bytes.fromhex(str(state.get("secret", "")))
        except ValueError:
            secret = b""
        if commit(secret) != commitment:
            self._problem(seq, ruling, f"the secret revealed for session {number} does not match its commitment")
            return
        if commitment not in self.secrets:
            self.out.sessions_revealed += 1
        self.secrets[commitment] = secret

    def _die(self, seq: int, ruling: int, data: dict[str, Any], derived_name: str | None) -> None:
        rec = self.rulings.get(ruling, {})
        entry = self.sessions.get(int(rec.get("session") or 0))
        claimed = data.get("commitment")
        if entry is None and claimed is None:
            return  # no commitment in force: an ordinary roll
        name = derived_name or str(data.get("name"))
        self._shape(seq, ruling, rec, name, data)
        if entry is not None and entry.version >= 2 and not self._source(seq, ruling, rec, name, data):
            return
        if data.get("source") == "entered":
            return  # physical dice: nothing to recompute
        expected = entry.commitment if entry is not None else None
        if claimed != expected:
            what = "carries no commitment" if claimed is None else "claims a commitment this session did not make"
            self._problem(
                seq, ruling, f"roll '{data.get('name')}' {what}: it was not derived from the session's secret"
            )
            return
        assert entry is not None
        if entry.version >= 2:
            if data.get("counter") != entry.counter:
                self._problem(
                    seq,
                    ruling,
                    f"roll '{data.get('name')}' has counter {data.get('counter')} where session {entry.number}'s"
                    f" committed roll number {entry.counter} belongs: a committed roll was dropped, added or moved",
                )
            entry.counter = int(data["counter"]) + 1 if isinstance(data.get("counter"), int) else entry.counter + 1
        self.pending.append(_Die(seq, ruling, name, data, entry.number))

    def _shape(self, seq: int, ruling: int, rec: dict[str, Any], name: str, data: dict[str, Any]) -> None:
        """The roll's name and face count against its notation and its command."""
        label, faces = data.get("name"), list(data.get("faces") or [])
        if data.get("kind") == "expr":  # an expression's dice are named one by one (rerolls and explosions add dice)
            sizes = data.get("sizes")
            if not isinstance(sizes, list) or len(sizes) != len(faces):
                self._problem(seq, ruling, f"roll '{label}' shows {len(faces)} dice but names the size of {sizes!r}")
        else:
            count = notation_count(data.get("notation"))
            if count is not None and count != len(faces):
                self._problem(
                    seq,
                    ruling,
                    f"roll '{label}' shows {len(faces)} dice but its notation {data.get('notation')} has {count}",
                )
        command = rec.get("command")
        if command and command != "roll":
            if data.get("kind") == "fudge" and self.system == "hnh" and len(faces) != 3:
                self._problem(seq, ruling, f"roll '{label}' shows {len(faces)} Fudge dice where '{command}' rolls 3dF")
            if data.get("kind") == "d20" and len(faces) != 1:
                self._problem(seq, ruling, f"roll '{label}' shows {len(faces)} dice where '{command}' rolls 1d20")
        if command and self.takes is not None and not self.takes(self.system, command, rec.get("intent") or {}, name):
            self._problem(seq, ruling, f"'{command}' takes no roll named '{name}'")

    def _source(self, seq: int, ruling: int, rec: dict[str, Any], name: str, data: dict[str, Any]) -> bool:
        """Version 2: a die is entered exactly when the ruling's intent says so."""
        entered = (rec.get("intent") or {}).get("entered") or {}
        if (data.get("source") == "entered") == (name in entered):
            return True
        said = "entered" if name in entered else "rolled from the session's secret"
        self._problem(
            seq,
            ruling,
            f"roll '{data.get('name')}' has source '{data.get('source')}' but its ruling's intent says {said}",
        )
        return False

    def result(self) -> DiceCheck:
        """Recompute every committed die of a revealed session; report committed sessions that ended unrevealed."""
        dead = retracted(self.killers)
        for entry in self.sessions.values():
            ended = [(seq, r) for seq, r in entry.ended if r not in dead]
            if ended and entry.commitment not in self.secrets:
                seq, r = ended[-1]
                self._problem(
                    seq, r, f"session {entry.number} committed its dice but ended without revealing its secret"
                )
        for die in self.pending:
            secret = self.secrets.get(str(die.data.get("commitment")))
            faces = list(die.data.get("faces") or [])
            if secret is None:
                self.out.dice_unrevealed += len(faces)
                continue
            version = self.sessions[die.session].version if die.session in self.sessions else 1
            seed = die.data.get("player_seed") if version >= 2 and die.data.get("source") == "player" else None
            if version >= 2 and die.data.get("source") == "player" and not _seed_ok(seed):
                self._problem(die.seq, die.ruling, f"roll '{die.data.get('name')}' has no valid player seed")
                continue
            want = expected_faces(
                secret, die.data, ruling=die.ruling, name=die.name, version=version, session=die.session, seed=seed
            )
            self.out.dice_checked += len(faces)
            if faces != want:
                self._problem(
                    die.seq,
                    die.ruling,
                    f"roll '{die.data.get('name')}' shows {faces} but the revealed secret gives {want}",
                )
        return self.out


def _seed_ok(seed: Any) -> bool:
    """A player's seed: hex of at least SEED_BYTES bytes."""
    try:
        return isinstance(seed, str) and len(bytes.fromhex(seed)) >= SEED_BYTES
    except ValueError:
        return False


def check(events: Iterable[tuple[int, str, dict[str, Any]]], takes: Any = None) -> DiceCheck:
    """Check every committed die of a log given as (position, topic, decoded state) in order."""
    checker = Checker(takes)
    for seq, topic, state in events:
        checker.event(seq, topic, state)
    return checker.result()
