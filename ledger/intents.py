"""What each recorded command asks (its intent, stored in its ruling) and what its decider answers (its result).

One TypedDict per stored command name of ledger/catalog.py. They are plain dicts at run time, so the stored
JSON is what it always was; they let mypy check the keys that flow from the CLI through `Ledger`, the
deciders and back. Keys that old rulings may lack (the deciders read them with `.get`) are NotRequired: an
old ledger's intents keep deciding the same.

In a session whose dice follow scheme 2 (docs/verifiable-dice.md), any intent may also carry `entered`: the
rolls entered by hand (`--roll NAME=FACES`, or faces a player typed), name -> faces as given.

Read by mypy alone: every module imports it under TYPE_CHECKING (its classes would cost a one-shot command
a few milliseconds to build).
"""

from collections.abc import Mapping
from typing import Any, NotRequired, Required, TypedDict

from ledger.model.sheet import SheetData, Value
from ledger.rules.options import Options

RollData = dict[str, object]  # a DiceRolled event's payload (`Roll.to_data`)
EventSummary = dict[str, Any]  # one event of a ruling as the command's output shows it (`Draft.summary`)


# -- intents ---------------------------------------------------------------------------------------------
class Noted(TypedDict, total=False):
    """What every intent may carry: the GM's `--note TEXT` (given with any ruling; changes nothing decided), and
    `tracker` (2: a play ruling recorded while an encounter ran, decided by the tracker's second version: it records
    a side all down, and the rules' own timed effects run out as durations; ledger/rulings/deciders/table.py)."""

    note: str
    tracker: int
    rules: int  # the rules' version of a ruling recorded out of an encounter (4 on; ledger/rules/contract.py CURRENT)
    secret: bool  # `--secret`: the players' screen keeps this ruling's words and dice back until revealed
    asked_by: str  # the hero whose player asked for this ruling from their page (`ledger pending accept`)


class InitIntent(Noted):
    """`init`: ruling 1 (decided once, never again)."""

    system: str
    name: str
    settings: NotRequired[Options]


class SessionStartIntent(Noted):
    """`session start`."""

    title: str | None
    commitment: NotRequired[str]  # the SHA-256 of the session's dice secret (verifiable dice)
    scheme: NotRequired[int]  # the dice scheme's version (docs/verifiable-dice.md); absent: 1
    player_dice: NotRequired[bool]  # linked heroes' players roll their own dice
    new_day: NotRequired[bool]


class SessionEndIntent(Noted, total=False):
    """`session end`: the session's dice secret, revealed, when it committed one."""

    reveal: str


class CharacterAddIntent(Noted):
    """`character add` (and `character import`, stored as `character add`)."""

    name: str
    traits: dict[str, str]
    minion: bool
    count: int
    pc: bool
    powers: NotRequired[dict[str, dict[str, Any]]]
    typed_traits: NotRequired[dict[str, Value]]
    copies: NotRequired[int]  # NAME 1 .. NAME N with the same sheet
    hidden: NotRequired[bool]  # kept off the players' screen until it acts or is revealed (projections/hidden.py)


class CharacterCopyIntent(Noted):
    """`character copy`: a new character NEW (or NEW 1 .. NEW N) with NAME's stat block."""

    name: str
    new: str
    copies: NotRequired[int]
    count: NotRequired[int]


class CharacterSetIntent(Noted):
    """`character set`: traits changed by the GM's ruling."""

    name: str
    traits: dict[str, str]


RollIntent = TypedDict(
    "RollIntent",
    {
        "expr": str,
        "for": NotRequired[str | None],
        "note": NotRequired[str],
        "secret": NotRequired[bool],
        "tracker": NotRequired[int],
    },
)
"""`roll`: a dice expression, for a character or no one."""


class DamageIntent(Noted):
    """`damage`: HP lost (`amount`, `subdual`), or an effect rank resisted by a roll (`rank`, `options`: H&H)."""

    target: str
    amount: NotRequired[int]
    subdual: NotRequired[bool]
    rank: NotRequired[int]
    options: NotRequired[Options]


class ConditionIntent(Noted):
    """`condition add` and `condition remove`; an added one may carry a duration (ledger/rules/durations.py)."""

    target: str
    condition: str
    rounds: NotRequired[int]
    until: NotRequired[str]  # start | end (of the next turn of `of`)
    of: NotRequired[str]
    scene: NotRequired[bool]


class AttackIntent(Noted):
    """`attack`; more targets (`also`) and members of minion groups caught (`in_area`) make an area attack."""

    attacker: str
    target: str
    options: Options
    also: NotRequired[list[str]]
    in_area: NotRequired[dict[str, int]]


class CheckIntent(Noted):
    """`check`: against a DC (or a threshold option), or opposed by [name, trait]."""

    name: str
    trait: str
    dc: int | None
    against: NotRequired[list[str] | None]
    options: Options


class RecoverIntent(Noted):
    """`recover`."""

    target: str
    hours: int
    restful: bool
    treated: bool
    amount: int | None
    cause: str | None
    options: Options


class SpendIntent(Noted):
    """`spend`."""

    name: str
    resource: str
    n: int
    purpose: NotRequired[str | None]


class GainIntent(Noted):
    """`gain`."""

    name: str
    resource: str
    n: int
    reason: NotRequired[str | None]


class HazardIntent(Noted):
    """`hazard`."""

    target: str
    kind: str
    options: Options


class ReviveIntent(Noted):
    """`revive`."""

    target: str
    means: str
    by: NotRequired[str | None]


class ActIntent(Noted):
    """`act`: a system-specific action, alone or against another character."""

    name: str
    action: str
    against: NotRequired[str | None]
    options: Options


class EncounterStartIntent(Noted):
    """`encounter start`: the participants, the surprised, and initiatives rolled elsewhere."""

    names: list[str]
    surprised: list[str]
    init: NotRequired[dict[str, int]]
    group_init: NotRequired[list[str]]  # `--copies` groups whose members share one initiative roll (adjacent turns)
    hidden: NotRequired[bool]  # the participants who are not heroes are kept off the players' screen


class TurnIntent(Noted, total=False):
    """`encounter next` and `encounter delay`."""

    pass_over: bool | int  # pass over those who can't act (old rulings lack it: 0; 2: also who the rules give no turn;
    # 3: also a turn the rules leave nothing to do in, unless the campaign says never, each passing recorded)


class NameIntent(Noted):
    """`encounter act`, `encounter remove` and `character retire`: one participant (or character)."""

    name: str
    pass_over: NotRequired[int]  # `encounter remove`: as TurnIntent's (old rulings lack it: 1)


class JoinIntent(Noted):
    """`encounter join`: one newcomer (`name`) or several (`names`, the first also in `name`)."""

    name: str
    surprised: bool
    names: NotRequired[list[str]]
    group_init: NotRequired[list[str]]  # `--copies` groups whose members share one initiative roll (adjacent turns)
    hazard: NotRequired[bool]  # a turn slot with no sheet (a hazard, a timed event) at initiative `init`
    init: NotRequired[int]
    hidden: NotRequired[bool]  # the newcomers are kept off the players' screen


class RevealIntent(Noted):
    """`encounter reveal`: hidden characters, and rulings recorded `--secret`, shown to the players from now on."""

    names: list[str]
    rulings: NotRequired[list[int]]


class NoIntent(Noted):
    """`encounter end`, `scene end`, `undo` and `redo`: nothing to ask."""


class RetractIntent(Noted):
    """`retract`: the ruling contested."""

    target: int
    entered: NotRequired[dict[str, str]]
    reason: NotRequired[str]  # `--reason TEXT`


Intent = (
    InitIntent
    | SessionStartIntent
    | SessionEndIntent
    | CharacterAddIntent
    | RollIntent
    | DamageIntent
    | ConditionIntent
    | AttackIntent
    | CheckIntent
    | RecoverIntent
    | SpendIntent
    | GainIntent
    | HazardIntent
    | ReviveIntent
    | ActIntent
    | EncounterStartIntent
    | TurnIntent
    | NameIntent
    | JoinIntent
    | RevealIntent
    | NoIntent
    | RetractIntent
)


Result = Mapping[str, Any]  # what a decider answers: one of the result types below


# -- results: the parts --------------------------------------------------------------------------------
class NotUp(TypedDict):
    """Who acts out of turn in a running encounter, and who is up."""

    name: str
    up: str
    in_encounter: bool


class TurnNote(TypedDict, total=False):
    """`{"not_up": ...}` when a character acts while someone else is up (the CLI says it on stderr)."""

    not_up: NotUp


class EconomyWarning(TypedDict, total=False):
    """An action-economy warning (`ledger/rulings/deciders/economy.py`)."""

    warning: str


class Revealed(TypedDict, total=False):
    """At `session end`: the session's commitment and its revealed secret (None when the secret is lost)."""

    commitment: str
    revealed: str | None


class Participant(TypedDict):
    """One entry of the order as `encounter show` prints it."""

    name: str
    initiative: int
    delayed: bool


class EncounterView(TypedDict):
    """The `encounter show` document (CLI.md): round, current, order with initiative; plus number and system."""

    encounter: int
    system: str
    round: int
    current: str | None
    order: list[Participant]
    rows: NotRequired[list[dict[str, Any]]]  # each participant with HP, conditions and marks (ledger/words/tracker.py)


class SceneEnded(TypedDict, total=False):
    """Those whose scene-long effects ended (P&P)."""

    scene_ended_for: list[str]


# -- results: one per command ----------------------------------------------------------------------------
class CharacterResult(TypedDict):
    """The sheet of the character a ruling changed (character add, damage, conditions, check, recover, ...)."""

    character: SheetData
    characters: NotRequired[list[SheetData]]  # `--copies`: every copy
    source: NotRequired[str]  # `character copy`: whose stat block it copied


class RetireResult(CharacterResult):
    """`character retire`."""

    retired: str


class CheckResult(CharacterResult, TurnNote):
    """`check`."""


class RollResult(TypedDict):
    """`roll`."""

    roll: RollData


class AttackResult(EconomyWarning, TurnNote):
    """`attack`: both sheets after it (an area attack: every target's, in `targets`)."""

    attacker: SheetData
    target: SheetData
    targets: NotRequired[list[SheetData]]


class ActResult(CharacterResult, EconomyWarning, TurnNote, total=False):
    """`act`: the actor's sheet, and the other's when there is one."""

    against: SheetData


class SessionResult(Revealed):
    """`session start` and `session end` (`new_day`: each living hero's resources after a new in-game day)."""

    session: int
    title: NotRequired[str]
    new_day: NotRequired[dict[str, dict[str, int]]]


class TurnResult(EncounterView):
    """`encounter next`, `encounter delay` and `encounter remove`: who was forced on and who was skipped."""

    forced: bool
    skipped: list[dict[str, str]]
    delayed: NotRequired[str]
    removed: NotRequired[str]
    removed_side: NotRequired[str]  # `encounter remove`: heroes or foes, the side of who left
    up: NotRequired[dict[str, Any]]  # `encounter next`: who is up, with HP, conditions and what is left of them


class JoinResult(EncounterView):
    """`encounter join`."""

    joined: str
    initiative: int
    initiatives: NotRequired[dict[str, int]]  # each newcomer's, when several joined


class EncounterEndResult(SceneEnded):
    """`encounter end`."""

    encounter: int
    rounds: int


class InitResult(TypedDict):
    """`init`."""

    ruling: int
    system: str
    name: str
    settings: NotRequired[Options]


class Recorded(TypedDict, total=False):
    """What `Ledger.record` returns: the ruling's number, its decider's result, and the events it recorded.

    Every key a result may hold, so mypy checks what the CLI reads; which ones a command's ruling has is
    given by its result type above (undo, redo and retraction add their own: ledger/history/undo.py, rederive.py).
    """

    ruling: Required[int]
    events: Required[list[EventSummary]]
    character: SheetData
    attacker: SheetData
    target: SheetData
    targets: list[SheetData]
    against: SheetData
    roll: RollData
    warning: str
    not_up: NotUp
    session: int
    title: str
    commitment: str
    new_day: dict[str, dict[str, int]]
    revealed: str | None
    encounter: int
    system: str
    round: int
    rounds: int
    current: str | None
    order: list[Participant]
    forced: bool
    skipped: list[dict[str, str]]
    delayed: str
    removed: str
    joined: str
    initiative: int
    initiatives: dict[str, int]
    scene_ended_for: list[str]
    characters: list[SheetData]  # `character add --copies`, `character copy --copies`
    source: str  # `character copy`: whose stat block it copied
    retired: str
    up: dict[str, Any]  # `encounter next`: who is up, with HP and conditions
    rows: list[dict[str, Any]]  # the order with each one's HP, conditions and marks
    side_down: str  # every combatant of one side of the running encounter is down: "foes" or "heroes"
    summary: dict[str, Any] | None  # `encounter end`: ledger/words/summary.py
    head: str  # `session end`: the chain's head, added by the CLI


class Undone(TypedDict, total=False):
    """What `Ledger.undo` and `Ledger.redo` return: the ruling restored or retracted, and what it recorded."""

    ruling: Required[int]
    events: Required[list[EventSummary]]
    target: Required[int]
    command: Required[str]
    undone: int
    redone: int
