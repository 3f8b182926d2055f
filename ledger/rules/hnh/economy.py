"""Humans & Heroes, the action budget of a turn: a standard and a move action, free actions, and extra effort's action.

Text: gameplay.txt, Number Of Actions ("You get a standard and a move action each turn. You can exchange your standard
action for an additional move action"), Standard Action ("you can only use 1 standard action during your turn"), Free
Action; the-basics.txt, Using Extra Effort, Action ("Gain an additional standard action during your turn"). Pure: a
character's tally for the turn and the kind of one more action -> the new tally and any problem with it.
Readings: docs/interpretations.md (Humans & Heroes, The action budget).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.model.sheet import Sheet

Tally = dict[str, Any]  # {"standard": n, "move": n, "free": n, "extra": n (standard actions extra effort added)}

STANDARD = frozenset(
    {"grab", "trip", "disarm", "smash", "feint", "demoralize", "aim", "defend", "heal", "affliction"}
)  # gameplay.txt: each "- Standard Action" (Feint and Demoralize use a skill: a standard action)
MOVE = frozenset({"escape"})  # gameplay.txt, Escape - Move Action
FREE = frozenset({"release"})  # Grab: releasing is a free action


def blank() -> Tally:
    """Nothing done yet this turn."""
    return {"standard": 0, "move": 0, "free": 0, "extra": 0}


def cost(command: str, actor: Sheet, options: Mapping[str, Any]) -> str | None:
    """What kind of action a command is: standard, move, free or effort-action (None: not counted)."""
    if command == "attack":
        return "standard"  # Standard Action: "You can make an attack"
    action = command.removeprefix("act ")
    if action in STANDARD:
        return "standard"
    if action in MOVE:
        return "move"
    if action in FREE:
        return "free"
    if action == "extra-effort":  # "Extra effort is a free action"; its Action benefit adds a standard action
        return "effort-action" if options.get("benefit") == "action" else "free"
    return None


def take(tally: Tally, kind: str, who: str, target: str | None) -> tuple[Tally, str | None]:
    """The tally after one more action of `kind`, and what is wrong with it (None when the turn allows it)."""
    t = {**blank(), **tally}
    if kind == "effort-action":
        return {**t, "extra": t["extra"] + 1, "free": t["free"] + 1}, None
    if kind == "free":
        return {**t, "free": t["free"] + 1}, None
    standards = 1 + t["extra"]  # the standard actions of the turn; the move action is one more slot
    problem = None
    if kind == "standard":
        if t["standard"] + 1 > standards or t["standard"] + t["move"] + 1 > standards + 1:
            more = f" ({t['standard']} standard, {t['move']} move)" if t["move"] else ""
            problem = f"{who} has already used this turn's standard action{more}"
        t["standard"] += 1
        return t, problem
    if t["standard"] + t["move"] + 1 > standards + 1:
        problem = f"{who} has no move action left this turn (a standard action traded down is one move action)"
    t["move"] += 1
    return t, problem
