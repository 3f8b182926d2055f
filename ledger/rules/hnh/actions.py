"""The `ledger act NAME ACTION` actions of Humans & Heroes besides attacks: maneuvers, lasting effects, ongoing damage.

Each is an `Action` (ledger/rules/contract.py) built from its declarations in options.py and its rule in maneuvers.py
(or turns.py); `system.py` adds Affliction, Healing and Defend.
"""

from __future__ import annotations

from typing import Literal

from ledger.errors import BadInput
from ledger.model.dice import Dice
from ledger.model.sheet import Effect, Sheet
from ledger.rules.contract import Action, Perform
from ledger.rules.hnh import maneuvers, turn_actions, turns
from ledger.rules.hnh import options as declared
from ledger.rules.options import Options

GP = "hnh-site/gameplay.txt"


def until(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """A condition that lasts until the start or the end of the character's next turn."""
    if "condition" not in options:
        raise BadInput("name the condition", "-o condition=dazed -o until=end")
    until = str(options.get("until") or "end")
    return turns.until_effects(actor, str(options["condition"]), until, next_turn=True)


def ongoing(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """Damage of a rank at the end of each of the character's turns (standing in a fire); rank 0 ends it."""
    if "rank" not in options:
        raise BadInput("give the Damage rank", "-o rank=N (0 ends it)")
    return turns.ongoing_damage(actor, int(options["rank"]) or None)


Other = Literal["needed", "optional", "none"]
TABLE: dict[str, tuple[Perform, str, Other]] = {
    "grab": (maneuvers.grab, f"{GP}, Grab - Standard Action", "needed"),
    "escape": (maneuvers.escape, f"{GP}, Escape - Move Action", "needed"),
    "release": (maneuvers.release, f"{GP}, Grab - Standard Action", "needed"),
    "trip": (maneuvers.trip, f"{GP}, Trip - Standard Action", "needed"),
    "disarm": (maneuvers.disarm, f"{GP}, Disarm - Standard Action", "needed"),
    "smash": (maneuvers.smash, f"{GP}, Smash - Standard Action", "needed"),
    "feint": (maneuvers.feint, f"{GP}, Feint", "needed"),
    "demoralize": (maneuvers.demoralize, f"{GP}, Demoralize", "needed"),
    "aim": (maneuvers.aim, f"{GP}, Aim - Standard Action", "optional"),
    "extra-effort": (maneuvers.extra_effort, "hnh-site/the-basics.txt, Extra Effort", "none"),
    "seize-initiative": (maneuvers.seize_initiative, f"{GP}, Initiative", "none"),
    "until": (until, f"{GP}, Taking Your Turn", "none"),
    "ongoing-damage": (ongoing, f"{GP}, Ending Your Turn", "none"),
    "stand": (turn_actions.stand, f"{GP}, Stand - Move Action", "none"),
    "action": (turn_actions.action, f"{GP}, Action Types", "none"),
    "ready": (turn_actions.ready, f"{GP}, Ready - Standard Action", "none"),
    "shake": (turn_actions.shake, "hnh-site/conditions.txt, Entranced", "needed"),
    "maintain": (turn_actions.maintain, f"{GP}, Maintaining Effects", "optional"),
    "drop": (turn_actions.drop, f"{GP}, Maintaining Effects", "none"),
}

ACTIONS: dict[str, Action] = {
    name: Action(
        name, declared.ACTION_HELP[name], fn, source, declared.ACTIONS[name], declared.ACTION_ROLLS[name], other
    )
    for name, (fn, source, other) in TABLE.items()
}
