"""Humans & Heroes where two rules meet: aim, holds, a team on an area, a victory point's Recover, extra effort while
compelled, a ranged disarm or smash, an area into a minion group. Each through the real CLI, citing its passage;
undo, redo and retraction give back exactly the history without the ruling."""

from __future__ import annotations

import json
from pathlib import Path

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


# -- the action limits of conditions, full-turn actions, stand, ready --------------------------------------
@pytest.mark.parametrize("condition", ["dazed", "staggered", "compelled", "controlled"])
def test_a_dazed_character_gets_a_single_standard_action(hnh: Cli, condition: str) -> None:
    """conditions.txt, Dazed ("limited to free actions and a single standard action per turn, although the character
    may use that action to perform a move") and Compelled, Controlled: after one standard action, the move is
    refused too, nothing appended; a free action still goes."""
    hnh.ok("condition", "add", "Ann", condition)
    hnh.ok("act", "Ann", "action", "-o", "kind=standard", "-o", "what=pull the lever")
    before = event_count(hnh.db)
    r = hnh("act", "Ann", "action", "-o", "kind=move", "-o", "what=run for the door")
    assert r.exit_code == 2 and "single standard action" in r.stderr and event_count(hnh.db) == before
    hnh.ok("act", "Ann", "action", "-o", "kind=free", "-o", "what=shout")


def test_a_battered_character_gets_a_single_action(hnh: Cli) -> None:
    """conditions.txt, Battered ("dazed and hindered ... as long as they have exactly 0 HP") with Dazed: Ann at 0 HP
    moves, and then can take no standard action."""
    hnh.ok("damage", "Ann", "--amount", "6")
    assert "battered" in conditions(hnh, "Ann")
    hnh.ok("act", "Ann", "action", "-o", "kind=move", "-o", "what=limp away")
    r = hnh("act", "Ann", "action", "-o", "kind=standard", "-o", "what=punch")
    assert r.exit_code == 2 and "single standard action" in r.stderr


def test_a_full_turn_action_takes_the_standard_and_the_move(hnh: Cli) -> None:
    """gameplay.txt, Full Turn Action: "It requires both a standard action and a move action"; after it, a move is
    refused; a dazed character can't take one ("If you can't spend both ... (such as being Dazed) then you can't")."""
    hnh.ok("act", "Ann", "action", "-o", "kind=full", "-o", "what=reload the cannon")
    assert hnh("act", "Ann", "action", "-o", "kind=move", "-o", "what=step").exit_code == 2
    next_turns(hnh, 4)
    hnh.ok("condition", "add", "Ann", "dazed")
    r = hnh("act", "Ann", "action", "-o", "kind=full", "-o", "what=reload the cannon")
    assert r.exit_code == 2 and "full-turn" in r.stderr


def test_standing_is_a_move_action(hnh: Cli) -> None:
    """gameplay.txt, Stand - Move Action: "You stand up from a prone position as a move action": prone goes, and the
    move is spent (a standard action still goes; a second move does not)."""
    hnh.ok("condition", "add", "Ann", "prone")
    undo_and_retract_restore(hnh, ("Ann",), "act", "Ann", "stand")
    hnh.ok("act", "Ann", "stand")
    assert "prone" not in conditions(hnh, "Ann")
    hnh.ok("act", "Ann", "action", "-o", "kind=standard", "-o", "what=punch")
    assert hnh("act", "Ann", "action", "-o", "kind=move", "-o", "what=step").exit_code == 2


def test_standing_by_acrobatics_is_free_or_wastes_the_move(hnh: Cli) -> None:
    """gameplay.txt, Stand: "This can be done as a free action by passing a DC 10 Acrobatics check but if you fail
    then you wasted a move action flopping onto the ground"."""
    hnh.ok("character", "set", "Ann", "--trait", "acrobatics=9")
    hnh.ok("condition", "add", "Ann", "prone")
    hnh.ok("act", "Ann", "stand", "-o", "acrobatics=yes", "--roll", "check=+,0,0")
    assert "prone" not in conditions(hnh, "Ann")
    hnh.ok("act", "Ann", "action", "-o", "kind=move", "-o", "what=step")
    hnh.ok("act", "Ann", "action", "-o", "kind=standard", "-o", "what=punch")
    next_turns(hnh, 4)
    hnh.ok("condition", "add", "Ann", "prone")
    hnh.ok("act", "Ann", "stand", "-o", "acrobatics=yes", "--roll", "check=-,-,0")
    assert "prone" in conditions(hnh, "Ann")
    hnh.ok("act", "Ann", "action", "-o", "kind=move", "-o", "what=crawl")  # the standard action traded for a move
    assert hnh("act", "Ann", "action", "-o", "kind=standard", "-o", "what=punch").exit_code == 2


def test_a_readied_action_is_taken_out_of_turn_or_expires(hnh: Cli) -> None:
    """gameplay.txt, Ready - Standard Action: "any time before your next turn, you may take the readied action as a
    reaction"; "The readied action will expire ... at the start of your turn"."""
    hnh.ok("act", "Ann", "ready", "-o", "what=hit the first one through the door")
    assert "ready" in counters(hnh, "Ann")
    hnh.ok("encounter", "next")  # Bob's turn: Ann takes the readied action
    hnh.ok("attack", "Ann", "Bob", *EVEN)
    assert "ready" not in counters(hnh, "Ann")
    next_turns(hnh, 3)
    hnh.ok("act", "Ann", "ready", "-o", "what=hit the first one through the door")
    next_turns(hnh, 4)  # back to Ann: it expired unused
    assert not [k for k in counters(hnh, "Ann") if k.endswith("ready")]


# -- entranced shaken free, Concentration and Sustained, extra effort Resistance, the affliction flaws --------
def _entrance(cli: Cli) -> None:
    cli.ok(
        "act", "Bob", "affliction", "--against", "Cy", "-o", "rank=4", "-o", "conditions=entranced,stunned,asleep",
        "--roll", "power=0,0,0", "--roll", "toughness=+,0,0",
    )  # fmt: skip
    assert "entranced" in conditions(cli, "Cy")


def test_an_ally_shakes_an_entranced_character_free(hnh: Cli) -> None:
    """conditions.txt, Entranced: "An ally can also shake a character free of the condition with an interaction skill
    check (DC = effect rank)": Ann's Persuasion 5 + 0 against rank 4 frees Cy, and the Affliction ends."""
    hnh.ok("character", "set", "Ann", "--trait", "persuasion=5")
    _entrance(hnh)
    undo_and_retract_restore(hnh, ("Ann", "Cy"), "act", "Ann", "shake", "--against", "Cy", "--roll", "check=0,0,0")
    hnh.ok("act", "Ann", "shake", "--against", "Cy", "--roll", "check=0,0,0")
    assert "entranced" not in conditions(hnh, "Cy")
    assert not [k for k in counters(hnh, "Cy") if k.startswith("affliction:")]


def test_a_failed_shake_leaves_the_trance(hnh: Cli) -> None:
    """conditions.txt, Entranced: below the DC, Cy stays entranced."""
    _entrance(hnh)
    hnh.ok("act", "Ann", "shake", "--against", "Cy", "--roll", "check=-,-,-")
    assert "entranced" in conditions(hnh, "Cy")


MES = {
    "Hero": {"name": "Mes", "transcendence": 0},
    "Abilities": {"Strength": 0, "Agility": 1, "Fighting": 2, "Dexterity": 4, "Stamina": 0, "Intellect": 2,
                  "Awareness": 2, "Presence": 2},
    "Powers": [
        {"effect": "Affliction", "text": "dazed stunned asleep", "action": "Standard", "range": "Ranged",
         "duration": "Concentration", "name": "Gaze", "Modifiers": [], "rank": 4},
        {"effect": "Flight", "text": "Flight", "action": "Free", "range": "Personal", "duration": "Sustained",
         "name": "Flight", "Modifiers": [], "rank": 2},
    ],
    "Equipment": [], "Advantages": [], "Skills": [], "Defenses": {"Dodge": 2, "Parry": 2, "Will": 2, "Fortitude": 2},
    "ruleset": "3.16", "version": 2, "Information": "",
}  # fmt: skip


def _with_powers(cli: Cli, tmp_path: Path) -> None:
    """Mes (a Concentration Affliction, Gaze; a Sustained Flight) joins the fight, last in the order; Mes is up."""
    path = tmp_path / "mes.json"
    path.write_text(json.dumps(MES))
    cli.ok("character", "import", str(path))
    cli.ok("encounter", "join", "Mes", "--roll", "Mes=-,-,-")  # last in the order
    next_turns(cli, 4)  # Mes is up


def test_a_sustained_power_not_maintained_ends_at_the_end_of_the_turn(hnh: Cli, tmp_path: Path) -> None:
    """gameplay.txt, Ending Your Turn: "End any Concentration or Sustained duration effects that you have not
    maintained"; Maintaining Effects: maintained each turn, it goes on."""
    _with_powers(hnh, tmp_path)
    hnh.ok("act", "Mes", "maintain", "-o", "power=Flight")
    assert counters(hnh, "Mes")["sustaining:flight"] == 1
    next_turns(hnh, 5)  # Mes's next turn: it is due again
    assert counters(hnh, "Mes")["sustaining:flight"] == 2
    hnh.ok("act", "Mes", "maintain", "-o", "power=Flight")
    next_turns(hnh, 5)
    assert "sustaining:flight" in counters(hnh, "Mes")
    next_turns(hnh, 1)  # the end of a turn in which it was not maintained: it ends
    assert "sustaining:flight" not in counters(hnh, "Mes")


def test_a_concentration_affliction_maintained_checks_again_without_an_attack(hnh: Cli, tmp_path: Path) -> None:
    """effect-affliction.txt, Concentration: "so long as you continue to take a standard action during your turn to
    maintain the effect, the target must make a new defense check against it, with no attack check required"."""
    _with_powers(hnh, tmp_path)
    hnh.ok(
        "attack", "Mes", "Bob", "--with", "Gaze", "--roll", "attack=+,+,+", "--roll", "defense=-,-,-",
        "--roll", "power=0,0,0", "--roll", "toughness=+,+,0",
    )  # fmt: skip
    assert "dazed" in conditions(hnh, "Bob")
    next_turns(hnh, 2)
    hnh.ok("encounter", "next", "--roll", "ongoing-gaze=-,-,-")  # the end of Bob's turn: not shaken off
    next_turns(hnh, 2)  # Mes is up again
    args = ("act", "Mes", "maintain", "--against", "Bob", "-o", "power=Gaze", "--roll", "power=+,+,+")
    undo_and_retract_restore(hnh, ("Mes", "Bob"), *args, "--roll", "resist=-,-,-")
    hnh.ok(*args, "--roll", "resist=-,-,-")
    assert "stunned" in conditions(hnh, "Bob") or "asleep" in conditions(hnh, "Bob")


def test_death_ends_the_powers_being_maintained(hnh: Cli, tmp_path: Path) -> None:
    """gameplay.txt, Death ("Death also causes Power Loss") and Power Loss ("its duration ends")."""
    _with_powers(hnh, tmp_path)
    hnh.ok("act", "Mes", "maintain", "-o", "power=Flight")
    hnh.ok("damage", "Mes", "--amount", "9")
    assert "dead" in conditions(hnh, "Mes") and "sustaining:flight" not in counters(hnh, "Mes")


def test_extra_effort_resistance_is_an_immediate_extra_check(hnh: Cli) -> None:
    """the-basics.txt, Extra Effort, Resistance: "Gain an immediate additional defense check against any single
    ongoing effect or condition": a success ends the Affliction now."""
    _entrance(hnh)
    hnh.ok("condition", "remove", "Cy", "entranced")
    hnh.ok(
        "act", "Bob", "affliction", "--against", "Ann", "-o", "rank=1", "-o", "conditions=dazed,stunned,asleep",
        "--roll", "power=0,0,0", "--roll", "toughness=-,-,0",
    )  # fmt: skip
    assert "dazed" in conditions(hnh, "Ann")
    args = ("act", "Ann", "extra-effort", "-o", "benefit=resistance", "--roll", "resist=+,+,0")
    undo_and_retract_restore(hnh, ("Ann",), *args)
    hnh.ok(*args)
    assert "dazed" not in conditions(hnh, "Ann")


def test_compelled_extra_effort_fights_the_control_once(hnh: Cli) -> None:
    """the-basics.txt, Extra Effort, Resistance: "you ... can choose to use extra effort to fight against control 1
    more time ... This can only be done once during the time the control lasts"."""
    hnh.ok(
        "act", "Bob", "affliction", "--against", "Ann", "-o", "rank=8", "-o", "conditions=dazed,compelled,controlled",
        "--roll", "power=0,0,0", "--roll", "toughness=+,+,+",
    )  # fmt: skip
    assert "compelled" in conditions(hnh, "Ann")
    hnh.ok("act", "Ann", "extra-effort", "-o", "benefit=resistance", "--roll", "resist=-,-,-")
    next_turns(hnh, 4)
    r = hnh("act", "Ann", "extra-effort", "-o", "benefit=resistance", "--roll", "resist=+,+,+")
    assert r.exit_code == 2 and "once" in r.stderr


@pytest.mark.parametrize(
    "flaw,faces,wanted",
    [
        ("limited-degree=1", "-,-,-", {"stunned"}),  # three degrees of failure: only the second's conditions
        ("limited-degree=2", "-,-,-", {"dazed"}),
        ("empty-degree=1", "+,+,0", set()),  # one degree of failure: the emptied first degree does nothing
    ],
)
def test_the_affliction_flaws_limit_its_degrees(hnh: Cli, flaw: str, faces: str, wanted: set[str]) -> None:
    """effect-affliction.txt, Flaws: Limited Degree ("limited to no more than two degrees of effect (the last degree
    does nothing)"; two applications: one degree) and Empty Degree ("that degree now does nothing")."""
    hnh.ok(
        "act", "Bob", "affliction", "--against", "Cy", "-o", "rank=6", "-o", "conditions=dazed,stunned,asleep",
        "-o", flaw, "--roll", "power=0,0,0", "--roll", f"toughness={faces}",
    )  # fmt: skip
    assert conditions(hnh, "Cy") & {"dazed", "stunned", "asleep", "incapacitated"} == wanted


def test_instant_recovery_ends_after_a_round_without_a_check(hnh: Cli) -> None:
    """effect-affliction.txt, Flaws, Instant Recovery: "the Affliction only lasts 1 round at which point the target
    recovers automatically, no check required": at the end of Cy's turn it ends, no roll asked."""
    hnh.ok(
        "act", "Bob", "affliction", "--against", "Cy", "-o", "rank=6", "-o", "conditions=dazed,stunned,asleep",
        "-o", "instant-recovery=yes", "--roll", "power=0,0,0", "--roll", "toughness=+,+,0",
    )  # fmt: skip
    assert "dazed" in conditions(hnh, "Cy")
    next_turns(hnh, 3)  # to the end of Cy's turn
    assert "dazed" not in conditions(hnh, "Cy")


def test_extra_effort_out_of_a_fight_fatigues_at_once_and_refuses_a_round_long_benefit(cli: Cli) -> None:
    """the-basics.txt, Using Extra Effort ("At the end of your turn in which you used extra effort you become
    Fatigued") and Strength ("+1 for 1 round"): with no turn to end, the fatigue comes at once; a benefit that lasts a
    round is refused (nothing would end it)."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--pc", "--trait", "strength=3")
    r = cli("act", "Ann", "extra-effort", "-o", "benefit=strength")
    assert r.exit_code == 2 and "1 round" in r.stderr
    cli.ok("act", "Ann", "extra-effort", "-o", "benefit=retry")
    assert "fatigued" in set(show(cli, "Ann")["conditions"])


# -- Delay ------------------------------------------------------------------------------------------------------
def test_no_delay_after_acting_or_while_unable(hnh: Cli) -> None:
    """gameplay.txt, Delay - Free Action: "You cannot delay if you have already taken an action on your turn, or if
    you are unable to take actions": refused, nothing appended."""
    hnh.ok("act", "Ann", "action", "-o", "kind=free", "-o", "what=shout")
    before = event_count(hnh.db)
    r = hnh("encounter", "delay")
    assert r.exit_code == 2 and "already taken an action" in r.stderr and event_count(hnh.db) == before
    hnh.ok("encounter", "next")
    hnh.ok("condition", "add", "Bob", "stunned")
    r = hnh("encounter", "delay")
    assert r.exit_code == 2 and "unable to take actions" in r.stderr


def test_delaying_ends_beneficial_effects_that_last_until_the_end_of_the_turn(hnh: Cli) -> None:
    """gameplay.txt, Delay: "Beneficial effects lasting until the end of your turn will end when you choose to delay,
    but harmful effects that last until the end of your turn will wait until after you act": Ann's aim, due to end
    with this turn, ends as she delays; her impaired (the GM's, to the end of her turn) waits."""
    hnh.ok("act", "Ann", "aim")
    next_turns(hnh, 4)  # Ann's next turn: the aim lasts to its end
    hnh.ok("condition", "add", "Ann", "impaired", "--until", "end", "--of", "Ann")
    undo_and_retract_restore(hnh, ("Ann",), "encounter", "delay")
    hnh.ok("encounter", "delay")
    assert "aim" not in counters(hnh, "Ann") and "vulnerable" not in conditions(hnh, "Ann")
    assert "impaired" in conditions(hnh, "Ann")


# -- areas: cover per target, Weaken and Nullify, a hero's own roll, the targets named -----------------------
AREA3 = ("attack", "Ann", "Bob", "Cy", *AREA, "--roll", "power=0,0,0", "--roll", "Bob.dodge=0,0,0")
AREA3 += ("--roll", "Cy.dodge=0,0,0", "--roll", "Bob.toughness=0,0,0", "--roll", "Cy.toughness=0,0,0")


def test_cover_per_target_in_an_area(hnh: Cli) -> None:
    """gameplay.txt, Cover: "a circumstance bonus to Dodge defense checks against area effects equal to its penalty to
    attack checks": `--cover Bob=total` gives Bob +2 on his Dodge, Cy nothing."""
    r = hnh.json(*AREA3, "--cover", "Bob=total")
    checks = {e["data"]["target"]: e["data"]["dodge_check"] for e in r["events"] if e["type"] == "AttackResolved"}  # type: ignore[index]
    hnh.ok("undo")
    plain = hnh.json(*AREA3)
    base = {e["data"]["target"]: e["data"]["dodge_check"] for e in plain["events"] if e["type"] == "AttackResolved"}  # type: ignore[index]
    assert checks["Bob"]["total"] == base["Bob"]["total"] + 2 and checks["Cy"]["total"] == base["Cy"]["total"]


def test_complete_cover_for_one_target_in_an_area_is_refused(hnh: Cli) -> None:
    """gameplay.txt, Cover ("Complete cover ... can't be attacked"): a target in complete cover is outside the area,
    so naming it is refused in one line, nothing appended."""
    before = event_count(hnh.db)
    r = hnh(*AREA3, "--cover", "Bob=complete")
    assert r.exit_code == 2 and "outside the area" in r.stderr and event_count(hnh.db) == before


def test_an_area_weaken_resists_per_target(hnh: Cli) -> None:
    """gameplay.txt, Perception And Area Effects ("affects the area ... automatically") with Weaken: each target
    caught makes its own Dodge and its own resistance; Bob's Strength falls."""
    r = hnh.json(
        "attack", "Ann", "Bob", "Cy", "--with", "dexterity", "--rank", "4", "--range", "area", "--effect", "weaken",
        "-o", "trait=strength", "--roll", "power=+,+,+", "--roll", "Bob.dodge=-,-,-", "--roll", "Cy.dodge=+,+,+",
        "--roll", "Bob.toughness=-,-,-", "--roll", "Cy.toughness=+,+,+",
    )  # fmt: skip
    assert {e["data"]["target"] for e in r["events"] if e["type"] == "AttackResolved"} == {"Bob", "Cy"}  # type: ignore[index]
    assert show(hnh, "Bob")["counters"].get("weakened:strength")


def test_a_hero_caught_in_an_area_improves_his_own_roll(hnh: Cli) -> None:
    """the-basics.txt, Improve Roll ("re-roll any dice roll you make"): Cy, caught, spends a victory point on his own
    Toughness check (`-o improve=Cy.toughness`, re-roll `Cy.toughness-reroll`); the better is kept."""
    args = (*AREA3[:-2], "--roll", "Cy.toughness=-,-,-", "-o", "improve=Cy.toughness")
    args += ("--roll", "Cy.toughness-reroll=+,+,+")
    undo_and_retract_restore(hnh, ("Cy",), *args)
    r = hnh.json(*args)
    note = next(e["data"] for e in r["events"] if e["data"].get("victory_point") == "improve-roll")  # type: ignore[index]
    assert note["roll"] == "Cy.toughness" and note["kept"] == "reroll"
    assert show(hnh, "Cy")["resources"]["victory-points"] == 1


def test_a_group_caught_must_be_named_as_a_target(hnh: Cli) -> None:
    """gameplay.txt, Perception And Area Effects: `--in-area Goons=1` with Goons not among the targets is refused
    rather than silently adding a target, nothing appended."""
    before = event_count(hnh.db)
    r = hnh("attack", "Ann", "Bob", "--in-area", "Goons=1", *AREA, "--roll", "power=0,0,0")
    assert r.exit_code == 2 and "not one of the targets" in r.stderr and event_count(hnh.db) == before


def test_extra_effort_increased_rank_raises_a_power_for_a_round(hnh: Cli, tmp_path: Path) -> None:
    """the-basics.txt, Extra Effort, Increased Rank: "Increase one of your hero's power effects by +1 rank for 1
    round": Mes's Gaze attacks at rank 5, not 4; at the start of Mes's next turn it is back to 4."""
    _with_powers(hnh, tmp_path)
    hnh.ok("act", "Mes", "extra-effort", "-o", "benefit=increased-rank", "-o", "power=Gaze")
    r = hnh.json("attack", "Mes", "Bob", "--with", "Gaze", *EVEN, "--roll", "power=0,0,0", "--roll", "toughness=+,+,+")
    assert event(r, "AttackResolved")["rank"] == 5
    next_turns(hnh, 5)
    assert not [k for k in counters(hnh, "Mes") if "increased-rank" in k]
