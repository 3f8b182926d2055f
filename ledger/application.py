"""The one way in: one method per GM command, each appending exactly one ruling (or refusing, appending nothing).

A command method checks what needs no state, types and validates its options against the campaign's rule
system (ledger/rules/options.py), then records one ruling with its decider (ledger/rulings/deciders/): the decider
is named right there, so go-to-definition leads from `Ledger.attack` to `play.attack` to the rules.
"""

from __future__ import annotations

import os
import random
import re
import time
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast
from uuid import UUID

import orjson
from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import IntegrityError

from ledger import catalog as C
from ledger.aggregates import (
    CAMPAIGN_ID,
    Campaign,
    Character,
    name_key,
)
from ledger.catalog import Command
from ledger.encounter import ENCOUNTER_ID
from ledger.errors import BadInput, Conflict, LedgerError, NotFound, NotInitialised, StoreError, no_character
from ledger.model.bounds import check_intent, check_name, safe, whole
from ledger.model.dice import DiceBox, NeedPlayerRoll
from ledger.model.names import lookalike, normalised
from ledger.model.sheet import Sheet
from ledger.rules import get_rules
from ledger.rules.contract import RuleSystem
from ledger.rulings import undo
from ledger.rulings.deciders.durations import TRACKER  # what a play ruling in an encounter is decided by
from ledger.rulings.deciders.table import decider
from ledger.rulings.deciders.turns import sides_down
from ledger.rulings.draft import Draft, commit
from ledger.storage.schema import require_sound_schema, sequence_fix, sequence_problem
from ledger.storage.secrets import DiceSecrets, new_secret, session_dice
from ledger.storage.store import EventStore, Target, WriterLock, now_iso, open_store, parse_target
from ledger.storage.wait import wait_for_player

if TYPE_CHECKING:
    from ledger.rulings.intents import (
        ActIntent,
        AttackIntent,
        CharacterAddIntent,
        CharacterCopyIntent,
        CharacterSetIntent,
        CheckIntent,
        ConditionIntent,
        DamageIntent,
        EncounterStartIntent,
        EncounterView,
        GainIntent,
        HazardIntent,
        InitIntent,
        InitResult,
        Intent,
        JoinIntent,
        Recorded,
        RecoverIntent,
        RetractIntent,
        ReviveIntent,
        SessionStartIntent,
        SpendIntent,
        Undone,
    )

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


class Ledger:
    """A campaign ledger on one database: every GM command, each one ruling."""

    def __init__(
        self, target: str | None = None, *, actor: str | None = None, seed: int | None = None, note: str | None = None
    ) -> None:
        self.target: Target = parse_target(target)
        self.note = (
            check_text("note", note) if note is not None else None
        )  # `--note TEXT`: kept in every ruling's intent
        self.actor = actor or default_actor()
        self.seed = seed
        self.dice_secrets = DiceSecrets(self.target)
        self._store: EventStore | None = None
        self._lock = WriterLock(self.target)
        self._schema_checked = False
        self.wait = WAIT  # --wait SECONDS: how long a command waits for a player's roll
        self.notify: Callable[[str], None] = lambda line: None  # where "waiting for Ann's attack roll" goes
        self._players: Any = None

    @property
    def players(self) -> Any:
        """The players' links and pending rolls (ledger/storage/players.py)."""
        if self._players is None:
            # lazy: the players' links (hmac, secrets); kept out of a one-shot write
            from ledger.storage.players import Players

            self._players = Players(self.target)
        return self._players

    def with_note(self, note: str | None) -> Ledger:
        """This ledger, recording `note` in the intent of its next rulings (a session shell's line sets its own)."""
        self.note = check_text("note", note) if note is not None else None
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
        if self._store is None and self.target.kind == "sqlite" and not os.path.exists(self.target.path):
            raise NotInitialised(f"no campaign in {self.target.describe()}", "start one: ledger init --system hnh")
        try:
            return self.store.repository.get(CAMPAIGN_ID)
        except AggregateNotFoundError:
            raise NotInitialised(
                f"no campaign in {self.target.describe()}", "start one: ledger init --system hnh"
            ) from None

    def rules(self) -> RuleSystem:
        """The campaign's rule system."""
        return get_rules(self.campaign().system)

    def sheet(self, name: str) -> Sheet:
        """A live character's sheet, read from the write side."""
        entry = self.campaign().character(name)
        if entry is None:
            raise no_character(name, self.campaign().names())
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
        answers: dict[str, dict[str, Any]] = {}  # roll name -> a player's answer ({"seed": hex} or {"faces": text})
        for attempt in range(MAX_RETRIES):
            entered = {**dict(rolls or {}), **{n: a["faces"] for n, a in answers.items() if "faces" in a}}
            seeds = {n: a["seed"] for n, a in answers.items() if "seed" in a}
            try:
                with self._lock:
                    campaign = self.campaign()
                    if spec.kind == "play" and "tracker" not in intent and self._fighting():
                        intent = cast("Intent", {**intent, "tracker": TRACKER})
                    number = campaign.rulings + 1
                    draft = self._draft(campaign, number, spec.kind, command, intent, entered, seeds)
                    result = decide(draft)
                    if spec.kind == "play" and draft.campaign is not None and not intent.get("tracker"):
                        result = {**result, **_sides(draft)}
                    self._commit(draft)
            except IntegrityError:
                if self.target.kind == "postgres" and attempt in (2, 20):
                    self._sequence_behind()
                # another writer took this ruling number: back off a little (jittered) and decide again
                time.sleep(random.uniform(0, min(0.002 * 2**attempt, 0.25)))
                continue
            except NeedPlayerRoll as need:  # asked of the player's page, outside the writer lock; then decide again
                answers[need.name] = wait_for_player(self, need)
                continue
            return {"ruling": number, **result, "events": draft.summary()}
        raise StoreError("the ledger is too busy: another writer kept winning", "try the command again")

    def _fighting(self) -> bool:
        """Whether an encounter is running (a play ruling recorded now is decided by the tracker's version 2)."""
        try:
            return bool(self.store.repository.get(ENCOUNTER_ID).active)
        except AggregateNotFoundError:
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
        require_sound_schema(self.store.recorder)
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
        seeds: dict[str, str] | None = None,
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

    def record(self, spec: Command, intent: Intent, *, rolls: Mapping[str, str] | None = None) -> Recorded:
        """Record one ruling of a declared command, decided by its declared decider from `intent`."""
        # the decider's result (its own type, ledger/rulings/intents.py) with the ruling's number and events
        return cast("Recorded", self.rule(spec, intent, rolls=rolls))

    def options(self, command: str, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """Options typed and validated against the campaign's rules, before anything is decided."""
        return self.rules().parse_options(command, given or {})

    # -- campaign ---------------------------------------------------------------------------
    def init(self, system: str, name: str | None = None, settings: Mapping[str, Any] | None = None) -> InitResult:
        """Create the campaign (ruling 1), with the system's campaign settings (its `init` options, typed)."""
        typed = get_rules(system).parse_options("init", settings or {})  # an unknown system is bad input
        check_intent({"system": system, "name": name})  # refused before the database file is created
        try:
            existing: Campaign = self.store.repository.get(CAMPAIGN_ID)
        except AggregateNotFoundError:
            existing = None  # type: ignore[assignment]
        if existing is not None:
            raise Conflict(
                f"{self.target.describe()} already holds a {existing.system} campaign",
                "use another --db for a new campaign",
            )
        self.require_writable()
        title = name or "Campaign"
        intent: InitIntent = {"system": system, "name": title}
        if typed:
            intent["settings"] = typed
        draft = self._draft(None, 1, C.INIT.kind, C.INIT.name, intent, None)
        draft.open_campaign(
            Campaign._create(
                Campaign.CampaignCreated, id=CAMPAIGN_ID, ruling=1, system=system, name=title, settings=typed
            )
        )
        try:
            self._commit(draft)
        except IntegrityError:
            raise Conflict(f"{self.target.describe()} already holds a campaign") from None
        result: InitResult = {"ruling": 1, "system": system, "name": title}
        if typed:
            result["settings"] = typed
        return result

    def start_session(
        self, title: str | None = None, *, commit_dice: bool = False, new_day: bool = False, player_dice: bool = False
    ) -> Recorded:
        """Open a play session; with commit_dice, draw its dice secret and record only its commitment (scheme 2);
        `player_dice` also asks each linked hero's rolls of their player's page; `new_day` also starts an in-game
        day (H&H: victory points back to 2)."""
        # lazy: committed dice only (hmac); kept out of a one-shot write
        from ledger.audit.dice_proof import VERSION

        intent: SessionStartIntent = {"title": title}
        if not (commit_dice or player_dice):
            if new_day:
                intent["new_day"] = True
            return self.record(C.SESSION_START, intent)
        secret, commitment = new_secret()
        self.dice_secrets.put(commitment, secret)
        intent["commitment"] = commitment
        intent["scheme"] = VERSION
        if player_dice:
            intent["player_dice"] = True
        if new_day:
            intent["new_day"] = True
        try:
            return self.record(C.SESSION_START, intent)
        except BaseException:
            self.dice_secrets.drop(commitment)
            raise

    def end_session(self) -> Recorded:
        """Close the open play session, revealing its dice secret if it committed one."""
        # lazy: committed dice only (hmac); kept out of a one-shot write
        from ledger.audit.dice_proof import commit

        found = session_dice(self.dice_secrets, self.campaign())
        secret = found.get("secret")
        if secret and commit(secret) != found.get("commitment"):
            secret = None  # not the committed secret: nothing to reveal (the session ends; verify --dice fails it)
        return self.record(C.SESSION_END, {"reveal": secret.hex()} if secret else {})

    # -- characters -------------------------------------------------------------------------
    def add_character(
        self,
        name: str,
        traits: Mapping[str, str],
        *,
        minion: bool = False,
        count: int = 1,
        pc: bool = False,
        powers: Mapping[str, Mapping[str, Any]] | None = None,
        typed_traits: Mapping[str, Any] | None = None,
        power_parts: Mapping[str, Mapping[str, str]] | None = None,
        copies: int | None = None,
    ) -> Recorded:
        """Add a character with validated traits (and powers' parts, typed by the campaign's rules); with `copies`,
        NAME 1 .. NAME N with the same sheet, in one ruling."""
        name = check_name(name)
        self._distinct(name)
        count = whole("count", count)
        if count > 1 and not minion:
            raise BadInput("--count is for minion groups", "add --minion")
        intent: CharacterAddIntent = {"name": name, "traits": dict(traits), "minion": minion, "count": count, "pc": pc}
        if copies is not None:
            intent["copies"] = whole("copies", copies)
            check_name(f"{name} {copies}")
        if power_parts:
            powers = {**(powers or {}), **self.rules().power_parts(power_parts, traits)}
        if powers:
            intent["powers"] = {k: dict(v) for k, v in powers.items()}
        if typed_traits:
            intent["typed_traits"] = dict(typed_traits)
        return self.record(C.CHARACTER_ADD, intent)

    def _distinct(self, name: str) -> None:
        """Refuse a new name that prints like an existing character's (a look-alike letter of another script, a
        fullwidth form), suggesting the existing one."""
        found = lookalike(name, self.campaign().names())
        if found is not None:
            raise Conflict(
                f"'{name}' looks just like the existing character '{found}' but is spelled with other characters",
                f"to mean them, type '{found}'; for a new character, pick a name that reads differently",
            )

    def copy_character(self, name: str, new: str, *, copies: int | None = None, count: int | None = None) -> Recorded:
        """A new character NEW with NAME's stat block (traits, powers), fresh; `copies`: NEW 1 .. NEW N."""
        intent: CharacterCopyIntent = {"name": name, "new": check_name(new)}
        if copies is not None:
            intent["copies"] = whole("copies", copies)
            check_name(f"{new} {copies}")
        if count is not None:
            intent["count"] = whole("count", count)
        return self.record(C.CHARACTER_COPY, intent)

    def set_traits(self, name: str, traits: Mapping[str, str]) -> Recorded:
        """Change a character's traits by the GM's ruling (values the rules can't hold are refused)."""
        if not traits:
            raise BadInput(
                "give at least one --trait KEY=VALUE", "for example: ledger character set Ann --trait agility=4"
            )
        intent: CharacterSetIntent = {"name": name, "traits": dict(traits)}
        return self.record(C.CHARACTER_SET, intent)

    def retire_character(self, name: str) -> Recorded:
        """Take a character out of play, keeping its history (`character list --all` still shows it)."""
        return self.record(C.CHARACTER_RETIRE, {"name": name})

    def import_character(self, path: str, *, pc: bool = True) -> Recorded:
        """Add a character from a character-creator save file (JSON), if the campaign's system reads them."""
        try:
            with open(path, "rb") as f:
                data = orjson.loads(f.read())
        except OSError as e:
            raise BadInput(f"can't read {path}: {e.strerror}") from None
        except orjson.JSONDecodeError as e:
            raise BadInput(f"{path} is not JSON: {e}") from None
        name, traits, powers = self.rules().import_character(data)
        return self.add_character(name, {}, pc=pc, powers=powers, typed_traits=traits)

    # -- play -------------------------------------------------------------------------------
    def roll(self, expr: str, *, for_name: str | None = None, rolls: Mapping[str, str] | None = None) -> Recorded:
        """A free roll, recorded as a ruling with one DiceRolled event (roll name: `roll`)."""
        return self.record(C.ROLL, {"expr": expr, "for": for_name}, rolls=rolls)

    def damage(self, target: str, amount: int, *, subdual: bool = False) -> Recorded:
        """Direct HP loss (no resistance roll)."""
        if amount < 0:
            raise BadInput(f"damage can't be negative, got {amount}", "to heal, use: ledger recover")
        intent: DamageIntent = {"target": target, "amount": amount, "subdual": subdual}
        return self.record(C.DAMAGE, intent)

    def resist_damage(
        self,
        target: str,
        rank: int,
        options: Mapping[str, Any] | None = None,
        *,
        rolls: Mapping[str, str] | None = None,
    ) -> Recorded:
        """Damage of an effect rank resisted by a roll (H&H: power check against a Toughness check)."""
        if rank < 0:
            raise BadInput(f"an effect rank can't be negative, got {rank}")
        intent: DamageIntent = {"target": target, "rank": rank, "options": self.options("damage", options)}
        return self.record(C.DAMAGE, intent, rolls=rolls)

    def condition(
        self,
        target: str,
        condition: str,
        *,
        add: bool,
        rounds: int | None = None,
        until: str | None = None,
        of: str | None = None,
        scene: bool = False,
    ) -> Recorded:
        """Impose or remove a known condition of the campaign's system; an imposed one may have a duration:
        `rounds` (ends at the end of the bearer's Nth turn from now), `until` start|end `of` WHO's next turn, or the
        `scene` (ledger/rules/durations.py)."""
        cond = condition.strip().lower().replace(" ", "-").replace("_", "-")
        intent: ConditionIntent = {"target": target, "condition": cond}
        given = [x for x in (rounds is not None, until is not None or of is not None, scene) if x]
        if given and not add:
            raise BadInput("a duration is for condition add", "leave out --rounds, --until, --of and --scene")
        if len(given) > 1:
            raise BadInput("give one duration: --rounds N, --until start|end --of WHO, or --scene")
        if rounds is not None:
            intent["rounds"] = whole("rounds", rounds)
        if until is not None or of is not None:
            if until not in ("start", "end") or not of:
                raise BadInput("--until takes start or end, with --of WHO", "for example --until end --of Bob")
            intent["until"], intent["of"] = until, of
        if scene:
            intent["scene"] = True
        if add:
            return self.record(C.CONDITION_ADD, intent)
        return self.record(C.CONDITION_REMOVE, intent)

    def attack(
        self,
        attacker: str,
        target: str,
        options: Mapping[str, Any] | None = None,
        *,
        rolls: Mapping[str, str] | None = None,
        also: Sequence[str] = (),
        in_area: Mapping[str, int] | None = None,
    ) -> Recorded:
        """One attack resolved by the campaign's rules (roll names: the rules' `rolls["attack"]`).

        also: more targets (an area attack); in_area: how many members of each minion group the area catches.
        """
        _not_self(attacker, target, "attack")
        intent: AttackIntent = {"attacker": attacker, "target": target, "options": self.options("attack", options)}
        if also:
            intent["also"] = list(also)
        if in_area:
            intent["in_area"] = dict(in_area)
        return self.record(C.ATTACK, intent, rolls=rolls)

    def check(
        self,
        name: str,
        trait: str,
        *,
        dc: int | None = None,
        against: tuple[str, str] | None = None,
        options: Mapping[str, Any] | None = None,
        rolls: Mapping[str, str] | None = None,
    ) -> Recorded:
        """A check against a DC (or a threshold option) or opposed by another character's trait."""
        if against:
            _not_self(name, against[0], "oppose a check against")
        opts = self.options("check", options)
        intent: CheckIntent = {
            "name": name,
            "trait": trait,
            "dc": dc,
            "against": list(against) if against else None,
            "options": opts,
        }
        return self.record(C.CHECK, intent, rolls=rolls)

    def recover(
        self,
        target: str,
        *,
        hours: int = 0,
        restful: bool = False,
        treated: bool = False,
        amount: int | None = None,
        cause: str | None = None,
        options: Mapping[str, Any] | None = None,
        rolls: Mapping[str, str] | None = None,
    ) -> Recorded:
        """Recovery over time, or healing the GM rules (each system reads the parts its rules have)."""
        if hours < 0 or (amount is not None and amount < 0):
            raise BadInput("hours and amounts can't be negative")
        opts = self.options("recover", options)
        intent: RecoverIntent = {
            "target": target,
            "hours": hours,
            "restful": restful,
            "treated": treated,
            "amount": amount,
            "cause": cause,
            "options": opts,
        }
        return self.record(C.RECOVER, intent, rolls=rolls)

    def spend(self, name: str, resource: str, n: int = 1, *, purpose: str | None = None) -> Recorded:
        """Spend a resource: victory points (hnh), resolve or adversity (pnp); overspending is refused."""
        if n < 1:
            raise BadInput(f"spend at least 1, got {n}")
        intent: SpendIntent = {"name": name, "resource": resource, "n": n, "purpose": purpose}
        return self.record(C.SPEND, intent)

    def gain(self, name: str, resource: str, n: int = 1, *, reason: str | None = None) -> Recorded:
        """Gain a resource: resolve from flaws and heroics, adversity (pnp); victory points (hnh) as awards."""
        if n < 1:
            raise BadInput(f"gain at least 1, got {n}")
        intent: GainIntent = {"name": name, "resource": resource, "n": n, "reason": reason}
        return self.record(C.GAIN, intent)

    def hazard(
        self,
        target: str,
        kind: str,
        options: Mapping[str, Any] | None = None,
        *,
        rolls: Mapping[str, str] | None = None,
    ) -> Recorded:
        """An environmental hazard check (H&H: falling, heat, cold, suffocation, starvation, thirst, ...)."""
        intent: HazardIntent = {"target": target, "kind": kind, "options": self.options("hazard", options)}
        return self.record(C.HAZARD, intent, rolls=rolls)

    def revive(self, target: str, means: str, *, by: str | None = None) -> Recorded:
        """Bring the dead back, as the GM rules (hnh Healing/Immortality; d20 Gem of Eternity, Soul Bound)."""
        if by is not None:
            _not_self(by, target, "revive")
        intent: ReviveIntent = {"target": target, "means": means, "by": by}
        return self.record(C.REVIVE, intent)

    def act(
        self,
        name: str,
        action: str,
        options: Mapping[str, Any] | None = None,
        *,
        other: str | None = None,
        rolls: Mapping[str, str] | None = None,
    ) -> Recorded:
        """A system-specific action (`ledger act --help` lists them per system)."""
        action = self.rules().action(action).name
        if other is not None:
            _not_self(name, other, f"{action} (--against)")
        intent: ActIntent = {
            "name": name,
            "action": action,
            "against": other,
            "options": self.options(f"act {action}", options),
        }
        return self.record(C.ACT, intent, rolls=rolls)

    # -- encounters -------------------------------------------------------------------------
    def encounter(self) -> EncounterView:
        """The running encounter: number, round, whose turn, and the order with initiatives."""
        # lazy: the encounter, only while one runs; the encounter deciders; kept out of a one-shot write
        from ledger.encounter import ENCOUNTER_ID, Encounter
        from ledger.rulings.deciders import encounter

        self.campaign()  # refuses an uninitialised ledger
        try:
            enc: Encounter = self.store.repository.get(ENCOUNTER_ID)
        except AggregateNotFoundError:
            raise NotFound("no encounter is running", encounter.NO_ENCOUNTER) from None
        if not enc.active:
            raise NotFound("no encounter is running", encounter.NO_ENCOUNTER)
        return encounter.view(enc.state)

    def start_encounter(
        self,
        names: Sequence[str],
        *,
        surprised: Sequence[str] = (),
        init: Mapping[str, int] | None = None,
        rolls: Mapping[str, str] | None = None,
    ) -> Recorded:
        """Roll initiative for everyone (or take `init`, rolled elsewhere) and begin round 1 with the highest."""
        if not names:
            raise BadInput("an encounter needs at least one participant", "ledger encounter start Ann Bob")
        intent: EncounterStartIntent = {"names": list(names), "surprised": list(surprised)}
        if init:
            both = [n for n in init if any(n.strip().casefold() == r.strip().casefold() for r in rolls or {})]
            if both:
                raise BadInput(f"{both[0]}: give an initiative (--init) or its roll (--roll), not both")
            intent["init"] = {n: int(v) for n, v in init.items()}
        return self.record(C.ENCOUNTER_START, intent, rolls=rolls)

    def next_turn(self, *, rolls: Mapping[str, str] | None = None) -> Recorded:
        """End the current turn (end-of-turn hook), pass to the next who takes turns (start-of-turn hook)."""
        return self.record(C.ENCOUNTER_NEXT, {"pass_over": 2}, rolls=rolls)

    def delay_turn(self, *, rolls: Mapping[str, str] | None = None) -> Recorded:
        """The current character delays their whole turn; the next one's turn starts (no end-of-turn hook yet)."""
        return self.record(C.ENCOUNTER_DELAY, {"pass_over": 2}, rolls=rolls)

    def remove_from_encounter(self, name: str, *, rolls: Mapping[str, str] | None = None) -> Recorded:
        """A participant leaves the fight; if it was their turn, the next one's starts."""
        return self.record(C.ENCOUNTER_REMOVE, {"name": name, "pass_over": 2}, rolls=rolls)

    def act_now(self, name: str, *, rolls: Mapping[str, str] | None = None) -> Recorded:
        """A delaying character takes their turn after the current one's ends; their initiative moves there."""
        return self.record(C.ENCOUNTER_ACT, {"name": name}, rolls=rolls)

    def join_encounter(
        self, name: str | Sequence[str], *, surprised: bool = False, rolls: Mapping[str, str] | None = None
    ) -> Recorded:
        """Roll initiative for newcomers and slot them into the running order (they act when their place comes)."""
        names = [name] if isinstance(name, str) else list(name)
        if not names:
            raise BadInput("name who joins", "ledger encounter join Cy")
        intent: JoinIntent = {"name": names[0], "surprised": surprised}
        if len(names) > 1:
            intent["names"] = names
        return self.record(C.ENCOUNTER_JOIN, intent, rolls=rolls)

    def end_encounter(self) -> Recorded:
        """End the running encounter (Surprised ends with the combat: conditions.txt, Surprised), with its summary."""
        result = self.record(C.ENCOUNTER_END, {})
        result["summary"] = self.encounter_summary()
        return result

    def encounter_summary(self) -> dict[str, Any] | None:
        """The latest encounter's summary: rounds, who fell and when, damage dealt and taken
        (ledger/rulings/summary.py)."""
        # lazy: the round summary; kept out of a one-shot write
        from ledger.rulings.summary import from_store

        return from_store(self.store, self.campaign())

    def end_scene(self) -> Recorded:
        """End the scene outside an encounter (P&P): effects for the rest of the scene end, with their defeats."""
        return self.record(C.SCENE_END, {})

    # -- undo, redo and retraction ----------------------------------------------------------
    def undo(self) -> Undone:
        """Retract the latest live ruling; state becomes the refold of the history without it."""

        def decide(d: Draft) -> dict[str, Any]:
            target = d.campaign.latest_live()
            if target is None:
                raise Conflict("nothing to undo")
            return undo.set_live(self.store, d, target, live=False)

        return cast("Undone", self.rule(C.UNDO, {}, decide))

    def redo(self) -> Undone:
        """Restore the latest undone ruling (until a new ruling is made)."""

        def decide(d: Draft) -> dict[str, Any]:
            if not d.campaign.redo:
                raise Conflict("nothing to redo")
            return undo.set_live(self.store, d, d.campaign.redo[-1], live=True)

        return cast("Undone", self.rule(C.REDO, {}, decide))

    def plan_retraction(self, target: int, *, rolls: Mapping[str, str] | None = None) -> Any:
        """What retracting ruling `target` would change (nothing is appended): see ledger/rulings/rederive.py."""
        # lazy: re-derivation, for retract; kept out of a one-shot write
        from ledger.rulings.rederive import Rederiver, validate_target

        campaign = self.campaign()
        validate_target(campaign, target)
        return Rederiver(
            self.store,
            self.seed,
            campaign,
            target,
            _retract_rolls(rolls),
            {},
            {**session_dice(self.dice_secrets, campaign), "player_dice": False},
        ).plan()

    def retract(
        self,
        target: int,
        *,
        rolls: Mapping[str, str] | None = None,
        fixed: Mapping[str, Any] | None = None,
        plan: Any = None,
        reason: str | None = None,
    ) -> dict[str, Any]:
        """Retract a contested ruling: re-derive later rulings and append the retraction with the amended outcomes.

        `plan` is the plan shown to the GM (`plan_retraction`): under the writer lock, if the log head has not
        moved since it was made, exactly that plan is committed, without deciding anything again; if another
        writer moved the head, the retraction is planned again there, keeping the plan's new rolls (and `fixed`,
        rolls an earlier plan made), and the result says `"replanned": true`.
        """
        # lazy: re-derivation, for retract; kept out of a one-shot write
        from ledger.rulings.rederive import Rederiver, commit, validate_target

        entered = _retract_rolls(rolls)
        kept = {**dict(fixed or {}), **({r.name: r for r in plan.rolled} if plan is not None else {})}
        replanned = False

        def decide(d: Draft) -> dict[str, Any]:
            nonlocal replanned
            validate_target(d.campaign, target)
            if plan is not None and plan.target == target and plan.current(d.campaign):
                return commit(d, plan)  # the head is where the plan saw it: commit the plan that was shown
            replanned = plan is not None  # another writer moved the head (or no plan was shown): plan here
            fresh = Rederiver(
                self.store,
                self.seed,
                d.campaign,
                target,
                entered,
                kept,
                {**session_dice(self.dice_secrets, d.campaign), "player_dice": False},
            ).plan()
            return commit(d, fresh)

        intent: RetractIntent = {"target": target}
        if entered and session_dice(self.dice_secrets, self.campaign()).get("scheme", 1) >= 2:
            intent["entered"] = entered  # scheme 2: the entered dice are part of the record
        if reason:
            intent["reason"] = check_text("reason", reason)
        result = self.rule(C.RETRACT, intent, decide)
        return {**result, "replanned": replanned}

    # -- the record itself: verify, export, import -------------------------------------------
    def verify(self, *, expect: str | None = None, dice: bool = False) -> Any:
        """Everything the write side trusts, checked (ledger/audit/verify.py): chain, versions, integrity, snapshots,
        and with `dice` every committed die of revealed sessions. The read models are checked by the read side."""
        # lazy: the chain walk, for verify; kept out of a one-shot write
        from ledger.audit.chain import notifications
        from ledger.audit.verify import dice_problems, verify_store

        self._require_events()
        report = verify_store(self.store, expect)
        if dice:
            found, report.dice = dice_problems(notifications(self.store.recorder))
            report.problems += found
        return report

    def log_size(self) -> int:
        """How many events the log holds (for progress bars)."""
        return int(self.store.recorder.max_notification_id() or 0)

    def export_jsonl(self, out: Any, *, step: Callable[[int], None] | None = None) -> Any:
        """Write the whole log, byte for byte, as JSON lines with a header (ledger/storage/exchange.py); its summary."""
        # lazy: export and import; kept out of a one-shot write
        from ledger.storage.exchange import export_jsonl

        self.campaign()  # refuses an empty ledger with the usual message
        snapshots = self.store.snapshots.recorder if self.store.snapshots is not None else None
        return export_jsonl(self.store.recorder, out, exported_at=now_iso(), step=step, snapshots=snapshots)

    def check_import(self, path: str, *, step: Callable[[int], None] | None = None) -> Any:
        """An export file read and checked whole (header, counts, types, every hash link) before anything is written."""
        # lazy: export and import; kept out of a one-shot write
        from ledger.storage.exchange import read_export, require_empty

        if not (self.target.kind == "sqlite" and not os.path.exists(self.target.path)):
            require_empty(self.store.recorder, self.target.describe())  # refuse early, before reading a big file
        return read_export(path, step)

    def write_import(self, checked: Any, *, step: Callable[[int], None] | None = None) -> Any:
        """Write a checked export into this (empty) ledger in one transaction; its summary."""
        # lazy: export and import; kept out of a one-shot write
        from ledger.storage.exchange import write_import

        self.require_writable()
        return write_import(self.store, checked, self.target.describe(), step)

    def _require_events(self) -> None:
        """Refuse a ledger with nothing in it (without decoding anything: a damaged log is still walked)."""
        empty = self.target.kind == "sqlite" and not os.path.exists(self.target.path)
        if empty or not self.store.recorder.max_notification_id():
            raise NotInitialised(f"no campaign in {self.target.describe()}", "start one: ledger init --system hnh")

    def why(self, name: str, field: str | None) -> dict[str, Any]:
        """Which live rulings made a value on a character's sheet (ledger/rulings/why.py)."""
        # lazy: `ledger why` only; kept out of a one-shot write
        from ledger.rulings.why import explain

        campaign = self.campaign()
        return explain(self.store, campaign, undo.amendments(self.store, campaign), name, field)


def _not_self(actor: str, other: str, what: str) -> None:
    """No character is its own opponent: none of the three rule texts has a character attack, oppose, grab or revive
    itself (docs/interpretations.md, "Self-targeting")."""
    if name_key(unicodedata.normalize("NFC", actor)) == name_key(unicodedata.normalize("NFC", other)):
        raise BadInput(f"{actor.strip()} can't {what} themselves", "name another character as the target")


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


def _sides(draft: Draft) -> dict[str, Any]:
    """Whether the ruling left every combatant of one side of the running encounter down (said, not recorded)."""
    return sides_down(draft)


def _retract_rolls(rolls: Mapping[str, str] | None) -> dict[str, str]:
    """`--roll N.NAME=FACES` for rolls re-derivation needs that were never made."""
    out = {}
    for key, faces in (rolls or {}).items():
        number, dot, name = key.partition(".")
        if not dot or not number.isdigit() or not name:
            raise BadInput(f"--roll '{key}' must name the ruling: N.NAME=FACES", "for example --roll 7.damage=5")
        out[key] = faces
    return out
