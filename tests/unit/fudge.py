"""Exact Fudge faces for H&H rule tests: `dice(attack="+0-", defense="000")`."""

from __future__ import annotations

from ledger.model.dice import RecordedDice, Roll, fudge

FACES = {"+": 1, "-": -1, "0": 0}


def dice(rolls: dict[str, str] | None = None, **kw: str) -> RecordedDice:
    """Recorded Fudge faces by roll name, e.g. dice(check="++0")."""
    spec = {**(rolls or {}), **kw}
    return RecordedDice({n: Roll(n, fudge(), tuple(FACES[c] for c in f), "entered") for n, f in spec.items()})
