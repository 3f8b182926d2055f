"""The fight simulator: the rest of a fight played out many times, every roll decided by the campaign's own rules.

A trial's state is one small integer per combatant: the index of its sheet in a table of the distinct sheets met so
far (`Simulator.sheets`). Each step of the fight (an attack, a turn's start or end, a duration running out) is a pure
function of the sheets it reads and of the dice, so its outcome is kept in a tree keyed by those sheets' indices:
one level per roll the rules asked for (in the order they asked), one branch per class of faces
(ledger/odds/dice.py), a leaf with the sheets after it. The first time a branch is reached the rules decide it
(`RuleSystem.attack`, `start_of_turn`, `end_of_turn`, `remove`, the pure duration counting of
ledger/rules/durations.py): the same calls, with the same options, the deciders make for `ledger attack NAME TARGET
--with POWER` and `encounter next`; afterwards the leaf is read. Nothing here writes anything anywhere.

What a simulated combatant does and does not do is in docs/odds.md.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import orjson

from ledger.errors import LedgerError
from ledger.model.dice import DiceSpec, Roll
from ledger.model.sheet import (
    ATTACK_RESOLVED,
    CONDITION_REMOVED,
    COUNTERS_CHANGED,
    SHEET_EFFECTS,
    Effect,
    Sheet,
    apply_effect_dict,
)
from ledger.odds.dice import MASK, SPREAD, Classes, classes, draw, purpose, trial_key, turn_key
from ledger.rules import durations, get_rules
from ledger.rules.contract import RuleSystem

HEROES, FOES, DRAW = "heroes", "foes", "draw"  # draw: both sides down at once
SIDES = (HEROES, FOES)
POLICIES = ("focus-weakest", "focus-dangerous", "spread")
DOWN = ("dead", "dying", "defeated", "incapacitated", "unconscious")  # as ledger/rulings/deciders/turns.py DOWN


@dataclass(frozen=True)
class Fighter:
    """One combatant: its name, side, sheet at the start, and the options of its plain attack (`--with POWER`)."""

    name: str
    side: str
    sheet: Sheet
    attack: Mapping[str, Any]
    danger: int = 0  # how hard its best attack hits, for the focus-dangerous policy
    spend: tuple[str, int, Mapping[str, Any]] | None = None  # the stated rule for points: resource, cost, options


@dataclass(frozen=True)
class Start:
    """Where the forecast starts: the combatants in turn order, who is up, the round, who has acted this round.

    `order` is None for a planned fight: every trial rolls initiative (`RuleSystem.initiative`) and the fight starts
    at round 1 with the first in that order.
    """

    system: str
    fighters: tuple[Fighter, ...]
    turn: int = 0
    round: int = 1
    acted: frozenset[str] = frozenset()
    version: int = 3
    ruling: int | None = None
    up: str | None = None
    planned: bool = False


@dataclass
class Outcome:
    """One trial: the side that won (None: unresolved within the rounds allowed), the round it ended in (1 = the round
    the forecast starts in) and who was out at the end."""

    winner: str | None
    rounds: int
    out: tuple[bool, ...]


class Need(Exception):
    """The rules asked for a roll the branch being enumerated has no class for yet."""

    def __init__(self, name: str, spec: DiceSpec) -> None:
        super().__init__(name)
        self.name, self.spec = name, spec


class Enumerating:
    """The dice of one branch being enumerated: the representative faces of the classes chosen, else Need."""

    def __init__(self, path: dict[str, int]) -> None:
        self.path = path

    def take(self, name: str, spec: DiceSpec) -> Roll:
        """The representative faces of this roll's class on the branch."""
        ci = self.path.get(name)
        if ci is None:
            raise Need(name, spec)
        return Roll(name, spec, classes(spec).faces[ci], "seeded")


@dataclass(slots=True)
class Node:
    """One roll the rules asked for at this point of a step: its name, its classes, a branch per class, and the
    stream's number of its purpose (dice.py `purpose` of the name the tree's rolls are drawn under: a walk reads it
    instead of hashing the name again on every visit)."""

    name: str
    spec: DiceSpec
    table: Classes
    pid: int
    kids: dict[int, Node | Leaf] = field(default_factory=dict)
    thresholds: tuple[int, ...] = ()  # the table's (Classes.thresholds), read by the inlined walk without a call

    def __post_init__(self) -> None:
        self.thresholds = self.table.thresholds

    def pick(self, turn: int) -> int:
        """The class this node's roll takes in a turn (dice.draw and Classes.pick)."""
        return self.table.pick(draw(turn, self.pid))


@dataclass(frozen=True, slots=True)
class Leaf:
    """A step's outcome: the new sheet index of each combatant it changed, and whether an attack in it hit (its
    AttackResolved `hit`) and was a critical hit (`critical_hit` in H&H, `critical` in d20)."""

    changes: tuple[tuple[int, int], ...]
    hit: bool = False
    critical: bool = False


@dataclass(frozen=True, slots=True)
class SharedLeaf:
    """An attack's outcome shared by every pair of sheets with the same views (`Simulator._attack`): for each of the
    two roles (0 the attacker, 1 the target) whose sheet it changes, the bundle of sheet effects to apply to that
    role's own sheet, and whether it hit and was a critical hit."""

    parts: tuple[tuple[int, int, dict[Any, int]], ...]  # (role, bundle, the sheets it leaves of each sheet met)
    hit: bool = False
    critical: bool = False


class Unsafe:
    """A point of a shared tree past which the rules read the attacker's sheet as the aftermath leaves it: every pair
    of sheets reaching it is decided on its own (`Simulator._attack_named`)."""


UNSAFE = Unsafe()


class _Given:
    """A mark, in a staged part's kept call, of an argument given anew each time: the attacker's sheet, the target's
    or the dice."""

    def __init__(self, name: str) -> None:
        self.name = name


_PARTS = (_Given("attacker"), _Given("target"), _Given("dice"))


@dataclass(eq=False, slots=True)
class StageEnd:
    """One outcome of a staged part of an attack (`ledger.model.dice.staged`): the effects it returned, and what of
    them settling a step reads (`settling`)."""

    effects: tuple[Effect, ...]
    sig: bytes = b""

    def __post_init__(self) -> None:
        self.sig = settling(self.effects)


def hit_of(effects: Iterable[Effect]) -> tuple[bool, bool]:
    """Whether an attack among these effects hit, and was a critical hit (its AttackResolved `hit`; `critical_hit` in
    H&H, `critical` in d20)."""
    resolved = [e.data for e in effects if e.event == ATTACK_RESOLVED]
    hit = any(bool(d.get("hit")) for d in resolved)
    return hit, any(bool(d.get("critical_hit") or d.get("critical")) for d in resolved)


def settling(effects: Iterable[Effect], *more: Any) -> bytes:
    """What settling a step (`RuleSystem.own_timed`, `aftermath`) and its leaf read of these effects: the sheet effects,
    and whether an attack among them hit and critically hit (with `more` beside)."""
    effects = tuple(effects)
    sheets = [(e.event, e.target, e.data) for e in effects if e.event in SHEET_EFFECTS]
    return orjson.dumps([*more, sheets, *hit_of(effects)], option=orjson.OPT_SORT_KEYS)


@dataclass(eq=False, slots=True)
class Stage:
    """Where an attack handed the rest of its work to a staged part, whose outcome depends on its arguments (the
    sheets among them by role and view) and the dice alone: its key in `Simulator.stages` (the part's own tree,
    shared by every attack that hands it the same arguments), the effects the attack made before it, and the leaf that
    each outcome of the part makes with them (`Simulator._finish`)."""

    key: bytes
    before: tuple[Effect, ...]
    leaves: dict[StageEnd, SharedLeaf | Unsafe]  # shared with the stages whose effects before settle alike (`_combos`)
    sig: bytes  # what settling reads of the effects before, and the attacker's view (`settling`)
    call: tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]  # the part and its arguments (`_PARTS` marked)
    root: Any = None  # the part's tree (`Simulator.stages`), once it has one


ATTACKER, TARGET = "\u27e6attacker\u27e7", "\u27e6target\u27e7"  # the names a shared call gives the two sheets
_ROLES = (ATTACKER.encode(), TARGET.encode())
_MASKED = frozenset({"hp", "counters", "resources"})


@dataclass(slots=True)
class Read:
    """One value that a sheet's view leaves out (its HP, a counter's or a resource's value), read by the rules at this
    point of a shared tree, of the attacker (`role` 0) or the target (1): a branch per value met."""

    role: int
    part: str
    key: str | None
    kids: dict[Any, Any] = field(default_factory=dict)

    def value(self, sheet: Sheet) -> Any:
        """The value this read gives on a sheet of the view."""
        if self.key is None:
            return sheet.hp
        return (sheet.counters if self.part == "counters" else sheet.resources)[self.key]


class Watch:
    """Notes each value that the two sheets' views leave out and the rules read, in order, with how many rolls had
    been asked by then; and whether they read such a value of a sheet as the step's effects leave it (`after`)."""

    def __init__(self, box: Recorder) -> None:
        self.box = box
        self.reads: list[tuple[int, int, str, str | None, Any]] = []
        self.seen: set[tuple[int, str, str | None]] = set()
        self.after = False

    def note(self, role: int, after: bool, part: str, key: str | None, value: Any) -> None:
        if after:
            self.after = True
        elif (role, part, key) not in self.seen:  # a value read again is the value read first
            self.seen.add((role, part, key))
            self.reads.append((len(self.box.asked), role, part, key, value))


class Noting:
    """Where a watched sheet's reads are noted now: the Watch (None: nowhere), the sheet's role, and whether it is the
    sheet as the step leaves it. Shared by the sheet and its WatchedMaps (which hold it, not the sheet: no cycle)."""

    __slots__ = ("after", "role", "watch")

    def __init__(self) -> None:
        self.watch: Watch | None = None
        self.role, self.after = 0, False


class WatchedMap(Mapping[str, Any]):
    """A watched sheet's counters or resources: the keys read freely (they are in the view), the values are noted."""

    def __init__(self, data: Mapping[str, Any], noting: Noting, part: str) -> None:
        self._data, self._noting, self._part = data, noting, part

    def __getitem__(self, key: str) -> Any:
        value = self._data[key]  # a key the sheet lacks raises before anything is noted: its absence is in the view
        n = self._noting
        if n.watch is not None:
            n.watch.note(n.role, n.after, self._part, key, value)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        if key not in self._data:  # (Mapping.get would raise and catch a KeyError: the rules ask often)
            return default
        return self[key]

    def __iter__(self) -> Any:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data


class Watched(Sheet):
    """A sheet whose HP and counter and resource values are noted (`Watch`) when the rules read them; equality,
    hashing, to_dict and dataclasses.replace read every field, so they note them all."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        d = self.__dict__
        d.update(Sheet(*args, **kwargs).__dict__)
        n = d["_noting"] = Noting()
        d["_counters"] = WatchedMap(d["counters"], n, "counters")
        d["_resources"] = WatchedMap(d["resources"], n, "resources")

    @property
    def hp(self) -> int:
        d = self.__dict__
        value: int = d["hp"]
        n = d["_noting"]
        if n.watch is not None:
            n.watch.note(n.role, n.after, "hp", None, value)
        return value

    @property
    def counters(self) -> Mapping[str, int]:
        d = self.__dict__
        return d["counters"] if d["_noting"].watch is None else d["_counters"]

    @property
    def resources(self) -> Mapping[str, int]:
        d = self.__dict__
        return d["resources"] if d["_noting"].watch is None else d["_resources"]

    def watch(self, watch: Watch | None, role: int, after: bool = False) -> Watched:
        """This sheet, its reads noted by `watch` for `role` from now on."""
        n = self.__dict__["_noting"]
        n.watch, n.role, n.after = watch, role, after
        return self


def watched(plain: Mapping[str, Any]) -> Watched:
    """A Watched sheet of plain data."""
    sheet = Sheet.from_dict(plain)
    return Watched(**{f: getattr(sheet, f) for f in Sheet.__dataclass_fields__})


class Recorder:
    """The dice of one branch being decided: the classes already chosen, else the stream's next class (recorded).

    `rolls` keeps the Roll of each (name, spec, class) made so far (a Roll is a frozen value; building one anew was a
    tenth of a d20 attack's first visit)."""

    def __init__(
        self,
        path: dict[str, int],
        turn: int,
        names: Callable[[str], str],
        rolls: dict[tuple[str, DiceSpec, int], Roll] | None = None,
    ) -> None:
        self.path = path
        self.turn = turn
        self.names = names
        self.rolls = rolls if rolls is not None else {}
        self.asked: list[tuple[str, DiceSpec, int]] = []
        self.stager: Callable[[Callable[..., Any], tuple[Any, ...], dict[str, Any]], Any] | None = None

    def stage(self, rule: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """A staged part of a rule (`ledger.model.dice.staged`): noted by the simulator's first visit, else run."""
        if self.stager is None:
            return rule(*args, **kwargs)
        return self.stager(rule, args, kwargs)

    def take(self, name: str, spec: DiceSpec) -> Roll:
        """The representative faces of the class chosen for this roll."""
        ci = self.path.get(name)
        if ci is None:
            ci = classes(spec).pick(draw(self.turn, purpose(self.names(name))))
        self.asked.append((name, spec, ci))
        key = (name, spec, ci)
        roll = self.rolls.get(key)
        if roll is None:
            roll = self.rolls[key] = Roll(name, spec, classes(spec).faces[ci], "seeded")
        return roll


def sheet_key(sheet: Sheet) -> bytes:
    """A sheet's identity in the table of sheets."""
    return plain_key(sheet.to_dict())


def plain_key(plain: Mapping[str, Any]) -> bytes:
    """The identity of a sheet as plain data (`Sheet.to_dict`, or one after `apply_effect_dict`): equal keys are
    equal sheets (`Sheet.from_dict` of either); a sheet is interned from its plain data without building it first."""
    return orjson.dumps(plain, option=orjson.OPT_SORT_KEYS)


def is_out(rules: RuleSystem, sheet: Sheet) -> bool:
    """Out of the fight: no more turns, no turn at all, or down (as `encounter next` tells a side all down)."""
    if not rules.takes_turn(sheet) or rules.no_turn(sheet) is not None:
        return True
    return any(sheet.has(c) for c in DOWN) or (sheet.minion and sheet.count <= 0)


class Simulator:
    """Plays one starting position out, trial by trial, with the campaign's rules."""

    def __init__(
        self,
        start: Start,
        policy: str = "focus-weakest",
        max_rounds: int = 20,
        seed: int = 0,
        spend: bool = False,
        sharing: bool = True,
    ) -> None:
        if policy not in POLICIES:
            raise ValueError(policy)
        self.start = start
        self.rules = get_rules(start.system)
        self.policy = policy
        self.max_rounds = max_rounds
        self.seed = seed
        self.spend = spend  # points spent by docs/odds.md's stated rule (`odds --spend-points`)
        self.fighters = start.fighters
        self.names = [f.name for f in self.fighters]
        self.index = {f.name: i for i, f in enumerate(self.fighters)}
        self.sides = [f.side for f in self.fighters]
        self.others = [[j for j, side in enumerate(self.sides) if side != mine] for mine in self.sides]  # in order
        self.sheets: list[Sheet] = []
        self.ids: dict[bytes, int] = {}
        self.out: list[bool] = []
        self.timed: list[bool] = []  # whether the sheet holds a duration a turn point may count
        self.sizes: list[int] = []  # what focus-weakest compares: HP (Health) plus a group's others
        self.passes: list[bool] = []  # the turn order passes it over (not `RuleSystem.takes_turn`)
        self.idle: list[bool] = []  # it can take no action (`_cannot_act`)
        self.any_timed = False  # whether any sheet in the table is timed (else no turn point counts a duration)
        # the views of each sheet an attack is keyed by (`_attack`): -1 for a sheet that names a combatant
        self.sharing = sharing
        self.view: list[int] = []
        self.roles: list[tuple[Watched, Watched] | None] = []  # each sheet named ATTACKER and TARGET, watched
        self.views: dict[bytes, int] = {}
        self.spelled = [orjson.dumps(n)[1:-1] for n in self.names]  # each name as it reads inside a sheet's JSON
        self.initial = tuple(self.intern(f.sheet) for f in self.fighters)
        self.shared: dict[tuple[int, int, int], Node | SharedLeaf | Unsafe] = {}
        self.entries: dict[int, Node] = {}  # by pair of sheets and attacker: the first roll of its shared tree
        self.stages: dict[bytes, Any] = {}  # the trees of staged parts, by their key (`Stage`)
        self.combos: dict[bytes, dict[StageEnd, SharedLeaf | Unsafe]] = {}  # `_combos`
        self.settled: dict[tuple[bytes, int, bytes], SharedLeaf | Unsafe] = {}  # `_settle_stage`
        self.nf = len(self.fighters)
        self.bundles: list[tuple[tuple[str, Mapping[str, Any]], ...]] = []
        self.bundle_ids: dict[bytes, int] = {}
        self.bundle_named: list[bool] = []  # whether a bundle's data names the attacker or the target
        self.applied: list[dict[Any, int]] = []  # by bundle: the sheet it leaves of each sheet
        self.named_applied: dict[tuple[int, int, int, int], int] = {}  # a bundle naming the pair: by sheet and pair
        self.option_ids: dict[bytes, int] = {}
        self.plain_options = [self._option_id(f.attack) for f in self.fighters]
        self.attacks: dict[tuple[int, int], Node | Leaf] = {}
        self.hooks: dict[str, dict[int, Node | Leaf]] = {"start": {}, "end": {}}  # by turn point, then sheet
        self.quiet: dict[str, set[int]] = {"start": set(), "end": set()}  # sheets whose turn point does nothing
        self.ticks: dict[tuple[int, int, str], int] = {}
        self.initiatives: dict[tuple[int, tuple[int, ...]], int] = {}
        self.initiative_rolls: dict[int, tuple[tuple[str, Classes], ...]] = {}
        self.rolls: dict[tuple[str, DiceSpec, int], Roll] = {}  # the Recorders' Rolls, made once each
        self.calls = 0  # how many attacks the rules were asked to decide (the rest were read from the trees)
        self.fell = False  # whether the attack being played put someone out of the fight (or back in)

    # -- the table of sheets ----------------------------------------------------------------------
    def intern(self, sheet: Sheet) -> int:
        """The index of a sheet in the table (added when new)."""
        key = sheet_key(sheet)
        found = self.ids.get(key)
        return found if found is not None else self._add(key, sheet)

    def intern_plain(self, plain: dict[str, Any]) -> int:
        """The index of a sheet given as plain data (built only when new: most sheets a step leaves are known)."""
        key = plain_key(plain)
        found = self.ids.get(key)
        return found if found is not None else self._add(key, Sheet.from_dict(plain))

    def _add(self, key: bytes, sheet: Sheet) -> int:
        found = self.ids[key] = len(self.sheets)
        self.sheets.append(sheet)
        self.out.append(is_out(self.rules, sheet))
        timed = any(durations.parse(k) is not None for k in sheet.counters)
        self.timed.append(timed)
        self.any_timed = self.any_timed or timed
        self.sizes.append(sheet.hp + max(sheet.count - 1, 0) * sheet.max_hp if sheet.minion else sheet.hp)
        self.passes.append(not self.rules.takes_turn(sheet))
        self.idle.append(self._cannot_act(found))
        self._add_views(sheet)
        return found

    def _add_views(self, sheet: Sheet) -> None:
        """The sheet's view: the sheet without its name, its HP and its counters' and resources' values (their keys
        stay); what the rules read of the rest is noted (`Watched`). A sheet whose data names any combatant has none
        (-1)."""
        full: dict[str, Any] = dict(sheet.to_dict())
        plain = {**full}
        del plain["name"]
        plain["hp"] = None
        plain["counters"] = dict.fromkeys(sheet.counters)
        plain["resources"] = dict.fromkeys(sheet.resources)
        text = orjson.dumps(plain, option=orjson.OPT_SORT_KEYS)
        if not self.sharing or any(n in text for n in self.spelled) or any(n in text for n in _ROLES):
            self.view.append(-1)
            self.roles.append(None)
            return
        self.view.append(self._view_id(text))
        self.roles.append((watched({**full, "name": ATTACKER}), watched({**full, "name": TARGET})))

    def _view_id(self, text: bytes) -> int:
        found = self.views.get(text)
        if found is None:
            found = self.views[text] = len(self.views)
        return found

    def _option_id(self, options: Mapping[str, Any]) -> int:
        text = orjson.dumps(options, option=orjson.OPT_SORT_KEYS)
        found = self.option_ids.get(text)
        if found is None:
            found = self.option_ids[text] = len(self.option_ids)
        return found

    def _apply(self, state: list[int], effects: Iterable[Effect]) -> dict[int, Sheet]:
        """The sheets these effects leave (by combatant), from the state's sheets."""
        return {i: Sheet.from_dict(p) for i, p in self._apply_plain(state, effects).items()}

    def _apply_plain(self, state: list[int], effects: Iterable[Effect]) -> dict[int, dict[str, Any]]:
        """The sheets these effects leave (by combatant) as plain data, from the state's sheets."""
        changed: dict[int, dict[str, Any]] = {}
        for e in effects:
            if e.event not in SHEET_EFFECTS:
                continue
            i = self.index.get(e.target)
            if i is None:
                continue  # someone not in the fight (the GM's pool): the forecast does not follow them
            plain = changed.get(i)
            if plain is None:
                plain = dict(self.sheets[state[i]].to_dict())
            changed[i] = apply_effect_dict(plain, e.event, e.data)
        return changed

    # -- the trees of steps ---------------------------------------------------------------------------
    def _walk(
        self,
        trees: dict[Any, Node | Leaf],
        key: Any,
        turn: int,
        names: Callable[[str], str],
        decide: Callable[[Recorder], list[Effect]],
        state: list[int],
        settle: bool = False,
    ) -> Leaf:
        """The step's leaf for this turn's dice: read from the tree, or decided by the rules and kept (`settle`: with
        what follows from it on others, `_settled`)."""
        node = trees.get(key)
        path: dict[str, int] = {}
        parent: Node | None = None
        pick = -1
        while isinstance(node, Node):
            ci = node.pick(turn)
            path[node.name] = ci
            parent, pick = node, ci
            node = node.kids.get(ci)
        if isinstance(node, Leaf):
            return node
        box = Recorder(path, turn, names, self.rolls)
        plain: dict[int, dict[str, Any]] = {}
        try:
            effects = decide(box)
            plain = self._apply_plain(state, effects)
            if settle:
                self._check_settled(state, effects, plain)
        except LedgerError:  # the rules refuse this step (it can't be taken): nothing changes
            effects, plain = [], {}
        leaf = self._leaf_of(plain, effects)
        self._hang(trees, key, [parent, pick], box.asked[len(path) :], leaf, names)  # the rolls beyond the walk
        return leaf

    def _leaf(self, state: list[int], effects: list[Effect]) -> Leaf:
        return self._leaf_of(self._apply_plain(state, effects), effects)

    def _leaf_of(self, plain: dict[int, dict[str, Any]], effects: list[Effect]) -> Leaf:
        """The leaf of a step: the sheets its effects leave (`_apply_plain`), interned, and its attack's hit."""
        changes = tuple(sorted((i, self.intern_plain(p)) for i, p in plain.items()))
        return Leaf(changes, *hit_of(effects))

    def options(self, f: Fighter, me: Sheet) -> Mapping[str, Any]:
        """The plain attack, or (`spend`) the one that spends points while the sheet holds them."""
        if self.spend and f.spend is not None and me.resources.get(f.spend[0], 0) >= f.spend[1]:
            return f.spend[2]
        return f.attack

    def attack_with(self, i: int, j: int, dice: Any) -> Leaf:
        """Combatant i's plain attack on j from the start with these dice (not the stream's), decided by the rules as a
        trial decides it (the equivalence tests give it the faces a recorded ruling took)."""
        state = list(self.initial)
        me, them, f = self.sheets[state[i]], self.sheets[state[j]], self.fighters[i]
        effects = self.rules.own_timed(self.rules.attack(me, them, f.attack, dice), me.name, self.start.version)
        return self._leaf(state, self._settled(state, effects))

    def attack_once(self, t: int, i: int, j: int) -> tuple[Leaf | SharedLeaf, list[int]]:
        """Combatant i's plain attack on j from the start, in trial t's first round (its dice from the stream): the
        outcome, and each combatant's sheet (an index of `sheets`) after it."""
        state = list(self.initial)
        return self._attack(state, i, j, turn_key(trial_key(self.seed, t), i, 1)), state

    def enumerate_attack(self, i: int, j: int) -> list[tuple[Fraction, Leaf]]:
        """Every outcome of combatant i's plain attack on j from the start, with its exact probability: each roll's
        classes in turn, every branch decided by the rules (the exactness tests compare this with exact answers)."""
        state = list(self.initial)
        me, them, f = self.sheets[state[i]], self.sheets[state[j]], self.fighters[i]
        out: list[tuple[Fraction, Leaf]] = []

        def walk(path: dict[str, int], p: Fraction) -> None:
            box = Enumerating(path)
            try:
                effects = self.rules.own_timed(self.rules.attack(me, them, f.attack, box), me.name, self.start.version)
            except Need as need:
                table = classes(need.spec)
                for ci, q in enumerate(table.exact):
                    walk({**path, need.name: ci}, p * q)
                return
            out.append((p, self._leaf(state, effects)))

        walk({}, Fraction(1))
        return out

    # -- one trial -----------------------------------------------------------------------------------
    def trial(self, t: int) -> Outcome:
        """Play trial `t` out."""
        tk = trial_key(self.seed, t)
        state = list(self.initial)
        n = len(state)
        out, sides = self.out, self.sides
        if self.start.planned:
            order = self._initiative(tk, state)
            first, acted = 0, frozenset[str]()
        else:
            order = list(range(n))
            first, acted = self.start.turn, self.start.acted
        passes, quiet_start, quiet_end = self.passes, self.quiet["start"], self.quiet["end"]
        idle, names, planned = self.idle, self.names, self.start.planned
        weakest, sizes, others = self.policy == "focus-weakest", self.sizes, self.others
        # turn_key(tk, i, rnd) = mix(tk ^ actor term ^ round term), the terms made once (dice.turn_key)
        actor_terms = [(a + 1) * 0x9E3779B97F4A7C15 & MASK for a in range(n)]
        attacked = [0] * n  # spread: how often each has been attacked this round
        over = self._winner(state, out, sides) is not None  # decided already: the first turn played ends it
        for rnd in range(1, self.max_rounds + 1):
            attacked = [0] * n
            round_term = (rnd + 1) * 0xC2B2AE3D27D4EB4F & MASK
            for pos in range(first if rnd == 1 else 0, n):
                i = order[pos]
                if passes[state[i]]:  # the rules give it no turn (`passes`)
                    continue
                self.fell = hooked = False
                # turn = mix(tk ^ actor_terms[i] ^ round_term), inlined (dice.mix; the call was 3% of a known trial)
                x = ((tk ^ actor_terms[i] ^ round_term) + 0x9E3779B97F4A7C15) & MASK
                x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
                x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
                turn = x ^ (x >> 31)
                resumed = rnd == 1 and pos == first and not planned
                # a turn point whose rules change nothing without dice (`quiet`), with no duration to count, is
                # skipped (_hook would read its leaf and do nothing: turn points are two thirds of a trial's steps)
                if not resumed and (self.any_timed or state[i] not in quiet_start):
                    self._hook(state, i, "start", turn)
                    hooked = True
                if not (resumed and names[i] in acted) and not idle[state[i]]:
                    if weakest:  # focus-weakest: min((size, j)) over the foes in the fight, a loop (every attack asks)
                        target, least = None, 0
                        for j in others[i]:
                            s = state[j]
                            if not out[s] and (target is None or sizes[s] < least):
                                target, least = j, sizes[s]
                    else:
                        target = self._target(state, i, rnd, attacked)
                    if target is not None:
                        attacked[target] += 1
                        self._attack(state, i, target, turn)
                if self.any_timed or state[i] not in quiet_end:
                    self._hook(state, i, "end", turn)
                    hooked = True
                if over or self.fell or hooked:  # only a turn point, or an attack someone fell to, can end it
                    winner = self._winner(state, out, sides)
                    if winner is not None:
                        return Outcome(winner, rnd, tuple(out[s] for s in state))
        return Outcome(None, self.max_rounds, tuple(out[s] for s in state))

    def _winner(self, state: list[int], out: list[bool], sides: list[str]) -> str | None:
        heroes_up = foes_up = False
        for i, s in enumerate(state):
            if not out[s]:
                side = sides[i]
                if side == HEROES:
                    heroes_up = True
                elif side == FOES:
                    foes_up = True
        if heroes_up and foes_up:
            return None  # both sides still in the fight
        if heroes_up:
            return HEROES
        if foes_up:
            return FOES
        return DRAW  # both sides down at once

    def _cannot_act(self, sid: int) -> bool:
        sheet = self.sheets[sid]
        return self.rules.no_action(sheet) is not None or self.rules.no_turn(sheet) is not None or self.out[sid]

    def _target(self, state: list[int], i: int, rnd: int, attacked: list[int]) -> int | None:
        """The target focus-dangerous or spread picks among the other side's combatants still in the fight
        (focus-weakest's, the least size then the first, is picked in `trial`)."""
        sides, out = self.sides, self.out
        mine = sides[i]
        foes = [j for j, s in enumerate(state) if sides[j] != mine and not out[s]]
        if not foes:
            return None
        if self.policy == "focus-dangerous":
            return min(foes, key=lambda j: (-self.fighters[j].danger, self.sizes[state[j]], j))
        return min(foes, key=lambda j: (attacked[j], (j - i - rnd) % len(state)))

    def _attack(self, state: list[int], i: int, j: int, turn: int) -> Leaf | SharedLeaf:
        """Combatant i attacks combatant j: `ledger attack I J --with POWER`, decided by the rules.

        An attack is keyed by the two sheets' views (`_add_views`), so identical combatants under different names,
        and an attacker whose HP or counts differ, share one tree: the rules are asked with the sheets named
        ATTACKER and TARGET, and each leaf keeps the sheet effects on either role (`SharedLeaf`), applied to the
        sheets of the pair at hand. A view leaves out nothing the rules read: the attacker's sheet is `Watched`,
        and a branch on which the rules (or the aftermath) read its HP or a counter's or a resource's value is
        marked UNSAFE and every pair reaching it is decided on its own (`_attack_named`). Either way a trial plays
        exactly what the rules decide for its own sheets (tests/unit/test_odds_engine.py)."""
        a, t = state[i], state[j]
        # where the walk of this pair of sheets gets to before its first roll, kept: the reads up to there give the
        # same values every time, and a node once hung stays
        pair = ((a << 20) | t) * self.nf + i
        stage: Any = None
        node: Any = self.entries.get(pair)
        if node is None:
            av, tv = self.view[a], self.view[t]
            if av < 0 or tv < 0:
                return self._attack_named(state, i, j, turn)
            node = self.shared.get(self._key3(state, i, j))
            while type(node) is Read:
                node = node.kids.get(node.value(self.sheets[t if node.role else a]))
            if type(node) is Node and t < 1 << 20:
                self.entries[pair] = node
        while True:
            while type(node) is Node:  # Node.pick, inlined (dice.draw and Classes.pick): most attacks are walks
                node = node.kids.get(bisect_right(node.thresholds, ((turn ^ node.pid) * SPREAD & MASK) >> 11))
            kind = type(node)
            if kind is Read:
                sheet = self.sheets[t if node.role else a]
                if node.key is None:
                    node = node.kids.get(sheet.hp)
                else:
                    node = node.kids.get((sheet.counters if node.part == "counters" else sheet.resources)[node.key])
            elif kind is Stage:
                stage = node
                node = node.root
            else:
                break
        if type(node) is StageEnd:
            leaf = stage.leaves.get(node)
            if leaf is None:
                leaf = self._settle_stage(stage, node, a, t)
            node = leaf
        if node is None:
            node = self._attack_shared(state, i, j, turn, self._key3(state, i, j))
        if isinstance(node, SharedLeaf):
            out = self.out
            for role, bid, table in node.parts:
                k = j if role else i
                s = state[k]
                new = table.get(s)
                if new is None:
                    new = self._apply_bundle(bid, s, i, j)
                if out[new] != out[s]:
                    self.fell = True  # someone fell (or rose): the fight may be over
                state[k] = new
            return node
        return self._attack_named(state, i, j, turn)

    def _key3(self, state: list[int], i: int, j: int) -> tuple[int, int, int]:
        """The key of the shared tree of combatant i's attack on j: the two views and the attack's options."""
        a = state[i]
        opt = self._option_id(self.options(self.fighters[i], self.sheets[a])) if self.spend else self.plain_options[i]
        return (self.view[a], self.view[state[j]], opt)

    def _attack_shared(
        self, state: list[int], i: int, j: int, turn: int, key3: tuple[int, int, int]
    ) -> SharedLeaf | Unsafe:
        """A shared branch reached for the first time: decided by the rules with the sheets named ATTACKER and
        TARGET, and kept with a `Read` wherever the rules read a value the views leave out (UNSAFE where the aftermath
        reads such a value of a sheet as the step leaves it). An attack that ends by handing its work to a staged
        part is kept as a `Stage`: what came before in this tree, the part's rolls and reads in the part's own."""
        a, t = state[i], state[j]
        pair = (self.sheets[a], self.sheets[t])
        node: Any = self.shared.get(key3)
        path: dict[str, int] = {}
        # where the walk stopped, in this tree (parent, pick, steps walked) and in a stage's, if it went through one
        spot: list[Any] = [None, -1, 0]
        stage: Stage | None = None
        outer = 0  # the steps walked in this tree before a stage
        part: dict[str, int] = {}  # the classes of the rolls walked in a stage's part
        while node is not None:
            if isinstance(node, Node):
                pick = node.pick(turn)
                (path if stage is None else part)[node.name] = pick
            elif isinstance(node, Read):
                pick = node.value(pair[node.role])
            elif isinstance(node, Stage):
                stage, spot, outer = node, [None, -1, spot[2]], spot[2]
                node = self.stages[node.key]
                continue
            else:
                break
            spot = [node, pick, spot[2] + 1]
            node = node.kids.get(pick)
        if stage is not None:  # the attack is known up to its stage: only the part is run
            return self._attack_part(stage, spot, spot[2] - outer, part, turn, (a, t))
        box = Recorder(path, turn, _same, self.rolls)
        watch = Watch(box)
        self.calls += 1
        roles_a, roles_t = self.roles[a], self.roles[t]
        assert roles_a is not None and roles_t is not None
        me, them = roles_a[0].watch(watch, 0), roles_t[1].watch(watch, 1)
        staging: dict[str, Any] = {}

        def stager(rule: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            key = None if staging else self._stage_key(rule, args, kwargs, (me, them, box), (a, t))
            if key is None:  # a second staged part, or arguments with no key: nothing is staged
                staging["none"] = True
                return rule(*args, **kwargs)
            given = {id(me): _PARTS[0], id(them): _PARTS[1], id(box): _PARTS[2]}
            staging["call"] = (
                rule,
                tuple(given.get(id(v), v) for v in args),
                {k: given.get(id(v), v) for k, v in kwargs.items()},
            )
            entry = len(box.asked) + len(watch.reads)
            known = self._stage_end(key, box, pair)
            if known is not None:  # the part's tree has this outcome: the part is not run again
                staging.update(key=key, entry=entry, exit=entry, out=known.effects, end=known)
                return list(known.effects)
            out = rule(*args, **kwargs)
            staging.update(key=key, entry=entry, exit=len(box.asked) + len(watch.reads), out=out)
            return out

        box.stager = stager
        f, rules = self.fighters[i], self.rules
        options = self.options(f, pair[0])
        raw: list[Effect] | None = None
        settled: tuple[list[tuple[int, int, dict[Any, int]]], bool, bool] = ([], False, False)
        try:
            raw = rules.attack(me, them, options, box)
            if not self._staged(staging, raw, box, watch):
                settled = self._settle_shared(raw, me, them, pair)
        except LedgerError:  # the rules refuse this step (it can't be taken): nothing changes
            raw, settled = None, ([], False, False)
        finally:
            me.watch(None, 0)
            them.watch(None, 1)
            box.stager = None  # (the stager holds the box: no cycle left behind)
        steps = _steps(box, watch)
        if raw is not None and self._staged(staging, raw, box, watch):
            k = len(staging["out"])
            before, entry = tuple(raw[: len(raw) - k]), staging["entry"]
            end = staging.get("end") or StageEnd(tuple(staging["out"]))
            # the walk stopped before any stage: this tree up to the stage, then the part's own, as far as it goes
            if spot[2] > entry:
                return UNSAFE  # (cannot happen: the walk follows the steps this call took)
            sig = settling(before, self.view[a])
            stage = Stage(staging["key"], before, self._combos(sig), sig, staging["call"])
            self._hang(self.shared, key3, spot, steps[spot[2] : entry], stage)
            if "end" not in staging:  # the part was run: its tree had no branch for this outcome
                node, spot = self.stages.get(stage.key), [None, -1, entry]
                while isinstance(node, (Node, Read)) and spot[2] < len(steps):
                    step = steps[spot[2]]
                    pick = step[4] if len(step) == 5 else step[2]
                    spot = [node, pick, spot[2] + 1]
                    node = node.kids.get(pick)
                if node is not None:
                    return UNSAFE  # (cannot happen: the part's tree follows the steps this call took)
                self._hang(self.stages, stage.key, spot, steps[spot[2] :], end)
            stage.root = self.stages[stage.key]
            found = stage.leaves.get(end)
            if found is None:
                found = self._settle_stage(stage, end, a, t)
            return found
        parts, hit, critical = settled
        leaf = UNSAFE if watch.after else SharedLeaf(tuple(parts), hit, critical)
        self._hang(self.shared, key3, spot, steps[spot[2] :], leaf)
        return leaf

    def _attack_part(
        self, stage: Stage, spot: list[Any], walked: int, part: dict[str, int], turn: int, sids: tuple[int, int]
    ) -> SharedLeaf | Unsafe:
        """A staged part's branch reached for the first time by an attack known up to its stage: the part alone is
        run, with the two sheets named ATTACKER and TARGET (watched) and this turn's dice, and its outcome kept."""
        a, t = sids
        box = Recorder(part, turn, _same, self.rolls)
        watch = Watch(box)
        self.calls += 1
        roles_a, roles_t = self.roles[a], self.roles[t]
        assert roles_a is not None and roles_t is not None
        given = dict(zip(_PARTS, (roles_a[0].watch(watch, 0), roles_t[1].watch(watch, 1), box), strict=True))
        rule, args, kwargs = stage.call

        def arg(v: Any) -> Any:
            return given[v] if isinstance(v, _Given) else v

        try:
            out = rule(*(arg(v) for v in args), **{k: arg(v) for k, v in kwargs.items()})
        except LedgerError:
            return UNSAFE  # (the part refuses: the whole attack is decided on its own)
        finally:
            roles_a[0].watch(None, 0)
            roles_t[1].watch(None, 1)
        end = StageEnd(tuple(out))
        self._hang(self.stages, stage.key, spot, _steps(box, watch)[walked:], end)
        return self._settle_stage(stage, end, a, t)

    def _stage_end(self, key: bytes, box: Recorder, pair: tuple[Sheet, Sheet]) -> StageEnd | None:
        """The outcome a staged part's tree already has for this attack's dice and sheets, if any (its rolls classed
        as the box classes them, its reads read from the two sheets)."""
        node = self.stages.get(key)
        while node is not None:
            if isinstance(node, Node):
                ci = box.path.get(node.name)
                node = node.kids.get(node.pick(box.turn) if ci is None else ci)
            elif isinstance(node, Read):
                node = node.kids.get(node.value(pair[node.role]))
            else:
                return node if isinstance(node, StageEnd) else None
        return None

    def _combos(self, sig: bytes) -> dict[StageEnd, SharedLeaf | Unsafe]:
        """The leaves a stage's outcomes make with the effects before it, shared by every stage whose effects before
        it settle alike (`settling`), for attackers of one view: what settles a step (`RuleSystem.own_timed`,
        `aftermath`) reads only its sheet effects (tests/unit/test_odds_engine.py)."""
        return self.combos.setdefault(sig, {})

    def _settle_stage(self, stage: Stage, end: StageEnd, a: int, t: int) -> SharedLeaf | Unsafe:
        """The leaf of a stage's outcome, settled once for every outcome of a stage that settles alike against
        targets of one view (`settling`)."""
        key = (stage.sig, self.view[t], end.sig)
        found = self.settled.get(key)
        if found is None:
            found = self.settled[key] = self._finish(stage.before, end.effects, a, t)
        stage.leaves[end] = found
        return found

    @staticmethod
    def _staged(staging: dict[str, Any], raw: list[Effect], box: Recorder, watch: Watch) -> bool:
        """Whether the attack handed the rest of its work to its one staged part: nothing was rolled or read after
        it, and the attack's effects end with the part's own."""
        if "key" not in staging or "none" in staging or staging["exit"] != len(box.asked) + len(watch.reads):
            return False
        out = staging["out"]
        k = len(out)
        return len(raw) >= k and all(x is y for x, y in zip(raw[len(raw) - k :], out, strict=True))

    def _stage_key(
        self,
        rule: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        given: tuple[Sheet, Sheet, Recorder],
        sids: tuple[int, int],
    ) -> bytes | None:
        """A staged part's key: the rule and its arguments, the attacker's and the target's sheets by role and view,
        the dice by name; None when an argument is anything else that is not plain data."""
        me, them, box = given

        def plain(v: Any) -> Any:
            if v is me:
                return ["attacker", self.view[sids[0]]]
            if v is them:
                return ["target", self.view[sids[1]]]
            if v is box:
                return ["dice"]
            if isinstance(v, Sheet) or callable(v):
                raise TypeError(v)
            return v

        try:
            named = {k: plain(v) for k, v in kwargs.items()}
            return orjson.dumps(
                [rule.__module__, rule.__qualname__, [plain(v) for v in args], named], option=orjson.OPT_SORT_KEYS
            )
        except TypeError:
            return None

    def _settle_shared(
        self, raw: list[Effect], me: Sheet, them: Sheet, pair: tuple[Sheet, Sheet]
    ) -> tuple[list[tuple[int, int, dict[Any, int]]], bool, bool]:
        """An attack's effects (the sheets named ATTACKER and TARGET, watched) as a shared leaf's parts, hit and
        critical hit; LedgerError when they have an aftermath (a step whose outcome reaches others is not simulated).
        The sheets the effects leave are watched as such (`after`): a value of theirs the aftermath reads marks the
        leaf UNSAFE."""
        effects = self.rules.own_timed(raw, ATTACKER, self.start.version)
        roles = {ATTACKER: 0, TARGET: 1}
        mine: dict[int, list[tuple[str, Mapping[str, Any]]]] = {}
        for e in effects:
            role = roles.get(e.target)
            if e.event in SHEET_EFFECTS and role is not None:
                mine.setdefault(role, []).append((e.event, e.data))
        built: dict[int, Sheet] = {}
        watch = me.__dict__["_noting"].watch

        def sheet_of(name: str) -> Sheet:
            role = roles.get(name)
            if role is None:
                raise LedgerError("a step whose outcome reaches others is not simulated")  # noqa: EM101
            if role not in mine:
                return me if role == 0 else them
            found = built.get(role)
            if found is None:
                plain: dict[str, Any] = dict(Sheet.to_dict(pair[role]))
                plain["name"] = ATTACKER if role == 0 else TARGET
                for event, data in mine[role]:
                    plain = apply_effect_dict(plain, event, data)
                found = built[role] = watched(plain).watch(watch, role, after=True)
            return found

        if self.rules.aftermath(effects, sheet_of):
            raise LedgerError("a step whose outcome reaches others is not simulated")  # noqa: EM101
        parts = [
            (role, bid, self.applied[bid])
            for role, bundle in sorted(mine.items())
            if (bid := self._bundle_id(bundle, pair[role])) >= 0
        ]
        return (parts, *hit_of(effects))

    def _finish(self, before: tuple[Effect, ...], after: tuple[Effect, ...], a: int, t: int) -> SharedLeaf | Unsafe:
        """The leaf of an attack that made `before` and handed the rest to a staged part that returned `after`, for
        every pair of sheets of these views: UNSAFE when settling it reads a value the views leave out."""
        watch = Watch(Recorder({}, 0, _same))
        roles_a, roles_t = self.roles[a], self.roles[t]
        assert roles_a is not None and roles_t is not None
        me, them = roles_a[0].watch(watch, 0), roles_t[1].watch(watch, 1)
        try:
            parts, hit, critical = self._settle_shared([*before, *after], me, them, (self.sheets[a], self.sheets[t]))
        except LedgerError:
            parts, hit, critical = [], False, False
        finally:
            me.watch(None, 0)
            them.watch(None, 1)
        if watch.reads or watch.after:
            return UNSAFE
        return SharedLeaf(tuple(parts), hit, critical)

    @staticmethod
    def _hang(
        trees: dict[Any, Any], key: Any, spot: list[Any], steps: list[Any], end: Any, names: Callable[[str], str] = str
    ) -> None:
        """Hang these steps (reads and rolls, as `_steps` gives them) and their end below where a walk stopped (the
        tree's root when it stopped before its first node); a roll is drawn under `names` of its name."""
        tail = end
        for step in reversed(steps):
            if len(step) == 5:  # a read: (depth, role, part, key, value)
                n: Node | Read = Read(step[1], step[2], step[3])
                n.kids[step[4]] = tail
            else:
                name, spec, ci = step
                n = Node(name, spec, classes(spec), purpose(names(name)))
                n.kids[ci] = tail
            tail = n
        parent, pick = spot[0], spot[1]
        if parent is None:
            trees[key] = tail
        else:
            parent.kids[pick] = tail

    def _bundle_id(self, bundle: list[tuple[str, Mapping[str, Any]]], sheet: Sheet) -> int:
        """The number of a bundle of sheet effects (made when new), this sheet one it is
        applied to: the bundle is named when the names reach the sheet it leaves (a note naming the attacker does
        not; a counter keyed by the target's name does). The sheets of a view name nobody, so whether they do is the
        same for them all."""
        text = orjson.dumps(bundle, option=orjson.OPT_SORT_KEYS)
        found = self.bundle_ids.get(text)
        if found is None:
            found = self.bundle_ids[text] = len(self.bundles)
            self.bundles.append(tuple(bundle))
            named = False
            if ATTACKER.encode() in text or TARGET.encode() in text:
                plain: dict[str, Any] = dict(sheet.to_dict())
                for event, data in bundle:
                    plain = apply_effect_dict(plain, event, data)
                del plain["name"]
                left = orjson.dumps(plain)
                named = any(r in left for r in _ROLES)
            self.bundle_named.append(named)
            self.applied.append({})
        return found

    def _apply_bundle(self, bid: int, s: int, i: int, j: int) -> int:
        """The sheet a shared leaf's bundle leaves of sheet s (combatant i attacking j: the names its data gives),
        kept by sheet (`applied`), or by sheet and pair when its data names the attacker or the target."""
        bundle = self.bundles[bid]
        named = self.bundle_named[bid]
        if named:
            found = self.named_applied.get((bid, s, i, j))
            if found is not None:
                return found
            text = orjson.dumps(bundle)
            for role, k in ((ATTACKER, i), (TARGET, j)):
                text = text.replace(role.encode(), self.spelled[k])
            bundle = tuple((e, d) for e, d in orjson.loads(text))
        plain: dict[str, Any] = dict(self.sheets[s].to_dict())
        for event, data in bundle:
            plain = apply_effect_dict(plain, event, data)
        new = self.intern_plain(plain)
        if named:
            self.named_applied[(bid, s, i, j)] = new
        else:
            self.applied[bid][s] = new
        return new

    def _attack_named(self, state: list[int], i: int, j: int, turn: int) -> Leaf:
        """Combatant i attacks combatant j, keyed by their own two sheets."""
        key = (state[i], state[j])
        # the branches already decided, read without a call (the walk of _walk, inlined: most attacks end here)
        node = self.attacks.get(key)
        while isinstance(node, Node):
            node = node.kids.get(node.pick(turn))
        leaf = node if node is not None else self._attack_first(state, i, j, turn, key)
        out = self.out
        for k, s in leaf.changes:
            if out[s] != out[state[k]]:
                self.fell = True
            state[k] = s
        return leaf

    def _attack_first(self, state: list[int], i: int, j: int, turn: int, key: tuple[int, int]) -> Leaf:
        """An attack's branch reached for the first time: decided by the rules and kept."""
        me, them, f = self.sheets[state[i]], self.sheets[state[j]], self.fighters[i]
        rules, version = self.rules, self.start.version
        options = self.options(f, me)

        def decide(box: Recorder) -> list[Effect]:
            self.calls += 1
            return rules.own_timed(rules.attack(me, them, options, box), me.name, version)

        return self._walk(self.attacks, key, turn, _same, decide, state, settle=True)

    def _settled(self, state: list[int], effects: list[Effect]) -> list[Effect]:
        """The effects with what follows from them on others (`RuleSystem.aftermath`), as the draft records them."""
        self._check_settled(state, effects, self._apply_plain(state, effects))
        return effects

    def _check_settled(self, state: list[int], effects: list[Effect], plain: dict[int, dict[str, Any]]) -> None:
        """LedgerError when the effects (leaving these sheets, as plain data) have an aftermath on others."""
        after: dict[int, Sheet] = {}

        def sheet_of(name: str) -> Sheet:
            k = self.index[name]
            p = plain.get(k)
            if p is None:
                return self.sheets[state[k]]
            found = after.get(k)
            if found is None:  # built only when the rules read it (most aftermaths read no sheet)
                found = after[k] = Sheet.from_dict(p)
            return found

        more = self.rules.aftermath(effects, sheet_of)
        if more:
            raise LedgerError("a step whose outcome reaches others is not simulated")  # noqa: EM101

    def _hook(self, state: list[int], i: int, when: str, turn: int) -> None:
        """The start or end of combatant i's turn: the rules' processing, then every duration it counts."""
        key = state[i]
        trees = self.hooks[when]
        # the branches already decided, read without a call (the walk of _walk, inlined: most turn points end here)
        node = trees.get(key)
        while isinstance(node, Node):
            node = node.kids.get(node.pick(turn))
        if node is None:
            rules = self.rules
            sheet = self.sheets[state[i]]
            hook = rules.start_of_turn if when == "start" else rules.end_of_turn

            def decide(box: Recorder) -> list[Effect]:
                return _without_ending(sheet, when, hook(sheet, box))

            node = self._walk(trees, key, turn, _HOOK_NAMES[when], decide, state)
        if not node.changes and trees.get(key) is node:  # a leaf without dice that changes nothing: quiet
            self.quiet[when].add(key)
        for k, s in node.changes:
            state[k] = s
        if not self.any_timed:  # no sheet met so far holds a duration: there is nothing to count
            return
        timed = self.timed
        for k, s in enumerate(state):
            if not timed[s]:
                continue
            tick = (s, i, when)
            found = self.ticks.get(tick)
            if found is None:
                found = self.ticks[tick] = self._tick(self.sheets[s], self.names[i], when)
            state[k] = found

    def _tick(self, sheet: Sheet, who: str, when: str) -> int:
        """A sheet after the durations `who`'s turn point counts (as ledger/rulings/deciders/durations.py runs them)."""
        rules = self.rules
        changes, ended = durations.tick(sheet, who, when, rules.held_effects(sheet))
        if not changes and not ended:
            return self.intern(sheet)
        effects: list[Effect] = []
        held = rules.held_effects(sheet)
        for condition, why in ended:
            if condition in held and not sheet.has(condition):
                effects += rules.end_effect(sheet, condition, why)
                continue
            try:
                effects += rules.remove(sheet, condition)
            except LedgerError:
                continue
        if changes:
            effects.append(Effect(COUNTERS_CHANGED, sheet.name, {"counters": changes}))
        plain = dict(sheet.to_dict())
        for e in effects:
            if e.event in SHEET_EFFECTS and e.target == sheet.name:
                plain = apply_effect_dict(plain, e.event, e.data)
        return self.intern_plain(plain)

    def _initiative(self, tk: int, state: list[int]) -> list[int]:
        """A planned fight's order for this trial: each rolls initiative by the rules; ties as `encounter start`."""
        rules = self.rules
        keys: list[tuple[Any, ...]] = []
        for i, s in enumerate(state):
            turn = turn_key(tk, i, 0)
            names = self.initiative_rolls.get(s, ())
            path = {n: c.pick(draw(turn, purpose("initiative:" + n))) for n, c in names}
            key = (s, tuple(path.values()))
            total = self.initiatives.get(key)
            if total is None:
                box = Recorder(path, turn, lambda n: "initiative:" + n)
                total, _ = rules.initiative(self.sheets[s], box)
                self.initiative_rolls[s] = tuple((n, classes(spec)) for n, spec, _ in box.asked)
                key = (s, tuple(ci for _, _, ci in box.asked))
                self.initiatives[key] = total
            sheet = self.sheets[s]
            sign = -1 if rules.ties_descending else 1
            tie = tuple(sign * v for v in rules.tie_break_key(sheet))
            keys.append((not rules.seizes_initiative(sheet), -total, tie, i))
        return [k[-1] for k in sorted(keys)]


def _steps(box: Recorder, watch: Watch) -> list[Any]:
    """A call's steps in the order taken: the reads noted before each roll, then the roll."""
    steps: list[Any] = []
    reads = iter(watch.reads)
    pending = next(reads, None)
    for depth in range(len(box.asked) + 1):
        while pending is not None and pending[0] == depth:
            steps.append(pending)
            pending = next(reads, None)
        if depth < len(box.asked):
            steps.append(box.asked[depth])
    return steps


def _same(name: str) -> str:
    return name


def _hook_name(when: str) -> Callable[[str], str]:
    prefix = f"{when}:"
    return lambda name: prefix + name


_HOOK_NAMES = {"start": _hook_name("start"), "end": _hook_name("end")}


def _without_ending(sheet: Sheet, when: str, effects: list[Effect]) -> list[Effect]:
    """A hook's effects without removals a duration ends at this very point (deciders/durations.left_to_durations)."""
    own = durations.name_key(sheet.name)
    ending = {
        p[2]
        for k, v in sheet.counters.items()
        if v == 1 and (p := durations.parse(k)) is not None and p[0] == f"until-{when}"
        if p[1] is not None and durations.name_key(p[1]) == own
    }
    return [
        e
        for e in effects
        if not (e.event == CONDITION_REMOVED and e.target == sheet.name and e.data.get("condition") in ending)
    ]


def run(sim: Simulator, trials: Sequence[int]) -> list[Outcome]:
    """Play these trials out."""
    return [sim.trial(t) for t in trials]
