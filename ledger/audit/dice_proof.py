"""Verifiable dice, checked: every committed die of revealed sessions recomputed from the log (the scheme itself,
pure functions of a secret and a roll's place, is ledger/model/dice_scheme.py)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ledger.aggregates import retracted
from ledger.model.dice_scheme import SEED_BYTES, commit, expected_faces
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
