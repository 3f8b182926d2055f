"""Click parameter types for numbers: each converts through ledger/model/bounds.py, so a value outside its declared
range is one line and exit 2."""

from __future__ import annotations

from typing import Any

import click

from ledger.model.bounds import BOUNDS, whole


class Whole(click.ParamType):
    """A whole number inside the range ledger/model/bounds.py declares for `name` (--count, --amount, N, ...)."""

    name = "integer"

    def __init__(self, bound: str) -> None:
        self.bound = bound

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        """The number, or the ledger's own refusal (BadInput: exit 2, nothing appended)."""
        return whole(self.bound, value)

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        """N, with its range in --help."""
        lo, hi = BOUNDS[self.bound]
        return f"N ({lo}..{hi})" if hi < 10**7 else "N"


def number(bound: str) -> Whole:
    """The click type for the number declared as `bound` in ledger/model/bounds.py."""
    if bound not in BOUNDS:
        raise KeyError(bound)
    return Whole(bound)
