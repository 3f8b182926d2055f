"""What a player may ask their hero to do now, from the hero's sheet and the tracker: the choices of their page.

Only during the hero's turn in a running encounter (hnh-site/gameplay.txt, Taking Your Turn; the d20 and P&P turns
likewise): an attack with each of the hero's powers (or without one, where the system's attack takes none) at each
participant the players can see who is still in the fight; each of the system's own actions (`ledger act`: H&H's
maneuvers, d20's run and charge, P&P's chase and move), at each such participant when it needs one; a check of
each trait the rules let the hero check (`RuleSystem.check_traits`: d20's six abilities too, a score not given
counting as 10; the GM sets its DC as they accept it, with `pending edit`);
standing up when prone (the one condition the texts let a character end by its own action: hnh-site/conditions.txt,
Prone; d20 SRD, Prone); ending or delaying the turn. Each choice carries the command's words, so what the GM
records is exactly what the page offered: a page can only pick one of these, never write a command.

What the turn's action budget no longer allows is not offered: in a campaign that refuses an action over the budget
(`init -o action-economy=refuse`, the default), an action of a kind the hero's tally this round has no room for (H&H
gameplay.txt, Number Of Actions: "You get a standard and a move action each turn"; Standard Action: "you can only use
1 standard action during your turn"; d20-supers.txt, Attacks: a full action takes the round), and delaying once
the hero has acted (H&H gameplay.txt, Delay: "You cannot delay if you have already taken an action on your turn"), as
the rules' own `action_cost`, `take_action` and `delay_refused` decide from the tally the read side keeps.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from ledger.errors import Conflict, ImpossibleAction, LedgerError
from ledger.model.sheet import Sheet
from ledger.rules import get_rules
from ledger.rules.contract import Action, LowestFaces, RuleSystem
from ledger.rulings.deciders import economy
from projections.db import ReadSide, sheets
from projections.hidden import hidden
from projections.queries import campaign_settings
from projections.tracker import tracker

GM_ACTIONS = frozenset({"until", "ongoing-damage", "action"})  # the GM's bookkeeping, not a character's choice
NEEDS_A_WEAPON = frozenset({"pnp"})  # P&P's attack names the trait or power it uses (`--with`)
OUT = frozenset({"dead", "defeated", "dying", "unconscious", "incapacitated"})


def choices(read: ReadSide, hero: str) -> list[dict[str, Any]]:
    """The choices of `hero`'s page right now (none unless it is the hero's turn): id, group, label, words."""
    enc = tracker(read, required=False)
    if enc is None or str(enc["current"] or "").casefold() != hero.casefold():
        return []
    with read.engine.connect() as conn:
        row = conn.execute(select(sheets.c.sheet).where(sheets.c.name == enc["current"]).where(sheets.c.active)).first()
        heroes = {
            str(name).casefold() for name, sheet in conn.execute(select(sheets.c.name, sheets.c.sheet))
            if (sheet or {}).get("pc")
        }  # fmt: skip
        kept = hidden(read, conn, heroes)
        refuse = economy.mode_of(campaign_settings(conn)) == "refuse"
    if row is None:
        return []
    sheet = dict(row[0])
    me = str(enc["current"])
    system = str(enc["system"])
    rules = get_rules(system)
    targets = [
        str(e["name"])
        for e in enc["order"]
        if e["name"] != me and not kept.hides(e["name"]) and not OUT.intersection(e["marks"])
    ]
    out: list[dict[str, Any]] = []
    powers = sorted(sheet.get("powers") or {})
    weapons: list[str | None] = list(powers) if powers else ([] if system in NEEDS_A_WEAPON else [None])
    if system in NEEDS_A_WEAPON and not powers:
        weapons = [t for t in ("might", "agility") if t in (sheet.get("traits") or {})]
    for t in targets:
        for w in weapons:
            words = ["attack", me, t, *(["--with", w] if w else [])]
            label = f"{me} attacks {t}" + (f" with {w}" if w else "")
            out.append({"group": "Attack", "label": label, "words": words})
    mine = _sheet(sheet)
    others = {t: _sheet(o) for t, o in _sheets(read, targets).items()}
    for name, action in sorted(rules.actions.items()):
        if name in GM_ACTIONS:
            continue
        if action.other in ("none", "optional") and allowed(action, mine, None):
            out.append({"group": "Actions", "label": f"{me}: {name}", "words": ["act", me, name]})
        if action.other in ("needed", "optional"):
            for t in targets:
                if not allowed(action, mine, others.get(t)):
                    continue
                words = ["act", me, name, "--against", t]
                out.append({"group": "Actions", "label": f"{me}: {name} against {t}", "words": words})
    traits = rules.check_traits(mine) if mine is not None else sorted((sheet.get("traits") or {}).keys())
    for trait in traits:
        if mine is not None and not rules.can_check(mine, trait):
            continue
        article = "an" if trait[:1].lower() in "aeiou" else "a"
        out.append({"group": "Checks", "label": f"{me} makes {article} {trait} check", "words": ["check", me, trait]})
    if "prone" in (sheet.get("conditions") or ()):
        out.append({"group": "Conditions", "label": f"{me} stands up", "words": ["condition", "remove", me, "prone"]})
    spent = next((dict(e.get("spent") or {}) for e in enc["order"] if e["name"] == me), {})
    if refuse:
        out = [c for c in out if affordable(rules, mine, spent, c["words"])]
    out.append({"group": "Turn", "label": f"{me} ends the turn", "words": ["encounter", "next"]})
    if mine is None or rules.delay_refused(mine, economy.acted(spent)) is None:
        out.append({"group": "Turn", "label": f"{me} delays the turn", "words": ["encounter", "delay"]})
    for i, c in enumerate(out):
        c["id"] = f"{i}:{' '.join(c['words'])}"
    return out


def affordable(rules: RuleSystem, me: Sheet | None, spent: dict[str, Any], words: list[str]) -> bool:
    """Whether the hero's tally this round (`spent`) has room for the choice's action, as the rules count it when
    the GM records it (`RuleSystem.action_cost`, `take_action`; ledger/rulings/deciders/economy.py): an attack, or
    one of the system's actions; a check, standing up and the turn's end are not counted."""
    if me is None or words[0] not in ("attack", "act"):
        return True
    command = "attack" if words[0] == "attack" else f"act {words[2]}"
    target = words[2] if words[0] == "attack" else (words[4] if len(words) > 4 else None)
    kind = rules.action_cost(command, me, {})
    if kind is None:
        return True
    _, problem = rules.take_action(spent, kind, me.name, target)
    return problem is None


def allowed(action: Action, me: Sheet | None, other: Sheet | None) -> bool:
    """Whether the rules let `me` take `action` (against `other`) now: the action's own rule, asked with no options,
    refuses what the character's state rules out (H&H's escape while held by no one, release while holding no one;
    seize the initiative twice). A refusal that only wants an option the GM gives on accepting (a rank, a DC) leaves
    the choice offered."""
    if me is None:
        return True
    try:
        action.perform(me, other, {}, LowestFaces())
    except (ImpossibleAction, Conflict):
        return False
    except LedgerError:
        return True
    return True


def _sheet(data: Any) -> Sheet | None:
    try:
        return Sheet.from_dict(dict(data))
    except (KeyError, TypeError, ValueError):
        return None


def _sheets(read: ReadSide, names: list[str]) -> dict[str, Any]:
    """The live sheets of the participants named (read-model rows)."""
    if not names:
        return {}
    with read.engine.connect() as conn:
        rows = conn.execute(
            select(sheets.c.name, sheets.c.sheet).where(sheets.c.name.in_(names)).where(sheets.c.active)
        )
        return {str(n): sh for n, sh in rows}
