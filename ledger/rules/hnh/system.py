"""Humans & Heroes (3dF, an M&M 3e derivative): pure rules. Texts: humans-and-heroes.txt, hnh-site/.

Readings where the texts are open: docs/interpretations.md (Humans & Heroes). The rules live beside this module:
checks (checks, criticals), conditions, health (HP, Damage), afflictions, combat (attacks, maneuvers), turns (turns,
recovery, revival, initiative, victory points), hazards and creator (character-creator files); options.py declares
what each command understands.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ledger.errors import BadInput, Conflict, ImpossibleAction, did_you_mean
from ledger.model.dice import Dice, DiceSpec, fudge, parse_notation
from ledger.model.sheet import (
    CONDITION_IMPOSED,
    CONDITION_REMOVED,
    COUNTERS_CHANGED,
    NOTE_RECORDED,
    Effect,
    Sheet,
    Value,
    apply_all,
)
from ledger.rules.common import parse_duration, parse_int
from ledger.rules.contract import FOURTH, SIXTH, Action, Recovery, RuleSystem
from ledger.rules.hnh import economy, turn_actions, turns, victory
from ledger.rules.hnh import options as declared
from ledger.rules.hnh import timed as hnh_timed
from ledger.rules.hnh.actions import ACTIONS as MANEUVER_ACTIONS
from ledger.rules.hnh.afflictions import affliction_from, ongoing, resolve_affliction
from ledger.rules.hnh.area import is_area, resolve_area
from ledger.rules.hnh.checks import ABILITIES, DEFENSES, defense_rank, find_power, resolve_check
from ledger.rules.hnh.combat import maneuvers, resolve_attack
from ledger.rules.hnh.conditions import (
    BASIC,
    COMBINED,
    COMPONENTS,
    CONDITIONS,
    HP_CONDITIONS,
    SUPERSEDES,
    break_trance,
    check_penalty,
    closure,
    effective,
    implied,
    impose_effects,
    known,
    progressed,
    remove_effects,
    row_of,
    withdraw,
)
from ledger.rules.hnh.creator import import_character
from ledger.rules.hnh.hazards import resolve_hazard
from ledger.rules.hnh.health import HP_FLOOR, MAX_HP, MINION_MAX_HP, VP, minion_rules, resolve_damage, set_hp
from ledger.rules.hnh.maneuvers import aim, aim_begun, aimed_at, end_aim, fallen_holds, unable_holds
from ledger.rules.hnh.powers import heal
from ledger.rules.hnh.turns import REVIVE_MEANS
from ledger.rules.hnh.victory import STARTING_VP, improved
from ledger.rules.options import Options

ROUND_LONG = ("strength", "speed", "increased-rank")  # the-basics.txt, Extra Effort: "for 1 round"


def possessive(name: str) -> str:
    """Ann -> Ann's, Goons -> Goons' (as ledger/words/describe.py says it; the rules stand below the words)."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


SLOW = ("standard", "move", "effort-action")  # an action "that is a move action or slower" (gameplay.txt, Aim)
TURN_COUNTED = (
    "until-start-of-turn:",
    "until-end-of-turn:",
    "until-next-end-of-turn:",
    "rounds:",  # a duration counted in the bearer's own turns (ledger/rules/durations.py)
    "all-out-attack",
    "defensive-attack",
    "revive-cooldown",
)

__all__ = [
    "ABILITIES",
    "BASIC",
    "COMBINED",
    "CONDITIONS",
    "DEFENSES",
    "HP_CONDITIONS",
    "HP_FLOOR",
    "MAX_HP",
    "MINION_MAX_HP",
    "REVIVE_MEANS",
    "RULES",
    "HnH",
]


def _affliction(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    assert other is not None  # Action.other == "needed"
    owners = declared.ACTION_ROLLS["affliction"]
    return improved(
        owners, actor, other, options, dice, lambda box, a, o: RULES.affliction(_s(o), options, box, attacker=a)
    )


def _heal(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    owners = declared.ACTION_ROLLS["heal"]
    return improved(owners, actor, other, options, dice, lambda box, a, o: heal(_s(a), o, options, box))


def _s(sheet: Sheet | None) -> Sheet:
    """A sheet the rule was given (improved() hands back what it got)."""
    assert sheet is not None
    return sheet


class HnH(RuleSystem):
    """Humans & Heroes."""

    key = "hnh"
    title = declared.TITLE
    conditions = CONDITIONS
    options = declared.OPTIONS
    rolls = declared.ROLLS
    actions = {
        "affliction": Action(
            "affliction",
            "an Affliction without an attack check: the target resists (rolls power, resist)",
            _affliction,
            "hnh-site/effect-affliction.txt",
            declared.ACTIONS["affliction"],
            declared.ACTION_ROLLS["affliction"],
            "needed",
        ),
        "heal": Action(
            "heal",
            "Healing: a DC 2 power check (roll power); the difference is HP healed (--against the subject, else self)",
            _heal,
            "powers/effects/healing.html (named by gameplay.txt, Recovery)",
            declared.ACTIONS["heal"],
            declared.ACTION_ROLLS["heal"],
            "optional",
        ),
        "defend": Action(
            "defend",
            "the Defend action: until the next turn the chosen active defense's dice count at least 1; no attack",
            victory.defend,
            "hnh-site/gameplay.txt, Defend - Standard Action",
            declared.ACTIONS["defend"],
            {},
            "none",
        ),
        **MANEUVER_ACTIONS,
    }
    actions_per_turn = True  # the budget is the acting character's own turn (Number Of Actions)
    turn_rolls = ("fortitude", "power", "toughness", "ongoing-")
    ties_descending = True  # tie_break_key: higher Dodge, then Agility, then Awareness

    def parse_trait(self, key: str, value: str) -> Value:
        """Ranks are whole numbers; abilities bottom out at -5 (conditions.txt, Debilitated)."""
        return parse_int(key, value, lo=-5)

    def new_sheet(self, name: str, traits: Mapping[str, Value], *, minion: bool, count: int, pc: bool) -> Sheet:
        """HP starts at its maximum: 6, or 1 for a minion (Health Points); heroes start with 2 victory points."""
        max_hp = MINION_MAX_HP if minion else MAX_HP
        resources = {VP: STARTING_VP} if pc else {}
        return Sheet(name, self.key, dict(traits), max_hp, max_hp, (), resources, {}, {}, minion, count, pc)

    def damage(self, sheet: Sheet, amount: int, *, subdual: bool) -> list[Effect]:
        """Lose HP directly (no resistance roll); HP never goes below -3 (Health Points)."""
        if subdual:
            raise BadInput("Humans & Heroes has no subdual damage", "leave out --subdual")
        if amount < 0:
            raise BadInput("damage can't be negative", "use recover")
        if sheet.has("dead"):
            raise ImpossibleAction(f"{sheet.name} is already dead")
        return set_hp(sheet, sheet.hp - amount)

    def impose(self, sheet: Sheet, condition: str) -> list[Effect]:
        """Impose a GM-ruled condition (progressive conditions add degrees); HP conditions come only from HP."""
        condition = known(condition)
        if condition in HP_CONDITIONS:
            raise BadInput(f"'{condition}' is an HP condition: it follows HP, not the GM", "use damage or recover")
        out = impose_effects(sheet, condition)
        if not out and sheet.has(condition) and row_of(condition) is not None:
            raise Conflict(f"{sheet.name} is already {condition}, the highest degree of its row")
        now = apply_all(sheet, out)
        if self.since(FOURTH) and not now.has(condition) and row_of(condition) is not None:  # it progressed the row
            became = [e.data["condition"] for e in out if e.event == CONDITION_IMPOSED and e.data.get("condition")]
            row = (row_of(condition) or ((), 0))[0]
            had = " and ".join(c for c in sheet.conditions if c in row) or "condition"
            text = f"{possessive(sheet.name)} {had} and {condition} make {became[0] if became else 'it worse'}"
            text += " (Progressive Conditions)"
            out = [Effect(NOTE_RECORDED, sheet.name, {"kind": "rule", "text": text}), *out]
        return out

    def progresses(self, condition: str) -> bool:
        """Conditions on the Progressive Conditions table add degrees when inflicted again (conditions.txt)."""
        return row_of(condition) is not None

    def holds(self, sheet: Sheet, condition: str) -> bool:
        """Imposed, or a part of an imposed condition (a staggered character can lose dazed: conditions.txt)."""
        return condition in closure(sheet.conditions)

    def remove(self, sheet: Sheet, condition: str) -> list[Effect]:
        """Remove a GM-ruled condition (or one part of a combined one); HP conditions follow HP only."""
        condition = known(condition)
        if condition in HP_CONDITIONS:
            raise BadInput(f"'{condition}' is an HP condition: it follows HP, not the GM", "use damage or recover")
        return remove_effects(sheet, condition)

    def takes_turn(self, sheet: Sheet) -> bool:
        """Everyone alive keeps their turn (the dying, for the dying check); the dead while their turn still tracks
        something.

        gameplay.txt, Taking Your Turn: "even if you are incapacitated or dead you still get a turn in order to keep
        track of any ongoing effects that still apply": a dead character keeps turns while a turn-counted effect
        runs on them ('until' conditions, all-out/defensive attack, the revival cooldown); with none, the turn is
        empty and `encounter next` passes it over. A minion group with no one left standing has no turn.
        """
        if sheet.minion and sheet.count <= 0:
            return False
        if not sheet.has("dead"):
            return True
        return any(v and (k.startswith(TURN_COUNTED) or k in TURN_COUNTED) for k, v in sheet.counters.items())

    def no_action(self, sheet: Sheet) -> str | None:
        """The turn comes (gameplay.txt, Taking Your Turn: "even if you are incapacitated or dead you still get a turn")
        but the stunned, incapacitated, dying and dead take no action in it (conditions.txt, Stunned)."""
        if sheet.has("dead"):
            return "dead"
        if "stunned" in effective(sheet.conditions):
            return next((c for c in ("dying", "incapacitated", "asleep", "entranced") if sheet.has(c)), "stunned")
        return None

    def nothing_to_do(self, sheet: Sheet) -> str | None:
        """A stunned or incapacitated character's turn leaves them nothing to do (conditions.txt, Stunned: "cannot
        take any actions, including free actions"); a dying one's brings the dying check, a dead one's what it
        still tracks (gameplay.txt, Taking Your Turn), so those keep their turn."""
        if sheet.has("dead") or sheet.has("dying"):
            return None
        why = self.no_action(sheet)
        return why if why in ("stunned", "incapacitated", "asleep", "entranced") else None

    def timed(self, sheet: Sheet) -> dict[str, str]:
        """Conditions that last until the start or end of the bearer's next turn (gameplay.txt, Starting/Ending Your
        Turn)."""
        out = {}
        for key, value in sheet.counters.items():
            for when in ("start", "end"):
                head = f"until-{when}-of-turn:"
                if value and key.startswith(head):
                    out[key[len(head) :]] = f"until {when} of {sheet.name}"
        return out

    def own_timed(self, effects: list[Effect], up: str | None = None, version: int = 2) -> list[Effect]:
        """A condition that lasts until the start or end of the bearer's next turn (`act NAME until`, Demoralize) is a
        duration `--until start|end --of` the bearer (gameplay.txt, Starting Your Turn, Ending Your Turn); from the
        tracker's version 3 so are aim, defend, feint, all-out and defensive attack (hnh/timed.py)."""
        return hnh_timed.as_durations([turns.as_duration(e, up) for e in effects], up, version)

    def held_effects(self, sheet: Sheet) -> set[str]:
        """Aim, defend, feint, all-out and defensive attack held now (no conditions: counters the rules read); from
        version 6, a timed condition held through a progression (`progressed`: the GM's stunned for 1 round that made
        a dazed hero incapacitated)."""
        held = hnh_timed.held(sheet)
        return held | progressed(sheet) if self.since(SIXTH) else held

    def end_effect(self, sheet: Sheet, name: str, why: str) -> list[Effect]:
        """One of them ends as its duration runs out (aim: its vulnerability with it), saying why; a condition held
        through a progression moves its row back by its degree (`withdraw`: the incapacitated hero is dazed again)."""
        if self.since(SIXTH) and name in progressed(sheet):
            out = withdraw(sheet, name, f"{name} ran out")
            return [
                Effect(e.event, e.target, {**e.data, "expired": why}) if e.event == CONDITION_REMOVED else e
                for e in out
            ]
        return hnh_timed.end(sheet, name, why)

    def let_go(self, sheet: Sheet, condition: str) -> dict[str, int | None]:
        """What goes with a condition (RuleSystem.let_go); from version 6, when a row's condition goes, the durations
        of its row that nothing on the sheet holds any more go too (a stunned that progressed into incapacitated,
        counted by its duration, goes when the GM removes the incapacitated)."""
        gone = super().let_go(sheet, condition)
        found = row_of(condition)
        if self.since(SIXTH) and found is not None:
            keep = set(sheet.conditions) | progressed(sheet)
            for key in sheet.counters:
                p = parse_duration(key)
                if p is not None and p[2] in found[0] and p[2] not in keep:
                    gone[key] = None
        return gone

    def condition_help(self, condition: str) -> str:
        """What a condition is made of, what it supersedes, and whether it follows HP (conditions.txt)."""
        parts = []
        if condition in HP_CONDITIONS:
            parts.append("follows HP")
        made = sorted(COMPONENTS.get(condition, ()))
        if made:
            parts.append("is " + ", ".join(made))
        over = sorted(SUPERSEDES.get(condition, ()))
        if over:
            parts.append("supersedes " + ", ".join(over))
        return "; ".join(parts)

    def implied_by(self, sheet: Sheet, condition: str) -> tuple[str, ...]:
        """Imposed conditions whose definition includes this one (conditions.txt, Combined Conditions)."""
        return tuple(c for c in sheet.conditions if c != condition and condition in closure([c]))

    def derived(self, sheet: Sheet) -> dict[str, Any]:
        """Implied and effective conditions, effective Toughness, bruises, minion rules, ongoing afflictions."""
        bruises = sheet.counter("bruises")
        return {
            "implied": implied(sheet.conditions),
            "effective_conditions": effective(sheet.conditions),
            "toughness": defense_rank(sheet, "toughness") - bruises,
            "defenses": {d: defense_rank(sheet, d) for d in DEFENSES},
            "bruises": bruises,
            "check_penalty": check_penalty(sheet),
            "minion_rules": minion_rules(sheet),
            "afflictions": {a.name: d for a, d in ongoing(sheet)},
        }

    def entered_spec(self, name: str, text: str, options: Options) -> DiceSpec:
        """Every H&H roll is 3dF."""
        return fudge()

    def roll_spec(self, expr: str) -> DiceSpec:
        """Ordinary notation; 3dF is the system's check."""
        return parse_notation(expr)

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
        """3dF + trait against a DC (roll `check`) or opposed (rolls `check`, `against`); CHECK_OPTIONS."""
        other, other_trait = against if against else (None, "")

        def rule(box: Dice, a: Sheet | None, o: Sheet | None) -> list[Effect]:
            return resolve_check(_s(a), trait, dc, (_s(o), other_trait) if o is not None else None, options, box)

        return improved(self.rolls["check"], sheet, other, options, dice, rule)

    def attack(self, attacker: Sheet, target: Sheet, options: Options, dice: Dice) -> list[Effect]:
        """Attack (rolls attack, defense, power, toughness; slam-power, slam-toughness; an area: dodge);
        ATTACK_OPTIONS."""
        area = "aid" not in maneuvers(options) and is_area(attacker, options, self.version)
        if self.since(FOURTH) and not area and aimed_at(attacker, target.name) and aim_begun(attacker):
            raise ImpossibleAction(
                f"{attacker.name} started aiming this turn and can't attack {target.name} before the next",
                'Aim: "You can\'t attack the target the same turn you start aiming"',
            )
        if area:  # one target in an area: Dodge, resistance
            spoiled = self._area_spoils_aim(attacker)
            v = self.version
            return (
                self._sustained(attacker, [target], options)
                + spoiled
                + improved(
                    self.rolls["attack"],
                    apply_all(attacker, spoiled),
                    target,
                    options,
                    dice,
                    lambda box, a, o: resolve_area(_s(a), [(_s(o), 1)], options, box, prefixed=False, version=v),
                )
            )
        return self._sustained(attacker, [target], options) + improved(
            self.rolls["attack"],
            attacker,
            target,
            options,
            dice,
            lambda box, a, o: resolve_attack(_s(a), _s(o), options, box),
        )

    def _sustained(self, attacker: Sheet, targets: Sequence[Sheet], options: Options) -> list[Effect]:
        """From version 4 a Concentration or Sustained power used is one the attacker maintains from now on, turn by
        turn (gameplay.txt, Maintaining Effects; effect-affliction.txt, Concentration)."""
        key = find_power(attacker, str(options.get("with") or "")) if self.since(FOURTH) else None
        if key is None or turn_actions.duration_of(attacker, key) not in ("concentration", "sustained"):
            return []
        counters: dict[str, int | None] = {turn_actions.SUSTAINING + key: turn_actions.MAINTAINED}
        if turn_actions.duration_of(attacker, key) == "concentration":
            counters.update({f"{turn_actions.CONCENTRATING}{key}:{t.name}": 1 for t in targets})
        return [Effect(COUNTERS_CHANGED, attacker.name, {"counters": counters})]

    def attack_area(
        self, attacker: Sheet, caught: Sequence[tuple[Sheet, int]], options: Options, dice: Dice
    ) -> list[Effect]:
        """An area effect on several targets: one power check, per-target rolls TARGET.dodge and TARGET.toughness."""
        wanted = list(options.get("improve") or [])
        if wanted and not self.since(FOURTH):
            raise BadInput("improve a roll of an area attack on one target at a time", "leave out -o improve")
        spoiled = self._area_spoils_aim(attacker) + self._sustained(attacker, [s for s, _ in caught], options)
        if not wanted:
            return spoiled + resolve_area(apply_all(attacker, spoiled), caught, options, dice, version=self.version)
        return spoiled + victory.own_area_rolls(
            apply_all(attacker, spoiled),
            caught,
            wanted,
            dice,
            lambda box, who: resolve_area(who, caught, options, box, version=self.version),
        )

    def _area_spoils_aim(self, attacker: Sheet) -> list[Effect]:
        """From version 4 an area attack, which has no attack check to aim, spoils an aim (Aim: "Taking a different
        action ... spoils your aim")."""
        if not self.since(FOURTH) or not attacker.counter("aim"):
            return []
        return end_aim(attacker, "aim spoiled: an area attack")

    def perform(self, action: str, actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
        """A `ledger act` action; from version 4 with the limits where two rules meet: another action spoils an aim
        (gameplay.txt, Aim), a compelled or controlled character's only extra effort is Resistance (the-basics.txt,
        Resistance), a ranged disarm or smash rolls Ranged Combat (gameplay.txt, Attack Check)."""
        if not self.since(FOURTH):
            return super().perform(action, actor, other, options, dice)
        act = self.action(action)
        if act.other == "needed" and other is None:
            raise BadInput(f"{act.name} needs the other character", f"add --against NAME ({act.help})")
        if act.other == "none" and other is not None:
            raise BadInput(f"{act.name} takes no other character", "leave out --against")
        name = act.name
        if name == "extra-effort" and not self.in_fight and options.get("benefit") in ROUND_LONG:
            raise ImpossibleAction(
                f"extra effort's {options.get('benefit')} lasts 1 round: out of a fight no round counts it",
                "start an encounter, or choose another benefit",
            )
        ruled = {c for c in ("compelled", "controlled") if c in effective(actor.conditions)}
        if name == "extra-effort" and ruled and options.get("benefit") != "resistance":
            raise ImpossibleAction(
                f"{actor.name} is {' and '.join(sorted(ruled))}: the only extra effort left is Resistance",
                "-o benefit=resistance (the-basics.txt, Resistance)",
            )
        if name in ("disarm", "smash") and str(options.get("range") or "close") == "ranged" and "bonus" not in options:
            options = {**options, "bonus": actor.trait("ranged-combat", actor.trait("dexterity"))}
        pre: list[Effect] = []
        if actor.counter("aim") and name != "aim" and economy.cost(f"act {name}", actor, options) in SLOW:
            pre = end_aim(actor, f"aim spoiled: {name} instead of the aimed attack")
            actor = apply_all(actor, pre)
        if name == "aim":
            return aim(actor, other, options, dice, self.version)
        out = pre + act.perform(actor, other, options, dice)
        if name == "extra-effort" and options.get("benefit") == "resistance":  # "an immediate additional check"
            out += turn_actions.resist_now(apply_all(actor, out), options, dice)
        if name == "extra-effort" and not self.in_fight:  # no turn to end: the fatigue comes at once
            out = [e for e in out if not (e.event == COUNTERS_CHANGED and "extra-effort" in e.data["counters"])]
            out += impose_effects(apply_all(actor, out), "fatigued", "extra effort (out of a fight: at once)")
        return out

    def resist_damage(self, target: Sheet, rank: int, options: Options, dice: Dice) -> list[Effect]:
        """Damage without an attack: power (3dF + rank) against toughness (3dF + Toughness - bruises)."""
        if target.has("dead"):
            raise ImpossibleAction(f"{target.name} is already dead")
        trance = break_trance(target)
        return trance + improved(
            self.rolls["damage"],
            None,
            apply_all(target, trance),
            options,
            dice,
            lambda box, a, o: resolve_damage(_s(o), rank, box, options=options),
        )

    def affliction(self, target: Sheet, options: Options, dice: Dice, attacker: Sheet | None = None) -> list[Effect]:
        """An Affliction without an attack check (rolls power, toughness): options name/with, rank, conditions."""
        if target.has("dead"):
            raise ImpossibleAction(f"{target.name} is dead")
        name = str(options.get("with") or options.get("name") or "affliction")
        power: Mapping[str, Any] = {}
        key = find_power(attacker, name) if attacker is not None else None
        if attacker is not None and key is not None:
            power = attacker.powers[key]
            if power.get("effect") != "Affliction":
                raise BadInput(f"'{name}' is not an Affliction")
        elif "rank" not in options:
            raise BadInput("an Affliction needs a rank", "give rank=N and conditions=a,b,c")
        trance = break_trance(target)  # Entranced: "Any attack or other obvious treat removes Entranced"
        return trance + resolve_affliction(apply_all(target, trance), affliction_from(name, power, options), dice)

    def recover(self, sheet: Sheet, recovery: Recovery, dice: Dice) -> list[Effect]:
        """Recovery over hours; with treatment-bonus a `treatment` roll against DC 5 decides `treated`."""
        if recovery.amount is not None:
            raise BadInput(
                "Humans & Heroes recovery goes by hours; HP come back at once only by Healing",
                "ledger act HEALER heal --against NAME -o rank=N (a DC 2 power check), or --hours H",
            )
        bonus = recovery.options.get("treatment-bonus")
        return turns.recover(sheet, recovery.hours, recovery.restful, recovery.treated, bonus, dice)

    def start_of_turn(self, sheet: Sheet, dice: Dice) -> list[Effect]:
        """'Until the start' effects end, surprise ends, regeneration, the dying check (roll `fortitude`)."""
        return turns.start_of_turn(sheet, dice)

    def end_of_turn(self, sheet: Sheet, dice: Dice) -> list[Effect]:
        """'Until the end' effects end; ongoing affliction checks (rolls `ongoing-NAME`); from version 4 the
        Concentration and Sustained powers not maintained this turn end (gameplay.txt, Ending Your Turn)."""
        out = turns.end_of_turn(sheet, dice)
        if self.since(FOURTH):
            out += turn_actions.unmaintained(apply_all(sheet, out))
        return out

    def ongoing_damage(self, sheet: Sheet, rank: int | None) -> list[Effect]:
        """A harmful circumstance: Damage of this rank at each end of turn (rolls power, toughness); None ends it."""
        return turns.ongoing_damage(sheet, rank)

    def initiative(self, sheet: Sheet, dice: Dice) -> tuple[int, list[Effect]]:
        """3dF + Agility + Improved Initiative; surprised -10 (roll `initiative`)."""
        return turns.initiative(sheet, dice)

    def seizes_initiative(self, sheet: Sheet) -> bool:
        """A victory point spent on Seize Initiative puts the hero first when initiative is next rolled."""
        return bool(sheet.counter("seize-initiative"))

    def tie_break_key(self, sheet: Sheet) -> tuple[int, int, int]:
        """Initiative ties: higher Dodge, then Agility, then Awareness (sort descending)."""
        return turns.tie_break_key(sheet)

    def spend(self, sheet: Sheet, resource: str, n: int, purpose: str | None) -> list[Effect]:
        """Spend victory points on a use the text names (--purpose recover:dazed, heroic-feat:ADV, ...); no
        overspending."""
        if resource != VP:
            raise BadInput(
                f"Humans & Heroes has no resource '{resource}'", did_you_mean(resource, [VP], f"the resource is {VP}")
            )
        return victory.spend(sheet, n, purpose)

    def day_started(self, heroes: list[Sheet]) -> list[Effect]:
        """A new in-game day: each living hero's victory points become 2 (the unspent don't carry over)."""
        return victory.new_day(heroes)

    def gain(self, sheet: Sheet, resource: str, n: int, reason: str | None) -> list[Effect]:
        """An award of victory points; the dead gain none (Death: "he loses all victory points")."""
        if sheet.has("dead"):
            raise ImpossibleAction(f"{sheet.name} is dead and can't gain victory points", "revive the character first")
        return super().gain(sheet, resource, n, reason)

    def hazard(self, sheet: Sheet, kind: str, options: Options, dice: Dice) -> list[Effect]:
        """One environmental hazard check (rolls fortitude, or power/toughness for falling); HAZARD_OPTIONS."""
        return improved(
            self.rolls["hazard"],
            sheet,
            None,
            options,
            dice,
            lambda box, a, o: resolve_hazard(_s(a), kind, options, box),
        )

    def revive(self, sheet: Sheet, *, means: str, by: Sheet | None) -> list[Effect]:
        """Healing or Immortality (GM rulings) lift Dead: HP -2, stabilized; 130 rounds before again."""
        if by is not None:
            raise BadInput("an H&H revival names no one to take the fallen's place", "leave out --by")
        return turns.revive(sheet, means, -2)

    def treatment(self, patient: Sheet, check: list[Effect]) -> list[Effect]:
        """A successful Treatment check (DC 5) by another stabilizes a dying patient (conditions.txt, Dying)."""
        return turns.treatment(patient, check)

    def action_cost(self, command: str, actor: Sheet, options: Mapping[str, Any]) -> str | None:
        """Standard, move, free, or extra effort's added standard action (economy.py)."""
        kind = economy.cost(command, actor, options)
        if kind in ("standard", "move", "full") and self.since(FOURTH) and economy.limited(actor):
            return economy.SINGLE + kind  # conditions.txt, Dazed: "a single standard action per turn"
        return kind

    def action_cost_after(self, command: str, before: Sheet, after: Sheet, options: Options) -> str | None:
        """A stand that Instant Up or a successful Acrobatics check made free costs a free action (gameplay.txt,
        Stand - Move Action)."""
        if command == "act stand" and self.since(FOURTH) and turn_actions.stood_for_free(before, after, options):
            return "free"
        return self.action_cost(command, before, options)

    def delay_refused(self, sheet: Sheet, acted: bool) -> str | None:
        """gameplay.txt, Delay - Free Action: "You cannot delay if you have already taken an action on your turn, or
        if you are unable to take actions" (from version 4)."""
        if not self.since(FOURTH):
            return None
        if acted:
            return f"{sheet.name} has already taken an action this turn"
        why = self.no_action(sheet)
        return f"{sheet.name} is {why} and unable to take actions" if why else None

    def delayed(self, sheet: Sheet) -> list[Effect]:
        """gameplay.txt, Delay: "Beneficial effects lasting until the end of your turn will end when you choose to
        delay" -- an aim, a feint, an ally's aid or a heroic feat whose duration ends with this turn (version 4)."""
        if not self.since(FOURTH):
            return []
        out: list[Effect] = []
        for name in sorted(hnh_timed.held(sheet)):
            key = f"until-end:{sheet.name}:{name}"
            if hnh_timed.until(name) == "end" and name != "ready" and sheet.counter(key) == 1:
                now = apply_all(sheet, out)
                out += hnh_timed.end(now, name, "delayed") + [
                    Effect(COUNTERS_CHANGED, sheet.name, {"counters": {key: None}})
                ]
        return out

    def reacted(self, sheet: Sheet) -> list[Effect]:
        """An action out of the character's own turn is the readied one: the readiness is spent (gameplay.txt, Ready:
        "you may take the readied action as a reaction")."""
        return turn_actions.use_ready(sheet) if self.since(FOURTH) else []

    def take_action(
        self, tally: Mapping[str, Any], kind: str, who: str, target: str | None
    ) -> tuple[dict[str, Any], str | None]:
        """A standard and a move action a turn (the standard tradeable for a move); extra effort adds a standard."""
        return economy.take(dict(tally), kind, who, target)

    def aftermath(self, effects: list[Effect], sheet_of: Callable[[str], Sheet]) -> list[Effect]:
        """A grab outlives no one: the fallen's hold (either side) ends on the partner (conditions.txt, Dead); from
        version 4 a holder who can't take the free action to maintain it lets go (gameplay.txt, Grab), and a
        condition that went takes its durations and marks along (RuleSystem.settle)."""
        out = fallen_holds(effects, sheet_of)
        if self.since(FOURTH):
            out += unable_holds(effects, sheet_of) + self.settle(effects, sheet_of)
            dead = {e.target for e in effects if e.event == CONDITION_IMPOSED and e.data.get("condition") == "dead"}
            for name in sorted(dead):  # Death: Power Loss to the powers being maintained
                out += turn_actions.power_loss(sheet_of(name))
        return out

    def import_character(self, data: Any) -> tuple[str, dict[str, Value], dict[str, dict[str, Any]]]:
        """A character from the H&H character creator's save file."""
        name, traits, powers = import_character(data)
        typed: dict[str, Value] = dict(traits)
        return name, typed, powers


RULES = HnH()
