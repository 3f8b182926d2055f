"""H&H conditions: implications, supersession, progressive degrees (hnh-site/conditions.txt)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ledger.errors import BadInput, ImpossibleAction
from ledger.model.sheet import Sheet, apply_all
from ledger.rules.hnh.conditions import CONDITIONS
from ledger.rules.hnh.system import RULES


def hero(*conditions: str) -> Sheet:
    """A hero with imposed conditions."""
    return replace(RULES.new_sheet("Hero", {"toughness": 3}, minion=False, count=1, pc=True), conditions=conditions)


def imposed(sheet: Sheet, *conditions: str) -> Sheet:
    """The sheet after imposing the conditions in order through the rules."""
    for c in conditions:
        sheet = apply_all(sheet, RULES.impose(sheet, c))
    return sheet


def test_every_condition_of_the_text_is_known():
    """conditions.txt, Basic, Combined and Damage Conditions: every character condition has a CLI name."""
    text = (
        "compelled controlled dazed debilitated deaf defenseless disabled entranced fatigued hindered immobile "
        "impaired "
        "prone stunned surprised unaware vulnerable weakened asleep blind bound exhausted incapacitated paralyzed "
        "restrained staggered battered dying stabilized dead"
    ).split()
    assert set(text) <= CONDITIONS


def test_incapacitated_implies_defenseless_stunned_unaware():
    """conditions.txt, Incapacitated: 'defenseless, stunned, and unaware'."""
    d = RULES.derived(hero("incapacitated"))
    assert {"defenseless", "stunned", "unaware"} <= set(d["implied"])
    assert d["implied"] == sorted(d["implied"])


def test_dying_implies_incapacitated_and_its_parts():
    """conditions.txt, Dying: 'A dying character is incapacitated (defenseless, stunned, and unaware)'."""
    d = RULES.derived(hero("dying"))
    assert {"incapacitated", "defenseless", "stunned", "unaware"} <= set(d["implied"])


def test_battered_is_dazed_and_hindered():
    """conditions.txt, Battered: 'A battered character is dazed and hindered.'"""
    assert {"dazed", "hindered"} <= set(RULES.derived(hero("battered"))["effective_conditions"])


def test_combined_conditions_imply_their_parts():
    """conditions.txt, Combined Conditions: bound, exhausted, restrained, staggered, asleep, paralyzed, blind."""
    expect = {
        "bound": {"defenseless", "immobile", "impaired"},
        "exhausted": {"impaired", "hindered"},
        "restrained": {"hindered", "vulnerable"},
        "staggered": {"dazed", "hindered"},
        "asleep": {"defenseless", "stunned", "unaware"},
        "paralyzed": {"defenseless", "immobile"},
        "blind": {"hindered", "defenseless"},
        "surprised": {"vulnerable"},
        "prone": {"hindered"},
    }
    for cond, parts in expect.items():
        assert parts <= set(RULES.derived(hero(cond))["implied"]), cond


def test_defenseless_supersedes_vulnerable_in_effective_conditions():
    """conditions.txt, Vulnerable: 'Defenseless supersedes vulnerable.'"""
    eff = RULES.derived(hero("surprised", "incapacitated"))["effective_conditions"]
    assert "defenseless" in eff and "vulnerable" not in eff


def test_stunned_supersedes_dazed_of_a_staggered_character():
    """conditions.txt, Combined Conditions: 'an effect that stuns a staggered character ... now stunned ... and
    hindered'."""
    eff = RULES.derived(hero("staggered", "stunned"))["effective_conditions"]
    assert "stunned" in eff and "hindered" in eff and "dazed" not in eff


def test_immobile_supersedes_hindered():
    """conditions.txt, Hindered: 'Immobile supersedes hindered.'"""
    eff = RULES.derived(hero("prone", "immobile"))["effective_conditions"]
    assert "hindered" not in eff and "immobile" in eff


def test_fatigued_twice_progresses_to_exhausted():
    """conditions.txt, Progressive Conditions: 'a character who is Fatigued is hit with ... Fatigues then ...
    Exhausted'."""
    s = imposed(hero(), "fatigued", "fatigued")
    assert "exhausted" in s.conditions and "fatigued" not in s.conditions


def test_fatigued_then_exhausted_falls_asleep_still_exhausted():
    """conditions.txt, Progressive Conditions: 'Fatigued ... hit with Exhaustion ... falls asleep'; '* Asleep doesn't
    replace'."""
    s = imposed(hero(), "fatigued", "exhausted")
    assert set(s.conditions) == {"asleep", "exhausted"}


def test_dazed_plus_stunned_is_incapacitated_and_prone():
    """conditions.txt, Progressive Conditions (degrees add, max 3); Incapacitated: 'you fall prone'."""
    s = imposed(hero(), "dazed", "stunned")
    assert "incapacitated" in s.conditions and "dazed" not in s.conditions and "prone" in s.conditions


def test_second_degree_rows_cap_at_their_last_degree():
    """conditions.txt, Progressive Conditions: 'Some ... don't have a third degree in which case second degree is the
    maximum'."""
    s = imposed(hero(), "impaired", "disabled")
    assert s.conditions == ("disabled",)


def test_compelled_twice_is_controlled():
    """conditions.txt, Progressive table: Compelled is second degree, Controlled third (max 3)."""
    assert imposed(hero(), "compelled", "compelled").conditions == ("controlled",)


def test_same_non_progressive_condition_twice_is_redundant():
    """conditions.txt: 'Multiple instances of the same condition are redundant if they haven't progressed.'"""
    assert RULES.impose(hero("prone"), "prone") == []


def test_bound_replaces_restrained_and_restrained_does_not_replace_bound():
    """conditions.txt: 'Bound supersedes Restrained ... Bound and Restrained will not replace any other conditions'."""
    assert imposed(hero("restrained"), "bound").conditions == ("bound",)
    assert RULES.impose(hero("bound"), "restrained") == []


def test_removing_part_of_a_combined_condition_leaves_the_rest():
    """conditions.txt, Combined Conditions: removing dazed from a staggered character leaves him 'only hindered'."""
    s = apply_all(hero("staggered"), RULES.remove(hero("staggered"), "dazed"))
    assert s.conditions == ("hindered",)


def test_removing_a_condition_the_character_lacks_is_bad_input():
    """DESIGN.md, Errors and bad input: a condition the character lacks."""
    with pytest.raises(BadInput):
        RULES.remove(hero(), "dazed")


def test_hp_conditions_are_not_imposed_by_the_gm():
    """conditions.txt, Damage Conditions: 'automatically imposed (based on damage, HP ...)'."""
    with pytest.raises(BadInput):
        RULES.impose(hero(), "dying")


def test_unknown_condition_is_bad_input():
    """conditions.txt lists every condition; anything else is refused."""
    with pytest.raises(BadInput):
        RULES.impose(hero(), "sleepy")


def test_dead_characters_take_no_new_conditions():
    """conditions.txt, Dead: 'Remove all other conditions.'"""
    with pytest.raises(ImpossibleAction):
        RULES.impose(replace(hero("dead"), hp=-3), "prone")


def test_derived_shows_effective_toughness_after_bruises():
    """effect-damage.txt, Damage Check: 'A bruised penalty imposes a -1 toughness penalty ... cumulative'."""
    d = RULES.derived(replace(hero(), counters={"bruises": 2}))
    assert d["toughness"] == 1 and d["bruises"] == 2
