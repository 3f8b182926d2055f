"""d20 Supers where two rules meet: a charge's -2 DR with its end, the charge's own attack, a GM's duration against
the rules' own timing, HP set by hand, the GM's knock-out. Each through the real CLI, citing d20-supers.txt; undo,
redo and retraction give back exactly the history without the ruling."""

from __future__ import annotations

import pytest

from tests.cli.hnh_helpers import show, undo_and_retract_restore
from tests.conftest import Cli, Recorded, event_count


def _record(cli: Cli) -> None:
    """Ann (HP 10) and Bob (HP 10) in a fight, Ann up."""
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Ann", "--pc", "--trait", "hp=10")
    cli.ok("character", "add", "Bob", "--trait", "hp=10")
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=15", "--init", "Bob=5")


@pytest.fixture
def d20(cli: Cli, recorded: Recorded) -> Cli:
    """What _record records, recorded once and copied for this test."""
    return recorded(cli, _record)


def state(cli: Cli, name: str) -> tuple[int, set[str], dict[str, int]]:
    s = show(cli, name)
    return s["hp"], set(s["conditions"]), {k: v for k, v in s["counters"].items() if k != "subdual"}


CHARGE = ("attack", "Ann", "Bob", "-o", "modifiers=charging", "--roll", "attack=15", "--roll", "damage=2")


@pytest.mark.parametrize(
    "ending",
    [("encounter", "end"), ("condition", "remove", "Ann", "charging"), ("encounter", "remove", "Ann")],
)
def test_the_charges_minus_2_dr_ends_with_the_charge(d20: Cli, ending: tuple[str, ...]) -> None:
    """d20-supers.txt, Charge ("it is like a run only you gain +2 to Attack rolls and lose -2 to DR"): however the
    charge ends (the fight's end, the GM's removal, leaving the fight) its -2 DR goes with it."""
    d20.ok(*CHARGE)
    assert state(d20, "Ann")[2]["charge-dr"] == -2
    d20.ok(*ending)
    _, conds, ctr = state(d20, "Ann")
    assert "charging" not in conds and not ctr


def test_a_charge_passed_over_while_unconscious_ends_with_its_dr(d20: Cli) -> None:
    """d20-supers.txt, Charge and Damage ("unconsious and can take no actions"): the charger knocked out gets no
    turn, yet the charge ends at that turn's start, its -2 DR with it."""
    d20.ok(*CHARGE)
    d20.ok("condition", "add", "Ann", "unconscious")
    d20.ok("encounter", "next")
    d20.ok("encounter", "next")
    assert "charge-dr" not in state(d20, "Ann")[2]


def test_a_gm_imposed_charge_brings_its_minus_2_dr(d20: Cli) -> None:
    """d20-supers.txt, Charge: "+2 to Attack rolls and lose -2 to DR" -- both, when the GM rules it; undo, redo and
    retraction exact."""
    undo_and_retract_restore(d20, ("Ann",), "condition", "add", "Ann", "charging")
    d20.ok("condition", "add", "Ann", "charging")
    assert state(d20, "Ann")[2]["charge-dr"] == -2


def test_a_second_attack_after_the_charge_is_not_the_charges(d20: Cli) -> None:
    """d20-supers.txt, Charge ("a charged attack") and Attacks (a charge is like a run, a full action): the attack
    that declares the charge is its attack; a second one that round is refused, nothing appended."""
    d20.ok(*CHARGE)
    before = event_count(d20.db)
    r = d20("attack", "Ann", "Bob", "--roll", "attack=15", "--roll", "damage=2")
    assert r.exit_code == 2 and "full action" in r.stderr and event_count(d20.db) == before


def test_a_gm_duration_on_running_stands(d20: Cli) -> None:
    """d20-supers.txt, Running, with the GM's `--rounds 3`: the GM's duration stands over the rules' own end at the
    next turn; it ends after three of Ann's turns, no counter left."""
    d20.ok("condition", "add", "Ann", "running", "--rounds", "3")
    for _ in range(4):
        d20.ok("encounter", "next")
    assert "running" in state(d20, "Ann")[1]
    for _ in range(3):
        d20.ok("encounter", "next")
    _, conds, ctr = state(d20, "Ann")
    assert "running" not in conds and not ctr


@pytest.mark.parametrize(
    "max_hp,hp,wanted",
    [
        (8, 0, {"disabled"}),
        (7, -1, {"dying", "unconscious"}),
        (3, -5, {"dying", "unconscious"}),
        (1, -7, {"dying", "unconscious"}),
    ],
)
def test_hp_set_by_hand_brings_its_conditions(d20: Cli, max_hp: int, hp: int, wanted: set[str]) -> None:
    """d20-supers.txt, Damage: "0 Hitpoints ... disabled", "-1 to -9 ... dying ... unconsious": Bob at 2 of 10 HP
    whose max HP the GM sets lower lands at the HP the damage taken leaves, with its conditions."""
    d20.ok("damage", "Bob", "--amount", "8")
    undo_and_retract_restore(d20, ("Bob",), "character", "set", "Bob", "--trait", f"hp={max_hp}")
    d20.ok("character", "set", "Bob", "--trait", f"hp={max_hp}")
    now, conds, _ = state(d20, "Bob")
    assert now == hp and conds == wanted


def test_hp_set_by_hand_to_minus_10_is_death_and_a_corrected_hp_lifts_dying(d20: Cli) -> None:
    """d20-supers.txt, Damage: "-10 or below they are dead"; and a dying character whose HP the GM corrects upward
    is no longer dying."""
    d20.ok("damage", "Bob", "--amount", "12")
    assert "dying" in state(d20, "Bob")[1]
    d20.ok("character", "set", "Bob", "--trait", "hp=20")
    assert state(d20, "Bob")[1] == set()
    d20.ok("character", "set", "Bob", "--trait", "hp=1")
    assert "dead" in state(d20, "Bob")[1]


def test_a_knock_out_whose_duration_ends_while_dying_wakes_when_healed(d20: Cli) -> None:
    """d20-supers.txt, Damage: the GM's knock-out for 1 round runs out while Bob is dying (from damage, he stays
    unconscious); healed, he wakes: the knock-out's mark went with its duration."""
    d20.ok("condition", "add", "Bob", "unconscious", "--until", "start", "--of", "Ann")
    d20.ok("damage", "Bob", "--amount", "13")
    d20.ok("encounter", "next")
    d20.ok("encounter", "next")
    assert "knocked-out" not in state(d20, "Bob")[2]
    d20.ok("recover", "Bob", "--amount", "13", "--cause", "medical")
    assert state(d20, "Bob")[1] == set()
