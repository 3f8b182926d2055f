"""Exact Fudge faces for H&H rule tests: `dice(attack="+0-", defense="000")`."""

from __future__ import annotations

from ledger.model.dice import DiceBox


def dice(rolls: dict[str, str] | None = None, **kw: str) -> DiceBox:
    """A dice box holding entered Fudge faces by roll name (as `--roll check=+,+,0`), e.g. dice(check="++0")."""
    spec = {**(rolls or {}), **kw}
    return DiceBox(entered={n: ",".join(f) for n, f in spec.items()})
