"""H&H turns and time: dying check, turn start/end, afflictions, recovery, revival, initiative, victory points."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ledger.errors import BadInput, ImpossibleAction
from ledger.model.sheet import Effect, Sheet, apply_all
from ledger.rules.contract import Recovery
from ledger.rules.hnh.system import RULES
from tests.unit.fudge import dice


def hero(hp: int = 6, conditions: tuple[str, ...] = (), traits: dict[str, int] | None = None, **counters: int) -> Sheet:
    """A hero with Fortitude 5, Will 2, Agility 2, Dodge 4, Awareness 1."""
    base = {"fortitude": 5, "will": 2, "agility": 2, "dodge": 4, "awareness": 1, "toughness": 2, "stamina": 2}
    s = RULES.new_sheet("Hero", {**base, **(traits or {})}, minion=False, count=1, pc=True)
    return replace(s, hp=hp, conditions=conditions, counters=counters)


def until(sheet: Sheet, condition: str, when: str) -> list[Effect]:
    """The effects of `ledger act NAME until -o condition=C -o until=WHEN` (gameplay.txt, Taking Your Turn)."""
    return RULES.actions["until"].perform(sheet, None, {"condition": condition, "until": when}, dice())


def check(effects: list[Effect]) -> dict:
    """The CheckResolved data."""
    return dict(next(e.data for e in effects if e.event == "CheckResolved"))


def test_dying_check_success_by_one_stabilizes():
    """conditions.txt, Dying: 'If the check succeeds by 1 or more ... the character stabilizes'."""
    h = hero(hp=-1, conditions=("dying",))
    after = apply_all(h, RULES.start_of_turn(h, dice(fortitude="+00")))
    assert after.conditions == ("stabilized",) and after.hp == -1


def test_dying_check_exact_success_does_nothing():
    """conditions.txt, Dying: 'If the check succeeds exactly, nothing happens.'"""
    h = hero(hp=-1, conditions=("dying",))
    e = RULES.start_of_turn(h, dice(fortitude="000"))
    assert check(e)["outcome"] == "nothing" and apply_all(h, e) == h


def test_dying_check_failure_loses_one_hp_possibly_dying():
    """conditions.txt, Dying: 'If the check fails, they lose 1 HP (possibly causing death).'"""
    h = hero(hp=-2, conditions=("dying",))
    after = apply_all(h, RULES.start_of_turn(h, dice(fortitude="-00")))
    assert after.hp == -3 and set(after.conditions) == {"dead", "prone"}


def test_diehard_stabilizes_without_a_check():
    """gameplay.txt, Starting Your Turn: 'If you are dying, have diehard, and stabilization is possible ... stable.'"""
    h = hero(hp=-1, conditions=("dying",), traits={"diehard": 1})
    d = dice()
    after = apply_all(h, RULES.start_of_turn(h, d))
    assert after.conditions == ("stabilized",) and not d.taken


def test_start_of_turn_ends_surprise_and_until_start_effects():
    """conditions.txt, Surprised: 'removed at the start of your turn'; gameplay.txt, Starting Your Turn."""
    h = apply_all(hero(conditions=("surprised",)), until(hero(conditions=("surprised",)), "vulnerable", "start"))
    after = apply_all(h, RULES.start_of_turn(h, dice()))
    assert after.conditions == () and not after.counters


def test_end_of_turn_ends_until_end_effects():
    """gameplay.txt, Ending Your Turn: 'End any effects that last "until the end of your turn".' Set with the `until`
    action, it lasts to the end of the next turn (docs/interpretations.md): that turn's start keeps it, its end ends
    it."""
    h = apply_all(hero(), until(hero(), "prone", "end"))
    assert h.has("prone")
    h = apply_all(h, RULES.start_of_turn(h, dice()))
    assert h.has("prone")
    after = apply_all(h, RULES.end_of_turn(h, dice()))
    assert not after.has("prone")


def test_regeneration_at_the_start_of_turn():
    """gameplay.txt, Starting Your Turn: 'Gain ongoing beneficial effects such as gaining HP from Regeneration.'"""
    h = replace(
        hero(hp=-1, conditions=("dying",)),
        powers={"regen": {"effect": "Regeneration", "rank": 5, "text": "1 HP every round"}},
    )
    d = dice()
    after = apply_all(h, RULES.start_of_turn(h, d))
    assert after.hp == 0 and after.conditions == ("battered",) and not d.taken


def afflicted() -> Sheet:
    """A hero hit by a rank-4 Will Affliction (dazed/stunned/incapacitated) to the first degree."""
    h = hero()
    e = RULES.affliction(
        h,
        {"name": "hex", "rank": 4, "resisted-by": "will", "conditions": "dazed,stunned,incapacitated"},
        dice(power="000", toughness="-00"),
    )
    return apply_all(h, e)


def test_affliction_failure_imposes_first_degree_condition():
    """effect-affliction.txt: 'Failure (one degree): The target is dazed ...'."""
    h = afflicted()
    assert h.conditions == ("dazed",) and RULES.derived(h)["afflictions"] == {"hex": 1}


def test_ongoing_affliction_shaken_off_at_end_of_turn():
    """gameplay.txt, Ongoing Effects: 'A successful check ends the effect and removes conditions imposed by it.'"""
    h = afflicted()
    after = apply_all(h, RULES.end_of_turn(h, dice({"ongoing-hex": "++0"})))
    assert after.conditions == () and not any(k.startswith("affliction") for k in after.counters)


def test_ongoing_affliction_persists_on_failure():
    """gameplay.txt, Ongoing Effects: 'A failure means the effect's conditions persist'."""
    h = afflicted()
    after = apply_all(h, RULES.end_of_turn(h, dice({"ongoing-hex": "-00"})))
    assert after.conditions == ("dazed",)


def test_higher_affliction_degree_replaces_the_lower():
    """effect-affliction.txt: 'Higher degree conditions replace lower degree conditions and do not stack with them.'"""
    h = afflicted()
    e = RULES.affliction(
        h,
        {"name": "hex", "rank": 4, "resisted-by": "will", "conditions": "dazed,stunned,incapacitated"},
        dice(power="+00", toughness="--0"),
    )
    after = apply_all(h, e)
    assert "stunned" in after.conditions and "dazed" not in after.conditions


def test_third_degree_affliction_checks_each_minute_not_each_turn():
    """effect-affliction.txt: 'Defense checks for third degree conditions are made each minute'."""
    h = hero()
    h = apply_all(
        h,
        RULES.affliction(
            h,
            {"name": "hex", "rank": 4, "resisted-by": "will", "conditions": "dazed,stunned,incapacitated"},
            dice(power="+++", toughness="---"),
        ),
    )
    assert h.has("incapacitated")
    for _ in range(9):
        d = dice()
        h = apply_all(h, RULES.end_of_turn(h, d))
        assert not d.taken
    h = apply_all(h, RULES.end_of_turn(h, dice({"ongoing-hex": "+++"})))
    assert not h.has("incapacitated")


def test_progressive_affliction_worsens_at_the_next_turn_start():
    """effect-affliction.txt, Progressive: 'fails to resist progresses to the second degree ... at the start of his next
    turn'."""
    h = hero()
    h = apply_all(
        h,
        RULES.affliction(
            h,
            {"name": "rot", "rank": 4, "conditions": "dazed,stunned,incapacitated", "progressive": True},
            dice(power="000", toughness="---"),
        ),
    )
    h = apply_all(h, RULES.end_of_turn(h, dice({"ongoing-rot": "---"})))
    assert h.has("dazed")
    h = apply_all(h, RULES.start_of_turn(h, dice()))
    assert h.has("stunned") and not h.has("dazed")


def test_recovery_one_hp_per_eight_hours():
    """gameplay.txt, Recovery: 'Characters recover 1 HP every 8 hours.'"""
    h = hero(hp=2)
    assert apply_all(h, RULES.recover(h, Recovery(hours=8, restful=False, treated=False), dice())).hp == 3


def test_restful_and_treated_recovery_stack_to_four_hp_in_eight_hours():
    """gameplay.txt, Recovery: 'These two circumstances can stack so that a person may recover 4 HP overnight (8
    hours)'."""
    h = hero(hp=1)
    assert apply_all(h, RULES.recover(h, Recovery(hours=8, restful=True, treated=False), dice())).hp == 3
    assert apply_all(h, RULES.recover(h, Recovery(hours=8, restful=True, treated=True), dice())).hp == 5


def test_treatment_check_dc_five_doubles_recovery():
    """gameplay.txt, Recovery: 'With a skill DC 5 Medical Treatment ... check ... doubles recovery rate.'"""
    h = hero(hp=1)
    e = RULES.recover(
        h, Recovery(hours=8, restful=False, treated=True, options={"treatment-bonus": 5}), dice(treatment="000")
    )
    assert check(e)["success"] and apply_all(h, e).hp == 3
    e = RULES.recover(
        h, Recovery(hours=8, restful=False, treated=True, options={"treatment-bonus": 5}), dice(treatment="-00")
    )
    assert apply_all(h, e).hp == 2


def test_bruises_fade_one_per_hour_in_the_same_way():
    """gameplay.txt, Recovery: 'Bruised penalties are removed once per hour in the same fashion and at the same
    time.'"""
    h = hero(bruises=5)
    assert (
        apply_all(h, RULES.recover(h, Recovery(hours=2, restful=True, treated=False), dice())).counter("bruises") == 1
    )


def test_hp_gained_while_negative_stabilizes():
    """conditions.txt, Dying: 'Gaining any amount of HP by any means causes stabilization if HP is still negative.'"""
    h = hero(hp=-2, conditions=("dying",))
    after = apply_all(h, RULES.recover(h, Recovery(hours=8, restful=False, treated=False), dice()))
    assert after.hp == -1 and after.conditions == ("stabilized",)


def test_treatment_stabilizes_the_dying():
    """conditions.txt, Dying: 'Another character can stabilize a dying character with a successful Treatment check (DC
    5).'"""
    h = hero(hp=-2, conditions=("dying",))
    after = apply_all(
        h,
        RULES.recover(
            h, Recovery(hours=0, restful=False, treated=True, options={"treatment-bonus": 4}), dice(treatment="0+0")
        ),
    )
    assert after.conditions == ("stabilized",)


def test_recover_on_the_dead_is_refused():
    """gameplay.txt, Death / conditions.txt, Dead: 'Removed by: Resurrection Healing, Immortality.'"""
    with pytest.raises(ImpossibleAction):
        RULES.recover(hero(hp=-3, conditions=("dead",)), Recovery(hours=8, restful=True), dice())


def test_revival_lifts_dead_and_not_again_for_130_rounds():
    """gameplay.txt, Action Limitations: 'can't be revived again until 13 minutes have passed ... 130 rounds'."""
    dead = hero(hp=-3, conditions=("dead",))
    alive = apply_all(dead, RULES.revive(dead, means="healing", by=None))
    assert alive.hp == -2 and alive.conditions == ("stabilized",) and alive.counter("revive-cooldown") == 130
    again = apply_all(alive, RULES.damage(alive, 5, subdual=False))
    with pytest.raises(ImpossibleAction):
        RULES.revive(again, means="immortality", by=None)
    for _ in range(130):
        again = apply_all(again, RULES.start_of_turn(again, dice()))
    assert apply_all(again, RULES.revive(again, means="immortality", by=None)).hp == -2


def test_revive_the_living_is_refused():
    """conditions.txt, Dead: only the dead are revived."""
    with pytest.raises(ImpossibleAction):
        RULES.revive(hero(), means="healing", by=None)


def test_initiative_is_3df_plus_agility_plus_improved_initiative():
    """gameplay.txt, Initiative: '3dF + Agility + Improved Initiative ranks + other modifiers'."""
    total, e = RULES.initiative(hero(traits={"improved-initiative": 2}), dice(initiative="+00"))
    assert total == 5 and check(e)["roll"] == "initiative"


def test_surprised_initiative_is_minus_ten():
    """gameplay.txt, Surprise: 'surprised get a -10 penalty to initiative checks'."""
    total, _ = RULES.initiative(hero(conditions=("surprised",)), dice(initiative="000"))
    assert total == -8


def test_initiative_ties_go_to_dodge_then_agility_then_awareness():
    """gameplay.txt, Initiative: 'highest Dodge bonus first, then highest Agility, then highest Awareness'."""
    a = hero(traits={"dodge": 5, "agility": 0})
    b = hero(traits={"dodge": 4, "agility": 9})
    c = hero(traits={"dodge": 4, "agility": 9, "awareness": 3})
    assert sorted([b, a, c], key=RULES.tie_break_key, reverse=True) == [a, c, b]


def test_spending_victory_points_and_no_overspending():
    """the-basics.txt, Using Victory Points: 'you can spend as many Victory points as you have.'"""
    h = hero()
    assert apply_all(h, RULES.spend(h, "victory-points", 2, None)).resources["victory-points"] == 0
    with pytest.raises(ImpossibleAction):
        RULES.spend(h, "victory-points", 3, None)
    with pytest.raises(BadInput):
        RULES.spend(h, "hero-points", 1, None)


def test_harmful_ongoing_damage_at_the_end_of_each_turn():
    """gameplay.txt, Ending Your Turn: 'Suffer from any harmful ongoing effects ... taking damage each turn ... in a
    fire'."""
    h = apply_all(hero(), RULES.ongoing_damage(hero(), 4))
    after = apply_all(h, RULES.end_of_turn(h, dice(power="000", toughness="000")))
    assert after.hp == 4 and after.counter("bruises") == 1
    d = dice()
    cleared = apply_all(after, RULES.ongoing_damage(after, None))
    RULES.end_of_turn(cleared, d)
    assert not d.taken
