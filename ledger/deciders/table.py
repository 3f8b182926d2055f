"""The stored command names and their deciders: how a recorded ruling is decided again (ledger/rederive.py).

Command names are stored in every ruling: they never change. Undo, redo and retraction are not here: they
are decided from the log itself (ledger/undo.py, ledger/rederive.py), never re-derived.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.deciders import core, encounter, play
from ledger.errors import NotFound
from ledger.ruling import Draft

Decider = Callable[[Draft, dict[str, Any]], dict[str, Any]]

DECIDERS: dict[str, Decider] = {
    "session start": core.session_start,
    "session end": core.session_end,
    "character add": core.character_add,
    "roll": play.roll,
    "damage": play.damage,
    "condition add": play.condition_add,
    "condition remove": play.condition_remove,
    "attack": play.attack,
    "check": play.check,
    "recover": play.recover,
    "spend": play.spend,
    "gain": play.gain,
    "hazard": play.hazard,
    "revive": play.revive,
    "act": play.act,
    "encounter start": encounter.start,
    "encounter next": encounter.next_,
    "encounter delay": encounter.delay,
    "encounter act": encounter.act,
    "encounter join": encounter.join,
    "encounter remove": encounter.remove,
    "encounter end": encounter.end,
    "scene end": encounter.scene,
}


def decider_of(command: str) -> Decider:
    """The decider of a recorded command."""
    try:
        return DECIDERS[command]
    except KeyError:
        raise NotFound(f"no decider for the recorded command '{command}'") from None
