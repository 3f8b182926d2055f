"""One error hierarchy for everything the ledger refuses; the CLI maps it to exit code 2."""

from __future__ import annotations


class LedgerError(Exception):
    """A refusal the user can act on: one line saying what is wrong, optionally a hint."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class BadInput(LedgerError):
    """Malformed or out-of-range input (numbers, faces, names, traits)."""


class NotFound(LedgerError):
    """A character, ruling, session or encounter that does not exist."""


class Conflict(LedgerError):
    """A duplicate name, or a command that does not fit the current state."""


class ImpossibleAction(LedgerError):
    """The rules forbid this action (a dead character attacking, recovering the dead)."""


class StoreError(LedgerError):
    """The ledger's database cannot be opened, created or reached."""


class NotInitialised(LedgerError):
    """No campaign has been created in this ledger yet."""
