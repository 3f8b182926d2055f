"""H&H environmental hazards (gameplay.txt, Environmental Hazards)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ledger.errors import BadInput
from ledger.model.sheet import Effect, Sheet, apply_all
from ledger.rules.contract import Recovery
from ledger.rules.hnh.system import RULES
from tests.unit.fudge import dice


def hero(hp: int = 6, conditions: tuple[str, ...] = (), **counters: int) -> Sheet:
    """A hero with Stamina 2, Fortitude 2, Toughness 2."""
    s = RULES.new_sheet("Hero", {"stamina": 2, "fortitude": 2, "toughness": 2}, minion=False, count=1, pc=True)
    return replace(s, hp=hp, conditions=conditions, counters=counters)


def check(effects: list[Effect]) -> dict:
    """The CheckResolved data."""
    return dict(next(e.data for e in effects if e.event == "CheckResolved"))


def test_heat_check_dc_rises_by_one_per_previous_check():
    """gameplay.txt, Heat And Cold: 'Fortitude checks (DC 0, +1 per previous check) to avoid becoming fatigued'."""
    h = hero()
    e = RULES.hazard(h, "heat", {"severity": "intense"}, dice(fortitude="000"))
    assert check(e)["dc"] == 0 and check(e)["interval"] == "10 minutes"
    h = apply_all(h, e)
    e = RULES.hazard(h, "heat", {}, dice(fortitude="000"))
    assert check(e)["dc"] == 1 and check(e)["success"]


def test_cold_failures_go_fatigued_exhausted_incapacitated_then_dying():
    """gameplay.txt, Heat And Cold: 'become exhausted, incapacitated (rather than asleep), then dying ... HP becomes
    -1'."""
    h = hero()
    for expected in ("fatigued", "exhausted", "incapacitated"):
        h = apply_all(h, RULES.hazard(h, "cold", {"previous-checks": 20}, dice(fortitude="000")))
        assert h.has(expected)
    h = apply_all(h, RULES.hazard(h, "cold", {"previous-checks": 20}, dice(fortitude="000")))
    assert h.hp == -1 and h.has("dying") and h.counter("no-stabilize") == 1


def test_hazard_dying_cannot_stabilize_until_the_cause_is_gone():
    """gameplay.txt, Heat And Cold: 'can't stabilize (even with Diehard) until returned to a comfortable
    temperature'."""
    h = hero(hp=-1, conditions=("dying",), **{"no-stabilize": 1})
    after = apply_all(h, RULES.start_of_turn(h, dice(fortitude="+++")))
    assert after.has("dying")
    h = apply_all(h, RULES.hazard(h, "cold", {"ended": True}, dice()))
    after = apply_all(h, RULES.start_of_turn(h, dice(fortitude="+++")))
    assert after.has("stabilized")


def test_thirst_no_check_during_the_first_day_and_death_after_three():
    """gameplay.txt, Starvation And Thirst: 'without water for a day ... will die after ... 3 days without water'."""
    d = dice()
    RULES.hazard(hero(), "thirst", {"days": 0}, d)
    assert not d.taken
    assert apply_all(hero(), RULES.hazard(hero(), "thirst", {"days": 3}, dice())).has("dead")


def test_starvation_check_every_four_hours_after_three_days_and_blocks_recovery():
    """gameplay.txt, Starvation And Thirst: 'every 4 hours ... The character cannot recover until he gets ... food.'"""
    h = hero(hp=3)
    e = RULES.hazard(h, "starvation", {"days": 3}, dice(fortitude="000"))
    assert check(e)["interval"] == "4 hours"
    h = apply_all(h, e)
    assert apply_all(h, RULES.recover(h, Recovery(hours=8, restful=True, treated=False), dice())).hp == 3


def test_suffocation_hold_breath_ten_plus_twice_stamina_rounds():
    """gameplay.txt, Suffocation: 'hold their breath for ten rounds ... plus ... twice their Stamina'."""
    d = dice()
    e = RULES.hazard(hero(), "suffocation", {"rounds": 14}, d)
    assert not d.taken and e[0].data["rounds_left"] == 0
    e = RULES.hazard(hero(), "suffocation", {"rounds": 15}, dice(fortitude="000"))
    assert check(e)["dc"] == 0


def test_suffocation_failure_incapacitates_then_dying_next_round():
    """gameplay.txt, Suffocation: 'becomes incapacitated and on the following round he is dying and his HP becomes
    -1'."""
    h = apply_all(
        hero(), RULES.hazard(hero(), "suffocation", {"rounds": 20, "previous-checks": 9}, dice(fortitude="000"))
    )
    assert h.has("incapacitated") and h.hp == 6
    h = apply_all(h, RULES.hazard(h, "suffocation", {"rounds": 21}, dice()))
    assert h.has("dying") and h.hp == -1


def test_falling_damage_rank_is_twice_distance_minus_size_capped_at_18():
    """gameplay.txt, Falling: 'damage rank equal to (fallen distance - your size)*2 with a maximum of 18'."""
    e = RULES.hazard(hero(), "falling", {"distance-rank": 4, "size": 1}, dice(power="000", toughness="+++"))
    assert e[0].data["rank"] == 6
    e = RULES.hazard(hero(), "falling", {"distance-rank": 30}, dice(power="000", toughness="+++"))
    assert e[0].data["rank"] == 18


def test_falling_prone_when_accidental_or_the_toughness_check_failed():
    """gameplay.txt, Falling: 'prone at the end of a fall if you fell accidentally or if you failed the Toughness
    check'."""
    d = dice()
    assert apply_all(hero(), RULES.hazard(hero(), "falling", {"distance-rank": 0, "accidental": True}, d)).has("prone")
    assert not d.taken  # a damage rank of 0 or less inflicts no damage
    after = apply_all(hero(), RULES.hazard(hero(), "falling", {"distance-rank": 2}, dice(power="000", toughness="000")))
    assert after.has("prone") and after.hp == 4
    after = apply_all(hero(), RULES.hazard(hero(), "falling", {"distance-rank": 1}, dice(power="000", toughness="+00")))
    assert not after.has("prone")


def test_decompression_from_the_third_round_dc_ten():
    """gameplay.txt, Rapid Decompression: 'On the third round ... Fortitude check (DC 10) ... stunned ... Two or more
    ... incapacitated'."""
    d = dice()
    RULES.hazard(hero(), "decompression", {"rounds": 2}, d)
    assert not d.taken
    h = replace(hero(), traits={"stamina": 2, "fortitude": 8, "toughness": 2})
    after = apply_all(h, RULES.hazard(h, "decompression", {"rounds": 3}, dice(fortitude="+00")))
    assert after.has("stunned") and not after.has("incapacitated")
    assert apply_all(h, RULES.hazard(h, "decompression", {"rounds": 3}, dice(fortitude="---"))).has("incapacitated")


def test_vacuum_holding_breath_costs_stamina_then_suffocates():
    """gameplay.txt, Vacuum: 'Fortitude check (DC 5) every round ... on a successful check the character loses a rank of
    Stamina'."""
    h = hero()
    e = RULES.hazard(h, "vacuum", {}, dice(fortitude="+++"))
    assert check(e)["dc"] == 5
    h = apply_all(h, e)
    assert h.trait("stamina") == 1
    h = apply_all(h, RULES.hazard(h, "vacuum", {}, dice(fortitude="---")))
    h = apply_all(h, RULES.hazard(h, "vacuum", {}, dice()))
    assert h.has("incapacitated")
    h = apply_all(h, RULES.hazard(h, "vacuum", {}, dice()))
    assert h.has("dying") and h.hp == -1


def test_unknown_hazard_is_bad_input():
    """gameplay.txt, Environmental Hazards lists the hazards; anything else is refused."""
    with pytest.raises(BadInput):
        RULES.hazard(hero(), "lava-surfing", {}, dice())
