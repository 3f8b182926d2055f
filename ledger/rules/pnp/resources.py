"""Prowlers & Paragons Resolve and Adversity: the narrative currency, spent and earned.

Text: prowlers-and-paragons.txt, Resolve and Adversity. Heroes keep "resolve" in Sheet.resources; the GM's
Adversity is a campaign-level pool kept as the "adversity" resource of one sheet the caller names (a hidden
"GM" sheet, see `gm_sheet`).
"""

from __future__ import annotations

from ledger.errors import BadInput, ImpossibleAction, did_you_mean
from ledger.model.sheet import CONDITION_IMPOSED, CONDITION_REMOVED, HEALTH_RECOVERED, Effect, Sheet, apply_all
from ledger.rules.contract import FOURTH
from ledger.rules.durations import SCENE as SCENE_KEY
from ledger.rules.pnp.combat import defeat_by_effects
from ledger.rules.pnp.core import EFFECT_PREFIX, SCENE, norm, resource_changed

RESOURCES = {"resolve": "Resolve", "adversity": "Adversity"}
SPEND_PURPOSES: dict[str, str] = {
    "extra-dice": "extra dice on a challenge roll (attack and check take these themselves)",
    "reroll": "reroll a challenge roll completely",
    "lucky-break": "buy a lucky break the GM describes",
    "recovery": "recover from attacks: 1 Health per point spent (a hero's Resolve only)",
}
GAIN_REASONS: dict[str, str] = {
    "flaw": "a hero's Flaw got the better of them",
    "heroics": "a heroic sacrifice or roleplaying the superheroic",
    "players": "Adversity from the players' actions",
    "award": "any other award the GM makes",
}
HEALTH_PER_RESOLVE = 1


def starting_adversity(heroes: int) -> int:
    """Adversity at the start of an issue: 1 point per Hero."""
    if heroes < 0:
        raise BadInput(f"the number of heroes can't be below 0, got {heroes}")
    return heroes


def gm_sheet(name: str = "GM") -> Sheet:
    """The hidden sheet that holds the GM's Adversity."""
    return Sheet(name, "pnp", resources={"adversity": 0})


def _pool_of(sheet: Sheet, resource: str) -> str:
    """The resource's key, checked: it must be Resolve or Adversity and the sheet must hold it."""
    key = norm(resource)
    if key not in RESOURCES:
        raise BadInput(
            f"'{resource}' is not a P&P resource",
            did_you_mean(key, RESOURCES, "resolve (heroes) or adversity (the GM)"),
        )
    if key not in sheet.resources:
        hint = "enemies spend the GM's Adversity" if key == "resolve" else "Adversity lives on the GM's sheet"
        raise BadInput(f"{sheet.name} has no {RESOURCES[key]}", hint)
    return key


def _amount(n: int) -> int:
    """A positive whole number of points."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise BadInput(f"spend or gain at least 1 point, got {n}")
    return n


def recover(sheet: Sheet, amount: int, version: int = 0) -> list[Effect]:
    """Recover Health (never above its maximum); a defeated character back above 0 is no longer defeated.

    From version 4 (ledger/rules/contract.py FOURTH): a defeat that lasts the rest of the scene stays whether its own
    counter or a duration (`scene:defeated`) keeps it, and Health recovered to at or below a running special
    effect's pages is a defeat by that effect (Combat, Attacks: "If the duration of a special effect ever equals or
    exceeds the target's current Health")."""
    if sheet.minion:
        raise ImpossibleAction("defeated minions stay defeated: minions don't recover")
    missing = sheet.max_hp - sheet.hp
    if missing <= 0:
        raise ImpossibleAction(f"{sheet.name} is at full Health")
    if amount > missing:
        raise ImpossibleAction(f"{sheet.name} is missing only {missing} Health, not {amount}")
    hp = sheet.hp + amount
    effects = [Effect(HEALTH_RECOVERED, sheet.name, {"amount": amount, "hp": hp})]
    held_by_effect = SCENE in (v for k, v in sheet.counters.items() if k.startswith(EFFECT_PREFIX))
    if version >= FOURTH:
        held_by_effect = held_by_effect or bool(sheet.counter(SCENE_KEY + "defeated"))
        after = apply_all(sheet, effects)
        again = defeat_by_effects(after, hp) if not held_by_effect else []
        if again:  # defeated again by the effect, now for the rest of the scene
            return effects + [e for e in again if e.event != CONDITION_IMPOSED or not after.has("defeated")]
    if sheet.has("defeated") and not held_by_effect:
        effects.append(Effect(CONDITION_REMOVED, sheet.name, {"condition": "defeated", "note": "recovered"}))
    return effects


def spend(sheet: Sheet, resource: str, n: int, purpose: str, version: int = 0) -> list[Effect]:
    """Spend Resolve or Adversity; more than is left is refused. Recovery with Resolve restores Health too."""
    key, n, why = _pool_of(sheet, resource), _amount(n), norm(purpose)
    if why not in SPEND_PURPOSES:
        raise BadInput(
            f"'{purpose}' is not something to spend {RESOURCES[key]} on", f"one of: {', '.join(SPEND_PURPOSES)}"
        )
    have = sheet.resources[key]
    if n > have:
        raise ImpossibleAction(f"{sheet.name} has {have} {RESOURCES[key]} left, can't spend {n}")
    healed = recover(sheet, n * HEALTH_PER_RESOLVE, version) if why == "recovery" and key == "resolve" else []
    return [resource_changed(sheet, key, -n, purpose=why), *healed]


def gain(sheet: Sheet, resource: str, n: int, reason: str) -> list[Effect]:
    """Earn Resolve (Flaws, heroics) or Adversity (the players' actions, other GM awards)."""
    key, n, why = _pool_of(sheet, resource), _amount(n), norm(reason)
    if why not in GAIN_REASONS:
        raise BadInput(f"'{reason}' is not a reason to gain {RESOURCES[key]}", f"one of: {', '.join(GAIN_REASONS)}")
    return [resource_changed(sheet, key, n, reason=why)]


def start_of_issue(sheet: Sheet, resolve: int) -> list[Effect]:
    """A hero begins the issue with the Resolve the GM sets."""
    if not sheet.pc and "resolve" not in sheet.resources:
        raise BadInput(f"{sheet.name} is not a hero: only heroes have Resolve", "the GM's Adversity: start_of_issue_gm")
    if isinstance(resolve, bool) or not isinstance(resolve, int) or resolve < 0:
        raise BadInput(f"starting Resolve is a whole number of at least 0, got {resolve}")
    return [resource_changed(sheet, "resolve", resolve - sheet.resources.get("resolve", 0), reason="start-of-issue")]


def start_of_issue_gm(gm: Sheet, heroes: int) -> list[Effect]:
    """The GM begins the issue with 1 Adversity per Hero, whatever was left from the last one."""
    value = starting_adversity(heroes)
    return [
        resource_changed(
            gm, "adversity", value - gm.resources.get("adversity", 0), reason="start-of-issue", heroes=heroes
        )
    ]


__all__ = ["gain", "gm_sheet", "recover", "spend", "start_of_issue", "start_of_issue_gm", "starting_adversity"]
