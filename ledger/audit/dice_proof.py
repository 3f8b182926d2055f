"""Verifiable dice, checked: every committed die of revealed sessions recomputed from the log (the scheme itself,
pure functions of a secret and a roll's place, is ledger/model/dice_scheme.py)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ledger.aggregates import retracted
from ledger.model.dice_scheme import commit, expected_faces, seed_ok
from ledger.model.event_names import (
    ASK_CLOSED,
    CAMPAIGN_CREATED,
    CAMPAIGN_RESTORED,
    CHARACTER_ADDED,
    DICE_ASKED,
    DICE_COMMITTED,
    DICE_COUNTED,
    DICE_REVEALED,
    DICE_ROLLED,
    DICE_SCHEME,
    OUTCOME_AMENDED,
    RETRACTION_RECORDED,
    RULING_RECORDED,
    RULING_REDONE,
    RULING_UNDONE,
    SESSION_ENDED,
    SESSION_STARTED,
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
    asks: dict[str, int] = field(default_factory=dict)  # players' asks by fate: answered, expired, cancelled, ...


@dataclass
class _Die:
    seq: int
    ruling: int
    name: str
    data: dict[str, Any]
    session: int  # the session number its ruling recorded (scheme 2's message)
    entry: Any  # its commitment's session (_Session)


@dataclass
class _Session:
    number: int
    commitment: str
    version: int = 1
    counter: int = 0  # the next committed roll's counter (version 2)
    player_dice: bool = False
    ended: list[tuple[int, int]] = field(default_factory=list)  # (seq, ruling) of each SessionEnded
    started: tuple[int, int] = (0, 0)  # (seq, ruling) of the session start that made the commitment


class Checker:
    """Feed it a log's decoded events in order (`event`), then `result()`: every committed die recomputed.

    `takes(system, command, intent, name)` answers whether a command takes a roll of that name (None: anything).
    """

    def __init__(self, takes: Any = None) -> None:
        self.out = DiceCheck()
        self.takes = takes
        self.system = ""
        self.secrets: dict[str, bytes] = {}  # commitment -> revealed secret
        self.sessions: dict[int, _Session] = {}  # session number -> the session it names now (its commitment ...)
        self.by_commit: dict[str, _Session] = {}  # commitment -> its session: scheme, counter (never reset)
        self.open: int | None = None  # the open session's number
        self.starts: list[tuple[int, int]] = []  # (seq, ruling) of every SessionStarted
        self.used: dict[str, int] = {}  # commitment -> the session that made it
        self.rulings: dict[int, dict[str, Any]] = {}  # ruling -> its session, command and intent
        self.killers: dict[int, int] = {}  # retracted ruling -> the ruling that retracted it
        self.amended: dict[int, list[tuple[int, set[str]]]] = {}  # ruling -> (amender, its new outcome's event types)
        self.pending: list[_Die] = []  # committed dice, checked once every secret is known
        self.asks: dict[int, dict[str, Any]] = {}  # ask ruling -> its commitment, counter, name, hero, use and fate
        self.heroes: set[str] = set()  # characters added as heroes (--pc)
        self.seeds: dict[str, tuple[int, Any]] = {}  # a player seed -> (ruling, ask) that used it (one ask each)

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
                entry.player_dice = bool(state.get("player_dice"))
        elif kind == CHARACTER_ADDED:
            sheet = state.get("sheet") or {}
            if sheet.get("pc"):
                self.heroes.add(str(sheet.get("name", "")).strip().casefold())
        elif kind == DICE_ASKED:
            self._asked(seq, int(ruling or 0), state)
        elif kind == ASK_CLOSED:
            self._ask_closed(seq, int(ruling or 0), state)
        elif kind == SESSION_STARTED:
            self.open = int(state.get("number") or 0)
            self.starts.append((seq, int(ruling or 0)))
        elif kind == CAMPAIGN_RESTORED:
            self._restored(state.get("domain") or {})
        elif kind == SESSION_ENDED:
            self.open = None
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
            made = {str(r.get("type", "")) for r in state.get("records") or []}
            self.amended.setdefault(int(state.get("target") or 0), []).append((int(ruling or 0), made))
            for r in state.get("records") or []:  # a session end decided again reveals the session it ends now
                if r.get("type") == DICE_REVEALED:
                    self._reveal(seq, ruling, r.get("data") or {})
            for data in state.get("dice") or []:
                self._die(seq, int(ruling or 0), data, f"{state.get('target')}.{data.get('name')}", state.get("target"))
        elif kind == DICE_COUNTED:
            self._counted(seq, int(ruling or 0), state)

    def _asked(self, seq: int, ruling: int, state: dict[str, Any]) -> None:
        """A player's ask: it takes its session's next committed-roll counter, in a player-dice session, for a hero."""
        number, commitment = int(state.get("number") or 0), str(state.get("commitment", ""))
        entry = self.sessions.get(number)
        hero = str(state.get("hero", ""))
        if entry is None or entry.commitment != commitment or entry.version < 2 or not entry.player_dice:
            self._problem(seq, ruling, f"ruling {ruling} asks {hero}'s page in a session without player dice")
        elif state.get("counter") != entry.counter:
            self._problem(
                seq,
                ruling,
                f"the ask of ruling {ruling} takes counter {state.get('counter')} where session {number}'s committed"
                f" roll number {entry.counter} belongs: a committed roll was dropped, added or moved",
            )
        if hero.strip().casefold() not in self.heroes:
            self._problem(seq, ruling, f"ruling {ruling} asks a page of {hero}, who is not a hero (--pc)")
        if entry is not None and isinstance(state.get("counter"), int):
            entry.counter = int(state["counter"]) + 1
        for n in state.get("supersedes") or []:
            if n in self.asks and self.asks[n]["fate"] is None:
                self.asks[n]["fate"] = "re-asked"
        self.asks[ruling] = {**state, "fate": None, "used": None}

    def _ask_closed(self, seq: int, ruling: int, state: dict[str, Any]) -> None:
        ask = self.asks.get(int(state.get("ask") or 0))
        fate = str(state.get("fate"))
        if ask is None or ask["fate"] is not None:
            self._problem(seq, ruling, f"ruling {ruling} closes ask {state.get('ask')}, which is not open")
            return
        if fate == "answered" and ask["used"] != ruling:
            self._problem(
                seq,
                ruling,
                f"ruling {ruling} says ask {state.get('ask')} was answered, but none of its dice answers it",
            )
        if fate != "answered" and ask["used"] is not None:
            self._problem(
                seq, ruling, f"ask {state.get('ask')} was used by ruling {ask['used']} but is closed as {fate}"
            )
        ask["fate"] = fate

    def _asked_die(self, seq: int, ruling: int, data: dict[str, Any], entry: _Session, typed: bool = False) -> bool:
        """A die that answers an ask: the ask's counter, roll name, hero and commitment (faces a player typed: the
        roll name and hero); used once. False if not."""
        n = data.get("ask")
        ask = self.asks.get(n) if isinstance(n, int) else None
        label = data.get("name")
        if ask is None or ask["fate"] is not None or ask["used"] not in (None, ruling):
            self._problem(seq, ruling, f"roll '{label}' answers ask {n}, which is not an open ask")
            return False
        # an ask of several rolls (one card) is answered by one ruling, each of its rolls at most once, under its own
        # name at the ask's counter; faces a player typed answer only its first roll
        names = [ask.get("name")] if typed else [ask.get("name"), *(ask.get("also") or [])]
        done = ask.setdefault("names_used", set())
        fixed = (ask.get("commitment"), ask.get("counter"))
        got = (entry.commitment, data.get("counter"))
        wrong = label not in names or label in done or (not typed and fixed != got)
        if wrong or str(ask.get("hero", "")).casefold() != str(data.get("for", "")).casefold():
            self._problem(
                seq,
                ruling,
                f"roll '{label}' (counter {data.get('counter')}, for {data.get('for')}) is not what ask {n} fixed"
                f" ({ask.get('hero')}'s {ask.get('name')} roll at counter {ask.get('counter')})",
            )
            return False
        ask["used"] = ruling
        done.add(label)
        return True

    def _followed(self, entry: _Session, dead: set[int]) -> bool:
        """Whether a live session start comes after this session's own (it must have ended, and revealed, first)."""
        return any(seq > entry.started[0] and self._stands(r, SESSION_STARTED, dead) for seq, r in self.starts)

    def _stands(self, ruling: int, kind: str, dead: set[int]) -> bool:
        """Whether ruling's event of this kind is in the history as it stands: the ruling is live, and its outcome as
        the latest live retraction re-derived it (if one did: a start decided again as refused, once an earlier
        session is open again, starts and commits nothing) still holds it."""
        if ruling in dead:
            return False
        live = [made for by, made in self.amended.get(ruling, []) if by not in dead]
        return not live or kind in live[-1]

    def _problem(self, seq: int, ruling: Any, text: str) -> None:
        self.out.problems.append(DiceProblem(seq, ruling, text))

    def _committed(self, seq: int, ruling: Any, state: dict[str, Any]) -> None:
        number, commitment = int(state.get("number") or 0), str(state.get("commitment", ""))
        if commitment in self.used and self.used[commitment] != number:
            self._problem(
                seq, ruling, f"session {number} re-uses the dice commitment of session {self.used[commitment]}"
            )
        self.used.setdefault(commitment, number)
        entry = self.by_commit.get(commitment)
        if entry is None or entry.number != number:
            entry = _Session(number, commitment, started=(seq, int(ruling or 0)))
            self.by_commit.setdefault(commitment, entry)
        self.sessions[number] = entry

    def _restored(self, domain: dict[str, Any]) -> None:
        """After an undo, a redo or a retraction: which session each number names now (a retraction renumbers the
        sessions after a retracted start; their commitments, and so their counts, stay theirs)."""
        self.sessions = {}
        for s in domain.get("sessions") or []:
            entry = self.by_commit.get(str(s.get("commitment")))
            if entry is not None:
                self.sessions[int(s.get("number") or 0)] = entry
        self.open = domain.get("open_session")

    def _reveal(self, seq: int, ruling: Any, state: dict[str, Any]) -> None:
        commitment, number = str(state.get("commitment", "")), state.get("number")
        try:
            secret = bytes.fromhex(str(state.get("secret", "")))
        except ValueError:
            secret = b""
        entry = self.by_commit.get(commitment)
        version, players = (entry.version, entry.player_dice) if entry is not None else (1, False)
        if commit(secret, version, players) != commitment:
            self._problem(
                seq,
                ruling,
                f"the secret revealed for session {number} does not match its commitment under scheme {version}"
                + (" with player dice" if players else ""),
            )
            return
        if commitment not in self.secrets:
            self.out.sessions_revealed += 1
        self.secrets[commitment] = secret

    def _counted(self, seq: int, ruling: int, state: dict[str, Any]) -> None:
        """The ruling's note of its commitment's next committed-roll counter must be where the dice it recorded
        leave it (a roll relabelled entered, or dropped, leaves the count behind)."""
        c = state.get("commitment")
        entry = self.by_commit.get(str(c)) if c else self.sessions.get(int(state.get("number") or 0))
        if entry is None or entry.version < 2:
            return
        if state.get("next") != entry.counter:
            self._problem(
                seq,
                ruling,
                f"ruling {ruling} notes session {entry.number}'s next committed roll as {state.get('next')}, but its"
                f" dice leave it at {entry.counter}: a committed roll was dropped, added or relabelled",
            )

    def _die(self, seq: int, ruling: int, data: dict[str, Any], derived_name: str | None, amended: Any = None) -> None:
        rec = self.rulings.get(ruling, {})
        named = self.rulings.get(int(amended), {}) if amended is not None else rec  # whose rolls these are
        entry = self.sessions.get(int(rec.get("session") or 0))
        claimed = data.get("commitment")
        if entry is None and claimed is None:
            return  # no commitment in force: an ordinary roll
        name = derived_name or str(data.get("name"))
        self._shape(seq, ruling, named, str(data.get("name")) if amended is not None else name, data)
        if entry is not None and entry.version >= 2 and not self._source(seq, ruling, rec, name, data):
            return
        if data.get("source") == "entered":
            if "ask" in data and entry is not None:  # faces the player typed on their page answer the ask
                self._asked_die(seq, ruling, data, entry, typed=True)
            return  # physical dice: nothing to recompute
        expected = entry.commitment if entry is not None else None
        if claimed != expected:
            what = "carries no commitment" if claimed is None else "claims a commitment this session did not make"
            self._problem(
                seq, ruling, f"roll '{data.get('name')}' {what}: it was not derived from the session's secret"
            )
            return
        assert entry is not None
        if data.get("source") == "player" and entry.version >= 2 and not entry.player_dice:
            self._problem(seq, ruling, f"roll '{data.get('name')}' is a player's die in a session without player dice")
        seed = data.get("player_seed")
        if data.get("source") == "player" and isinstance(seed, str):
            # one seed answers one ask: the rolls of one card (the same ask, in one ruling) share it, nothing else
            mine = (ruling, data.get("ask"))
            if seed in self.seeds and self.seeds[seed] != mine:
                self._problem(
                    seq, ruling, f"roll '{data.get('name')}' re-uses the player's seed of ruling {self.seeds[seed][0]}"
                )
            self.seeds.setdefault(seed, mine)
        if "ask" in data:  # a player's die: at its ask's counter (taken when the ask was recorded), not the next one
            if self._asked_die(seq, ruling, data, entry):
                self.pending.append(_Die(seq, ruling, name, data, int(rec.get("session") or 0), entry))
            return
        if data.get("source") == "player" and entry.version >= 3:
            self._problem(seq, ruling, f"roll '{data.get('name')}' is a player's die that answers no recorded ask")
            return
        if entry.version >= 2:
            if data.get("counter") != entry.counter:
                self._problem(
                    seq,
                    ruling,
                    f"roll '{data.get('name')}' has counter {data.get('counter')} where session {entry.number}'s"
                    f" committed roll number {entry.counter} belongs: a committed roll was dropped, added or moved",
                )
            entry.counter = int(data["counter"]) + 1 if isinstance(data.get("counter"), int) else entry.counter + 1
        self.pending.append(_Die(seq, ruling, name, data, int(rec.get("session") or 0), entry))

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
        for ask in self.asks.values():
            fate = "answered" if ask["used"] is not None else (ask["fate"] or "open")
            self.out.asks[fate] = self.out.asks.get(fate, 0) + 1
        dead = retracted(self.killers)
        still_open = self.sessions.get(self.open) if self.open is not None else None
        for entry in self.by_commit.values():
            ended = [(seq, r) for seq, r in entry.ended if r not in dead]
            if entry.commitment in self.secrets:
                continue
            if ended:
                seq, r = ended[-1]
                self._problem(
                    seq, r, f"session {entry.number} committed its dice but ended without revealing its secret"
                )
            elif (
                self._stands(entry.started[1], DICE_COMMITTED, dead)
                and entry is not still_open
                and self._followed(entry, dead)
            ):
                seq, r = entry.started
                self._problem(
                    seq,
                    r,
                    f"session {entry.number} committed its dice and a later session started, but no end or reveal of"
                    " it is in the log",
                )
        for die in self.pending:
            secret = self.secrets.get(str(die.data.get("commitment")))
            faces = list(die.data.get("faces") or [])
            if secret is None:
                self.out.dice_unrevealed += len(faces)
                continue
            version = die.entry.version
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
    """A player's seed: canonical lowercase hex of at least SEED_BYTES bytes (ledger/model/dice_scheme.py)."""
    return seed_ok(seed)


def check(events: Iterable[tuple[int, str, dict[str, Any]]], takes: Any = None) -> DiceCheck:
    """Check every committed die of a log given as (position, topic, decoded state) in order."""
    checker = Checker(takes)
    for seq, topic, state in events:
        checker.event(seq, topic, state)
    return checker.result()
