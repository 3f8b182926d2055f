"""Aggregates: Campaign (the serialisation point and hash chain), Ruling (intent and dice), Character.

Every event carries `ruling`: the number of the ruling that produced it. State after undo is rebuilt by
`live_state`, which refolds an aggregate's events while skipping retracted rulings (never reverse deltas).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any
from uuid import UUID, uuid5

from eventsourcing.domain import Aggregate

from ledger.model.event_names import (
    ATTACK_RESOLVED,
    BOOKKEEPING,
    CAMPAIGN_CREATED,
    CHARACTER_ADDED,
    CHARACTER_ENROLLED,
    CHARACTER_RETIRED,
    CHECK_RESOLVED,
    DICE_COMMITTED,
    DICE_REVEALED,
    DICE_SCHEME,
    EFFECT_RESOLVED,
    NOTE_RECORDED,
    RESISTANCE_RESOLVED,
    SESSION_ENDED,
    SESSION_STARTED,
)
from ledger.model.lean import LeanEventType
from ledger.model.sheet import apply_effect_dict

NAMESPACE = UUID("6a1f3c9e-52a4-4f0b-9b1e-0c3d2f7a8e11")
CAMPAIGN_ID = uuid5(NAMESPACE, "campaign")


def ruling_id(number: int) -> UUID:
    """The Ruling aggregate's id for ruling `number`."""
    return uuid5(NAMESPACE, f"ruling/{number}")


def character_id(key: str, ruling: int) -> UUID:
    """A character's id: its name key and the ruling that added it (a re-added name is a new aggregate)."""
    return uuid5(NAMESPACE, f"character/{key}/{ruling}")


def name_key(name: str) -> str:
    """Names are matched case-insensitively."""
    return name.strip().casefold()


class Campaign(Aggregate):
    """One campaign per ledger: system, roster, play sessions, and the ruling chain's bookkeeping."""

    if TYPE_CHECKING:  # set by the events' apply (not dataclass fields: eventsourcing reads class annotations)
        settings: dict[str, Any]
        domain: dict[str, Any]
        rulings: int
        last_hash: str
        dead: dict[str, int]
        amended: dict[str, Any]
        redo: list[int]
        meta: list[int]

    class Event(Aggregate.Event, metaclass=LeanEventType):
        """A campaign event; `ruling` is the ruling that made it."""

        ruling: int

    class CampaignCreated(Aggregate.Created, metaclass=LeanEventType):
        """The ledger was initialised for a system."""

        ruling: int
        system: str
        name: str
        settings: dict[str, Any]

        def apply(self, aggregate: Any) -> None:
            """Start with an empty roster and no sessions."""
            aggregate.domain = blank_campaign_domain(self.system, self.name, self.settings)
            aggregate.rulings = 0
            aggregate.last_hash = ""
            aggregate.dead = {}
            aggregate.amended = {}
            aggregate.redo = []
            aggregate.meta = []

    class CharacterEnrolled(Event):
        """A character joined the roster."""

        name: str
        character_id: str

        def apply(self, aggregate: Any) -> None:
            """Map the name to the character's aggregate id."""
            apply_campaign_domain(aggregate.domain, type(self).__name__, payload(self))

    class CharacterRetired(Event):
        """A character left the roster (out of lists, trackers and completion); its history is kept."""

        name: str
        character_id: str

        def apply(self, aggregate: Any) -> None:
            """Move the name from the roster to the retired."""
            apply_campaign_domain(aggregate.domain, type(self).__name__, payload(self))

    class SessionStarted(Event):
        """A play session opened."""

        number: int
        title: str
        at: str

        def apply(self, aggregate: Any) -> None:
            """Open the session."""
            apply_campaign_domain(aggregate.domain, type(self).__name__, payload(self))

    class SessionEnded(Event):
        """The open play session closed."""

        number: int
        at: str

        def apply(self, aggregate: Any) -> None:
            """Close the session."""
            apply_campaign_domain(aggregate.domain, type(self).__name__, payload(self))

    class DiceCommitted(Event):
        """Session `number` rolls its dice from a secret; only the secret's SHA-256 is recorded
        (ledger/model/dice_scheme.py)."""

        number: int
        commitment: str

        def apply(self, aggregate: Any) -> None:
            """Note the commitment on the session (its committed rolls are counted from 0)."""
            apply_campaign_domain(aggregate.domain, type(self).__name__, payload(self))
            aggregate.dice_counter = {self.commitment: 0, **getattr(aggregate, "dice_counter", {})}

    class DiceRevealed(Event):
        """Session `number`'s dice secret, revealed as it ends, so anyone can recompute its dice."""

        number: int
        commitment: str
        secret: str

        def apply(self, aggregate: Any) -> None:
            """Note the secret on the session."""
            apply_campaign_domain(aggregate.domain, type(self).__name__, payload(self))

    class DiceScheme(Event):
        """Session `number` derives its committed dice by scheme `version` (ledger/model/dice_scheme.py); with
        `player_dice`, heroes' rolls come from their players' pages. Absent: version 1, the first release's."""

        number: int
        version: int
        player_dice: bool

        def apply(self, aggregate: Any) -> None:
            """Note the scheme on the session."""
            apply_campaign_domain(aggregate.domain, type(self).__name__, payload(self))

    class DiceCounted(Event):
        """Bookkeeping: session `number`'s next committed roll has counter `next` (never refolded: undo keeps it)."""

        number: int
        next: int

        commitment: str | None = None  # absent before counters were kept per commitment

        def apply(self, aggregate: Any) -> None:
            """Advance the session's counter of committed rolls (kept per commitment: a session number that comes
            back after an undo or a retraction starts a new count with its new commitment)."""
            counts = dict(getattr(aggregate, "dice_counter", {}))
            key = self.commitment or str(self.number)
            counts[key] = max(int(counts.get(key, 0)), self.next)
            aggregate.dice_counter = counts

    class DiceAsked(Event):
        """A hero's roll asked of their player's page, recorded before the page shows it: the roll `name` of
        `hero` in session `number` takes committed roll `counter` of `commitment`, whatever is rolled meanwhile.
        `supersedes` lists earlier asks of the same hero still open: they are closed as re-asked."""

        number: int
        commitment: str
        counter: int
        name: str
        hero: str
        command: str
        supersedes: list[int]
        also: list[str] | None = None  # the hero's other rolls asked on the same card (one seed answers them all)

        def apply(self, aggregate: Any) -> None:
            """Note the ask as open (and the asks it supersedes as re-asked); an ask is never undone."""
            asks = dict(getattr(aggregate, "asks", {}))
            for n in self.supersedes:
                if str(n) in asks and asks[str(n)].get("fate") is None:
                    asks[str(n)] = {**asks[str(n)], "fate": "re-asked", "why": f"asked again in ruling {self.ruling}"}
            asks[str(self.ruling)] = {
                "session": self.number,
                "commitment": self.commitment,
                "counter": self.counter,
                "name": self.name,
                "also": list(getattr(self, "also", None) or []),
                "hero": self.hero,
                "command": self.command,
                "fate": None,
            }
            aggregate.asks = asks
            aggregate.meta = [*aggregate.meta, self.ruling]

    class AskClosed(Event):
        """Ask `ask` (the ruling that recorded it) closed: `fate` is answered (a die of this ruling used it, with
        `seed`), expired or cancelled; `why` says more in words."""

        ask: int
        fate: str
        why: str
        alone: bool  # the ruling records only this closing (undo passes over it), not a ruling that also plays
        seed: str | None = None

        def apply(self, aggregate: Any) -> None:
            """The ask is no longer open."""
            asks = dict(getattr(aggregate, "asks", {}))
            if str(self.ask) in asks:
                asks[str(self.ask)] = {
                    **asks[str(self.ask)],
                    "fate": self.fate,
                    "why": self.why,
                    "by": self.ruling,
                    "seed": self.seed,
                }
            aggregate.asks = asks
            if self.alone:
                aggregate.meta = [*aggregate.meta, self.ruling]

    class CampaignRestored(Event):
        """Roster and sessions set to the refold of live rulings (after undo or redo)."""

        domain: dict[str, Any]

        def apply(self, aggregate: Any) -> None:
            """Replace the domain state wholesale."""
            aggregate.domain = self.domain

    class RulingChained(Event):
        """Bookkeeping: ruling `number` was recorded with this hash after `prev_hash`.

        `scheme` (absent in the first release's links: scheme 1) says what the hash covers (ledger/model/chain.py);
        `snapshots` records the digest of each snapshot the ruling took (ledger/snapshots.py); `reads` (absent
        before it was recorded) every aggregate the ruling's decider read, with the version it read (0: not there),
        so a retraction finds the later rulings that read what it changes without deciding them.
        """

        number: int
        kind: str
        prev_hash: str
        hash: str
        scheme: int
        snapshots: dict[str, Any]
        reads: dict[str, int] | None = None

        def apply(self, aggregate: Any) -> None:
            """Advance the chain; a new play ruling ends the redo stack."""
            aggregate.rulings = self.number
            aggregate.last_hash = self.hash
            if self.kind not in ("undo", "redo", "ask"):
                aggregate.redo = []

    class RulingUndone(Event):
        """Bookkeeping: ruling `target` was retracted by an undo."""

        target: int

        def apply(self, aggregate: Any) -> None:
            """Mark it dead and make it the next to redo."""
            aggregate.dead = {**aggregate.dead, str(self.target): self.ruling}
            aggregate.redo = [*aggregate.redo, self.target]
            aggregate.meta = [*aggregate.meta, self.ruling]

    class RulingRedone(Event):
        """Bookkeeping: ruling `target` was restored by a redo."""

        target: int

        def apply(self, aggregate: Any) -> None:
            """Mark it live again."""
            aggregate.dead = {k: v for k, v in aggregate.dead.items() if k != str(self.target)}
            aggregate.redo = [n for n in aggregate.redo if n != self.target]
            aggregate.meta = [*aggregate.meta, self.ruling]

    @classmethod
    def restoration(cls, history: Iterable[Any], dead: set[int], amendments: Amendments) -> tuple[type, dict[str, Any]]:
        """The event that restores this campaign's roster and sessions to the refold of live rulings."""
        return cls.CampaignRestored, {"domain": fold_campaign(live_records(history, dead, amendments))}

    class RetractionRecorded(Event):
        """Bookkeeping: ruling `target` was retracted by this ruling, which re-derived the rulings `amended`."""

        target: int
        amended: list[int]

        def apply(self, aggregate: Any) -> None:
            """Mark the target dead and this ruling as the newest derivation of each amended ruling."""
            aggregate.dead = {**aggregate.dead, str(self.target): self.ruling}
            amended = dict(getattr(aggregate, "amended", {}))
            for n in self.amended:
                amended[str(n)] = [*amended.get(str(n), []), self.ruling]
            aggregate.amended = amended

    def restorable(self) -> dict[str, Any]:
        """The state a restoration event carries."""
        return {"domain": self.domain}

    # queries
    @property
    def system(self) -> str:
        """The rule system's key."""
        return str(self.domain["system"])

    @property
    def open_session(self) -> int | None:
        """The number of the open play session, if any."""
        return self.domain["open_session"]

    def character(self, name: str) -> dict[str, str] | None:
        """The roster entry for a name (case-insensitive), or None."""
        return self.domain["roster"].get(name_key(name))

    def names(self) -> list[str]:
        """The names on the roster (live characters and the hidden GM sheet)."""
        return [str(e["name"]) for e in self.domain["roster"].values()]

    def retired_names(self) -> list[str]:
        """The names of retired characters (their history kept; a refusal names them as retired)."""
        return [str(e["name"]) for e in self.domain.get("retired", [])]

    def open_asks(self) -> dict[int, dict[str, Any]]:
        """The asks of players' pages that no ruling has answered or closed yet (ledger/storage/wait.py)."""
        return {int(n): a for n, a in getattr(self, "asks", {}).items() if a.get("fate") is None}

    def is_dead(self, number: int) -> bool:
        """Whether ruling `number` is retracted by a ruling that is itself live (undoing a retraction revives)."""
        return number in self.dead_set()

    def dead_set(self) -> set[int]:
        """Every ruling that is currently retracted."""
        return retracted({int(n): k for n, k in self.dead.items()})

    def live_amendments(self) -> dict[int, int]:
        """For each re-derived ruling, the live retraction that holds its current outcome."""
        out, dead = {}, self.dead_set()
        for n, by in getattr(self, "amended", {}).items():
            live = [x for x in by if x not in dead]
            if live:
                out[int(n)] = live[-1]
        return out

    def latest_live(self) -> int | None:
        """The latest ruling that undo may retract: live, not an undo or redo, not the campaign's creation."""
        meta, dead = set(self.meta), self.dead_set()
        for n in range(self.rulings, 1, -1):
            if n not in meta and n not in dead:
                return n
        return None


def retracted(killers: Mapping[int, int]) -> set[int]:
    """The rulings that stay retracted, given who retracted whom: one whose retractor is itself retracted is live again.

    The one statement of this rule: the Campaign (write side) and the log views (read side) both use it.
    """
    dead: set[int] = set()
    for n in sorted(killers, reverse=True):  # a retractor always comes after what it retracts
        if killers[n] not in dead:
            dead.add(n)
    return dead


def blank_campaign_domain(system: str, name: str, settings: Mapping[str, Any]) -> dict[str, Any]:
    """A campaign's domain state before any roster or session event."""
    return {
        "system": system,
        "name": name,
        "settings": dict(settings),
        "roster": {},
        "sessions": [],
        "open_session": None,
    }


def apply_campaign_domain(domain: dict[str, Any], kind: str, p: Mapping[str, Any]) -> None:
    """Apply one roster or session record (event type name and payload) to a campaign's domain (in place)."""
    if kind == CHARACTER_ENROLLED:
        domain["roster"] = {**domain["roster"], name_key(p["name"]): {"name": p["name"], "id": p["character_id"]}}
    elif kind == CHARACTER_RETIRED:
        domain["roster"] = {k: v for k, v in domain["roster"].items() if v["id"] != p["character_id"]}
        domain["retired"] = [*domain.get("retired", []), {"name": p["name"], "id": p["character_id"]}]
    elif kind == SESSION_STARTED:
        domain["sessions"] = [*domain["sessions"], {"number": p["number"], "title": p["title"], "started": p["at"]}]
        domain["open_session"] = p["number"]
    elif kind == SESSION_ENDED:
        domain["sessions"] = [{**s, "ended": p["at"]} if s["number"] == p["number"] else s for s in domain["sessions"]]
        domain["open_session"] = None
    elif kind == DICE_COMMITTED:
        domain["sessions"] = [
            {**s, "commitment": p["commitment"]} if s["number"] == p["number"] else s for s in domain["sessions"]
        ]
    elif kind == DICE_SCHEME:
        domain["sessions"] = [
            {**s, "scheme": p["version"], "player_dice": p["player_dice"]} if s["number"] == p["number"] else s
            for s in domain["sessions"]
        ]
    elif kind == DICE_REVEALED:
        domain["sessions"] = [
            {**s, "secret": p["secret"]} if s["number"] == p["number"] else s for s in domain["sessions"]
        ]


class Ruling(Aggregate):
    """One GM command: its intent, who and when, every die it consumed, and how it resolved."""

    if TYPE_CHECKING:  # set by the events' apply
        number: int
        kind: str
        command: str
        intent: dict[str, Any]
        retracted: dict[str, Any] | None
        touched: list[str]
        first: dict[str, int]
        dice: dict[str, dict[str, Any]]
        amendments: dict[str, dict[str, Any]]
        actor: str
        at: str
        session: int | None

    class Event(Aggregate.Event, metaclass=LeanEventType):
        """A ruling event; `ruling` is the ruling that made it (for a retraction: the undoing ruling)."""

        ruling: int

    class RulingRecorded(Aggregate.Created, metaclass=LeanEventType):
        """The GM's command, as given."""

        ruling: int
        kind: str
        command: str
        intent: dict[str, Any]
        actor: str
        session: int | None
        at: str
        targets: list[int]

        def apply(self, aggregate: Any) -> None:
            """A live ruling."""
            aggregate.number = self.ruling
            aggregate.kind = self.kind
            aggregate.command = self.command
            aggregate.intent = self.intent
            aggregate.retracted = None
            aggregate.touched = []
            aggregate.dice = {}
            aggregate.amendments = {}
            aggregate.actor = self.actor
            aggregate.at = self.at
            aggregate.session = self.session

    class DiceRolled(Event):
        """One named roll with every face and its source."""

        data: dict[str, Any]

        def apply(self, aggregate: Any) -> None:
            """Keep the faces, so the ruling can be decided again without rolling."""
            aggregate.dice = {**aggregate.dice, self.data["name"]: self.data}

    class OutcomeAmended(Event):
        """This retraction re-derived ruling `target`: its new outcome records, new dice, or its refusal, and the
        aggregates the new decision read (`reads`, absent before it was recorded)."""

        target: int
        command: str
        records: list[dict[str, Any]]
        dice: list[dict[str, Any]]
        refused: str | None
        reads: list[str] | None = None

        def apply(self, aggregate: Any) -> None:
            """Hold the new outcome of the re-derived ruling."""
            entry = {"records": self.records, "dice": self.dice, "refused": self.refused, "reads": self.reads}
            aggregate.amendments = {**aggregate.amendments, str(self.target): entry}

    class Resolved(Event):
        """Base of resolution records that change no sheet."""

        data: dict[str, Any]

    class CheckResolved(Resolved):
        """A check against a DC or threshold, or an opposed check."""

    class AttackResolved(Resolved):
        """An attack's hit or miss."""

    class ResistanceResolved(Resolved):
        """A resistance check against an effect."""

    class EffectResolved(Resolved):
        """Any other rule outcome."""

    class NoteRecorded(Resolved):
        """A note for the record."""

    class Touched(Event):
        """Bookkeeping: the aggregates whose state this ruling changed, and each one's first version it wrote."""

        ids: list[str]
        first: dict[str, int] | None = None

        def apply(self, aggregate: Any) -> None:
            """Remember them for undo."""
            aggregate.touched = self.ids
            aggregate.first = self.first or {}

    class RulingRetracted(Event):
        """The ruling was retracted by ruling `ruling` (undo or retract)."""

        actor: str
        at: str

        def apply(self, aggregate: Any) -> None:
            """Mark it retracted."""
            aggregate.retracted = {"by": self.ruling, "actor": self.actor, "at": self.at}

    class RulingReinstated(Event):
        """The ruling was restored by ruling `ruling` (redo)."""

        actor: str
        at: str

        def apply(self, aggregate: Any) -> None:
            """Live again."""
            aggregate.retracted = None


RESOLUTION_EVENTS: dict[str, type[Ruling.Resolved]] = {
    CHECK_RESOLVED: Ruling.CheckResolved,
    ATTACK_RESOLVED: Ruling.AttackResolved,
    RESISTANCE_RESOLVED: Ruling.ResistanceResolved,
    EFFECT_RESOLVED: Ruling.EffectResolved,
    NOTE_RECORDED: Ruling.NoteRecorded,
}


class Character(Aggregate):
    """A character's sheet, evolved only through effects the rules produced."""

    if TYPE_CHECKING:  # set by the events' apply
        active: bool
        sheet: dict[str, Any]

    class Event(Aggregate.Event, metaclass=LeanEventType):
        """A character event; `ruling` is the ruling that made it."""

        ruling: int

    class CharacterAdded(Aggregate.Created, metaclass=LeanEventType):
        """The character entered play with this sheet."""

        ruling: int
        sheet: dict[str, Any]

        def apply(self, aggregate: Any) -> None:
            """Active, with the given sheet."""
            aggregate.active = True
            aggregate.sheet = self.sheet

    class SheetEvent(Event):
        """Base of every event that changes the sheet through `sheet.apply_effect`."""

        data: dict[str, Any]

        def apply(self, aggregate: Any) -> None:
            """The one way a sheet changes."""
            aggregate.sheet = apply_effect_dict(aggregate.sheet, type(self).__name__, self.data)

    class DamageApplied(SheetEvent):
        """HP lost (data: amount, hp after)."""

    class HealthRecovered(SheetEvent):
        """HP regained (data: amount, hp after)."""

    class ConditionImposed(SheetEvent):
        """A condition imposed."""

    class ConditionRemoved(SheetEvent):
        """A condition removed."""

    class CountersChanged(SheetEvent):
        """System counters changed (bruises, subdual, durations)."""

    class ResourceChanged(SheetEvent):
        """A resource (victory points, resolve) spent or gained."""

    class MinionsDefeated(SheetEvent):
        """Minions of a group defeated."""

    class TraitsChanged(SheetEvent):
        """Traits changed."""

    class CharacterRetired(Event):
        """The character left play by the GM's ruling (`character retire`): no longer active; its history is kept."""

        def apply(self, aggregate: Any) -> None:
            """Out of play."""
            aggregate.active = False

    class StateRestored(Event):
        """Sheet set to the refold of its live events (after undo or redo)."""

        active: bool
        sheet: dict[str, Any] | None

        def apply(self, aggregate: Any) -> None:
            """Replace the state wholesale."""
            aggregate.active = self.active
            aggregate.sheet = self.sheet

    @property
    def name(self) -> str:
        """The character's name."""
        return str(self.sheet["name"])

    def restorable(self) -> dict[str, Any]:
        """The state a restoration event carries."""
        return {"active": self.active, "sheet": self.sheet}

    @classmethod
    def restoration(cls, history: Iterable[Any], dead: set[int], amendments: Amendments) -> tuple[type, dict[str, Any]]:
        """The event that restores this character to the refold of its live events."""
        return cls.StateRestored, fold_character(live_records(history, dead, amendments))


SHEET_EVENTS: dict[str, type[Character.SheetEvent]] = {
    cls.__name__: cls
    for cls in (
        Character.DamageApplied,
        Character.HealthRecovered,
        Character.ConditionImposed,
        Character.ConditionRemoved,
        Character.CountersChanged,
        Character.ResourceChanged,
        Character.MinionsDefeated,
        Character.TraitsChanged,
    )
}

for _restores in (Character.StateRestored, Campaign.CampaignRestored):
    setattr(_restores, "restores", True)
_NESTED = {k: v for agg in (Campaign, Ruling) for k, v in vars(agg).items() if isinstance(v, type)}
for _kept in sorted(BOOKKEEPING):
    setattr(_NESTED[_kept], "bookkeeping", True)

Amendments = Mapping[int, list[dict[str, Any]]]
Record = tuple[int, str, dict[str, Any]]
_ENVELOPE = frozenset({"originator_id", "originator_version", "timestamp", "ruling", "originator_topic"})


def payload(event: Any) -> dict[str, Any]:
    """An event's own fields, without the envelope (id, version, time, ruling)."""
    return {k: v for k, v in vars(event).items() if k not in _ENVELOPE}


def folds(event: Any) -> bool:
    """Whether an event is part of an aggregate's live history (not a restoration or bookkeeping)."""
    t = type(event)
    return not (getattr(t, "restores", False) or getattr(t, "bookkeeping", False))


def live_records(history: Iterable[Any], dead: set[int], amendments: Amendments) -> list[Record]:
    """An aggregate's live history as (ruling, type, payload), in ruling order.

    Retracted rulings are skipped; a re-derived ruling contributes the records of its live amendment
    (possibly none for this aggregate) instead of its original events.
    """
    original: dict[int, list[tuple[str, dict[str, Any]]]] = {}
    for e in history:
        if folds(e):
            original.setdefault(e.ruling, []).append((type(e).__name__, payload(e)))
    out: list[Record] = []
    for n in sorted(set(original) | set(amendments)):
        if n in dead:
            continue
        recs = [(r["type"], r["data"]) for r in amendments[n]] if n in amendments else original.get(n, [])
        out.extend((n, t, p) for t, p in recs)
    return out


def fold_character(records: Iterable[Record], start: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A character's state from its live records (after `start`, a state this fold gave, if given)."""
    active, sheet = (start["active"], start["sheet"]) if start else (False, None)
    for _, kind, p in records:
        if kind == CHARACTER_ADDED:
            active, sheet = True, p["sheet"]
        elif kind == CHARACTER_RETIRED:
            active = False
        elif kind in SHEET_EVENTS and sheet is not None:
            sheet = apply_effect_dict(sheet, kind, p["data"])
    return {"active": active, "sheet": sheet}


def fold_campaign(records: Iterable[Record], start: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A campaign's roster and sessions from its live records (after `start`, a domain this fold gave, if given)."""
    domain: dict[str, Any] = dict(start or {})
    for _, kind, p in records:
        if kind == CAMPAIGN_CREATED:
            domain = blank_campaign_domain(p["system"], p["name"], p["settings"])
        else:
            apply_campaign_domain(domain, kind, p)
    return domain
