"""One error hierarchy for everything the ledger refuses; the CLI maps it to exit code 2."""

from __future__ import annotations

from collections.abc import Iterable


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


class MediumError(StoreError):
    """The medium refuses writes (read-only, full, failing): reads still work, opened read-only."""


class NotInitialised(LedgerError):
    """No campaign has been created in this ledger yet."""


def close_match(value: str, known: Iterable[str]) -> str | None:
    """The known spelling closest to a mistyped one (case-insensitive), if one is close enough."""
    # lazy: difflib, for an error's suggestion; kept out of a one-shot write
    import difflib

    by_key: dict[str, str] = {}
    for k in known:
        by_key.setdefault(k.casefold(), k)
    found = difflib.get_close_matches(value.strip().casefold(), list(by_key), n=1, cutoff=0.6)
    return by_key[found[0]] if found else None


def did_you_mean(value: str, known: Iterable[str], otherwise: str | None = None) -> str | None:
    """A did-you-mean hint for a mistyped name, else `otherwise`."""
    close = close_match(value, known)
    return f"did you mean '{close}'?" if close else otherwise


def no_character(name: str, known: Iterable[str], suffix: str = "", retired: Iterable[str] = ()) -> NotFound:
    """The refusal of a name that is no live character's, with the nearest name if one is close; a retired
    character's name is refused as retired (`retired`: the names of retired characters)."""
    if any(r.strip().casefold() == name.strip().casefold() for r in retired):
        return NotFound(
            f"{name} is retired{suffix}",
            "retired characters keep their history but take no part in play: see ledger character list --all",
        )
    return NotFound(f"no character called '{name}'{suffix}", did_you_mean(name, known, "see: ledger character list"))
