"""Encounters: initiative, turn order, rounds and the turn hooks (mixed into Ledger)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class EncounterCommands:
    """Mixed into Ledger: encounter commands, each one ruling."""

    rule: Callable[..., dict[str, Any]]
