"""Humans & Heroes Healing, Weaken and Nullify (each test cites its passage) through the real CLI."""

from __future__ import annotations

from typing import Any

import pytest

from tests.cli.hnh_helpers import event, show, undo_and_retract_restore
from tests.conftest import FIXTURES, Cli, Recorded, event_count

HIT = ("--roll", "attack=+,0,0", "--roll", "defense=0,0,0")


def _record_hnh(cli: Cli) -> None:
    """An hnh campaign: Ann (hero), Bob (healer), Goons (a minion group)."""
    cli.ok("init", "--system", "hnh")
    cli.ok(
        "character",
        "add",
        "Ann",
        "--pc",
        "--trait",
        "strength=2",
        "--trait",
        "stamina=2",
        "--trait",
        "fighting=4",
        "--trait",
        "dexterity=4",
        "--trait",
        "presence=1",
    )
    cli.ok("character", "add", "Bob", "--trait", "fighting=5", "--trait", "dexterity=5", "--trait", "stamina=3")
    cli.ok("character", "add", "Goons", "--minion", "--count", "3", "--trait", "fighting=2", "--trait", "stamina=0")


@pytest.fixture
def hnh(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_hnh records, recorded once and copied for this test."""
    return recorded(cli, _record_hnh)


# -- Healing ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("faces", "hp", "healed"), [("0,0,0", 5, 3), ("-,0,0", 4, 2), ("-,-,0", 3, 1)])
def test_healing_heals_the_difference_over_dc_2(hnh: Cli, faces: str, hp: int, healed: int) -> None:
    """powers/effects/healing.html: "Make a DC 2 Healing power check, you may heal HP equal to the difference of
    success"."""
    hnh.ok("damage", "Ann", "--amount", "4")
    r = hnh.json("act", "Bob", "heal", "--against", "Ann", "-o", "rank=5", "--roll", f"power={faces}")
    assert r["against"]["hp"] == hp and event(r, "CheckResolved")["healed"] == healed


def test_a_healing_tie_heals_nothing_and_a_failure_waits_a_minute(hnh: Cli) -> None:
    """powers/effects/healing.html: "If you tie against the DC ... the subject recovers no HP"."""
    hnh.ok("damage", "Ann", "--amount", "4")
    tie = hnh.json("act", "Bob", "heal", "--against", "Ann", "-o", "rank=2", "--roll", "power=0,0,0")
    assert tie["against"]["hp"] == 2 and "try again next round" in event(tie, "CheckResolved")["note"]
    fail = hnh.json("act", "Bob", "heal", "--against", "Ann", "-o", "rank=1", "--roll", "power=0,0,0")
    assert fail["against"]["hp"] == 2 and "one minute" in event(fail, "CheckResolved")["note"]


def test_healing_the_dying_stabilizes_them(hnh: Cli) -> None:
    """powers/effects/healing.html: "If the subject is dying ... first recovers 1 HP in order to stabilize"."""
    hnh.ok("damage", "Ann", "--amount", "8")  # HP -2, dying
    r = hnh.json("act", "Bob", "heal", "--against", "Ann", "-o", "rank=3", "--roll", "power=0,0,0")
    assert r["against"]["hp"] == -1 and "stabilized" in r["against"]["conditions"]


def test_restorative_healing_removes_bruises_with_what_is_left(hnh: Cli) -> None:
    """powers/effects/healing.html, Restorative: "a bruised penalty is 1 HP each"."""
    hnh.ok("damage", "Ann", "--rank", "2", "--roll", "power=0,0,0", "--roll", "toughness=0,0,0")  # a tie: a bruise
    r = hnh.json(
        "act", "Bob", "heal", "--against", "Ann", "-o", "rank=4", "-o", "restorative=yes", "--roll", "power=0,0,0"
    )
    assert r["against"]["hp"] == 6 and "bruises" not in r["against"]["counters"]


def test_the_dead_are_not_healed_and_recover_amount_points_to_healing(hnh: Cli, db: str) -> None:
    """powers/effects/healing.html, Resurrection (the dead need it); gameplay.txt, Recovery: HP come back over hours."""
    hnh.ok("damage", "Ann", "--amount", "9")
    before = event_count(db)
    r = hnh("act", "Bob", "heal", "--against", "Ann", "-o", "rank=5")
    assert r.exit_code == 2 and "revive" in r.stderr
    r = hnh("recover", "Bob", "--amount", "2")
    assert r.exit_code == 2 and "heal" in r.stderr
    assert event_count(db) == before


def test_healing_undone_and_retracted_restores_the_sheet(hnh: Cli) -> None:
    """DESIGN.md, The ruling: undo and retraction restore the exact earlier state."""
    hnh.ok("damage", "Ann", "--amount", "8")
    undo_and_retract_restore(
        hnh, ("Ann",), "act", "Bob", "heal", "--against", "Ann", "-o", "rank=5", "--roll", "power=0,0,0"
    )


# -- Weaken --------------------------------------------------------------------------------------------------
def weaken(cli: Cli, attacker: str, target: str, rank: int, *rolls: str) -> Any:
    """A Weaken Strength attack with entered dice."""
    return cli.json(
        "attack",
        attacker,
        target,
        "--with",
        "fighting",
        "--effect",
        "weaken",
        "--rank",
        str(rank),
        "-o",
        "trait=strength",
        *HIT,
        *rolls,
    )


def test_weaken_lowers_the_trait_by_the_difference_and_it_returns_a_point_a_turn(hnh: Cli) -> None:
    """powers/effects/weaken.html: "loses character points from the affected trait equal to the difference";
    "Lost points return at a rate of 1 per round at the end of each of the target's turns"."""
    r = weaken(hnh, "Bob", "Ann", 5, "--roll", "power=0,0,0", "--roll", "toughness=0,0,0")  # 5 vs Fortitude 2
    sheet = r["target"]
    assert sheet["traits"]["strength"] == -1 and "weakened" in sheet["conditions"]
    hnh.ok("encounter", "start", "Ann", "--roll", "Ann=0,0,0")
    hnh.ok("encounter", "next")
    assert show(hnh, "Ann")["traits"]["strength"] == 0


def test_weaken_is_cumulative_up_to_its_rank(hnh: Cli) -> None:
    """powers/effects/weaken.html: "Multiple failed defense checks ... are cumulative, up to a maximum of the Weaken
    rank"."""
    weaken(hnh, "Bob", "Ann", 4, "--roll", "power=0,0,0", "--roll", "toughness=0,0,0")  # -2
    r = weaken(hnh, "Bob", "Ann", 4, "--roll", "power=+,+,0", "--roll", "toughness=0,0,0")  # -4 more, capped at 4
    assert r["target"]["traits"]["strength"] == -2 and r["target"]["counters"]["weakened:strength"] == 4


def test_a_minions_weaken_against_a_hero_counts_as_rolling_minus_3(hnh: Cli) -> None:
    """gameplay.txt, Minion Rules: "If a minion uses Nullify or Weaken against a Non-minion they are considered to have
    rolled a -3"."""
    r = hnh.json(
        "attack",
        "Goons",
        "Ann",
        "--with",
        "fighting",
        "--effect",
        "weaken",
        "--rank",
        "6",
        "-o",
        "trait=strength",
        "--roll",
        "attack=+,+,+",
        "--roll",
        "defense=0,0,0",
        "--roll",
        "toughness=0,0,0",
    )
    res = event(r, "ResistanceResolved")
    assert res["power"]["faces"] == [] and res["power"]["total"] == 3 and res["power"]["critical"] is None
    assert r["target"]["traits"]["strength"] == 1  # 3 vs Fortitude 2: one point


def test_weaken_undone_and_retracted_restores_the_sheet(hnh: Cli) -> None:
    """DESIGN.md, The ruling: undo and retraction restore the exact earlier state."""
    undo_and_retract_restore(
        hnh,
        ("Ann", "Bob"),
        "attack",
        "Bob",
        "Ann",
        "--with",
        "fighting",
        "--effect",
        "weaken",
        "--rank",
        "5",
        "-o",
        "trait=strength",
        *HIT,
        "--roll",
        "power=0,0,0",
        "--roll",
        "toughness=0,0,0",
    )


# -- Nullify -------------------------------------------------------------------------------------------------
@pytest.fixture
def hero(hnh: Cli) -> Cli:
    """The Energy Controller (fixtures/hnh-characters) joins: Flight 6, Will 8."""
    hnh.ok("character", "import", str(FIXTURES / "energy-controller.json"))
    return hnh


def test_nullify_beats_the_higher_of_effect_rank_and_will(hero: Cli) -> None:
    """powers/effects/nullify.html: "an opposed check of your Nullify rank and the targeted effect's rank or the
    target's Will defense, whichever is higher"."""
    r = hero.json(
        "attack",
        "Ann",
        "Energy Controller",
        "--with",
        "dexterity",
        "--effect",
        "nullify",
        "--rank",
        "9",
        "--range",
        "ranged",
        "-o",
        "nullify=120-mph",
        "--roll",
        "attack=+,+,+",
        "--roll",
        "defense=-,-,0",
        "--roll",
        "power=0,0,0",
        "--roll",
        "toughness=0,0,0",
    )
    res = event(r, "ResistanceResolved")
    assert res["resistance"]["bonus"] == 8 and res["outcome"] == "nullified"
    assert r["target"]["counters"]["nullified:120-mph"] == 1


def test_nullify_ends_an_affliction_on_its_subject(hnh: Cli) -> None:
    """powers/effects/nullify.html: "If you are targeting the subject of an effect ... Nullify rank vs. effect rank"."""
    hnh.ok(
        "act",
        "Bob",
        "affliction",
        "--against",
        "Ann",
        "-o",
        "name=hex",
        "-o",
        "rank=3",
        "-o",
        "conditions=dazed",
        "--roll",
        "power=0,0,0",
        "--roll",
        "toughness=0,0,0",
    )
    assert "dazed" in show(hnh, "Ann")["conditions"]
    r = hnh.json(
        "attack",
        "Bob",
        "Ann",
        "--with",
        "dexterity",
        "--effect",
        "nullify",
        "--rank",
        "5",
        "--range",
        "ranged",
        "-o",
        "nullify=hex",
        *HIT,
        "--roll",
        "power=0,0,0",
        "--roll",
        "toughness=0,0,0",
    )
    assert "dazed" not in r["target"]["conditions"] and "affliction:hex" not in r["target"]["counters"]


def test_a_heros_nullify_against_a_minion_counts_as_rolling_plus_3(hnh: Cli) -> None:
    """gameplay.txt, Minion Rules: "If a Non-minion uses Nullify (but not Weaken) against a minion they are considered
    to have rolled a +3"."""
    hnh.ok(
        "act",
        "Bob",
        "affliction",
        "--against",
        "Goons",
        "-o",
        "name=hex",
        "-o",
        "rank=3",
        "-o",
        "conditions=dazed",
        "--roll",
        "power=0,0,0",
        "--roll",
        "toughness=-,0,0",
    )
    r = hnh.json(
        "attack",
        "Ann",
        "Goons",
        "--with",
        "dexterity",
        "--effect",
        "nullify",
        "--rank",
        "1",
        "--range",
        "ranged",
        "-o",
        "nullify=hex",
        *HIT,
        "--roll",
        "toughness=0,0,0",
    )
    res = event(r, "ResistanceResolved")
    assert res["power"]["total"] == 4 and res["power"]["critical"] is None and res["outcome"] == "nullified"


def test_nullify_undone_and_retracted_restores_the_sheet(hero: Cli) -> None:
    """DESIGN.md, The ruling: undo and retraction restore the exact earlier state."""
    undo_and_retract_restore(
        hero,
        ("Energy Controller",),
        "attack",
        "Ann",
        "Energy Controller",
        "--with",
        "dexterity",
        "--effect",
        "nullify",
        "--rank",
        "9",
        "--range",
        "ranged",
        "-o",
        "nullify=120-mph",
        "--roll",
        "attack=+,+,+",
        "--roll",
        "defense=-,-,0",
        "--roll",
        "power=0,0,0",
        "--roll",
        "toughness=0,0,0",
    )
