"""The rule-system contract: every call the deciders make on a rule system, in one base class.

A rule system is a package `ledger/rules/<key>/` whose `RULES` is an instance of a `RuleSystem` subclass.
Rules are pure: (sheets, intent, dice faces) -> effects; dice come from a `Dice` provider that hands back
recorded or entered faces (or rolls them, outside the rule). What a system does not have is refused by the
default methods here with one clear line (`NotInThisSystem`), never probed with `hasattr`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from ledger.errors import BadInput, LedgerError, did_you_mean
from ledger.model.dice import Dice, DiceSpec, Roll, parse_notation
from ledger.model.sheet import (
    CONDITION_REMOVED,
    COUNTERS_CHANGED,
    EFFECT_RESOLVED,
    RESOURCE_CHANGED,
    Effect,
    Sheet,
    Value,
)
from ledger.rules.common import parse_duration
from ledger.rules.options import Opt, Options, Role, parse_options, suggest

Perform = Callable[[Sheet, "Sheet | None", Options, Dice], list[Effect]]

CURRENT = 6  # the rules' version a ruling recorded now carries (`tracker` in an encounter, `rules` outside one):
# rulings carrying an older one (or none) are decided again by the rules as they were then (`RuleSystem.at`)
FOURTH = 4  # from 4: where two mechanisms meet (timed effects with one owner, the action limits of conditions, ...)
FIFTH = 5  # from 5: the tracker's natural order, a side all down by a departure, d20's reactions refreshed on the
# bearer's own turn (ledger/rulings/deciders/durations.py NATURAL)
SIXTH = 6  # from 6: d20 refuses an ability's full name as a trait key (`strength=14` would be a skill of +14); an
# H&H timed condition that progressed its row is held through the progression (ledger/rules/hnh/conditions.py)


class LowestFaces:
    """Dice for asking the rules whether something can be done at all: the lowest faces (the result is thrown away;
    only a refusal matters)."""

    def take(self, name: str, spec: DiceSpec) -> Roll:
        return Roll(name, spec, (spec.face_range()[0],) * spec.count, "entered")


class NotInThisSystem(BadInput):
    """A command or option the campaign's rule system does not have."""


@dataclass(frozen=True)
class Action:
    """A system-specific action, `ledger act NAME ACTION`: its options, rolls and the rule that performs it."""

    name: str
    help: str
    perform: Perform
    source: str = ""
    options: tuple[Opt, ...] = ()
    rolls: Mapping[str, Role] = field(default_factory=dict)
    other: Literal["needed", "optional", "none"] = "none"  # the second character (`--against NAME`)


@dataclass(frozen=True)
class Recovery:
    """What a `recover` command asks for; each system reads the parts its rules have."""

    hours: int = 0
    restful: bool = False
    treated: bool = False
    amount: int | None = None
    cause: str | None = None
    options: Options = field(default_factory=dict)


class RuleSystem:
    """One game system. Subclasses set the class attributes and implement the rules their text has."""

    key: ClassVar[str]
    title: ClassVar[str]
    conditions: ClassVar[frozenset[str]]
    options: ClassVar[Mapping[str, tuple[Opt, ...]]] = {}  # command -> the options its rules read
    rolls: ClassVar[Mapping[str, Mapping[str, Role]]] = {}  # command -> roll name -> whose roll it is
    actions: ClassVar[Mapping[str, Action]] = {}  # `ledger act` actions
    turn_rolls: ClassVar[tuple[str, ...]] = ()  # rolls a turn hook may take ("ongoing-" matches a prefix)
    ties_descending: ClassVar[bool] = True  # whether tie_break_key sorts highest first
    scenes: ClassVar[bool] = False  # whether the text has scenes that end (`ledger scene end`; P&P)
    version: int = CURRENT  # the rules' version this instance decides by (`at`)
    # condition -> the counters that are part of it and go when it goes (d20: a charge's -2 DR), from version 4
    marks: ClassVar[Mapping[str, tuple[str, ...]]] = {}

    def at(self, version: int) -> RuleSystem:
        """These rules as they decided a ruling of `version` (0: recorded before rulings carried one)."""
        if version == self.version:
            return self
        other = copy.copy(self)
        other.version = version
        return other

    in_fight: bool = True  # whether an encounter is running for the ruling being decided (`outside`)

    def outside(self) -> RuleSystem:
        """These rules for a ruling decided with no encounter running (no turn or round counts anything)."""
        other = copy.copy(self)
        other.in_fight = False
        return other

    def since(self, version: int) -> bool:
        """Whether the ruling being decided is of `version` or later (a change of rules gated by it)."""
        return self.version >= version

    # -- declarations ---------------------------------------------------------------------------
    def declared(self, command: str) -> tuple[Opt, ...]:
        """The options a command (or `act ACTION`) understands in this system."""
        if command.startswith("act "):
            return self.action(command[4:]).options
        return self.options.get(command, ())

    def parse_options(self, command: str, given: Options) -> dict[str, Any]:
        """Typed options, validated against this system's declarations (BadInput with a suggestion)."""
        return parse_options(self.declared(command), given, where=f"{self.key} {command}")

    def action(self, name: str) -> Action:
        """A `ledger act` action of this system."""
        found = self.actions.get(name.strip().lower())
        if found is None:
            raise NotInThisSystem(f"'{name}' is not an action in {self.title}", suggest(name, self.actions))
        return found

    def roll_owners(self, command: str) -> Mapping[str, Role]:
        """Whose each named roll of a command is (`act ACTION` included)."""
        if command.startswith("act "):
            return self.action(command[4:]).rolls
        return self.rolls.get(command, {})

    def refuse(self, what: str, hint: str | None = None) -> NotInThisSystem:
        """The refusal of something this system's text does not have."""
        return NotInThisSystem(f"{what} is not in the rules of {self.title}", hint)

    # -- what every system has ------------------------------------------------------------------
    def parse_trait(self, key: str, value: str) -> Value:
        """Validate one `--trait KEY=VALUE`; BadInput on a bad value."""
        raise NotImplementedError

    def power_parts(
        self, given: Mapping[str, Mapping[str, str]], traits: Mapping[str, str]
    ) -> dict[str, dict[str, Any]]:
        """Typed parts of powers set from the command line (`character add --power`), kept on the sheet."""
        raise self.refuse("powers with parts", "give the power's rank as a trait")

    def new_sheet(self, name: str, traits: Mapping[str, Value], *, minion: bool, count: int, pc: bool) -> Sheet:
        """A fresh character: max HP (or Health) and starting resources derived from the traits."""
        raise NotImplementedError

    def damage(self, sheet: Sheet, amount: int, *, subdual: bool) -> list[Effect]:
        """Direct loss of `amount` HP (no resistance roll), with the system's floors and HP conditions."""
        raise NotImplementedError

    def impose(self, sheet: Sheet, condition: str) -> list[Effect]:
        """Impose a condition the GM rules (progressions and supersession applied)."""
        raise NotImplementedError

    def remove(self, sheet: Sheet, condition: str) -> list[Effect]:
        """Remove a condition the GM rules gone."""
        raise NotImplementedError

    def progresses(self, condition: str) -> bool:
        """Whether imposing a condition the character already has can take it further (H&H progressive rows)."""
        return False

    def holds(self, sheet: Sheet, condition: str) -> bool:
        """Whether `condition remove` has something to take away: the condition imposed (or, where the system has
        combined conditions, a part of one)."""
        return sheet.has(condition)

    def condition_help(self, condition: str) -> str:
        """A few words on a condition for completion (what it brings with it); none by default."""
        return ""

    def implied_by(self, sheet: Sheet, condition: str) -> tuple[str, ...]:
        """The imposed conditions that bring `condition` with them (H&H: incapacitated brings stunned); none by
        default."""
        return ()

    def derived(self, sheet: Sheet) -> dict[str, Any]:
        """Values computed from the sheet for display: implied conditions, modifiers, defenses."""
        raise NotImplementedError

    def roll_spec(self, expr: str) -> DiceSpec:
        """How this system reads free-roll notation (ordinary notation unless the system says otherwise)."""
        return parse_notation(expr)

    def entered_spec(self, name: str, text: str, options: Options) -> DiceSpec:
        """The dice an entered roll of this name is (for one entered but not used after all)."""
        raise NotImplementedError

    def attack(self, attacker: Sheet, target: Sheet, options: Options, dice: Dice) -> list[Effect]:
        """One attack, with the options declared for `attack`."""
        raise NotImplementedError

    def attack_area(
        self, attacker: Sheet, caught: Sequence[tuple[Sheet, int]], options: Mapping[str, Any], dice: Dice
    ) -> list[Effect]:
        """One area attack on several targets (each with how many of a minion group are caught)."""
        raise self.refuse("an area attack on several targets", "attack one target at a time")

    def check_traits(self, sheet: Sheet) -> list[str]:
        """What a check of this character can roll, in the order to offer it (a player's page): the sheet's traits by
        default."""
        return sorted(sheet.traits)

    def can_check(self, sheet: Sheet, trait: str) -> bool:
        """Whether these rules let the character check this trait at all, asked as a ruling asks them (with a DC, the
        GM's to set): d20's sheet numbers (hp, attack, armor, ...) are no skill to check (d20-supers.txt, Collosal
        Failures and Spectacular Success: "when doing skills"). For a player's page and the shell's completion: only
        a refusal of the input counts, the roll is thrown away."""
        try:
            self.check(sheet, trait, dc=10, against=None, options={}, dice=LowestFaces())
        except BadInput:
            return False
        except LedgerError:
            return True
        return True

    def check(
        self,
        sheet: Sheet,
        trait: str,
        *,
        dc: int | None,
        against: tuple[Sheet, str] | None,
        options: Options,
        dice: Dice,
    ) -> list[Effect]:
        """A check against a DC (or the system's threshold option) or opposed by another character's trait."""
        raise NotImplementedError

    def initiative(self, sheet: Sheet, dice: Dice) -> tuple[int, list[Effect]]:
        """A participant's initiative total (roll `initiative`, if the system rolls one)."""
        raise NotImplementedError

    def seizes_initiative(self, sheet: Sheet) -> bool:
        """Whether this character goes first whatever the initiative totals (H&H Seize Initiative)."""
        return False

    def tie_break_key(self, sheet: Sheet) -> tuple[Any, ...]:
        """How equal initiatives are ordered (see `ties_descending`)."""
        raise NotImplementedError

    def takes_turn(self, sheet: Sheet) -> bool:
        """Whether the turn order still gives this participant turns (`encounter next` passes over the others).

        By default the dead and a minion group with no one left standing have none; a system whose text gives
        the fallen a turn (H&H: the dying check at the start of the dying character's turn) keeps it.
        """
        return not sheet.has("dead") and not (sheet.minion and sheet.count <= 0)

    def timed(self, sheet: Sheet) -> dict[str, str]:
        """What is left of the rules' own timed effects, by condition, as the tracker shows durations
        (ledger/rules/durations.py `left`): `2` (rounds or pages), `until start of NAME`, `scene`."""
        return {}

    def own_timed(self, effects: list[Effect], up: str | None = None, version: int = 2) -> list[Effect]:
        """These effects with the rules' own timed effects among them given as durations (ledger/rules/durations.py
        counters), so the turn hooks run them out and say so as they do the GM's (`up`: who is up in the running
        encounter: a turn of theirs in progress is not their next; `version`: the tracker's version of the ruling,
        ledger/rulings/deciders/durations.py: each version converts what it converted when it was recorded);
        unchanged by default. It reads only the effects that change sheets, and leaves the others as they are (the
        fight simulator settles many attacks at once on that: tests/unit/test_odds_engine.py)."""
        return effects

    def held_effects(self, sheet: Sheet) -> set[str]:
        """The rules' own timed effects the sheet holds that are no condition (H&H aim, defend), by the names their
        durations give them; none by default."""
        return set()

    def end_effect(self, sheet: Sheet, name: str, why: str) -> list[Effect]:
        """End one of `held_effects` as its duration runs out, saying why (an EffectResolved `timed_effect`)."""
        return [Effect(EFFECT_RESOLVED, sheet.name, {"timed_effect": name, "expired": why})]

    def no_turn(self, sheet: Sheet) -> str | None:
        """Why a participant who is still in the fight gets no turn at all (`encounter next` passes them over, naming
        it), or None. By default everyone still in the fight has a turn."""
        return None

    def no_action(self, sheet: Sheet) -> str | None:
        """Why a participant whose turn comes can take no action in it (it is named as their turn starts), or None."""
        return None

    def nothing_to_do(self, sheet: Sheet) -> str | None:
        """Why a participant's turn leaves them nothing to do (`init -o pass-over=no-action`, the default: `encounter
        next` passes the turn over, running its start and end), or None. By default every turn has something to do."""
        return None

    def start_of_turn(self, sheet: Sheet, dice: Dice) -> list[Effect]:
        """What happens as a character's turn starts."""
        return []

    def end_of_turn(self, sheet: Sheet, dice: Dice) -> list[Effect]:
        """What happens as a character's turn ends."""
        return []

    # -- what some systems have (refused where the text has no such rule) -------------------------
    def resist_damage(self, target: Sheet, rank: int, options: Options, dice: Dice) -> list[Effect]:
        """Damage of an effect rank resisted by a roll (`damage --rank`)."""
        raise self.refuse("damage by effect rank", "give the HP lost: --amount N")

    def recover(self, sheet: Sheet, recovery: Recovery, dice: Dice) -> list[Effect]:
        """Recovery over time, or healing the GM rules."""
        raise self.refuse("recovery")

    def spend(self, sheet: Sheet, resource: str, n: int, purpose: str | None) -> list[Effect]:
        """Spend a resource the sheet holds; overspending is refused."""
        raise self.refuse("spending resources")

    def gain(self, sheet: Sheet, resource: str, n: int, reason: str | None) -> list[Effect]:
        """Gain a resource the sheet holds (an award the GM rules, by default)."""
        if resource not in sheet.resources:
            raise BadInput(
                f"{sheet.name} has no {resource}",
                did_you_mean(resource, sheet.resources, f"resources: {', '.join(sheet.resources) or 'none'}"),
            )
        value = sheet.resources[resource] + n
        data = {"resource": resource, "delta": n, "value": value, "reason": reason or "award"}
        return [Effect(RESOURCE_CHANGED, sheet.name, data)]

    def hazard(self, sheet: Sheet, kind: str, options: Options, dice: Dice) -> list[Effect]:
        """An environmental hazard check."""
        raise self.refuse("hazards", "use damage or a check")

    def revive(self, sheet: Sheet, *, means: str, by: Sheet | None) -> list[Effect]:
        """Bring the dead back, as the GM rules."""
        raise self.refuse("revival")

    def perform(self, action: str, actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
        """A `ledger act` action."""
        act = self.action(action)
        if act.other == "needed" and other is None:
            raise BadInput(f"{act.name} needs the other character", f"add --against NAME ({act.help})")
        if act.other == "none" and other is not None:
            raise BadInput(f"{act.name} takes no other character", "leave out --against")
        return act.perform(actor, other, options, dice)

    def import_character(self, data: Any) -> tuple[str, dict[str, Value], dict[str, dict[str, Any]]]:
        """A character from a character-creator file: (name, traits, powers)."""
        raise self.refuse("character files", "add characters with: ledger character add NAME --trait KEY=VALUE")

    def session_started(self, heroes: list[Sheet], gm: Sheet | None) -> list[Effect]:
        """What a new play session does to the heroes and the GM's pool (P&P: a new issue's Resolve and Adversity)."""
        return []

    def day_started(self, heroes: list[Sheet]) -> list[Effect]:
        """A new in-game day begins with a session (`session start --new-day`; H&H: victory points back to 2)."""
        raise self.refuse("a new in-game day", "leave out --new-day")

    def gm_sheet(self) -> Sheet | None:
        """The hidden sheet that holds the GM's pool, if the system has one (P&P Adversity)."""
        return None

    def owed_by_gm(self, effects: list[Effect]) -> int:
        """What an NPC's boosts in these effects cost the GM's pool (P&P Adversity)."""
        return 0

    actions_per_turn = False  # True: the action budget is the actor's own turn (out of it: reactions, not counted)
    # once-a-round uses kept in the round's tally that are ready again when the bearer's own turn starts, not when the
    # round does (d20's Attack of Opportunity); from the tracker's version 5
    own_turn_uses: tuple[str, ...] = ()

    def gm_debts(self, effects: list[Effect]) -> list[tuple[str, int]]:
        """What the GM's pool pays for these effects, by purpose (P&P: extra-dice, reroll)."""
        owed = self.owed_by_gm(effects)
        return [("extra-dice", owed)] if owed else []

    def action_cost(self, command: str, actor: Sheet, options: Options) -> str | None:
        """What kind of action a command is in an encounter's round (None: the system keeps no action economy)."""
        return None

    def take_action(
        self, tally: Mapping[str, Any], kind: str, who: str, target: str | None
    ) -> tuple[dict[str, Any], str | None]:
        """A character's tally for the round after one more action, and what the rules find wrong with it."""
        return dict(tally), None

    def action_cost_after(self, command: str, before: Sheet, after: Sheet, options: Options) -> str | None:
        """What kind of action a command was, knowing its outcome too (`after`: the actor's sheet once it is
        recorded; H&H: a stand by Acrobatics is free if the check succeeds); `action_cost` by default."""
        return self.action_cost(command, before, options)

    def delay_refused(self, sheet: Sheet, acted: bool) -> str | None:
        """Why this character may not delay now (`acted`: they took an action this turn), or None; by default
        anyone may."""
        return None

    def delayed(self, sheet: Sheet) -> list[Effect]:
        """What ends when a character delays (H&H: beneficial effects lasting until the end of the turn); nothing by
        default."""
        return []

    def reacted(self, sheet: Sheet) -> list[Effect]:
        """What an action out of the character's own turn spends (H&H: a readied action); nothing by default."""
        return []

    def treatment(self, patient: Sheet, check: list[Effect]) -> list[Effect]:
        """What a check's `patient` gets from it (H&H: a dying patient stabilized by Treatment DC 5)."""
        raise self.refuse("a check with a patient")

    def aftermath(self, effects: list[Effect], sheet_of: Callable[[str], Sheet]) -> list[Effect]:
        """What follows from a batch of recorded effects (H&H: a hold on the fallen ends); from version 4, a condition
        that went takes along its durations and its marks (`let_go`), however it went. It reads only the effects that
        change sheets (as `own_timed`)."""
        return self.settle(effects, sheet_of)

    def let_go(self, sheet: Sheet, condition: str) -> dict[str, int | None]:
        """The counters that go with a condition: every duration that counts it and its marks (`marks`). The one
        place a timed condition's end takes what it brought, whichever way it ends (its duration, the rules' own
        timing, a GM's removal, recovery, a victory point, `character set`, the end of the fight)."""
        gone: dict[str, int | None] = {
            k: None for k in sheet.counters if (p := parse_duration(k)) is not None and p[2] == condition
        }
        gone.update({m: None for m in self.marks.get(condition, ()) if m in sheet.counters})
        return gone

    def settle(self, effects: list[Effect], sheet_of: Callable[[str], Sheet]) -> list[Effect]:
        """From version 4: each condition removed in these effects and gone from its sheet takes along what
        `let_go` names."""
        if not self.since(FOURTH):
            return []
        out: list[Effect] = []
        seen: set[tuple[str, str]] = set()
        for e in effects:
            cond = e.data.get("condition")
            if e.event != CONDITION_REMOVED or not isinstance(cond, str) or (e.target, cond) in seen:
                continue
            seen.add((e.target, cond))
            try:
                sheet = sheet_of(e.target)
            except LedgerError:
                continue
            if sheet.has(cond):
                continue
            gone = self.let_go(sheet, cond)
            if gone:
                out.append(Effect(COUNTERS_CHANGED, sheet.name, {"counters": gone}))
        return out

    def settle_hp(self, sheet: Sheet) -> list[Effect]:
        """The HP conditions brought in line with the sheet's HP after the GM set it by hand (`character set`, from
        version 4); none by default."""
        return []

    def scene_ended(self, sheet: Sheet) -> list[Effect]:
        """What ends with the scene (P&P: effects for the rest of the scene)."""
        return []
