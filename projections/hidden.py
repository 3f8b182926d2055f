"""What the players' screen keeps back: hidden characters and secret rulings, read from the rulings' intents.

A character added or brought into an encounter with `--hidden` (`character add`, `encounter start|join`) is hidden
from the players until it acts (a ruling of its own: attack, check, act, `encounter act`) or the GM reveals it
(`encounter reveal NAME`); a ruling recorded with `--secret` keeps its words and dice back until the GM reveals it
(`encounter reveal --ruling N`). Undone rulings count for nothing. The record is the same either way: hidden is a
matter of what `ledger serve` shows to players (projections/screen.py), never of the log, verify or the exports.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from projections import queries
from projections.db import ReadSide, rulings

ACTOR_OF = {"attack": "attacker", "check": "name", "act": "name", "encounter act": "name"}  # who acts in a ruling


@dataclass
class Hidden:
    """Hidden names (case-folded; a group's base name hides its numbered copies too) and secret ruling numbers."""

    names: set[str] = field(default_factory=set)
    shown: set[str] = field(default_factory=set)  # copies of a hidden group revealed one by one
    secret: set[int] = field(default_factory=set)

    def hides(self, name: str | None) -> bool:
        """Whether a character's name is hidden from players."""
        if not name or not self.names:
            return False
        key = name.strip().casefold()
        return key not in self.shown and (key in self.names or re.sub(r" \d+$", "", key) in self.names)

    def mentions(self, values: Iterable[Any]) -> bool:
        """Whether any of these values (strings, or lists and dicts of them, as intents hold) names a hidden one."""
        for v in values:
            if isinstance(v, str) and self.hides(v):
                return True
            if isinstance(v, (list, tuple)) and self.mentions(v):
                return True
            if isinstance(v, Mapping) and (self.mentions(v.keys()) or self.mentions(v.values())):
                return True
        return False


def fold(rows: Iterable[tuple[int, str, Mapping[str, Any] | None]], dead: set[int], heroes: set[str]) -> Hidden:
    """The hidden names and secret rulings after these rulings (number, command, intent), in order; `dead` are the
    retracted ones (they count for nothing), `heroes` the case-folded names of player characters (never hidden)."""
    out = Hidden()
    for number, command, raw in rows:
        if number in dead:
            continue
        intent = dict(raw or {})
        if intent.get("secret"):
            out.secret.add(number)
        actor = ACTOR_OF.get(command)
        if actor and isinstance(intent.get(actor), str):
            _drop(out, intent[actor])
        if not intent.get("hidden"):
            if command == "encounter reveal":
                for name in intent.get("names") or ():
                    _drop(out, name)
                out.secret -= {int(n) for n in intent.get("rulings") or ()}
            continue
        if command == "character add":
            named = [intent.get("name")]
        elif command == "encounter start":
            named = list(intent.get("names") or ())
        elif command == "encounter join":
            named = list(intent.get("names") or [intent.get("name")])
        else:
            named = []
        keys = {n.strip().casefold() for n in named if isinstance(n, str)} - heroes
        out.names |= keys
        out.shown -= keys
    return out


def _drop(out: Hidden, name: str) -> None:
    """`name` is seen from now on (it acted, or the GM revealed it); a group's other copies stay hidden."""
    key = name.strip().casefold()
    if key in out.names:
        out.names.discard(key)
    else:
        out.shown.add(key)


def hidden(read: ReadSide, conn: Any, heroes: set[str]) -> Hidden:
    """The hidden names and secret rulings as the log stands (one read of the rulings' view)."""
    rows = conn.execute(select(rulings.c.number, rulings.c.command, rulings.c.intent).order_by(rulings.c.number)).all()
    return fold(((int(n), str(c), i) for n, c, i in rows), queries.retracted_rulings(conn), heroes)
