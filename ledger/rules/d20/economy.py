"""d20 Supers, the action economy of a round: full, partial and free actions, and the Attack of Opportunity.

Text: d20-supers.txt, Attacks ("Full action ... Partial action ... Free action ... does not count against other
actions during your turn"), Free Attack, Attack of Opportunity ("an extra attack per round"). Pure: a
character's tally for the round and the kind of one more action -> the new tally and any problem with it.
Readings: docs/interpretations.md (d20 Supers, Actions in a round).
"""

from __future__ import annotations

from typing import Any

from ledger.model.sheet import Sheet
from ledger.rules.d20.core import opt_choice, opt_names
from ledger.rules.d20.options import ACTION_KINDS, OPPORTUNITY
from ledger.rules.options import Options

Tally = dict[str, Any]  # {"full": n, "partial": n, "free": n, "charge-attack": bool, "opportunity": TARGET | None}


def blank() -> Tally:
    """Nothing done yet this round."""
    return {"full": 0, "partial": 0, "free": 0, "charge-attack": False, "opportunity": None}


def cost(command: str, actor: Sheet, options: Options) -> str | None:
    """What kind of action a command is: full, partial, free, charge-attack or opportunity (None: not an action)."""
    if command == "attack":
        why = options.get("free-attack")
        if why in OPPORTUNITY:
            return "opportunity"  # Attack of Opportunity: "an extra attack per round"
        if why == "moved-within-5ft":
            return "free"  # Free Attack: granted by the opponent's move, out of the round's actions
        if "charging" in opt_names(options, "modifiers") and not actor.has("charging"):
            return "full"  # a charge declared in the attack: the run and the attack are one full action
        return "charge-attack" if actor.has("charging") else "partial"
    if command in ("act run", "act charge"):
        return "full"  # running moves 4 x speed for the round; a charge "is like a run"
    if command == "act action":
        return opt_choice(options, "kind", ACTION_KINDS) or "partial"
    return None


def take(tally: Tally, kind: str, who: str, target: str | None) -> tuple[Tally, str | None]:
    """The tally after one more action of `kind`, and what is wrong with it (None when the round allows it)."""
    if kind == "charge":  # a charge declared in the attack: its full action, and its own attack taken with it
        t, problem = take(tally, "full", who, target)
        return {**t, "charge-attack": True}, problem
    t = {**blank(), **tally}
    problem = None
    if kind == "charge-attack" and not t["charge-attack"] and t["full"]:
        return {**t, "charge-attack": True}, None  # the charge's own attack, part of its full action
    if kind == "charge-attack":
        kind = "partial"
    if kind == "full":
        if t["full"]:
            problem = f"{who} has already taken a full action this round"
        elif t["partial"]:
            problem = f"{who} has already acted this round: a full action takes the whole round"
        t["full"] += 1
        return t, problem
    if kind == "partial":
        if t["full"]:
            problem = f"{who} has taken a full action this round: it takes the whole round"
        t["partial"] += 1
        return t, problem
    if kind == "opportunity":
        if t["opportunity"] is not None:
            problem = f"{who} has already made their Attack of Opportunity this round (against {t['opportunity']})"
        return {**t, "opportunity": t["opportunity"] or target or "-"}, problem
    t["free"] += 1
    return t, None
