"""Where GMs tripped over the CLI in the fourth round of audits: each fixed through the real CLI."""

from __future__ import annotations

import pytest

from ledger.rules import get_rules
from tests.conftest import Cli


def test_options_takes_an_actions_name_as_two_words(cli: Cli) -> None:
    """`ledger options act run` lists the d20 run's options without quotes (as `ledger options "act run"` does)."""
    unquoted = cli.ok("options", "act", "run", "--system", "d20").stdout
    assert "d20 act run:" in unquoted and unquoted == cli.ok("options", "act run", "--system", "d20").stdout


def test_act_help_names_every_action_of_every_system(cli: Cli) -> None:
    """`ledger act --help` names each `act` action each rule system declares (d20 action, P&P move included)."""
    text = " ".join(cli.ok("act", "--help").stdout.split())
    missing = [(k, a) for k in ("hnh", "d20", "pnp") for a in get_rules(k).actions if f" {a}" not in text]
    assert missing == []


def test_a_d20_action_without_what_reads_as_a_sentence(cli: Cli) -> None:
    """d20-supers.txt, Attacks ("Partial action"): `act Ann action` without `what` says Ann takes an action."""
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Ann", "--pc")
    out = cli.ok("act", "Ann", "action").stdout
    assert "Ann takes a partial action" in out


def test_the_log_says_a_re_derived_rulings_amended_outcome(cli: Cli) -> None:
    """DESIGN.md, The ruling (a retraction re-derives the later rulings): after the retraction `log` says ruling 6's
    amended outcome, as `encounter log` does, marked as re-derived; no longer that every foe is down."""
    cli.ok("init", "--system", "pnp")
    cli.ok("character", "add", "Mara", "--trait", "might=4", "--trait", "toughness=4", "--pc")
    cli.ok("character", "add", "Boss", "--trait", "might=3", "--trait", "toughness=3")
    cli.ok("encounter", "start", "Mara", "Boss")
    first = cli.json("damage", "Boss", "--amount", "1")["ruling"]  # type: ignore[index]
    cli.ok("damage", "Boss", "--amount", "2")
    assert "every foe is down" in cli.ok("log", "-n", "1").stdout
    cli.ok("retract", str(first), "--yes")
    log = cli.ok("log", "-n", "2").stdout
    assert "[re-derived by ruling 7]" in log and "Health 3 -> 1" in log and "every foe is down" not in log
    assert "Health 3 -> 1" in cli.ok("encounter", "log").stdout


@pytest.mark.parametrize("had,added,became", [("stunned", "dazed", "incapacitated"), ("dazed", "dazed", "stunned")])
def test_a_condition_that_progresses_its_row_says_so(cli: Cli, had: str, added: str, became: str) -> None:
    """hnh-site/conditions.txt, Progressive Conditions: `condition add` that moves a row on says it is the
    progression, not only what it became."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--pc")
    cli.ok("condition", "add", "Ann", had)
    out = cli.ok("condition", "add", "Ann", added).stdout
    assert f"make {became} (Progressive Conditions)" in out
