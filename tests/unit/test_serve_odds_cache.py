"""The GM's odds view plays the quick forecast once per log head (commands/serve.py `Screen.odds_at`)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("jinja2")

import commands.odds  # noqa: E402
from commands.serve import Screen  # noqa: E402


def test_the_quick_forecast_is_played_once_per_log_head(monkeypatch: pytest.MonkeyPatch) -> None:
    played: list[Any] = []

    def quick(ledger: Any) -> dict[str, Any]:
        played.append(ledger)
        return {"trials": 2000, "seed": len(played), "heroes": 0.5, "foes": 0.5, "unresolved": 0.0}

    monkeypatch.setattr(commands.odds, "quick_odds", quick)
    screen = Screen(SimpleNamespace(ledger="the ledger"), None, "token")  # type: ignore[arg-type]
    first = screen.odds_at(7)
    assert screen.odds_at(7) == first and len(played) == 1  # the same head: read, not played again
    moved = screen.odds_at(8)
    assert len(played) == 2 and moved != first  # the log moved: played again
    assert screen.odds_at(8) == moved and len(played) == 2
