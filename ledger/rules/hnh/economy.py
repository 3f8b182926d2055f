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
MOVE = frozenset({"escape", "stand"})  # gameplay.txt, Escape - Move Action; Stand - Move Action
FREE = frozenset({"release", "drop"})  # Grab: releasing is a free action; Maintaining Effects: ending one is
LIMITED = ("dazed", "compelled", "controlled")  # a single standard action (or a move) per turn (conditions.txt, Dazed)
SINGLE = "single-"  # a kind's prefix when the actor is limited to a single action (from the rules' version 4)


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
    if action == "action":  # Action Types, by the kind given (a reaction is taken out of the budget)
        kind = str(options.get("kind") or "standard")
        return None if kind == "reaction" else kind
    if action == "ready":  # Ready: "a standard action", or a full turn to ready a full-turn action
        return "full" if options.get("kind") == "full" else "standard"
    if action == "shake":  # an interaction skill check (the-basics.txt, Skills: a standard action)
        return "standard"
    if action == "maintain":  # Concentration: "a standard action during your turn"; Sustained: a free action
        # lazy: the power's duration (turn_actions), the same floor
        from ledger.rules.hnh.turn_actions import duration_of

        name = str(options.get("power") or "")
        key = next((p for p in actor.powers if p.lower() == name.lower()), name)
        return "standard" if duration_of(actor, key) == "concentration" else "free"
    return None


def limited(actor: Sheet) -> bool:
    """Dazed (and so staggered and battered), compelled or controlled: a single standard action (or a move) per turn,
    and free actions (conditions.txt, Dazed, Compelled; Controlled acts as dictated, read as no more)."""
    # lazy: the conditions' closure, the same floor
    from ledger.rules.hnh.conditions import effective

    return bool(set(LIMITED) & set(effective(actor.conditions)))


def take(tally: Tally, kind: str, who: str, target: str | None) -> tuple[Tally, str | None]:
    """The tally after one more action of `kind`, and what is wrong with it (None when the turn allows it)."""
    t = {**blank(), **tally}
    if kind.startswith(SINGLE):  # a single standard action (or a move) this turn: the move slot is gone
        kind, t["single"] = kind[len(SINGLE) :], True
    if kind == "full":  # Full Turn Action: "requires both a standard action and a move action to do"
        standards = 1 + t["extra"]
        problem = None
        if t.get("single"):
            problem = f"{who} can't take a full-turn action: limited to a single action this turn"
        elif t["standard"] + 1 > standards or t["standard"] + t["move"] + 2 > standards + 1:
            problem = f"{who} has no standard and move action left for a full-turn action"
        return {**t, "standard": t["standard"] + 1, "move": t["move"] + 1}, problem
    if kind == "effort-action":
        return {**t, "extra": t["extra"] + 1, "free": t["free"] + 1}, None
    if kind == "free":
        return {**t, "free": t["free"] + 1}, None
    standards = 1 + t["extra"]  # the standard actions of the turn; the move action is one more slot
    problem = None
    if t.get("single") and kind in ("standard", "move"):
        if t["standard"] + t["move"] + 1 > standards:
            problem = f"{who} can take only a single standard action (or a move) this turn"
        t[kind] += 1
        return t, problem
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
