"""d20 Supers, "Basics of Combat": pure rules. Text: d20-supers.txt; readings: docs/interpretations.md (d20 Supers).

Traits (all whole numbers unless said): str dex con int wis cha (ability scores; a score not given counts as
10), hp (max HP, default 10), armor (armor bonus to DR), power-dr (power bonus to DR), attack (attack
bonus/penalty), dn (damage negation), speed (feet per round, default 30), level (sets the subdual fade rate,
default 1), soul-bound (text: the name of the character this one is Soul Bound to). Any other numeric trait
can be checked as a flat bonus (skills).

Counters (ints): subdual, charge-dr (-2 until the charger's next turn), collapsed (a disabled character did
something major), knocked-out (the GM ruled the character unconscious).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.errors import BadInput
from ledger.model.dice import STORED_MAX, Dice, DiceSpec, d20, parse_notation
from ledger.model.sheet import CONDITION_IMPOSED, CONDITION_REMOVED, COUNTERS_CHANGED, Effect, Sheet, Value
from ledger.rules.common import parse_int
from ledger.rules.contract import FOURTH, SIXTH, Action, Recovery, RuleSystem
from ledger.rules.d20 import economy
from ledger.rules.d20 import options as declared
from ledger.rules.d20.actions import (
    REVIVE_MEANS,
    resolve_action,
    resolve_charge,
    resolve_check,
    resolve_initiative,
    resolve_recover,
    resolve_revive,
    resolve_run,
    skills,
    turn_start_effects,
)
from ledger.rules.d20.attack import LIGHT_WEAPONS, charge_effects, resolve_attack
from ledger.rules.d20.core import (
    ABILITIES,
    ABILITY_NAMES,
    CHARGE_DR,
    COLLAPSED,
    CONDITIONS,
    COVER,
    DEFAULT_HP,
    DEFAULT_SCORE,
    DEFAULT_SPEED,
    HP_CONDITIONS,
    KNOCKED_OUT,
    RUN_MULTIPLIER,
    SUBDUAL,
    ability_mod,
    condition_effects,
    damage_effects,
    dr_parts,
    hp_conditions,
    hp_state,
    modifier,
    opt_choice,
)
from ledger.rules.durations import counters_for, holds_duration
from ledger.rules.options import Options

__all__ = [
    "ABILITIES",
    "CONDITIONS",
    "D20",
    "DEFAULT_HP",
    "DEFAULT_SCORE",
    "HP_CONDITIONS",
    "LIGHT_WEAPONS",
    "REVIVE_MEANS",
    "RULES",
    "modifier",
]

TEXT_TRAITS = frozenset({"soul-bound"})


def _run(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    return resolve_run(actor, options)


def _charge(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    return resolve_charge(actor, options)


def _action(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    return resolve_action(actor, options)


class D20(RuleSystem):
    """d20 Supers."""

    key = "d20"
    title = declared.TITLE
    conditions = CONDITIONS
    options = declared.OPTIONS
    rolls = declared.ROLLS
    actions = {
        "run": Action(
            "run",
            "run 4 x speed; no attack until the next turn",
            _run,
            "d20-supers.txt, Attacks",
            declared.ACTIONS["run"],
        ),
        "charge": Action(
            "charge",
            "a run with +2 to attack and -2 to DR until the next turn",
            _charge,
            "d20-supers.txt, Attacks",
            declared.ACTIONS["charge"],
        ),
        "action": Action(
            "action",
            "any other action: full, partial or free (-o kind=full -o what=reload)",
            _action,
            "d20-supers.txt, Attacks",
            declared.ACTIONS["action"],
        ),
    }
    ties_descending = True  # tie_break_key: higher Dex modifier, then Dex score
    marks = {"charging": (CHARGE_DR,), "unconscious": (KNOCKED_OUT,)}  # a charge's -2 DR; the GM's knock-out

    def parse_trait(self, key: str, value: str) -> Value:
        """Scores, DN and speed are whole numbers from 0; HP and level from 1; soul-bound is a name. An ability's
        full name is refused (from version 6): the text's abilities are written Str, Dex, ... ("Strength bonus",
        "Dex. modifier"), the sheet's keys str, dex, ..., and any other number is a skill, so `strength=14` would
        silently be a skill of +14 beside a Strength of 10."""
        if key in ABILITY_NAMES and self.since(SIXTH):
            short = ABILITY_NAMES[key]
            raise BadInput(
                f"'{key}' is not a d20 trait key: the abilities are {', '.join(ABILITIES)}",
                f"give --trait {short}={value.strip()}",
            )
        if key in TEXT_TRAITS:
            if not value.strip():
                raise BadInput(f"trait '{key}' needs a character's name")
            return value.strip()
        if key in (*ABILITIES, "dn", "speed"):
            return parse_int(key, value, lo=0)
        if key == "hp":  # never rolled: as large as the ledger holds
            return parse_int(key, value, lo=1, hi=STORED_MAX)
        if key == "level":
            return parse_int(key, value, lo=1)
        return parse_int(key, value)

    def new_sheet(self, name: str, traits: Mapping[str, Value], *, minion: bool, count: int, pc: bool) -> Sheet:
        """HP from the `hp` trait (10 when not given); the text has no minions, so a minion group is refused."""
        if minion:
            raise self.refuse(
                "a minion group (one body for several foes)",
                f"add the foes as copies, each with its own HP: ledger character add '{name}' --copies "
                f"{max(count, 2)} ({name} 1 .. {name} {max(count, 2)})",
            )
        max_hp = int(traits.get("hp", DEFAULT_HP))
        return Sheet(name, self.key, dict(traits), max_hp, max_hp, (), {}, {SUBDUAL: 0}, {}, minion, count, pc)

    def hp_conditions(self, hp: int, subdual: int) -> set[str]:
        """Damage: 0 disabled; -1 to -9 dying and unconscious; -10 or below dead; subdual above HP: unconscious."""
        return hp_conditions(hp, subdual)

    def damage(self, sheet: Sheet, amount: int, *, subdual: bool) -> list[Effect]:
        """Regular damage lowers HP; subdual damage is tracked apart from HP."""
        if amount < 0:
            raise BadInput(f"damage can't be {amount}", "use recover to heal")
        return damage_effects(sheet, amount, subdual=subdual)

    def impose(self, sheet: Sheet, condition: str) -> list[Effect]:
        """Impose a GM-ruled condition; unconscious is remembered, the other HP conditions follow HP only."""
        if condition == "unconscious":
            counters = {KNOCKED_OUT: 1}
            changed = Effect(COUNTERS_CHANGED, sheet.name, {"counters": counters})
            return [changed, *condition_effects(sheet, sheet.hp, counters, "ruled by the GM")]
        if condition in HP_CONDITIONS:
            raise BadInput(f"'{condition}' is an HP condition: it follows HP, not the GM", "use damage or recover")
        if condition == "charging" and self.since(FOURTH):  # Charge: "+2 to Attack rolls and lose -2 to DR", both
            return charge_effects(sheet)
        return [Effect(CONDITION_IMPOSED, sheet.name, {"condition": condition})]

    def remove(self, sheet: Sheet, condition: str) -> list[Effect]:
        """Remove a GM-ruled condition; unconsciousness from HP or subdual damage stays until they heal."""
        if condition == "unconscious":
            if not sheet.has("unconscious"):
                raise BadInput(f"{sheet.name} is not unconscious")
            counters: dict[str, int | None] = {KNOCKED_OUT: None, COLLAPSED: None}
            effects = condition_effects(sheet, sheet.hp, counters, "ruled by the GM")
            if not any(e.event == CONDITION_REMOVED for e in effects):
                raise BadInput(f"{sheet.name} is unconscious from their damage", "use recover to heal them")
            return [Effect(COUNTERS_CHANGED, sheet.name, {"counters": counters}), *effects]
        if condition in HP_CONDITIONS:
            raise BadInput(f"'{condition}' is an HP condition: it follows HP, not the GM", "use damage or recover")
        return [Effect(CONDITION_REMOVED, sheet.name, {"condition": condition})]

    def dr(self, sheet: Sheet, options: Options) -> int:
        """DR = 10 + Dex modifier + armor + power bonus + cover (option `cover`; a charger loses 2)."""
        return sum(dr_parts(sheet, opt_choice(options, "cover", (*COVER, "complete"))).values())

    def derived(self, sheet: Sheet) -> dict[str, Any]:
        """Ability modifiers, DR, attack bonus, subdual damage, HP state and running distance."""
        speed = sheet.trait("speed", DEFAULT_SPEED)
        return {
            "modifiers": {k: ability_mod(sheet, k) for k in ABILITIES},
            "dr": self.dr(sheet, {}),
            "dr-parts": dr_parts(sheet),
            "attack-bonus": sheet.trait("attack") + ability_mod(sheet, "str"),
            "dn": sheet.trait("dn"),
            "subdual": sheet.counter(SUBDUAL),
            "hp-state": hp_state(sheet.hp),
            "unconscious": sheet.has("unconscious"),
            "initiative-modifier": ability_mod(sheet, "dex"),
            "speed": speed,
            "run": RUN_MULTIPLIER * speed,
        }

    def entered_spec(self, name: str, text: str, options: Options) -> DiceSpec:
        """A d20, or the weapon's dice for `damage`."""
        return parse_notation(str(options.get("damage", "1d4"))) if name == "damage" else d20()

    def roll_spec(self, expr: str) -> DiceSpec:
        """Ordinary notation."""
        return parse_notation(expr)

    def attack(self, attacker: Sheet, target: Sheet, options: Options, dice: Dice) -> list[Effect]:
        """One attack (or free attack) against DR: hit, miss, critical, colossal failure, instant death, damage."""
        opts = dict(options)
        if opts.pop("range", "close") not in ("close", "melee"):
            opts["ranged"] = True  # --range ranged is the `ranged` flag ("bows, guns etc.")
        return resolve_attack(attacker, target, opts, dice)

    def check_traits(self, sheet: Sheet) -> list[str]:
        """The six abilities (a score not given counts as 10) and every skill on the sheet; never a number of the
        sheet such as hp or attack (docs/interpretations.md, d20 Supers: "A check rolls a skill, never a number of
        the sheet")."""
        return skills(sheet)

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
        """d20 + modifier against a DC (roll `check`) or an opposed check (rolls `check` and `opposed`)."""
        return resolve_check(sheet, trait, dc, against, options, dice)

    def recover(self, sheet: Sheet, recovery: Recovery, dice: Dice) -> list[Effect]:
        """Regular damage heals by the GM's amount, with its cause; subdual fades with the hours."""
        if recovery.restful or recovery.treated:
            raise BadInput(
                "d20 Supers healing is the GM's amount", "give --amount N (and --cause); leave out --restful/--treated"
            )
        if recovery.amount and not recovery.hours and not (recovery.cause or "").strip():
            # Damage: regular damage "does not heal without a special power or medical attention or ... time"
            raise BadInput(
                "regular damage heals only by a power, medical attention or the passage of time",
                "say which: --cause power|medical|... (or give --hours H for time)",
            )
        return resolve_recover(sheet, recovery.hours, recovery.amount, recovery.cause or "rest", recovery.options)

    def initiative(self, sheet: Sheet, dice: Dice) -> tuple[int, list[Effect]]:
        """Initiative: 1d20 + Dex modifier (roll `initiative`)."""
        return resolve_initiative(sheet, dice)

    def tie_break_key(self, sheet: Sheet) -> tuple[int, int]:
        """Ties on initiative: higher Dex modifier, then higher Dex score, goes first (sort descending)."""
        return (ability_mod(sheet, "dex"), sheet.trait("dex", DEFAULT_SCORE))

    def no_turn(self, sheet: Sheet) -> str | None:
        """The dying and the unconscious get no turn (Damage: "They are unconsious and can take no actions")."""
        if sheet.has("dying") or (sheet.hp < 0 and not sheet.has("dead")):
            return "dying"
        return "unconscious" if sheet.has("unconscious") else None

    def timed(self, sheet: Sheet) -> dict[str, str]:
        """A charge's -2 DR and a run last until the character's next turn (d20-supers.txt, Run and Charge)."""
        return {c: f"until start of {sheet.name}" for c in ("running", "charging") if sheet.has(c)}

    def own_timed(self, effects: list[Effect], up: str | None = None, version: int = 2) -> list[Effect]:
        """Running and charging last until the character's next turn starts (the reading of d20-supers.txt, Running,
        Charge in docs/interpretations.md): a duration `--until start --of` the character."""
        out: list[Effect] = []
        for e in effects:
            out.append(e)
            cond = e.data.get("condition")
            if e.event == CONDITION_IMPOSED and cond in ("running", "charging"):
                counters = counters_for(str(cond), until="start", of=e.target)
                out.append(Effect(COUNTERS_CHANGED, e.target, {"counters": counters}))
        return out

    def start_of_turn(self, sheet: Sheet, dice: Dice) -> list[Effect]:
        """Running and charging end when the character's next turn starts; from version 4 not those a duration counts
        (the GM's `--rounds 3` stands: the duration ends it, and what it brought with it)."""
        if self.since(FOURTH):
            return turn_start_effects(sheet, skip={c for c in ("running", "charging") if holds_duration(sheet, c)})
        return turn_start_effects(sheet)

    def settle_hp(self, sheet: Sheet) -> list[Effect]:
        """Damage: HP set by hand brings its conditions (0 disabled, -1 to -9 dying, -10 dead) as damage would."""
        return condition_effects(sheet, sheet.hp, {}, "HP set by the GM")

    def end_of_turn(self, sheet: Sheet, dice: Dice) -> list[Effect]:
        """Nothing in the text happens at the end of a turn."""
        return []

    own_turn_uses = ("opportunity",)  # Attack of Opportunity: "an extra attack per round", ready again at their turn

    def action_cost(self, command: str, actor: Sheet, options: Options) -> str | None:
        """Full, partial, free, a charge's attack or an Attack of Opportunity (economy.py); from version 4 an attack
        that declares the charge is the charge and its own attack at once (a second attack is not the charge's)."""
        kind = economy.cost(command, actor, options)
        if kind == "full" and command == "attack" and self.since(FOURTH):
            return "charge"
        return kind

    def take_action(
        self, tally: Mapping[str, Any], kind: str, who: str, target: str | None
    ) -> tuple[dict[str, Any], str | None]:
        """One full action a round (nothing else but free actions with it); one Attack of Opportunity a round."""
        return economy.take(dict(tally), kind, who, target)

    def revive(self, sheet: Sheet, *, means: str, by: Sheet | None) -> list[Effect]:
        """Bring back the dead: gem-of-eternity, romnecos, or soul-bound (with `by`, who dies instead)."""
        return resolve_revive(sheet, means, by)


RULES = D20()
