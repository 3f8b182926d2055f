"""What the GMs tripped over in the third pass, each through the real CLI, citing its passage."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Cli, Recorded, event_count


def _record_pnp(cli: Cli) -> None:
    """A P&P issue under way: Mara (a hero with Resolve 3) and Brute (an NPC)."""
    cli.ok("init", "--system", "pnp")
    cli.ok("character", "add", "Mara", "--trait", "might=4", "--trait", "resolve=3", "--pc")
    cli.ok("character", "add", "Brute", "--trait", "might=3", "--trait", "agility=2")
    cli.ok("session", "start")


@pytest.fixture
def pnp(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_pnp records, recorded once and copied for this test."""
    return recorded(cli, _record_pnp)


def gm_spends(cli: Cli) -> list[dict[str, Any]]:
    """The GM's Adversity spends in the log."""
    rows = cli.json("log")
    assert isinstance(rows, list)
    return [
        r["data"] for r in rows if r["type"] == "ResourceChanged" and r["character"] == "GM" and r["data"]["delta"] < 0
    ]


def test_the_gms_reroll_is_recorded_with_purpose_reroll(pnp: Cli) -> None:
    """prowlers-and-paragons.txt, Resolve and Adversity: Adversity "works much the same way" as Resolve -- an NPC's
    reroll paid by the GM is recorded as `reroll`, as a hero's is."""
    pnp.ok(
        "attack", "Mara", "Brute", "--with", "might", "-o", "defense-reroll=yes",
        "--roll", "attack=2,2,1,1", "--roll", "defense=1,1", "--roll", "defense-reroll=1,1",
    )  # fmt: skip
    assert [s["purpose"] for s in gm_spends(pnp)] == ["reroll"]


def test_extra_dice_and_a_reroll_are_two_spends(pnp: Cli) -> None:
    """prowlers-and-paragons.txt, Resolve and Adversity: extra dice and a reroll are two uses, recorded each by name."""
    pnp.ok("gain", "GM", "adversity", "2")
    pnp.ok(
        "attack", "Mara", "Brute", "--with", "might", "-o", "defense-reroll=yes", "-o", "defense-extra-dice=1",
        "--roll", "attack=2,2,1,1", "--roll", "defense=1,1,1", "--roll", "defense-reroll=1,1,1",
    )  # fmt: skip
    assert sorted(s["purpose"] for s in gm_spends(pnp)) == ["extra-dice", "reroll"]


def test_the_gm_reads_the_adversity_pool(pnp: Cli) -> None:
    """prowlers-and-paragons.txt, Resolve and Adversity ("GMs begin every issue with 1 point of Adversity per Hero"):
    `character show GM`, `timeline GM` and `why GM` show the pool to the GM."""
    shown = pnp.json("character", "show", "GM")
    assert shown["gm_pool"] is True and shown["adversity"] == 1  # type: ignore[index]
    assert "1 Adversity" in pnp.ok("character", "show", "GM").stdout
    points = pnp.json("timeline", "GM")
    assert [p["adversity"] for p in points] == [1]  # type: ignore[union-attr,index]
    why = pnp.ok("why", "GM").stdout
    assert "adversity" in why and "hp" not in why.split("\n")[0]
    assert "GM" not in [c["name"] for c in pnp.json("character", "list")]  # type: ignore[union-attr,index]


def test_a_character_may_not_take_the_gm_pools_name(pnp: Cli) -> None:
    """prowlers-and-paragons.txt, Resolve and Adversity: the name GM holds the GM's pool; the refusal says so."""
    before = event_count(pnp.db)
    r = pnp("character", "add", "Gm")
    assert r.exit_code == 2 and "GM's hidden" in r.stderr
    assert event_count(pnp.db) == before


def test_a_hero_enters_play_with_their_resolve(cli: Cli) -> None:
    """prowlers-and-paragons.txt, Resolve and Adversity: "Heroes begin every issue ... with a certain amount of
    Resolve" -- a hero added with resolve=3 holds 3 at once, not 0 until `session start`."""
    cli.ok("init", "--system", "pnp")
    shown = cli.json("character", "add", "Kid", "--trait", "resolve=3", "--pc")
    assert shown["character"]["resources"]["resolve"] == 3  # type: ignore[index]


def test_d20_check_of_soul_bound_says_it_is_a_name(cli: Cli) -> None:
    """d20-supers.txt, Death (the soul-bound way back): `soul-bound` names a character; a check of it says so."""
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Ann", "--trait", "hp=10")
    r = cli("check", "Ann", "soul-bound", "--dc", "10")
    assert r.exit_code == 2 and "names a character" in r.stderr and "number" not in r.stderr


def test_a_new_day_says_the_victory_points_it_set(cli: Cli) -> None:
    """hnh-site/the-basics.txt, Victory Points: "Players start each in game day with 2 Victory points" -- the new day
    says what each hero now holds."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--pc")
    cli.ok("spend", "Ann", "victory-points", "1")
    r = cli.ok("session", "start", "--new-day")
    assert "new in-game day: Ann 2 victory-points" in r.stdout


def test_the_die_line_names_the_real_defense(cli: Cli) -> None:
    """hnh-site/effect-damage.txt (resisted by another defense): the roll keeps its name `toughness` (old rulings and
    scripts use it) but the die line and the sentence name Fortitude."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Eve", "--trait", "fortitude=1")
    out = cli.ok(
        "damage",
        "Eve",
        "--rank",
        "2",
        "-o",
        "resisted-by=fortitude",
        "--roll",
        "toughness=0,0,0",
        "--roll",
        "power=0,0,0",
    ).stdout
    assert "Fortitude" in out.splitlines()[0]
    assert "Eve fortitude (roll toughness): 3dF+1 [0 0 0] = 1 (entered)" in out
