"""Humans & Heroes where two rules meet: aim, holds, a team on an area, a victory point's Recover, extra effort while
compelled, a ranged disarm or smash, an area into a minion group. Each through the real CLI, citing its passage;
undo, redo and retraction give back exactly the history without the ruling."""

from __future__ import annotations

import pytest

from tests.cli.hnh_helpers import event, show, undo_and_retract_restore
from tests.conftest import Cli, Recorded, event_count

EVEN = ("--roll", "attack=0,0,0", "--roll", "defense=0,0,0")
AREA = ("--with", "dexterity", "--rank", "4", "--range", "area")


def _record(cli: Cli) -> None:
    cli.ok("init", "--system", "hnh")
    cli.ok(
        "character", "add", "Ann", "--pc", "--trait", "strength=3", "--trait", "fighting=5",
        "--trait", "dexterity=2", "--trait", "ranged-combat=6",
    )  # fmt: skip
    cli.ok("character", "add", "Bob", "--trait", "strength=1", "--trait", "fighting=2", "--trait", "dodge=2")
    cli.ok("character", "add", "Cy", "--pc", "--trait", "stamina=1", "--trait", "fighting=3")
    cli.ok("character", "add", "Goons", "--minion", "--count", "4", "--trait", "dodge=0", "--trait", "toughness=0")
    cli.ok(
        "encounter", "start", "Ann", "Bob", "Cy", "Goons",
        "--init", "Ann=20", "--init", "Bob=15", "--init", "Cy=10", "--init", "Goons=5",
    )  # fmt: skip


@pytest.fixture
def hnh(cli: Cli, recorded: Recorded) -> Cli:
    """What _record records (Ann up), recorded once and copied for this test."""
    return recorded(cli, _record)


def conditions(cli: Cli, name: str) -> set[str]:
    return set(show(cli, name)["conditions"])


def counters(cli: Cli, name: str) -> dict[str, int]:
    return dict(show(cli, name)["counters"])


def next_turns(cli: Cli, n: int) -> None:
    for _ in range(n):
        cli.ok("encounter", "next")


# -- Aim ---------------------------------------------------------------------------------------------------
def test_an_aimed_attack_in_the_turn_the_aim_starts_is_refused(hnh: Cli) -> None:
    """gameplay.txt, Aim: "You can't attack the target the same turn you start aiming even if you have enough actions
    left": refused, nothing appended; on the next turn the aimed attack gets its +2."""
    hnh.ok("act", "Ann", "aim", "--against", "Bob")
    before = event_count(hnh.db)
    r = hnh("attack", "Ann", "Bob", *EVEN)
    assert r.exit_code == 2 and "started aiming this turn" in r.stderr
    assert event_count(hnh.db) == before
    next_turns(hnh, 4)
    out = hnh.json("attack", "Ann", "Bob", *EVEN)
    assert event(out, "AttackResolved")["modifiers"]["aim"] == 2


def test_a_different_action_spoils_the_aim(hnh: Cli) -> None:
    """gameplay.txt, Aim: "Taking a different action or attacking a different target spoils your aim": a feint on
    the next turn ends the aim and the vulnerability it brought."""
    hnh.ok("act", "Ann", "aim", "--against", "Bob")
    next_turns(hnh, 4)
    undo_and_retract_restore(hnh, ("Ann", "Bob"), "act", "Ann", "feint", "--against", "Bob", "--roll", "check=0,0,0")
    hnh.ok("act", "Ann", "feint", "--against", "Bob", "--roll", "check=0,0,0", "--roll", "against=0,0,0")
    assert "aim" not in counters(hnh, "Ann") and "vulnerable" not in conditions(hnh, "Ann")


def test_an_area_attack_spoils_the_aim(hnh: Cli) -> None:
    """gameplay.txt, Aim ("your next action ... must be to attack that target") and Attack Action (an area "affects
    the area ... automatically", no attack check to aim): the area attack ends the aim."""
    hnh.ok("act", "Ann", "aim")
    next_turns(hnh, 4)
    r = hnh.json("attack", "Ann", "Bob", "Cy", *AREA, "--roll", "power=0,0,0")
    assert "aim" not in counters(hnh, "Ann") and "vulnerable" not in conditions(hnh, "Ann")
    assert any(e["type"] == "ConditionRemoved" and e["data"]["condition"] == "vulnerable" for e in r["events"])


def test_the_aims_end_leaves_a_vulnerability_from_elsewhere(hnh: Cli) -> None:
    """gameplay.txt, Aim ("You are vulnerable while aiming"): Ann was vulnerable before she aimed (the GM's ruling);
    the aim's end takes only what it brought."""
    hnh.ok("condition", "add", "Ann", "vulnerable")
    hnh.ok("act", "Ann", "aim", "--against", "Bob")
    next_turns(hnh, 4)
    hnh.ok("attack", "Ann", "Bob", *EVEN)
    assert "vulnerable" in conditions(hnh, "Ann") and "aim-vulnerable" not in counters(hnh, "Ann")


# -- holds -------------------------------------------------------------------------------------------------
def _grab(cli: Cli) -> None:
    cli.ok(
        "act", "Ann", "grab", "--against", "Bob", "--roll", "attack=+,+,+", "--roll", "defense=-,-,-",
        "--roll", "strength=+,+,0", "--roll", "against=-,-,0",
    )  # fmt: skip
    assert "grabbing:Bob" in counters(cli, "Ann")


def test_a_stunned_holder_lets_go(hnh: Cli) -> None:
    """gameplay.txt, Grab: "If you are unable to take the free action maintain the hold, the target is automatically
    released" -- stunned (conditions.txt, Stunned: no actions), the hold ends on both sides."""
    _grab(hnh)
    undo_and_retract_restore(hnh, ("Ann", "Bob"), "condition", "add", "Ann", "stunned")
    hnh.ok("condition", "add", "Ann", "stunned")
    assert "grabbing:Bob" not in counters(hnh, "Ann") and "grabbed-by:Ann" not in counters(hnh, "Bob")
    assert not conditions(hnh, "Bob") & {"restrained", "bound"}


def test_a_dying_holder_lets_go(hnh: Cli) -> None:
    """gameplay.txt, Grab, and conditions.txt, Dying (incapacitated: no actions): the hold ends when the holder
    falls to dying, not only at death."""
    _grab(hnh)
    hnh.ok("damage", "Ann", "--amount", "7")
    assert "dying" in conditions(hnh, "Ann")
    assert "grabbed-by:Ann" not in counters(hnh, "Bob") and not conditions(hnh, "Bob") & {"restrained", "bound"}


# -- a team on an area ---------------------------------------------------------------------------------------
def test_a_team_bonus_raises_an_area_attacks_rank(hnh: Cli) -> None:
    """gameplay.txt, Team Attack: "Effects not requiring an attack check may be used in a team attack" -- an area
    effect joined by three degrees gets +2 rank (4 -> 6)."""
    plain = hnh.json("attack", "Ann", "Bob", "Cy", *AREA, "--roll", "power=0,0,0")
    hnh.ok("undo")
    teamed = hnh.json(
        "attack", "Ann", "Bob", "Cy", *AREA, "--maneuver", "team", "-o", "team-degrees=3", "--roll", "power=0,0,0"
    )
    ranks = [e["data"]["rank"] for e in plain["events"] if e["type"] == "AttackResolved"]  # type: ignore[index]
    raised = [e["data"]["rank"] for e in teamed["events"] if e["type"] == "AttackResolved"]  # type: ignore[index]
    assert raised and all(b >= a + 1 for a, b in zip(ranks, raised, strict=True))


# -- victory point Recover -------------------------------------------------------------------------------
def test_a_victory_point_recover_takes_the_conditions_duration(hnh: Cli) -> None:
    """the-basics.txt, Victory Points, Recover: the dazed is gone, and with it its duration: a later timeless dazed
    does not "run out" on the old count."""
    hnh.ok("condition", "add", "Ann", "dazed", "--rounds", "2")
    undo_and_retract_restore(hnh, ("Ann",), "spend", "Ann", "victory-points", "--purpose", "recover:dazed")
    hnh.ok("spend", "Ann", "victory-points", "--purpose", "recover:dazed")
    assert not [k for k in counters(hnh, "Ann") if k.endswith(":dazed")]
    hnh.ok("condition", "add", "Ann", "dazed")
    next_turns(hnh, 8)
    assert "dazed" in conditions(hnh, "Ann")


# -- extra effort while compelled ------------------------------------------------------------------------
def test_a_compelled_hero_may_use_only_resistance_extra_effort(hnh: Cli) -> None:
    """the-basics.txt, Extra Effort, Resistance: "the only extra effort that can be used while being compelled or
    controlled": Strength is refused, nothing appended."""
    hnh.ok("condition", "add", "Ann", "compelled")
    before = event_count(hnh.db)
    r = hnh("act", "Ann", "extra-effort", "-o", "benefit=strength")
    assert r.exit_code == 2 and "Resistance" in r.stderr and event_count(hnh.db) == before
    assert show(hnh, "Ann")["traits"]["strength"] == 3


# -- ranged disarm and smash ------------------------------------------------------------------------------
@pytest.mark.parametrize("action,penalty", [("disarm", -3), ("smash", -1)])
def test_a_ranged_disarm_or_smash_rolls_ranged_combat(hnh: Cli, action: str, penalty: int) -> None:
    """gameplay.txt, Attack Check ("A ranged attack ... uses Ranged Combat") with Disarm (-2 hand held, -1 more
    ranged) and Smash (-1 held): Ann's ranged attempt adds her Ranged Combat 6, not Fighting 5."""
    r = hnh.json("act", "Ann", action, "--against", "Bob", "-o", "range=ranged", *EVEN)
    assert event(r, "EffectResolved")["attack"]["total"] == 6 + penalty


# -- an area into a minion group --------------------------------------------------------------------------
def test_every_member_caught_and_failing_falls(hnh: Cli) -> None:
    """gameplay.txt, Minion Rules ("If a minion fails a defense check, the minion suffers the worst degree") with
    Perception And Area Effects: all 4 Goons caught and failing fall, none left standing; undo, redo and retraction
    exact."""
    args = ("attack", "Ann", "Goons", "--in-area", "Goons=4", *AREA, "--roll", "power=+,+,+")
    args += ("--roll", "Goons.dodge=-,-,-", "--roll", "Goons.toughness=-,-,-")
    undo_and_retract_restore(hnh, ("Goons",), *args)
    hnh.ok(*args)
    assert show(hnh, "Goons")["count"] == 0


def test_some_members_caught_fall_and_the_rest_stand(hnh: Cli) -> None:
    """gameplay.txt, Minion Rules: 3 of the 4 Goons caught and failing: 3 fall, 1 left."""
    hnh.ok(
        "attack", "Ann", "Goons", "--in-area", "Goons=3", *AREA, "--roll", "power=+,+,+",
        "--roll", "Goons.dodge=-,-,-", "--roll", "Goons.toughness=-,-,-",
    )  # fmt: skip
    assert show(hnh, "Goons")["count"] == 1
