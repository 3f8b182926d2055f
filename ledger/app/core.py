"""The ruling loop every GM command goes through: one ruling decided under the writer lock and committed in one
transaction, or refused with nothing appended; the store, the campaign, the draft and the dice box it is decided with.
"""

from __future__ import annotations

import os
import random
import re
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Self, cast
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import IntegrityError

from ledger import catalog as C
from ledger.aggregates import Campaign, Character, name_key
from ledger.catalog import Command, IntentT
from ledger.encounter import ENCOUNTER_ID
from ledger.errors import BadInput, LedgerError, StoreError, no_character
from ledger.model.bounds import safe
from ledger.model.dice import DiceBox, NeedPlayerRoll
from ledger.model.names import normalised
from ledger.model.sheet import Sheet
from ledger.rules import get_rules
from ledger.rules.contract import RuleSystem
from ledger.rulings.deciders.durations import TRACKER  # what a play ruling in an encounter is decided by
from ledger.rulings.deciders.table import decider
from ledger.rulings.draft import Draft, commit
from ledger.storage.schema import require_sound_schema, sequence_fix, sequence_problem
from ledger.storage.secrets import DiceSecrets, session_dice
from ledger.storage.store import EventStore, Target, WriterLock, now_iso, open_store, parse_target, read_campaign
from ledger.storage.wait import wait_for_players

if TYPE_CHECKING:
    from ledger.intents import (
        Intent,
        Recorded,
    )

# the commands whose rulings the rules decide: out of an encounter they carry the rules' version (`rules`)
RULED = frozenset(
    ("character add", "character set", "damage", "condition add", "condition remove", "attack", "check", "recover")
    + ("spend", "gain", "hazard", "revive", "act", "scene end", "encounter end", "encounter remove")
)

# an ask of a player's page and an ask's fate: rulings of their own (kind "ask", which undo passes over), made by
# the command that waits for the page (ledger/storage/wait.py); no CLI command records them
ASK: Command[Any] = Command("ask", "", stored="ask", kind="ask")
ASK_CLOSE: Command[Any] = Command("ask closed", "", stored="ask closed", kind="ask")
MAX_RETRIES = 200
WAIT = 300.0  # seconds a command waits for a player's roll unless --wait says otherwise
NOTE_MAX = 500  # characters in a `--note` or `--reason`
_TRAIT_KEY = re.compile(r"^[a-z][a-z0-9\-]*$")

Decide = Callable[[Draft], Mapping[str, Any]]  # a decider bound to its intent


def default_actor() -> str:
    """Who records when --as is not given: the OS user, as getpass.getuser finds it (its variables, then the user
    database), without importing getpass; "gm" where neither names one (containers)."""
    for variable in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        if os.environ.get(variable):
            return os.environ[variable]
    try:
        import pwd  # lazy: the pwd module is missing on Windows (the except below)

        return pwd.getpwuid(os.getuid())[0]
    except Exception:  # no pwd module or no user database entry
        return "gm"


class LedgerCore:
    """A campaign ledger on one database: the store, the writer lock and the ruling loop."""

    def __init__(
        self, target: str | None = None, *, actor: str | None = None, seed: int | None = None, note: str | None = None
    ) -> None:
        self.target: Target = parse_target(target)
        self.note = (
            check_text("note", note) if note is not None else None
        )  # `--note TEXT`: kept in every ruling's intent
        self.secret = False  # `--secret`: the ruling's words and dice kept off the players' screen until revealed
        self.asked_by: str | None = None  # the hero whose player asked for the next ruling (`pending accept`)
        self.actor = actor or default_actor()
        self.seed = seed
        self.dice_secrets = DiceSecrets(self.target)
        self._store: EventStore | None = None
        self._lock = WriterLock(self.target)
        self._schema_checked = False
        self._absent: set[UUID] = set()  # the ruling being decided: aggregates found missing under the writer lock
        self.wait = WAIT  # --wait SECONDS: how long a command waits for a player's roll
        self.notify: Callable[[str], None] = lambda line: None  # where "waiting for Ann's attack roll" goes
        self._players: Any = None
        self._asking = ""  # the command whose roll is being asked of a player's page (kept in the ask's intent)

    @property
    def players(self) -> Any:
        """The players' links and pending rolls (ledger/storage/players.py)."""
        if self._players is None:
            # lazy: the players' links (hmac, secrets); kept out of a one-shot write
            from ledger.storage.players import Players

            self._players = Players(self.target)
        return self._players

    def with_note(self, note: str | None) -> Self:
        """This ledger, recording `note` in the intent of its next rulings (a session shell's line sets its own)."""
        self.note = check_text("note", note) if note is not None else None
        return self

    def with_asker(self, hero: str | None) -> Self:
        """This ledger, recording in its next rulings that `hero`'s player asked for them (or no one)."""
        self.asked_by = hero
        return self

    def with_secret(self, secret: bool) -> Self:
        """This ledger, marking its next rulings `secret` (or not: a session shell's line sets its own)."""
        self.secret = bool(secret)
        return self

    @property
    def store(self) -> EventStore:
        """The event store, opened (and created) on first use."""
        if self._store is None:
            self._store = open_store(self.target)
        return self._store

    def close(self) -> None:
        """Release database connections."""
        if self._store is not None:
            self._store.close()
            self._store = None
        self._lock.close()

    # -- queries ----------------------------------------------------------------------------
    def campaign(self) -> Campaign:
        """The campaign aggregate; NotInitialised before `ledger init`."""
        return read_campaign(self.target, self._store, lambda: self.store)

    def rules(self) -> RuleSystem:
        """The campaign's rule system."""
        return get_rules(self.campaign().system)

    def sheet(self, name: str) -> Sheet:
        """A live character's sheet, read from the write side."""
        entry = self.campaign().character(name)
        if entry is None:
            raise no_character(name, self.campaign().names(), retired=self.campaign().retired_names())
        ch: Character = self.store.repository.get(UUID(entry["id"]))
        return Sheet.from_dict(ch.sheet)

    # -- the ruling loop --------------------------------------------------------------------
    def rule(
        self,
        spec: Command,
        intent: Intent,
        decide: Decide | None = None,
        *,
        rolls: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """Decide and record one ruling of a declared command; on a concurrent writer's conflict, reload and decide
        again.

        Without `decide`, the command's declared decider (ledger/catalog.py) decides from the intent.
        """
        intent = normalised(intent)  # 'e' + combining accent is 'é', in names and texts alike
        if decide is None:
            fn = decider(spec)
            decide = lambda d: fn(d, intent)  # noqa: E731

        command = spec.stored or spec.name
        self.require_writable()
        if self.note and "note" not in intent:
            intent = cast("Intent", {**intent, "note": self.note})
        if self.secret and "secret" not in intent:
            intent = cast("Intent", {**intent, "secret": True})
        if self.asked_by and "asked_by" not in intent:
            intent = cast("Intent", {**intent, "asked_by": self.asked_by})
        answers: dict[str, dict[str, Any]] = {}  # roll name -> a player's answer ({"seed": hex} or {"faces": text})
        for attempt in range(MAX_RETRIES):
            entered = {**dict(rolls or {}), **{n: a["faces"] for n, a in answers.items() if "faces" in a}}
            try:
                with self._lock:
                    campaign = self.campaign()
                    self._absent = set()  # aggregates found missing under the lock (their absence holds till commit)
                    if spec.kind == "play" and "tracker" not in intent and "rules" not in intent:
                        if self._fighting():
                            intent = cast("Intent", {**intent, "tracker": TRACKER})
                        elif spec.name in RULED:  # out of an encounter: the rules' version alone
                            intent = cast("Intent", {**intent, "rules": TRACKER})
                    number = campaign.rulings + 1
                    if answers:
                        _answers_still_asked(campaign, answers)
                    draft = self._draft(campaign, number, spec.kind, command, intent, entered, answers)
                    if self._absent:
                        draft.loader = _knowing_absent(draft.loader, set(self._absent))
                    result = decide(draft)
                    self._commit(draft)
            except IntegrityError:
                if self.target.kind == "postgres" and attempt in (2, 20):
                    self._sequence_behind()
                # another writer took this ruling number: back off a little (jittered) and decide again
                time.sleep(random.uniform(0, min(0.002 * 2**attempt, 0.25)))
                continue
            except NeedPlayerRoll as need:  # asked of the players' pages, outside the writer lock; then decide again
                self._asking = command
                mine = {int(a["ask"]) for a in answers.values() if "ask" in a}  # asks this command will still use
                answers.update(wait_for_players(self, need, mine))
                continue
            return {"ruling": number, **result, "events": draft.summary()}
        raise StoreError("the ledger is too busy: another writer kept winning", "try the command again")

    def _fighting(self) -> bool:
        """Whether an encounter is running (a play ruling recorded now is decided by the tracker's version 2); the
        encounter's id goes into `_absent` when none was ever started."""
        try:
            return bool(self.store.repository.get(ENCOUNTER_ID).active)
        except AggregateNotFoundError:
            self._absent.add(ENCOUNTER_ID)
            return False

    def require_writable(self) -> None:
        """Refuse to write, in one line naming it, where the database holds what the ledger never makes (a trigger,
        a view, a rule) or its log's position sequence is behind the log's head (checked once per process)."""
        if self._schema_checked:
            return
        if self._store is not None and self._store.read_only is not None:
            raise self._store.read_only
        if self._store is None and self.target.kind == "sqlite" and not os.path.exists(self.target.path):
            return  # nothing there yet: the command's own check refuses, and no file is created
        if self.store.read_only is not None:
            raise self.store.read_only  # a read-only or full medium: one line, nothing appended
        require_sound_schema(self.store.recorder, self.store.fresh_survey())
        self._schema_checked = True

    def _sequence_behind(self) -> None:
        found = sequence_problem(self.store.recorder)
        if found:
            raise StoreError(f"{found}: every write collides, nothing was appended", sequence_fix())

    def _draft(
        self,
        campaign: Campaign | None,
        number: int,
        kind: str,
        command: str,
        intent: Intent,
        rolls: Any,
        seeds: dict[str, dict[str, Any]] | None = None,
    ) -> Draft:
        committed = session_dice(self.dice_secrets, campaign)
        if rolls and committed.get("scheme", 1) >= 2 and command != C.SESSION_START.name:
            # scheme 2: which dice were entered is part of the record (any intent may carry `entered`: intents.py)
            intent = cast("Intent", {**intent, "entered": dict(rolls)})
        box = DiceBox(
            entered=dict(rolls or {}),
            seed=self.seed,
            salt=str(number),
            ruling=number,
            seeds=dict(seeds or {}),
            asks=self._asks(campaign) if committed.get("player_dice") else None,
            **committed,
        )
        return Draft(
            self.store,
            campaign,
            number,
            kind=kind,
            command=command,
            intent=intent,
            actor=self.actor,
            at=now_iso(),
            dice=box,
        )

    # -- asks of players' pages (ledger/storage/wait.py) ---------------------------------------
    def record_ask(
        self, owner: str, name: str, also: Sequence[str] = (), keep: Collection[int] = ()
    ) -> tuple[int, int]:
        """Record in the log that `owner`'s roll `name` (and the rolls `also`, on the same card) is asked of their
        page, before the page shows it: the ask takes the session's next committed-roll counter now, and each of its
        rolls is derived at that counter under its own name. (The ask's ruling, the counter.) Earlier asks of the
        same hero that no ruling closed (their command was killed) are closed as re-asked by this one; not those in
        `keep` (answered asks the same command will still use)."""

        def decide(d: Draft) -> dict[str, Any]:
            committed = session_dice(self.dice_secrets, d.campaign)
            if not committed.get("player_dice") or int(committed.get("scheme", 1)) < 2:
                raise BadInput("no session with player dice is open: nothing was asked")
            key = name_key(owner)
            stale = [  # asks of a command that died; not this command's own answered ones
                n for n, a in d.campaign.open_asks().items() if name_key(str(a["hero"])) == key and n not in keep
            ]
            counter = int(committed["counter"])
            d.campaign_event(
                Campaign.DiceAsked,
                touches=False,
                number=committed["session"],
                commitment=committed["commitment"],
                counter=counter,
                name=name,
                hero=owner,
                command=self._asking,
                supersedes=stale,
                also=list(also),
            )
            d.campaign_event(
                Campaign.DiceCounted,
                touches=False,
                number=committed["session"],
                next=counter + 1,
                commitment=committed["commitment"],
            )
            return {"counter": counter}

        intent: dict[str, Any] = {"hero": owner, "roll": name, "for": self._asking}
        if also:
            intent["also"] = list(also)
        result = self.rule(ASK, cast("Intent", intent), decide)
        return int(result["ruling"]), int(result["counter"])

    def close_ask(self, ask: int, fate: str, why: str) -> int | None:
        """Record an ask's fate when no ruling will use it (expired, cancelled); the closing ruling, or None if the
        log had closed it already (a session end, a later ask)."""

        def decide(d: Draft) -> dict[str, Any]:
            if ask not in d.campaign.open_asks():
                return {"closed": False}
            d.campaign_event(Campaign.AskClosed, touches=False, ask=ask, fate=fate, why=why, alone=True)
            return {"closed": True}

        if ask not in self.campaign().open_asks():
            return None
        result = self.rule(ASK_CLOSE, cast("Intent", {"ask": ask, "fate": fate, "why": why}), decide)
        return int(result["ruling"]) if result.get("closed") else None

    def _asks(self, campaign: Campaign | None) -> Callable[[str], bool]:
        """Whether a character's rolls go to their player's page: a hero with a live link."""

        def asks(name: str) -> bool:
            entry = campaign.character(name) if campaign is not None else None
            return entry is not None and self.players.linked(name_key(entry["name"]))

        return asks

    def _commit(self, draft: Draft) -> None:
        """Write the ruling's events, snapshots and chain link in one transaction (ledger/rulings/draft.py `commit`)."""
        try:
            commit(self.store, draft)
        except LedgerError:
            raise
        except Exception as e:
            if type(e).__name__ == "IntegrityError":
                raise
            if "locked" in str(e):
                raise StoreError("the ledger database is locked by another program", "try again in a moment") from None
            raise

    def record(self, spec: Command[IntentT], intent: IntentT, *, rolls: Mapping[str, str] | None = None) -> Recorded:
        """Record one ruling of a declared command, decided by its declared decider from `intent`."""
        # the decider's result (its own type, ledger/intents.py) with the ruling's number and events
        return cast("Recorded", self.rule(spec, cast("Intent", intent), rolls=rolls))

    def options(self, command: str, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """Options typed and validated against the campaign's rules, before anything is decided."""
        return self.rules().parse_options(command, given or {})


def _answers_still_asked(campaign: Campaign, answers: Mapping[str, Mapping[str, Any]]) -> None:
    """A player's answer is used only for the ask it answered, while the log holds that ask open in the session that
    is still open: otherwise nothing is recorded (the die would not be the one the ask fixed)."""
    open_now = campaign.open_asks()
    committed = next(
        (s.get("commitment") for s in campaign.domain["sessions"] if s["number"] == campaign.open_session), None
    )
    for name, answer in answers.items():
        held = open_now.get(int(answer.get("ask", 0)))
        if held is None or name not in (held["name"], *(held.get("also") or [])):
            fate = getattr(campaign, "asks", {}).get(str(answer.get("ask")), {})
            why = f" ({fate.get('fate')}: {fate.get('why')})" if fate.get("fate") else ""
            raise BadInput(
                f"the answer to {name} came for ask {answer.get('ask')}, which the log has closed{why}:"
                " nothing was recorded"
            )
        if held["commitment"] != committed:
            raise BadInput(f"the session of ask {answer.get('ask')} has ended: nothing was recorded")


def _knowing_absent(loader: Callable[[Any], Any], absent: set[UUID]) -> Callable[[Any], Any]:
    """A draft's loader that answers "not found" for the aggregates just found missing, without asking the log again:
    one being made now would change the campaign's version too, so this ruling's commit would conflict and be decided
    again."""

    def load(aggregate_id: Any) -> Any:
        if aggregate_id in absent:
            raise AggregateNotFoundError(aggregate_id)
        return loader(aggregate_id)

    return load


def check_text(what: str, text: str | None) -> str:
    """A note or reason: printable text of at most NOTE_MAX characters."""
    value = (text or "").strip()
    if not value:
        raise BadInput(f"--{what} needs some text")
    if len(value) > NOTE_MAX:
        raise BadInput(f"--{what} is {len(value)} characters long; at most {NOTE_MAX}")
    if safe(value) != value:
        raise BadInput(f"--{what} holds control characters", "type plain text")
    return value
