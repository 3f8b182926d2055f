"""Prowlers & Paragons, second pass (issue 15, items 7-12), through the real CLI; each test cites its passage."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Cli, event_count


def event(result: Any, kind: str) -> dict[str, Any]:
    return next(e["data"] for e in result["events"] if e["type"] == kind)


def events(result: Any, kind: str) -> list[dict[str, Any]]:
    return [e["data"] for e in result["events"] if e["type"] == kind]


def state(cli: Cli, *names: str) -> list[Any]:
    """Every named sheet as `character show --json` prints it."""
    return [cli.json("character", "show", n) for n in names]


def refused(cli: Cli, db: str, *args: str) -> Any:
    """Run a command that must be refused: exit 2, one error line, nothing appended."""
    before = event_count(db)
    r = cli(*args)
    assert r.exit_code == 2, r.stdout + r.stderr
    assert r.stderr.startswith("error: ") and "Traceback" not in r.stderr
    assert event_count(db) == before
    return r


@pytest.fixture
def pnp(cli: Cli) -> Cli:
    cli.ok("init", "--system", "pnp")
    cli.ok("character", "add", "Mara", "--trait", "might=4", "--trait", "agility=3", "--trait", "toughness=4", "--trait", "willpower=4", "--trait", "resolve=3", "--pc")
    cli.ok("character", "add", "Brute", "--trait", "might=3", "--trait", "agility=2", "--trait", "toughness=3", "--trait", "willpower=1")
    cli.ok("character", "add", "Goons", "--minion", "--count", "3", "--trait", "threat=2")
    return cli


# -- item 12: no ruling for a no-op; overkill recorded as the damage taken ---------------------------------
def test_damage_to_a_group_already_all_defeated_records_nothing(pnp: Cli, db: str):
    """prowlers-and-paragons.txt, Attacks and Defenses ("you ordinarily defeat 1 Minion per net success"): none left, nothing to record."""
    pnp.ok("damage", "Goons", "--amount", "3")
    r = refused(pnp, db, "damage", "Goons", "--amount", "2")
    assert "already defeated" in r.stderr


def test_damage_to_a_character_at_zero_health_records_nothing(pnp: Cli, db: str):
    """prowlers-and-paragons.txt, Attacks and Defenses: "Once a target's Health has falls to 0, they're defeated": more changes nothing."""
    pnp.ok("damage", "Brute", "--amount", "3")
    refused(pnp, db, "damage", "Brute", "--amount", "1")


def test_overkill_is_recorded_as_the_damage_actually_taken(pnp: Cli):
    """prowlers-and-paragons.txt, Attacks and Defenses: damage reduces Health, which stops at 0; the rest is overkill."""
    before = state(pnp, "Brute", "Goons")
    r = pnp.json("damage", "Brute", "--amount", "7")  # Health 3
    assert event(r, "DamageApplied") == {"amount": 3, "hp": 0, "overkill": 4}
    g = pnp.json("damage", "Goons", "--amount", "5")
    assert event(g, "DamageApplied")["amount"] == 3 and event(g, "MinionsDefeated")["defeated"] == 3
    pnp.ok("undo")
    pnp.ok("undo")
    assert state(pnp, "Brute", "Goons") == before


# -- item 11: a trait the sheet lacks ----------------------------------------------------------------
def test_a_talent_the_sheet_does_not_list_is_zero_dice_in_a_check(pnp: Cli):
    """prowlers-and-paragons.txt, Characteristics: every character has the Talents; one not listed rolls 0 dice, like Health and Edge."""
    r = pnp.json("check", "Mara", "medicine", "--threshold", "1", "--roll", "check=")
    data = event(r, "CheckResolved")
    assert (data["trait"], data["dice"], data["successes"], data["net"]) == ("medicine", 0, 0, -1)


def test_an_ability_the_opponent_lacks_is_zero_dice_in_an_opposed_check(pnp: Cli):
    """prowlers-and-paragons.txt, Thresholds: the opponent's successes are the threshold; an unlisted Ability is 0 dice."""
    r = pnp.json("check", "Mara", "might", "--against", "Brute", "intellect", "--roll", "against=", "--roll", "check=2,1,1,1")
    data = event(r, "CheckResolved")
    assert (data["opponent_dice"], data["threshold"], data["net"]) == (0, 0, 1)


@pytest.mark.parametrize(
    "args",
    [
        ("check", "Mara", "flight", "--threshold", "1"),
        ("attack", "Mara", "Brute", "--with", "blast"),
        ("attack", "Mara", "Brute", "--with", "might", "-o", "defend-with=force-field"),
        ("act", "Mara", "chase", "--against", "Brute", "-o", "with=flight"),
        ("check", "Mara", "might", "--against", "Brute", "telepathy"),
    ],
)
def test_a_power_the_sheet_lacks_is_refused_with_its_name_everywhere(pnp: Cli, db: str, args: tuple[str, ...]):
    """prowlers-and-paragons.txt, Characteristics ("Powers: unusual or truly superhuman abilities"): a power is the character's own."""
    r = refused(pnp, db, *args)
    assert "has no power '" in r.stderr or "not a defense" in r.stderr


# -- item 10: the GM's hidden sheet is not a character ---------------------------------------------------
@pytest.fixture
def issue(pnp: Cli) -> Cli:
    pnp.ok("session", "start")  # a new issue: the GM's Adversity, 1 per Hero
    return pnp


@pytest.mark.parametrize(
    "args",
    [
        ("damage", "GM", "--amount", "1"),
        ("condition", "add", "GM", "stunned"),
        ("attack", "Mara", "GM", "--with", "might"),
        ("attack", "GM", "Mara", "--with", "might"),
        ("check", "GM", "might", "--threshold", "1"),
        ("recover", "GM", "--amount", "1"),
        ("encounter", "start", "Mara", "GM"),
        ("act", "Mara", "chase", "--against", "GM"),
    ],
)
def test_the_gm_pool_takes_no_damage_conditions_or_rolls(issue: Cli, db: str, args: tuple[str, ...]):
    """prowlers-and-paragons.txt, Resolve and Adversity: "the GM has something called Adversity": a pool, not a character."""
    r = refused(issue, db, *args)
    assert "not a character" in r.stderr


def test_the_gm_pool_never_shows_among_characters(issue: Cli, db: str):
    """prowlers-and-paragons.txt, Resolve and Adversity: the GM's Adversity is no character: not listed, shown, charted or exported as one."""
    assert [c["name"] for c in issue.json("character", "list")] == ["Mara", "Brute", "Goons"]
    r = issue("character", "show", "GM")
    assert r.exit_code == 2 and "Adversity" in r.stderr
    assert issue("timeline", "GM").exit_code == 2
    assert issue("character", "show", "GM", "--at", "4").exit_code == 2
    for fmt in ("md", "html", "csv"):
        out = issue.ok("export", "--format", fmt).stdout
        assert "GM joins" not in out and "| GM |" not in out, fmt
    spent = issue.json("spend", "GM", "adversity", "1")  # the pool itself still works
    assert spent["character"]["resources"]["adversity"] == 0
