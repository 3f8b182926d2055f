"""What a player may ask their hero to do now, from the hero's sheet and the tracker: the choices of their page.

Only during the hero's turn in a running encounter (hnh-site/gameplay.txt, Taking Your Turn; the d20 and P&P turns
likewise): an attack with each of the hero's powers (or without one, where the system's attack takes none) at each
participant the players can see who is still in the fight; each of the system's own actions (`ledger act`: H&H's
maneuvers, d20's run and charge, P&P's chase and move), at each such participant when it needs one; a check of
each of the hero's traits (the GM sets its DC as they accept it, with `pending edit`); standing up when prone (the
one condition the texts let a character end by its own action: hnh-site/conditions.txt, Prone; d20 SRD, Prone);
ending or delaying the turn. Each choice carries the command's words, so what the GM records is exactly what the
page offered: a page can only pick one of these, never write a command.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from ledger.rules import get_rules
from projections.db import ReadSide, sheets
from projections.hidden import hidden
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
    for name, action in sorted(rules.actions.items()):
        if name in GM_ACTIONS:
            continue
        if action.other in ("none", "optional"):
            out.append({"group": "Actions", "label": f"{me}: {name}", "words": ["act", me, name]})
        if action.other in ("needed", "optional"):
            for t in targets:
                words = ["act", me, name, "--against", t]
                out.append({"group": "Actions", "label": f"{me}: {name} against {t}", "words": words})
    for trait in sorted((sheet.get("traits") or {}).keys()):
        out.append({"group": "Checks", "label": f"{me} makes a {trait} check", "words": ["check", me, trait]})
    if "prone" in (sheet.get("conditions") or ()):
        out.append({"group": "Conditions", "label": f"{me} stands up", "words": ["condition", "remove", me, "prone"]})
    out.append({"group": "Turn", "label": f"{me} ends the turn", "words": ["encounter", "next"]})
    out.append({"group": "Turn", "label": f"{me} delays the turn", "words": ["encounter", "delay"]})
    for i, c in enumerate(out):
        c["id"] = f"{i}:{' '.join(c['words'])}"
    return out
