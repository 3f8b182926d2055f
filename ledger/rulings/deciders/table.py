"""The deciders of stored command names, derived from the catalog (ledger/catalog.py): how a recorded ruling
is decided again (ledger/history/rederive.py) and how a new one is decided (`Ledger.record`).

Undo, redo, retraction and `init` have no decider: they are decided from the log itself
(ledger/history/undo.py, ledger/history/rederive.py), never re-derived.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from ledger.catalog import STORED, Command
from ledger.errors import NotFound
from ledger.rulings.deciders.durations import NATURAL, SIDES, version
from ledger.rulings.draft import Draft

if TYPE_CHECKING:  # the intent types cost a one-shot command their import: mypy alone reads them
    from ledger.intents import Intent, Result

    # (draft, intent) -> result: each decider takes its command's own intent type (ledger/intents.py)
    Decider = Callable[[Draft, Intent], Result]


_MADE: dict[str, Decider] = {}  # each declared decider made once (the same function for the same command)


def decider(spec: Command) -> Decider:
    """The decider a command declares (its module is imported on first use: a one-shot write loads only its own)."""
    if spec.decider is None:
        raise NotFound(f"'{spec.name}' is decided from the log itself, not by a decider")
    known = _MADE.get(spec.decider)
    if known is not None:
        return known
    module, _, function = spec.decider.rpartition(".")
    fn: Decider = getattr(importlib.import_module(f"ledger.rulings.deciders.{module}"), function)
    if spec.kind != "play":
        return _MADE.setdefault(spec.decider, fn)

    def decide(d: Draft, intent: Intent) -> Result:
        """The command's decider; then whether one side is all down: said, and recorded from the tracker's version 2
        (intents before it, or outside an encounter, record nothing and are decided again as they were)."""
        # lazy: the encounter's turns (who is down), for play rulings only; kept out of the other commands' writes
        from ledger.rulings.deciders.turns import side_down

        result = fn(d, intent)
        gone = result.get("removed_side") if version(d) >= NATURAL else None  # `encounter remove`: who left
        left = result.get("removed") if gone else None
        return cast("Result", {**result, **side_down(d, record=version(d) >= SIDES, gone=gone, left=left)})

    return _MADE.setdefault(spec.decider, decide)


def decider_of(command: str) -> Decider:
    """The decider of a recorded command, by its stored name."""
    spec = STORED.get(command)
    if spec is None or spec.decider is None:
        raise NotFound(f"no decider for the recorded command '{command}'")
    return decider(spec)
