"""Prowlers & Paragons (d6 pools): pure rules. Text: prowlers-and-paragons.txt; readings: docs/interpretations.md
(Prowlers & Paragons).

The rules live beside this module: core (tables, traits), checks (challenge rolls, chases), combat (attacks,
effects, movement) and resources (Resolve, Adversity); options.py declares what each command understands.
Roll names: attack `attack`, `defense`; check `check`, `against`; chase `chase`, `against`; a reroll `reroll`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.errors import BadInput, ImpossibleAction, did_you_mean
from ledger.model.dice import BOUNDS, Dice, DiceSpec, parse_notation, pool
from ledger.model.sheet import (
    ATTACK_RESOLVED,
    CHECK_RESOLVED,
    CONDITION_IMPOSED,
    CONDITION_REMOVED,
    COUNTERS_CHANGED,
    EFFECT_RESOLVED,
    HEALTH_RECOVERED,
    NOTE_RECORDED,
    Effect,
    Sheet,
    Value,
)
from ledger.rules.common import parse_int
from ledger.rules.contract import Action, Recovery, RuleSystem
from ledger.rules.options import Options
from ledger.rules.pnp import checks as pnp_checks
from ledger.rules.pnp import combat as pnp_combat
from ledger.rules.pnp import options as declared
from ledger.rules.pnp import powers as pnp_powers
from ledger.rules.pnp import resources as pnp_resources
from ledger.rules.pnp import timed as pnp_timed
from ledger.rules.pnp.checks import GM
from ledger.rules.pnp.combat import best_defense, effect_counters
from ledger.rules.pnp.core import (
    CONDITIONS,
    EFFECT_CONDITIONS,
    EFFECT_PREFIX,
    SCENE,
    THREAT,
    THRESHOLDS,
    ceil_half,
    edge,
    health,
    is_defeated,
    require_character,
)
from ledger.rules.pnp.options import RANGES
from ledger.rules.pnp.resources import GAIN_REASONS, SPEND_PURPOSES, starting_adversity


def _chase(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    assert other is not None  # Action.other == "needed"
    return pnp_checks.chase(actor, other, options, dice)


def _move(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    for k in ("from", "to"):
        if k not in options:
            raise BadInput(f"a move needs -o {k}=RANGE", f"ranges: {', '.join(RANGES)}")
    power = pnp_combat.travel_power_named(actor, str(options.get("with", "")))
    pages = pnp_combat.move(
        actor, str(options["from"]), str(options["to"]), bool(options.get("travel-power")) or bool(power)
    )
    return [
        Effect(
            EFFECT_RESOLVED,
            actor.name,
            {"action": "move", "from": options["from"], "to": options["to"], "pages": pages, "with": power or None},
        )
    ]


def stun_note(sheet: Sheet, doing: str) -> list[Effect]:
    """A warning in the ruling when a stunned character acts (recorded all the same: the GM's call)."""
    if not sheet.has("stunned"):
        return []
    text = f"{sheet.name} is stunned and {doing} all the same (what a stun stops is the GM's call)"
    return [Effect(NOTE_RECORDED, sheet.name, {"kind": "warning", "text": text})]


class PnP(RuleSystem):
    """Prowlers & Paragons."""

    key = "pnp"
    title = declared.TITLE
    conditions = CONDITIONS
    options = declared.OPTIONS
    rolls = declared.ROLLS
    actions = {
        "chase": Action(
            "chase",
            "a chase: the actor rolls against --against with Agility or Travel Powers",
            _chase,
            "prowlers-and-paragons.txt, Range and Movement",
            declared.ACTIONS["chase"],
            declared.ACTION_ROLLS["chase"],
            "needed",
        ),
        "move": Action(
            "move",
            "a move between range classes (pages it takes)",
            _move,
            "prowlers-and-paragons.txt, Range and Movement",
            declared.ACTIONS["move"],
        ),
    }
    ties_descending = False  # tie_break_key sorts ascending and ends with the name
    scenes = True  # "for the rest of the scene": `encounter end` and `scene end` end it

    def parse_trait(self, key: str, value: str) -> Value:
        """Traits are dice: '3' or '3d'; threat too. Health is no trait: the text derives it."""
        if key.strip().lower() in ("health", "hp"):
            raise BadInput(
                f"{key} is not a trait in {self.title}: Health is derived from the sheet",
                "Attacks and Defenses: Health usually equals the average of Toughness and Might (or of Toughness and "
                "Willpower, whichever is greater); set those traits",
            )
        v = value.strip().lower()
        return parse_int(key, v[:-1] if v.endswith("d") else v, lo=0, hi=BOUNDS["dice"][1])  # dice a pool rolls

    def power_parts(
        self, given: Mapping[str, Mapping[str, str]], traits: Mapping[str, str]
    ) -> dict[str, dict[str, Any]]:
        """Parts of powers set from the command line: defense, travel, effect and resist (powers.py)."""
        return pnp_powers.power_parts(given, traits)

    def new_sheet(self, name: str, traits: Mapping[str, Value], *, minion: bool, count: int, pc: bool) -> Sheet:
        """Health from traits; a minion group has its count and Threat instead; heroes hold Resolve from the start.

        Resolve and Adversity: "Heroes begin every issue ... with a certain amount of Resolve": a hero enters play
        with their `resolve` trait's worth (and each `session start` sets it again).
        """
        max_hp = count if minion else health(traits)
        start = traits.get("resolve", 0)
        resources = {"resolve": start if isinstance(start, int) and start > 0 else 0} if pc else {}
        return Sheet(name, self.key, dict(traits), max_hp, max_hp, (), resources, {}, {}, minion, count, pc)

    def gm_sheet(self) -> Sheet:
        """The hidden sheet that holds the GM's campaign-level Adversity."""
        return pnp_resources.gm_sheet(GM)

    def owed_by_gm(self, effects: list[Effect]) -> int:
        """Extra dice or rerolls an NPC bought, paid from the GM's Adversity in the same ruling."""
        owed = (ATTACK_RESOLVED, CHECK_RESOLVED, EFFECT_RESOLVED)
        return sum(int(e.data.get("adversity_due", 0) or 0) for e in effects if e.event in owed)

    def gm_debts(self, effects: list[Effect]) -> list[tuple[str, int]]:
        """What the GM's Adversity pays, by purpose: extra dice and rerolls (recorded as the hero's spends are)."""
        owed = (ATTACK_RESOLVED, CHECK_RESOLVED, EFFECT_RESOLVED)
        reroll = sum(int(e.data.get("adversity_reroll", 0) or 0) for e in effects if e.event in owed)
        total = self.owed_by_gm(effects)
        return [(p, n) for p, n in (("extra-dice", total - reroll), ("reroll", reroll)) if n > 0]

    def session_started(self, heroes: list[Sheet], gm: Sheet | None) -> list[Effect]:
        """A new issue: each hero's Resolve is their `resolve` trait; the GM's Adversity is 1 per hero."""
        effects = [
            e for h in heroes if "resolve" in h.traits for e in pnp_resources.start_of_issue(h, h.trait("resolve"))
        ]
        if heroes and gm is not None:
            effects += pnp_resources.start_of_issue_gm(gm, len(heroes))
        return effects

    def timed(self, sheet: Sheet) -> dict[str, str]:
        """Special effects' pages left, or `scene` (prowlers-and-paragons.txt, Attacks: "last 1 page for every 2 net
        successes ... for the rest of the scene")."""
        return {
            EFFECT_CONDITIONS.get(n, n): "scene" if p == SCENE else str(p)
            for n, p in effect_counters(sheet).items()
            if p
        }

    def own_timed(self, effects: list[Effect], up: str | None = None, version: int = 2) -> list[Effect]:
        """Special effects' pages as durations `--rounds PAGES` on their conditions, the rest of the scene as `--scene`
        (from the tracker's version 3; prowlers-and-paragons.txt, Combat, Attacks: "Special effects: last 1 page for
        every 2 net successes")."""
        return pnp_timed.as_durations(effects, up, version)

    def scene_ended(self, sheet: Sheet) -> list[Effect]:
        """Special effects end with the scene, and so does defeat by one (not defeat at 0 Health)."""
        return pnp_combat.end_of_scene(sheet)

    def settle_hp(self, sheet: Sheet) -> list[Effect]:
        """Health set by hand (`character set`) never falls below 0 (Damage: "Health ... never below 0"), and at 0 the
        character is defeated (Combat: "reduced to 0 Health ... defeated")."""
        out: list[Effect] = []
        if sheet.hp < 0:
            out.append(
                Effect(HEALTH_RECOVERED, sheet.name, {"amount": -sheet.hp, "hp": 0, "note": "Health is never below 0"})
            )
        if min(sheet.hp, 0) == 0 and sheet.hp <= 0 and not sheet.has("defeated") and not sheet.minion:
            out.append(Effect(CONDITION_IMPOSED, sheet.name, {"condition": "defeated", "note": "0 Health"}))
        return out

    def health(self, of: Sheet | Mapping[str, Value]) -> int:
        """Maximum Health from traits (a minion group: its count)."""
        if isinstance(of, Sheet):
            return of.count if of.minion else health(of.traits)
        return health(of)

    def edge(self, sheet: Sheet) -> int:
        """Edge: Perception + the greater of Agility and Intellect (a minion: twice its Threat)."""
        return edge(sheet)

    def initiative(self, sheet: Sheet, dice: Dice) -> tuple[int, list[Effect]]:
        """Characters act in order of Edge: no roll."""
        require_character(sheet)
        return edge(sheet), []

    def tie_break_key(self, sheet: Sheet) -> tuple[int, int, int, str]:
        """Sort key among equal Edge (ascending sorts first): Perception, then Agility/Intellect, heroes, name."""
        if sheet.minion:
            return (-sheet.trait(THREAT), -sheet.trait(THREAT), 1, sheet.name)
        quick = max(sheet.trait("agility"), sheet.trait("intellect"))
        return (-sheet.trait("perception"), -quick, 0 if sheet.pc else 1, sheet.name)

    def threshold(self, value: str) -> int:
        """A threshold from a number or a Thresholds-table name."""
        return pnp_checks.threshold(value)

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
        """A challenge roll against a threshold or an opponent's roll; see options.py."""
        return pnp_checks.check(sheet, trait, dc=dc, against=against, options=options, dice=dice)

    def attack(self, attacker: Sheet, target: Sheet, options: Options, dice: Dice) -> list[Effect]:
        """An attack roll against the target's best defense; see options.py. A stunned attacker is noted, not
        refused: the text names the Stun Power's effect but not what a stun stops (docs/interpretations.md)."""
        return [*stun_note(attacker, "attacks"), *pnp_combat.attack(attacker, target, options, dice, self.version)]

    def no_action(self, sheet: Sheet) -> str | None:
        """A stunned character's turn comes (the stun's pages tick at its end); the GM rules what they may do."""
        return "stunned" if sheet.has("stunned") else None

    def damage(self, sheet: Sheet, amount: int, *, subdual: bool) -> list[Effect]:
        """Damage reduces Health; at 0 the character is defeated. On minions, each point defeats one."""
        require_character(sheet)
        if subdual:
            raise BadInput("Prowlers & Paragons has no subdual damage", "use a special effect such as stun instead")
        if amount < 0:
            raise BadInput(f"damage can't be below 0, got {amount}")
        return pnp_combat.lose_health(sheet, amount)

    def recover(self, sheet: Sheet, recovery: Recovery, dice: Dice) -> list[Effect]:
        """Recover Health up to the maximum (e.g. an NPC's recovery bought with Adversity)."""
        require_character(sheet)
        if recovery.amount is None:
            raise BadInput("P&P recovery needs --amount (Health regained)", "for example: --amount 2")
        return pnp_resources.recover(sheet, recovery.amount, self.version)

    def impose(self, sheet: Sheet, condition: str) -> list[Effect]:
        """Impose a GM-ruled condition (it lasts until removed: no pages)."""
        require_character(sheet)
        if condition not in CONDITIONS:
            raise BadInput(
                f"unknown condition '{condition}'",
                did_you_mean(condition, CONDITIONS, f"known: {', '.join(sorted(CONDITIONS))}"),
            )
        return [Effect(CONDITION_IMPOSED, sheet.name, {"condition": condition})]

    def remove(self, sheet: Sheet, condition: str) -> list[Effect]:
        """Remove a GM-ruled condition, with the special effect that imposed it; 0 Health stays defeated."""
        require_character(sheet)
        if condition == "defeated" and sheet.hp <= 0 and not sheet.minion:
            raise ImpossibleAction(f"{sheet.name} has 0 Health and stays defeated", "recover Health first")
        effects = [Effect(CONDITION_REMOVED, sheet.name, {"condition": condition})]
        gone = [n for n in effect_counters(sheet) if EFFECT_CONDITIONS.get(n) == condition]
        if gone:
            effects.append(Effect(COUNTERS_CHANGED, sheet.name, {"counters": {EFFECT_PREFIX + n: None for n in gone}}))
        return effects

    def takes_turn(self, sheet: Sheet) -> bool:
        """A defeated character (or a group with no minions left) is out of the fight: no more pages of their own."""
        return not is_defeated(sheet)

    def start_of_turn(self, sheet: Sheet, dice: Dice) -> list[Effect]:
        """Nothing happens at the start of a P&P turn: effects tick at its end."""
        return []

    def end_of_turn(self, sheet: Sheet, dice: Dice) -> list[Effect]:
        """The character's page is over: each timed special effect loses a page and ends at 0."""
        return pnp_combat.end_of_turn(sheet)

    def spend(self, sheet: Sheet, resource: str, n: int, purpose: str | None) -> list[Effect]:
        """Spend Resolve or Adversity on a purpose in SPEND_PURPOSES (default lucky-break); overspending is refused."""
        return pnp_resources.spend(sheet, resource, n, purpose or "lucky-break", self.version)

    def gain(self, sheet: Sheet, resource: str, n: int, reason: str | None) -> list[Effect]:
        """Earn Resolve or Adversity for a reason in GAIN_REASONS."""
        return pnp_resources.gain(sheet, resource, n, reason or "award")

    def start_of_issue(self, sheet: Sheet, *, resolve: int) -> list[Effect]:
        """Set a hero's Resolve for the new issue."""
        return pnp_resources.start_of_issue(sheet, resolve)

    def start_of_issue_gm(self, gm: Sheet, *, heroes: int) -> list[Effect]:
        """Set the GM's Adversity for the new issue: 1 per Hero."""
        return pnp_resources.start_of_issue_gm(gm, heroes)

    def starting_adversity(self, heroes: int) -> int:
        """Adversity at the start of an issue: 1 per Hero."""
        return starting_adversity(heroes)

    def derived(self, sheet: Sheet) -> dict[str, Any]:
        """Health, Edge, the defense the character rolls, active special effects (pages or 'scene')."""
        effects = {n: ("scene" if p == SCENE else p) for n, p in effect_counters(sheet).items()}
        out: dict[str, Any] = {"health": sheet.hp, "max_health": sheet.max_hp, "edge": edge(sheet), "effects": effects}
        out["defeated"] = is_defeated(sheet)
        if sheet.minion:
            out.update(count=sheet.count, threat=sheet.trait(THREAT))
        else:
            key, rank, kind = best_defense(sheet)
            out["defense"] = {"trait": key, "rank": rank, "kind": kind}
        return out

    def entered_spec(self, name: str, text: str, options: Options) -> DiceSpec:
        """A pool of as many d6 as were entered."""
        return pool(len([p for p in text.split(",") if p.strip()]))

    def roll_spec(self, expr: str) -> DiceSpec:
        """A bare Nd6 is a pool of successes; anything else is ordinary notation."""
        return parse_notation(expr, pools=True)


RULES = PnP()

__all__ = [
    "CONDITIONS", "GAIN_REASONS", "RULES", "SPEND_PURPOSES",
    "THRESHOLDS", "PnP", "ceil_half", "health",
]  # fmt: skip
