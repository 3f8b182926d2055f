"""H&H Damage and HP: resistance check, bruises, HP conditions, death (effect-damage.txt, gameplay.txt)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ledger.errors import BadInput, ImpossibleAction
from ledger.model.sheet import Effect, Sheet, apply_all
from ledger.rules.hnh.system import RULES
from tests.unit.fudge import dice


def hero(hp: int = 6, conditions: tuple[str, ...] = (), **counters: int) -> Sheet:
    """A hero with Toughness 4 at the given HP."""
    s = RULES.new_sheet("Hero", {"toughness": 4, "stamina": 2, "fortitude": 2}, minion=False, count=1, pc=True)
    return replace(s, hp=hp, conditions=conditions, counters=counters)


def resolution(effects: list[Effect]) -> dict:
    """The ResistanceResolved data."""
    return dict(next(e.data for e in effects if e.event == "ResistanceResolved"))


def test_toughness_success_means_no_effect():
    """effect-damage.txt, Damage Check: 'Success: The damage has no effect.'"""
    e = RULES.resist_damage(hero(), 3, {}, dice(power="000", toughness="+00"))
    assert resolution(e)["outcome"] == "success" and len(e) == 1


def test_tie_on_toughness_gives_a_bruise():
    """effect-damage.txt, Damage Check: 'Tie: Instead of a tie being considered a "Success", the defender gets a bruised
    penalty.'"""
    h = hero()
    after = apply_all(h, RULES.resist_damage(h, 4, {}, dice(power="000", toughness="000")))
    assert after.hp == 6 and after.counter("bruises") == 1


def test_failure_loses_hp_equal_to_the_difference_and_a_bruise():
    """effect-damage.txt, Damage Check: 'Failure: The target loses HP equal to the difference and gets a bruised
    penalty.'"""
    h = hero()
    after = apply_all(h, RULES.resist_damage(h, 7, {}, dice(power="000", toughness="000")))
    assert after.hp == 3 and after.counter("bruises") == 1


def test_bruises_lower_the_toughness_check_cumulatively():
    """effect-damage.txt, Damage Check: 'Bruised penalties are cumulative ... a total -3 toughness penalty'."""
    e = RULES.resist_damage(hero(bruises=3), 1, {}, dice(power="000", toughness="000"))
    assert resolution(e)["resistance"]["total"] == 1


def test_power_check_critical_is_plus_one():
    """the-basics.txt, Critical Success/failure: Power critical success '+1'."""
    e = RULES.resist_damage(hero(), 1, {}, dice(power="+++", toughness="000"))
    assert resolution(e)["power"]["total"] == 5


def test_exactly_zero_hp_is_battered():
    """gameplay.txt, Health Points: 'If you have exactly 0 HP then you gain the HP condition battered.'"""
    h = hero(hp=2)
    after = apply_all(h, RULES.resist_damage(h, 6, {}, dice(power="000", toughness="000")))
    assert after.hp == 0 and after.conditions == ("battered",)


def test_first_entering_negative_hp_is_dying():
    """gameplay.txt, Health Points: 'When first entering negative HP (unless already dead) you gain Dying.'"""
    h = hero(hp=1)
    after = apply_all(h, RULES.damage(h, 2, subdual=False))
    assert after.hp == -1 and set(after.conditions) == {"dying", "prone"}  # the incapacitated fall prone


def test_hp_never_goes_below_minus_three_and_death_clears_everything():
    """gameplay.txt, Death: 'HP becomes -3, all other conditions are removed, and he loses all victory points'."""
    h = replace(hero(hp=1, conditions=("prone", "dazed"), bruises=2), resources={"victory-points": 2})
    after = apply_all(h, RULES.damage(h, 20, subdual=False))
    assert after.hp == -3 and set(after.conditions) == {"dead", "prone"}
    assert after.resources["victory-points"] == 0 and after.counter("bruises") == 0


def test_a_stabilized_character_who_loses_hp_is_dying_again():
    """conditions.txt, Stabilized: 'If a Stabilized character loses any HP but is still alive then they become
    Dying'."""
    h = hero(hp=-1, conditions=("stabilized",))
    after = apply_all(h, RULES.damage(h, 1, subdual=False))
    assert after.hp == -2 and after.conditions == ("dying",)


def test_non_lethal_damage_stops_at_minus_one_stabilized():
    """effect-damage.txt, Non-Lethal: 'instead the target has -1 HP and is stabilized'."""
    h = hero(hp=2)
    after = apply_all(h, RULES.resist_damage(h, 12, {"nonlethal": True}, dice(power="000", toughness="000")))
    assert after.hp == -1 and set(after.conditions) == {"stabilized", "prone"}


def test_minion_max_hp_is_one():
    """gameplay.txt, Health Points: 'Minions who always have a maximum HP of 1'; others 6."""
    assert RULES.new_sheet("M", {}, minion=True, count=1, pc=False).max_hp == 1
    assert RULES.new_sheet("H", {}, minion=False, count=1, pc=True).max_hp == 6


def test_one_hp_characters_are_subject_to_minion_rules():
    """gameplay.txt, Health Points: 'If you have 1 or less HP you are subject to minion rules'."""
    assert RULES.derived(hero(hp=1))["minion_rules"] and not RULES.derived(hero(hp=2))["minion_rules"]


def test_a_one_hp_hero_failing_toughness_does_not_take_the_worst_degree():
    """gameplay.txt, Health Points: '... failure doesn't automatically result in the worst degree' (max HP > 1)."""
    h = hero(hp=1)
    after = apply_all(h, RULES.resist_damage(h, 5, {}, dice(power="000", toughness="000")))
    assert after.hp == 0


def test_damage_on_the_dead_is_refused():
    """gameplay.txt, Health Points: -3 'is the minimum'."""
    with pytest.raises(ImpossibleAction):
        RULES.resist_damage(hero(hp=-3, conditions=("dead",)), 3, {}, dice())


def test_no_subdual_damage_in_hnh():
    """effect-damage.txt has no subdual damage (only Non-Lethal)."""
    with pytest.raises(BadInput):
        RULES.damage(hero(), 1, subdual=True)


def test_new_heroes_start_with_two_victory_points():
    """the-basics.txt, Victory Points: 'Players start each in game day with 2 Victory points.'"""
    assert RULES.new_sheet("P", {}, minion=False, count=1, pc=True).resources == {"victory-points": 2}
