"""d20 Supers, third pass: the dying take no free action, healing needs a cause, the per-round hint; via the CLI."""

from __future__ import annotations

import pytest

from tests.conftest import Cli, Recorded, event_count


def _record_d20(cli: Cli) -> None:
    """Ann (12 HP) and a Thug."""
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Ann", "--trait", "hp=12", "--pc")
    cli.ok("character", "add", "Thug", "--trait", "hp=10")


@pytest.fixture
def d20(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_d20 records, recorded once and copied for this test."""
    return recorded(cli, _record_d20)


@pytest.mark.parametrize("amount", ["13", "30"])
def test_the_dying_and_the_dead_take_no_free_action(d20: Cli, amount: str) -> None:
    """d20-supers.txt, Damage: the dying "are unconsious and can take no actions" -- a free one (talking) included."""
    d20.ok("damage", "Ann", "--amount", amount)
    before = event_count(d20.db)
    r = d20("act", "Ann", "action", "-o", "kind=free", "-o", "what=talk")
    assert r.exit_code == 2 and ("dying" in r.stderr or "dead" in r.stderr)
    assert event_count(d20.db) == before


def test_healing_without_a_cause_is_refused(d20: Cli) -> None:
    """d20-supers.txt, Damage (Regular): "Does not heal without a special power or medical attention or through the
    passage of time": `recover Ann --amount 3` with neither a cause nor hours is refused, nothing appended."""
    d20.ok("damage", "Ann", "--amount", "5")
    before = event_count(d20.db)
    r = d20("recover", "Ann", "--amount", "3")
    assert r.exit_code == 2 and "--cause" in r.stderr
    assert event_count(d20.db) == before
    shown = d20.json("recover", "Ann", "--amount", "3", "--cause", "medical attention")
    assert shown["character"]["hp"] == 10  # type: ignore[index]
    d20.ok("recover", "Ann", "--amount", "1", "--hours", "24")  # the passage of time is a cause


def test_a_refused_second_full_action_says_the_count_is_per_round(d20: Cli) -> None:
    """d20-supers.txt, Attacks ("Full action - ... 6 seconds", a round): the hint says the count is per round,
    not "pass the turn first"."""
    d20.ok("encounter", "start", "Ann", "Thug", "--init", "Ann=20", "--init", "Thug=1")
    d20.ok("act", "Ann", "action", "-o", "kind=full", "-o", "what=reload")
    r = d20("act", "Ann", "run")
    assert r.exit_code == 2
    assert "per round" in r.stderr and "pass the turn" not in r.stderr
