"""H&H checks: degrees, criticals by kind, routine, opposed and team checks (hnh-site/the-basics.txt)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ledger.errors import BadInput, ImpossibleAction
from ledger.model.dice import DiceBox
from ledger.model.sheet import Effect, Sheet
from ledger.rules.hnh.checks import degrees, team_bonus
from ledger.rules.hnh.system import RULES
from tests.unit.fudge import dice


def hero(name: str = "Hero", **traits: int) -> Sheet:
    """A player character with the given traits."""
    return RULES.new_sheet(name, traits, minion=False, count=1, pc=True)


def one(effects: list[Effect], event: str) -> dict:
    """The data of the single effect of that event."""
    found = [e.data for e in effects if e.event == event]
    assert len(found) == 1, effects
    return dict(found[0])


def test_degrees_divide_the_difference_by_three_rounded_up():
    """the-basics.txt, Graded Checks: 'divided by 3 rounded up except that a difference of 0 is ... 1 degree'."""
    assert [degrees(d) for d in (0, 1, 3, 4, 6, 7, -3, -4)] == [1, 1, 1, 2, 2, 3, 1, 2]


def test_check_meets_dc_succeeds_and_counts_degrees():
    """the-basics.txt, Graded Checks: 'a DC 10 check with a result of 13 is one degree of success, ... 8 ...
    failure'."""
    d = one(
        RULES.check(hero(perception=13), "perception", dc=10, against=None, options={}, dice=dice(check="000")),
        "CheckResolved",
    )
    assert d["total"] == 13 and d["success"] and d["degrees"] == 1
    d = one(
        RULES.check(hero(perception=8), "perception", dc=10, against=None, options={}, dice=dice(check="000")),
        "CheckResolved",
    )
    assert d["total"] == 8 and not d["success"] and d["degrees"] == 1
    d = one(
        RULES.check(hero(perception=10), "perception", dc=10, against=None, options={}, dice=dice(check="000")),
        "CheckResolved",
    )
    assert d["success"] and d["degrees"] == 1


def test_routine_check_counts_the_dice_as_zero_and_rolls_nothing():
    """the-basics.txt, Routine Checks: 'calculate your result as if you had rolled a 0'."""
    d = one(
        RULES.check(hero(athletics=6), "athletics", dc=6, against=None, options={"routine": True}, dice=dice()),
        "CheckResolved",
    )
    assert d["total"] == 6 and d["success"] and d["routine"] and d["roll"] is None


def test_defenses_are_never_routine():
    """the-basics.txt, Routine Opposition: 'Defenses are never routine: they are always rolled.'"""
    with pytest.raises(BadInput):
        RULES.check(hero(will=4), "will", dc=3, against=None, options={"routine": True}, dice=dice())


def test_skill_critical_failure_is_an_automatic_failure():
    """the-basics.txt, Critical Success/failure: Ability/Skill critical failure is 'Automatic failure'."""
    d = one(
        RULES.check(hero(athletics=20), "athletics", dc=0, against=None, options={}, dice=dice(check="---")),
        "CheckResolved",
    )
    assert d["total"] == 17 and not d["success"] and d["automatic_failure"]


def test_skill_critical_success_adds_one():
    """the-basics.txt, Critical Success/failure: Ability/Skill critical success is '+1'."""
    d = one(
        RULES.check(hero(athletics=0), "athletics", dc=4, against=None, options={}, dice=dice(check="+++")),
        "CheckResolved",
    )
    assert d["total"] == 4 and d["success"] and d["critical"] == "success"


def test_passive_defense_critical_failure_is_minus_one_not_automatic():
    """the-basics.txt, Critical Success/failure: Passive Defense critical failure is '-1'."""
    d = one(RULES.check(hero(will=10), "will", dc=5, against=None, options={}, dice=dice(check="---")), "CheckResolved")
    assert d["total"] == 6 and d["success"] and not d["automatic_failure"]


def test_active_defense_critical_failure_is_automatic():
    """the-basics.txt, Critical Success/failure: Active Defense critical failure is 'Automatic failure'."""
    d = one(
        RULES.check(hero(dodge=10), "dodge", dc=0, against=None, options={}, dice=dice(check="---")), "CheckResolved"
    )
    assert not d["success"] and d["automatic_failure"]


def test_power_critical_failure_is_minus_one():
    """the-basics.txt, Critical Success/failure: Power critical failure is '-1' (no automatic failure)."""
    h = replace(hero(), powers={"blast": {"effect": "Damage", "rank": 8}})
    d = one(RULES.check(h, "blast", dc=4, against=None, options={}, dice=dice(check="---")), "CheckResolved")
    assert d["total"] == 4 and d["success"]


def test_opposed_check_tie_goes_to_the_higher_bonus():
    """the-basics.txt, Opposed Checks: 'For ties on opposed checks, the character with the higher bonus wins.'"""
    a, b = hero("A", stealth=5), hero("B", perception=3)
    d = one(
        RULES.check(
            a, "stealth", dc=None, against=(b, "perception"), options={}, dice=dice(check="-00", against="+00")
        ),
        "CheckResolved",
    )
    assert d["winner"] == "A" and d["success"] and d["against"]["total"] == 4


def test_opposed_check_same_bonus_and_total_is_a_tie():
    """the-basics.txt, Opposed Checks: 'If the bonuses are the same either resolve it as a tie'."""
    a, b = hero("A", stealth=3), hero("B", perception=3)
    d = one(
        RULES.check(
            a, "stealth", dc=None, against=(b, "perception"), options={}, dice=dice(check="000", against="000")
        ),
        "CheckResolved",
    )
    assert d["winner"] is None and not d["success"]


def test_routine_opposition_uses_the_opponents_bonus_plus_zero():
    """the-basics.txt, Routine Opposition: 'the DC ... is the opposing character's modifier +0'."""
    a, b = hero("A", stealth=2), hero("B", perception=4)
    eff = RULES.check(
        a, "stealth", dc=None, against=(b, "perception"), options={"routine-against": True}, dice=dice(check="+00")
    )
    d = one(eff, "CheckResolved")
    assert d["against"]["total"] == 4 and d["winner"] == "B"


def test_team_check_bonus_from_helpers_degrees():
    """the-basics.txt, Team Checks: +1 for one or two degrees, +2 for three or more, -1 for two or more failures."""
    assert team_bonus([0]) == 1
    assert team_bonus([7]) == 2
    assert team_bonus([2, 2, 1]) == 2
    assert team_bonus([-1]) == 0
    assert team_bonus([-4]) == -1
    d = one(
        RULES.check(
            hero(technology=5), "technology", dc=7, against=None, options={"team": [7]}, dice=dice(check="000")
        ),
        "CheckResolved",
    )
    assert d["total"] == 7 and d["success"] and d["team_bonus"] == 2


def test_impaired_character_checks_at_minus_one():
    """conditions.txt, Impaired: 'a -1 circumstance penalty on checks' (exhausted is impaired to everything)."""
    h = replace(hero(athletics=5), conditions=("exhausted",))
    d = one(RULES.check(h, "athletics", dc=0, against=None, options={}, dice=dice(check="000")), "CheckResolved")
    assert d["total"] == 4


def test_checking_a_trait_the_character_lacks_is_bad_input():
    """DESIGN.md, Errors and bad input: a trait the character lacks is refused."""
    with pytest.raises(BadInput):
        RULES.check(hero(), "acrobatics", dc=0, against=None, options={}, dice=dice(check="000"))


def test_faces_that_are_not_fudge_faces_are_bad_input():
    """the-basics.txt, The Dice: every check is 3 Fudge dice; an entered d6 face is refused."""
    bad = DiceBox(entered={"check": "4,1,2"})
    with pytest.raises(BadInput):
        RULES.check(hero(athletics=1), "athletics", dc=0, against=None, options={}, dice=bad)


def test_incapacitated_character_cannot_make_a_skill_check():
    """conditions.txt, Stunned: 'Can't take any actions' (incapacitated is stunned)."""
    h = replace(hero(athletics=1), conditions=("incapacitated",))
    with pytest.raises(ImpossibleAction):
        RULES.check(h, "athletics", dc=0, against=None, options={}, dice=dice(check="000"))
