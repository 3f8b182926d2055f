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


def test_an_abilitys_full_name_is_refused_as_a_trait_key(cli: Cli) -> None:
    """d20-supers.txt, Basics of Combat ("your attack bonus/penalty and Strength bonus", "DR is 10± Dex. modifier"):
    the abilities are the sheet's str, dex, con, int, wis, cha (docs/interpretations.md, d20 Supers, Sheet
    vocabulary), and any other number is a skill; `--trait strength=14` would be a skill of +14 beside a Strength of
    10, so it is refused in one line naming str, nothing appended, on `character add` and `character set` alike;
    `check Ann strength` is answered with did-you-mean str."""
    cli.ok("init", "--system", "d20")
    before = event_count(cli.db)
    r = cli("character", "add", "Ann", "--trait", "strength=14")
    assert r.exit_code == 2 and "'strength' is not a d20 trait key" in r.stderr and "str=14" in r.stderr, r.stderr
    assert event_count(cli.db) == before
    cli.ok("character", "add", "Ann", "--trait", "str=14", "--trait", "climb=3")
    before = event_count(cli.db)
    r = cli("character", "set", "Ann", "--trait", "Wisdom=12")
    assert r.exit_code == 2 and "wis=12" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert event_count(cli.db) == before
    r = cli("check", "Ann", "strength", "--dc", "10")
    assert r.exit_code == 2 and "did you mean 'str'?" in r.stderr and event_count(cli.db) == before, r.stderr
    checked = cli.json("check", "Ann", "str", "--dc", "10", "--roll", "check=10")
    assert "1d20+2" in str(checked)  # (14 - 10) // 2: the ability's modifier, not a skill's rank


def test_a_full_name_recorded_before_stays_a_skill_on_retraction(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `strength` skill recorded by the previous release (its `character add` carried no rules' version; its
    `character set` version 5) is decided again as it was when an earlier ruling is retracted (RuleSystem.at): the
    sheet keeps it, and verify passes."""
    from ledger.app import core

    monkeypatch.setattr(core, "RULED", core.RULED - {"character add"})
    monkeypatch.setattr(core, "TRACKER", 5)
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Ann", "--trait", "strength=14", "--trait", "hp=12")
    cli.ok("damage", "Ann", "--amount", "3")  # ruling 3
    cli.ok("character", "set", "Ann", "--trait", "wisdom=3")
    monkeypatch.undo()  # today's release decides the retraction
    cli.ok("retract", "3", "--yes")
    sheet = cli.json("character", "show", "Ann")
    assert sheet["traits"] == {"strength": 14, "hp": 12, "wisdom": 3} and sheet["hp"] == 12, sheet  # type: ignore[index]
    cli.ok("verify")
