"""Prowlers & Paragons where two rules meet: recovery against a defeat for the rest of the scene, a stun against a
longer one, Health set by hand, recovery to at or below a running effect's pages. Each through the real CLI, citing
prowlers-and-paragons.txt; undo, redo and retraction give back exactly the history without the ruling."""

from __future__ import annotations

import pytest

from tests.cli.hnh_helpers import show, undo_and_retract_restore
from tests.conftest import Cli, Recorded


def _record(cli: Cli) -> None:
    """Mara (Health 4) and Boss (Health 3) in a fight."""
    cli.ok("init", "--system", "pnp")
    cli.ok("character", "add", "Mara", "--trait", "might=4", "--trait", "agility=3", "--trait", "toughness=4", "--pc")
    cli.ok("character", "add", "Boss", "--trait", "might=3", "--trait", "toughness=3", "--trait", "agility=2")
    cli.ok("encounter", "start", "Mara", "Boss")


@pytest.fixture
def pnp(cli: Cli, recorded: Recorded) -> Cli:
    """What _record records, recorded once and copied for this test."""
    return recorded(cli, _record)


def state(cli: Cli, name: str) -> tuple[int, set[str], dict[str, int]]:
    s = show(cli, name)
    return s["hp"], set(s["conditions"]), dict(s["counters"])


def stun(cli: Cli, faces: str) -> None:
    cli.ok("attack", "Mara", "Boss", "--with", "might", "--effect", "stun", "--roll", f"attack={faces}",
           "--roll", "defense=1,1")  # fmt: skip


def test_recovery_leaves_a_defeat_for_the_rest_of_the_scene(pnp: Cli) -> None:
    """prowlers-and-paragons.txt, Combat, Attacks: a special effect whose pages reach Health defeats "for the rest of
    the scene": recovering Health (with `recover`, or Resolve spent on recovery) in the encounter does not lift it."""
    pnp.ok("damage", "Boss", "--amount", "2")
    stun(pnp, "6,1,1,1")  # 2 successes: 1 page >= Health 1
    assert "defeated" in state(pnp, "Boss")[1]
    undo_and_retract_restore(pnp, ("Boss",), "recover", "Boss", "--amount", "2")
    pnp.ok("recover", "Boss", "--amount", "2")
    assert "defeated" in state(pnp, "Boss")[1]


def test_a_shorter_stun_leaves_a_longer_one_standing(pnp: Cli) -> None:
    """prowlers-and-paragons.txt, Combat, Attacks ("last 1 page for every 2 net successes"): a 1-page stun on Boss
    whom the GM stunned for 3 pages leaves 3 pages."""
    pnp.ok("condition", "add", "Boss", "stunned", "--rounds", "3")
    stun(pnp, "6,1,1,1")
    assert state(pnp, "Boss")[2]["rounds:stunned"] == 3


def test_health_set_by_hand_never_below_0_and_0_is_defeated(pnp: Cli) -> None:
    """prowlers-and-paragons.txt, Health ("never below 0") and Combat ("reduced to 0 Health ... defeated"): Mara at
    1 of 4 whose Toughness the GM lowers to 1 lands at 0, defeated; undo, redo and retraction exact."""
    pnp.ok("damage", "Mara", "--amount", "3")
    undo_and_retract_restore(pnp, ("Mara",), "character", "set", "Mara", "--trait", "toughness=1")
    pnp.ok("character", "set", "Mara", "--trait", "toughness=1")
    hp, conds, _ = state(pnp, "Mara")
    assert hp == 0 and "defeated" in conds


def test_recovering_to_at_or_below_a_running_effects_pages_defeats(pnp: Cli) -> None:
    """prowlers-and-paragons.txt, Combat, Attacks: "If the duration of a special effect ever equals or exceeds the
    target's current Health, the target is defeated": Boss at 0 with a 2-page stun recovers 1 Health: defeated by
    the stun for the rest of the scene."""
    stun(pnp, "6,6,1,1")  # 4 successes: 2 pages, Health 3
    pnp.ok("damage", "Boss", "--amount", "3")
    pnp.ok("recover", "Boss", "--amount", "1")
    hp, conds, ctr = state(pnp, "Boss")
    assert hp == 1 and "defeated" in conds and ctr.get("scene:defeated") == 1


def test_resolve_spent_on_recovery_leaves_a_defeat_for_the_rest_of_the_scene(pnp: Cli) -> None:
    """prowlers-and-paragons.txt, Resolve and Adversity ("recover from attacks") with Combat, Attacks ("for the rest
    of the scene"): Resolve spent on recovery restores Health but the defeat by the effect stands."""
    pnp.ok("damage", "Mara", "--amount", "2")
    pnp.ok(
        "attack", "Boss", "Mara", "--with", "might", "--effect", "stun", "--roll", "attack=6,6,6",
        "--roll", "defense=1,1,1",
    )  # fmt: skip
    assert "defeated" in state(pnp, "Mara")[1]
    pnp.ok("gain", "Mara", "resolve", "1", "--reason", "heroics")
    pnp.ok("spend", "Mara", "resolve", "1", "--purpose", "recovery")
    hp, conds, _ = state(pnp, "Mara")
    assert hp == 3 and "defeated" in conds
