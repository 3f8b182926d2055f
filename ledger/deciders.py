"""The registry of deciders: for each command name, the function that decides a ruling from its intent.

A decider is `(draft, intent) -> result`. Because a ruling records its command, its intent and its dice,
any ruling can be decided again later (retraction re-derives later rulings this way) without the CLI.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ledger.ruling import Draft

Decider = Callable[["Draft", dict[str, Any]], dict[str, Any]]
DECIDERS: dict[str, Decider] = {}


def decider(command: str) -> Callable[[Decider], Decider]:
    """Register the decider of a command."""

    def register(fn: Decider) -> Decider:
        DECIDERS[command] = fn
        return fn

    return register


def get(command: str) -> Decider:
    """The decider of a recorded command (importing the modules that register them)."""
    import ledger.application  # noqa: F401  (registers the core deciders)
    import ledger.encounters  # noqa: F401
    import ledger.play  # noqa: F401

    return DECIDERS[command]
