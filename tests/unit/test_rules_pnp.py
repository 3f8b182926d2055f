"""Prowlers & Paragons rules: each test asserts one rule of prowlers-and-paragons.txt and cites its heading.

Faces are always entered (StrictBox refuses to roll), so nothing here is random.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from ledger.errors import BadInput, ImpossibleAction
from ledger.history.rederive import ReplayDice
from ledger.model.dice import DiceBox, DiceSpec, Roll, pool
from ledger.model.sheet import Effect, Sheet, apply_all
from ledger.rules.pnp.checks import chase as pnp_chase
from ledger.rules.pnp.combat import move as pnp_move
from ledger.rules.pnp.core import THRESHOLDS
from ledger.rules.pnp.options import ATTACK as ATTACK_DECLS
from ledger.rules.pnp.options import CHASE as CHASE_DECLS
from ledger.rules.pnp.options import CHECK as CHECK_DECLS
from ledger.rules.pnp.resources import start_of_issue, start_of_issue_gm
from ledger.rules.pnp.system import RULES

TXT = "prowlers-and-paragons.txt"


class StrictBox(DiceBox):
    """A DiceBox that never rolls: every roll a rule asks for must have been entered."""

    def take(self, name: str, spec: DiceSpec) -> Roll:
        """Refuse a roll that was not entered."""
        assert name in self.entered, f"the rule asked for roll '{name}', which the test did not enter"
        return super().take(name, spec)


def box(**rolls: str) -> StrictBox:
    """Entered faces by roll name."""
    return StrictBox(entered=dict(rolls))


def hero(name: str = "Ann", *, resolve: int = 0, **traits: int) -> Sheet:
    """A hero (pc) with the given traits and Resolve."""
    sheet = RULES.new_sheet(name, traits, minion=False, count=1, pc=True)
    return replace(sheet, resources={"resolve": resolve})


def npc(name: str = "Vex", **traits: int) -> Sheet:
    """A non-player character with the given traits."""
    return RULES.new_sheet(name, traits, minion=False, count=1, pc=False)


def minions(name: str = "Thugs", count: int = 5, threat: int = 2) -> Sheet:
    """A minion group."""
    return RULES.new_sheet(name, {"threat": threat}, minion=True, count=count, pc=False)


def one(effects: list[Effect], event: str) -> dict[str, Any]:
    """The data of the only effect of that event."""
    found = [e for e in effects if e.event == event]
    assert len(found) == 1, [e.event for e in effects]
    return dict(found[0].data)


# --- Making a Challenge Roll -------------------------------------------------------------------------------


def test_two_and_four_score_one_success_and_six_scores_two() -> None:
    """prowlers-and-paragons.txt, Making a Challenge Roll: one success per 2 or 4, two per 6."""
    effects = RULES.check(
        hero(investigation=6), "investigation", dc=0, against=None, options={}, dice=box(check="1,2,3,4,5,6")
    )
    assert one(effects, "CheckResolved")["successes"] == 4


def test_pool_has_as_many_dice_as_the_trait_rank() -> None:
    """prowlers-and-paragons.txt, Trait Ranks / Making a Challenge Roll: roll dice equal to the Trait."""
    dice = box(check="2,2,2")
    RULES.check(hero(science=3), "science", dc=0, against=None, options={}, dice=dice)
    assert dice.taken["check"].spec == pool(3)


def test_net_successes_are_successes_minus_the_threshold() -> None:
    """prowlers-and-paragons.txt, Net Successes: subtract the action's threshold from the successes."""
    data = one(
        RULES.check(hero(charm=3), "charm", dc=1, against=None, options={}, dice=box(check="6,4,1")), "CheckResolved"
    )
    assert (data["successes"], data["threshold"], data["net"]) == (3, 1, 2)


def test_named_threshold_from_the_thresholds_table() -> None:
    """prowlers-and-paragons.txt, Setting Thresholds (table lost; docs/interpretations.md, Prowlers & Paragons): 'hard'
    is 4."""
    effects = RULES.check(
        hero(covert=2), "covert", dc=None, against=None, options={"threshold": "hard"}, dice=box(check="6,6")
    )
    data = one(effects, "CheckResolved")
    assert (data["threshold"], data["threshold_source"], data["net"]) == (4, "threshold", 0)


@pytest.mark.parametrize(
    "value, expected", [("routine", 0), ("easy", 1), ("Average", 2), ("very hard", 5), ("7", 7), (3, 3)]
)
def test_threshold_reads_a_number_or_a_table_name(value: str, expected: int) -> None:
    """prowlers-and-paragons.txt, Thresholds: the GM assigns a threshold (a number or a row of our table)."""
    assert RULES.threshold(value) == expected


@pytest.mark.parametrize("value", ["impossible-ish", "-1", ""])
def test_unknown_threshold_name_or_negative_threshold_is_bad_input(value: str) -> None:
    """prowlers-and-paragons.txt, Thresholds: only documented names and whole numbers of at least 0."""
    with pytest.raises(BadInput):
        RULES.threshold(value)


def test_check_without_any_threshold_uses_the_documented_default() -> None:
    """prowlers-and-paragons.txt, Thresholds: 'the GM assigns a threshold'; unsaid, we assume average (2)."""
    data = one(
        RULES.check(hero(survival=2), "survival", dc=None, against=None, options={}, dice=box(check="2,4")),
        "CheckResolved",
    )
    assert (data["threshold"], data["threshold_source"]) == (THRESHOLDS["average"][0], "default")


def test_two_thresholds_at_once_are_refused() -> None:
    """prowlers-and-paragons.txt, Making a Challenge Roll: one threshold, from the GM or from an opponent."""
    with pytest.raises(BadInput, match="one threshold"):
        RULES.check(hero(charm=2), "charm", dc=2, against=None, options={"threshold": "easy"}, dice=box(check="2,2"))


def test_opponent_rolls_first_and_their_successes_are_the_threshold() -> None:
    """prowlers-and-paragons.txt, Making a Challenge Roll: 'they first make their own challenge roll against you'."""
    dice = box(check="6,6,1", against="2,4,1")
    effects = RULES.check(
        hero(covert=3), "covert", dc=None, against=(npc(perception=3), "perception"), options={}, dice=dice
    )
    data = one(effects, "CheckResolved")
    assert list(dice.taken) == ["against", "check"]
    assert (data["threshold"], data["threshold_source"], data["net"]) == (2, "opposed", 2)


def test_opponent_lacking_the_trait_is_bad_input() -> None:
    """prowlers-and-paragons.txt, Trait Ranks: a roll needs a Trait the character has."""
    with pytest.raises(BadInput, match="no power 'flight'"):
        RULES.check(hero(agility=3), "agility", dc=None, against=(npc(agility=2), "flight"), options={}, dice=box())


def test_a_talent_the_character_lacks_is_zero_dice_and_a_power_is_refused() -> None:
    """prowlers-and-paragons.txt, Characteristics and Trait Ranks: every character has the Talents (0d when not listed);
    Powers are their own."""
    dice = box(check="")
    data = one(RULES.check(hero(science=3), "medicine", dc=1, against=None, options={}, dice=dice), "CheckResolved")
    assert (data["trait"], data["dice"], data["successes"]) == ("medicine", 0, 0)
    with pytest.raises(BadInput, match="Ann has no power 'blast'"):
        RULES.check(hero(science=3), "blast", dc=1, against=None, options={}, dice=box())


def test_a_defeated_character_cannot_act() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: at 0 Health 'they're defeated and out of the fight'."""
    down = replace(hero(charm=3), hp=0, conditions=("defeated",))
    with pytest.raises(ImpossibleAction, match="defeated"):
        RULES.check(down, "charm", dc=1, against=None, options={}, dice=box(check="2,2,2"))


def test_minions_roll_threat_for_everything() -> None:
    """prowlers-and-paragons.txt, Characteristics: Minions have only Threat, 'which they use for everything'."""
    dice = box(check="2,2,2,2")
    data = one(RULES.check(minions(threat=4), "perception", dc=1, against=None, options={}, dice=dice), "CheckResolved")
    assert data["trait"] == "threat" and dice.taken["check"].spec == pool(4)


# --- Challenge Rolls table, Embellishments, Compromises ----------------------------------------------------


@pytest.mark.parametrize(
    "faces, narrator, role, embellisher",
    [
        ("1,1,1", "GM", "opponent", None),  # net -2
        ("2,1,1", "GM", "opponent", None),  # net -1
        ("4,2,1", "GM", "opponent", "Ann"),  # net 0
        ("6,2,1", "Ann", "actor", "GM"),  # net 1
        ("6,6,1", "Ann", "actor", None),  # net 2
    ],
)
def test_challenge_rolls_table_decides_who_narrates_and_who_embellishes(
    faces: str, narrator: str, role: str, embellisher: str | None
) -> None:
    """prowlers-and-paragons.txt, Challenge Rolls Table (lost: docs/interpretations.md, Prowlers & Paragons); the GM is
    the Opponent."""
    data = one(
        RULES.check(hero(charm=3), "charm", dc=2, against=None, options={}, dice=box(check=faces)), "CheckResolved"
    )
    assert (data["narrator"], data["narrator_role"], data["embellisher"]) == (narrator, role, embellisher)


def test_an_opposing_hero_narrates_for_themselves() -> None:
    """prowlers-and-paragons.txt, Net Successes: the GM is the Opponent only when no player opposes the roll."""
    effects = RULES.check(
        hero(charm=2),
        "charm",
        dc=None,
        against=(hero("Bea", willpower=2), "willpower"),
        options={},
        dice=box(check="1,1", against="6,1"),
    )
    assert one(effects, "CheckResolved")["narrator"] == "Bea"


def test_an_embellishment_is_recorded_when_the_table_allows_one() -> None:
    """prowlers-and-paragons.txt, Embellishments: the party without narrative control may add a detail."""
    effects = RULES.check(
        hero(charm=3),
        "charm",
        dc=2,
        against=None,
        options={"embellishment": "the guard yawns"},
        dice=box(check="6,2,1"),
    )
    assert one(effects, "NoteRecorded") == {"kind": "embellishment", "by": "GM", "text": "the guard yawns"}


def test_no_embellishment_where_the_table_allows_none() -> None:
    """prowlers-and-paragons.txt, Embellishments: only 'whenever an embellishment is allowed'."""
    with pytest.raises(BadInput, match="no embellishment"):
        RULES.check(hero(charm=3), "charm", dc=0, against=None, options={"embellishment": "x"}, dice=box(check="6,6,1"))


def test_a_compromise_replaces_the_embellishment() -> None:
    """prowlers-and-paragons.txt, Compromises: a less-than-perfect outcome instead of the embellishment."""
    effects = RULES.check(
        hero(charm=3), "charm", dc=2, against=None, options={"compromise": "it takes an hour"}, dice=box(check="6,2,1")
    )
    assert one(effects, "NoteRecorded") == {
        "kind": "compromise",
        "by": "Ann",
        "instead_of": "GM",
        "text": "it takes an hour",
    }
    with pytest.raises(BadInput, match="instead of the embellishment"):
        RULES.check(
            hero(charm=3),
            "charm",
            dc=2,
            against=None,
            options={"compromise": "a", "embellishment": "b"},
            dice=box(check="6,2,1"),
        )


def test_unknown_check_option_is_bad_input() -> None:
    """prowlers-and-paragons.txt, Making a Challenge Roll: only the documented CHECK_OPTIONS are read."""
    assert "threshold" in {o.name for o in CHECK_DECLS}
    with pytest.raises(BadInput, match="no option 'difficulty'"):
        RULES.check(hero(charm=3), "charm", dc=None, against=None, options={"difficulty": 3}, dice=box())


# --- Dice pools --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("faces", ["0,2,3", "2,7,3"])
def test_pool_faces_outside_one_to_six_are_refused(faces: str) -> None:
    """prowlers-and-paragons.txt, Making a Challenge Roll: 'Roll a number of 6-sided dice' (faces 1 to 6)."""
    with pytest.raises(BadInput, match="is not a face of a d6"):
        RULES.check(hero(charm=3), "charm", dc=1, against=None, options={}, dice=box(check=faces))


@pytest.mark.parametrize("faces", ["2,3", "2,3,4,5"])
def test_pool_with_the_wrong_number_of_faces_is_refused(faces: str) -> None:
    """prowlers-and-paragons.txt, Making a Challenge Roll: the pool has exactly as many dice as the Trait."""
    with pytest.raises(BadInput, match="needs 3 dice"):
        RULES.check(hero(charm=3), "charm", dc=1, against=None, options={}, dice=box(check=faces))


def test_a_zero_dice_pool_is_still_rolled_and_scores_nothing() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: no defense Trait, 0 dice (docs/interpretations.md, Prowlers &
    Paragons)."""
    dice = box(attack="2,2", defense="")
    effects = RULES.attack(hero(blast=2), npc(might=2, toughness=2), {"with": "blast"}, dice)
    data = one(effects, "AttackResolved")
    assert dice.taken["defense"].spec == pool(0)
    assert (data["defense"], data["threshold"], data["damage"]) == ("none", 0, 2)


def test_replay_from_recorded_faces_gives_the_same_ruling() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: the outcome follows from the faces alone (pure rules)."""
    ann, vex = hero(blast=3), npc(agility=2, might=3, toughness=3)
    live = box(attack="6,4,1", defense="2,1")
    first = RULES.attack(ann, vex, {"with": "blast"}, live)
    assert RULES.attack(ann, vex, {"with": "blast"}, ReplayDice(1, dict(live.taken), DiceBox(), {})) == first


# --- Attacks and Defenses ----------------------------------------------------------------------------------


def test_damage_is_one_point_per_net_success_against_health() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: 'inflicts 1 point of damage per net success rolled'."""
    vex = npc(agility=2, might=5, toughness=5)  # Health 5
    effects = RULES.attack(hero(blast=4), vex, {"with": "blast"}, box(attack="6,4,2,1", defense="2,1"))
    data = one(effects, "AttackResolved")
    assert (data["successes"], data["threshold"], data["net"], data["damage"]) == (4, 1, 3, 3)
    assert apply_all(vex, effects).hp == 2


def test_no_damage_without_net_successes() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: only 'successful attack rolls' have effects."""
    vex = npc(agility=3, might=4, toughness=4)
    effects = RULES.attack(hero(blast=2), vex, {"with": "blast"}, box(attack="2,1", defense="2,1,1"))
    assert one(effects, "AttackResolved")["outcome"] == "miss"
    assert apply_all(vex, effects) == vex


def test_health_zero_defeats_the_target() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: 'Once a target's Health has falls to 0, they're defeated'."""
    vex = npc(agility=1, might=2, toughness=2)  # Health 2
    after = apply_all(vex, RULES.attack(hero(blast=3), vex, {"with": "blast"}, box(attack="6,6,6", defense="1")))
    assert (after.hp, after.has("defeated")) == (0, True)


def test_a_defeated_target_cannot_be_attacked_and_a_defeated_attacker_cannot_attack() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: defeated means 'out of the fight'."""
    down = replace(npc(agility=2, might=2, toughness=2), hp=0, conditions=("defeated",))
    with pytest.raises(ImpossibleAction, match="already defeated"):
        RULES.attack(hero(blast=3), down, {"with": "blast"}, box())
    with pytest.raises(ImpossibleAction, match="out of the fight"):
        RULES.attack(down, hero(agility=2), {"with": "agility"}, box())


def test_the_target_defends_with_the_highest_ranked_defense_passive_armor() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: 'always use the option that provides the best defense'."""
    dice = box(attack="2,2,2", defense="2,2,2,2")
    data = one(
        RULES.attack(hero(blast=3), npc(agility=2, armor=4, toughness=3), {"with": "blast"}, dice), "AttackResolved"
    )
    assert (data["defense"], data["defense_kind"], data["defense_dice"]) == ("armor", "passive", 4)


def test_the_target_defends_with_agility_when_it_outranks_force_field() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: 'an active defense like Agility', the highest rank."""
    dice = box(attack="2,2,2", defense="1,1,1,1,1")
    data = one(
        RULES.attack(hero(blast=3), npc("Vex", agility=5, **{"force-field": 3}), {"with": "blast"}, dice),
        "AttackResolved",
    )
    assert (data["defense"], data["defense_kind"]) == ("agility", "active")


def test_might_and_toughness_are_never_the_chosen_defense() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: defenses are active (Agility) or passive (Armor)."""
    data = one(
        RULES.attack(
            hero(blast=2), npc(agility=1, might=6, toughness=6), {"with": "blast"}, box(attack="2,2", defense="1")
        ),
        "AttackResolved",
    )
    assert data["defense"] == "agility"


@pytest.mark.parametrize("trait", ["might", "toughness"])
def test_might_or_toughness_named_as_a_defense_is_bad_input(trait: str) -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: Might and Toughness are not defenses."""
    with pytest.raises(BadInput, match="is not a defense"):
        RULES.attack(
            hero(blast=2), npc(agility=1, might=6, toughness=6), {"with": "blast", "defend-with": trait}, box()
        )


def test_the_gm_may_name_a_lower_defense() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: a GM override (docs/interpretations.md, Prowlers & Paragons) is
    a defense."""
    dice = box(attack="2,2", defense="2,2")
    data = one(
        RULES.attack(hero(blast=2), npc(agility=2, armor=5), {"with": "blast", "defend-with": "agility"}, dice),
        "AttackResolved",
    )
    assert (data["defense"], data["defense_dice"]) == ("agility", 2)


def test_attack_needs_a_trait_or_power_the_attacker_has() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: 'You make a roll using one of your Traits to attack'."""
    with pytest.raises(BadInput, match="which trait or power"):
        RULES.attack(hero(blast=2), npc(agility=2), {}, box())
    with pytest.raises(BadInput, match="no power 'strike'"):
        RULES.attack(hero(blast=2), npc(agility=2), {"with": "strike"}, box())


def test_a_weapon_bonus_adds_dice_to_an_attribute() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: 'Might or Agility plus ... a Weapon Bonus'."""
    dice = box(attack="2,2,2,2,2,2", defense="1")
    data = one(
        RULES.attack(hero(might=4), npc(agility=1, might=9, toughness=9), {"with": "might", "weapon-bonus": 2}, dice),
        "AttackResolved",
    )
    assert dice.taken["attack"].spec == pool(6) and (data["weapon_bonus"], data["damage"]) == (2, 6)


def test_a_weapon_bonus_on_a_power_is_bad_input() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: Powers attack 'unless you're wielding a mundane weapon'."""
    with pytest.raises(BadInput, match="Weapon Bonus"):
        RULES.attack(hero(blast=3), npc(agility=1), {"with": "blast", "weapon-bonus": 1}, box())


def test_unknown_attack_option_is_bad_input() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: only the documented ATTACK_OPTIONS are read."""
    assert {"with", "weapon-bonus", "effect", "extra-dice"} <= {o.name for o in ATTACK_DECLS}
    with pytest.raises(BadInput, match="no option 'rank'"):
        RULES.attack(hero(blast=3), npc(agility=1), {"with": "blast", "rank": 3}, box())


# --- Special effects ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("attack, pages", [("2,1,1,1", 1), ("2,2,1,1", 1), ("2,2,2,1", 2), ("2,2,2,2", 2)])
def test_special_effect_lasts_a_page_per_two_net_successes_rounded_up(attack: str, pages: int) -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: '1 page for every 2 net successes' (rounding up)."""
    vex = npc(agility=1, might=6, toughness=6)  # Health 6: no defeat
    effects = RULES.attack(hero(stun=4), vex, {"with": "stun", "effect": "stun"}, box(attack=attack, defense="1"))
    after = apply_all(vex, effects)
    assert one(effects, "AttackResolved")["pages"] == pages
    assert (after.counter("effect:stun"), after.has("stunned"), after.hp) == (pages, True, 6)


def test_special_effect_at_least_current_health_defeats_for_the_scene() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: duration 'equals or exceeds the target's current Health'."""
    vex = replace(npc(agility=1, might=4, toughness=4), hp=2)
    effects = RULES.attack(
        hero(webbing=4), vex, {"with": "webbing", "effect": "ensnare"}, box(attack="2,2,2,2", defense="1")
    )
    after = apply_all(vex, effects)
    assert one(effects, "AttackResolved")["defeated_by_effect"] is True
    assert (after.counter("effect:ensnare"), after.has("ensnared"), after.has("defeated"), after.hp) == (
        -1,
        True,
        True,
        2,
    )


def test_damage_that_brings_health_to_a_running_effect_defeats_by_the_effect() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: a duration that 'ever equals or exceeds' current Health."""
    vex = replace(npc(agility=1, might=6, toughness=6), counters={"effect:stun": 2}, conditions=("stunned",))
    after = apply_all(vex, RULES.damage(vex, 4, subdual=False))
    assert (after.hp, after.counter("effect:stun"), after.has("defeated")) == (2, -1, True)


def test_effect_named_by_its_condition_and_unknown_effects() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: 'Powers inflict conditions or effects other than damage'."""
    vex = npc(agility=1, might=6, toughness=6)
    effects = RULES.attack(hero(stun=2), vex, {"with": "stun", "effect": "stunned"}, box(attack="2,1", defense="1"))
    assert apply_all(vex, effects).has("stunned")
    with pytest.raises(BadInput, match="not a special effect"):
        RULES.attack(hero(stun=2), vex, {"with": "stun", "effect": "petrify"}, box())


def test_a_special_effect_is_resisted_by_the_trait_the_power_specifies() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: 'These Powers always specify the Traits used to resist them.'"""
    dice = box(attack="2,2,2", defense="2,2,2,2,2")
    opts = {"with": "mind-control", "effect": "stun", "resist": "willpower"}
    data = one(
        RULES.attack(hero("Ann", **{"mind-control": 3}), npc(agility=1, willpower=5), opts, dice), "AttackResolved"
    )
    assert (data["defense"], data["defense_kind"], data["outcome"]) == ("willpower", "resist", "miss")


def test_the_power_sheet_can_name_its_effect_and_resistance() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: a special effect's Power names its resisting Trait."""
    ann = replace(hero(gaze=3), powers={"gaze": {"effect": "blind", "resist": "perception"}})
    data = one(
        RULES.attack(
            ann, npc(agility=4, perception=1, might=6, toughness=6), {"with": "gaze"}, box(attack="2,2,1", defense="1")
        ),
        "AttackResolved",
    )
    assert (data["effect"], data["defense"], data["pages"]) == ("blind", "perception", 1)


def test_resist_without_a_special_effect_is_bad_input() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: only special effects name a resisting Trait."""
    with pytest.raises(BadInput, match="give an effect"):
        RULES.attack(hero(blast=2), npc(agility=1, willpower=3), {"with": "blast", "resist": "willpower"}, box())


def test_effects_lose_a_page_at_the_end_of_the_targets_turn_and_end_at_zero() -> None:
    """prowlers-and-paragons.txt, Combat / Attacks and Defenses: time passes in pages; effects last so many pages."""
    vex = replace(npc(agility=1, might=6, toughness=6), counters={"effect:stun": 2}, conditions=("stunned",))
    assert RULES.start_of_turn(vex, box()) == []
    once = apply_all(vex, RULES.end_of_turn(vex, box()))
    assert (once.counter("effect:stun"), once.has("stunned")) == (1, True)
    twice = apply_all(once, RULES.end_of_turn(once, box()))
    assert ("effect:stun" in twice.counters, twice.has("stunned")) == (False, False)


def test_an_effect_that_defeated_lasts_the_scene_then_ends_with_it() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: defeat by an effect 'lasts for the rest of the scene'."""
    vex = replace(
        npc(agility=1, might=6, toughness=6), hp=3, counters={"effect:ensnare": -1}, conditions=("ensnared", "defeated")
    )
    assert RULES.end_of_turn(vex, box()) == []
    after = apply_all(vex, RULES.scene_ended(vex))
    assert (after.counters, after.conditions) == ({}, ())


def test_the_end_of_the_scene_does_not_lift_defeat_at_zero_health() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: at 0 Health a target is defeated, effect or no effect."""
    vex = replace(npc(might=2, toughness=2), hp=0, counters={"effect:stun": -1}, conditions=("stunned", "defeated"))
    assert apply_all(vex, RULES.scene_ended(vex)).conditions == ("defeated",)


def test_removing_an_effect_condition_ends_its_pages_too() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: a special effect is its condition for so many pages."""
    vex = replace(npc(might=4, toughness=4), counters={"effect:stun": 2}, conditions=("stunned",))
    after = apply_all(vex, RULES.remove(vex, "stunned"))
    assert (after.counters, after.conditions) == ({}, ())


def test_defeat_at_zero_health_is_not_removed_by_hand() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: 'Once a target's Health has falls to 0, they're defeated'."""
    with pytest.raises(ImpossibleAction, match="0 Health"):
        RULES.remove(replace(npc(might=2, toughness=2), hp=0, conditions=("defeated",)), "defeated")


# --- Minions -----------------------------------------------------------------------------------------------


def test_each_net_success_defeats_one_minion() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: 'you ordinarily defeat 1 Minion per net success rolled'."""
    thugs = minions(count=5, threat=2)
    effects = RULES.attack(hero(blast=3), thugs, {"with": "blast"}, box(attack="6,4,1", defense="2,1"))
    assert one(effects, "MinionsDefeated") == {"defeated": 2, "count": 3}
    assert (apply_all(thugs, effects).count, apply_all(thugs, effects).hp) == (3, 3)


def test_minions_defend_with_threat() -> None:
    """prowlers-and-paragons.txt, Characteristics: Threat is used 'for everything', defense included."""
    dice = box(attack="2,2", defense="1,1,1")
    data = one(RULES.attack(hero(blast=2), minions(threat=3), {"with": "blast"}, dice), "AttackResolved")
    assert (data["defense"], data["defense_dice"]) == ("threat", 3)


def test_a_special_effect_still_defeats_one_minion_per_net_success() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: minions fall 'no matter what kind of attack you're using'."""
    thugs = minions(count=2, threat=1)
    after = apply_all(
        thugs, RULES.attack(hero(stun=3), thugs, {"with": "stun", "effect": "stun"}, box(attack="6,6,1", defense="1"))
    )
    assert (after.count, after.has("defeated"), after.counters) == (0, True, {})


def test_a_minion_group_attacks_with_its_threat() -> None:
    """prowlers-and-paragons.txt, Characteristics: a Minion's single characteristic, Threat, makes its attacks."""
    dice = box(attack="2,2,2", defense="1")
    data = one(RULES.attack(minions(threat=3), hero(agility=1, might=3, toughness=3), {}, dice), "AttackResolved")
    assert (data["with"], data["damage"]) == ("threat", 3)


# --- Health and Edge ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "traits, expected",
    [
        ({"toughness": 3, "might": 4, "willpower": 6}, 5),
        ({"toughness": 4, "might": 4, "willpower": 1}, 4),
        ({"toughness": 2, "might": 3}, 3),
    ],
)
def test_health_is_the_greater_average_rounded_up(traits: dict[str, int], expected: int) -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: the greater average of Toughness with Might or Willpower."""
    assert RULES.health(traits) == expected
    assert RULES.new_sheet("X", traits, minion=False, count=1, pc=False).max_hp == expected


def test_a_minion_groups_health_is_its_count() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses (Minions): Health tracks the count."""
    assert (RULES.health(minions(count=6)), minions(count=6).hp) == (6, 6)


@pytest.mark.parametrize(
    "traits, expected",
    [({"perception": 3, "agility": 4, "intellect": 2}, 7), ({"perception": 2, "agility": 1, "intellect": 5}, 7)],
)
def test_edge_is_perception_plus_the_greater_of_agility_and_intellect(traits: dict[str, int], expected: int) -> None:
    """prowlers-and-paragons.txt, Combat: Edge 'equals their Perception plus Agility or Perception plus Intellect'."""
    assert RULES.edge(npc("Vex", **traits)) == expected
    assert RULES.derived(npc("Vex", **traits))["edge"] == expected


def test_initiative_is_edge_without_a_roll() -> None:
    """prowlers-and-paragons.txt, Combat: 'Characters act in order of their Edge'."""
    dice = box()
    assert RULES.initiative(npc(perception=3, agility=2), dice) == (5, [])
    assert dice.taken == {}


def test_ties_in_edge_go_to_perception_then_heroes() -> None:
    """prowlers-and-paragons.txt, Combat: act in order of Edge; ties as documented in docs/interpretations.md, Prowlers
    & Paragons."""
    sharp = npc("Sharp", perception=4, agility=1)
    quick = npc("Quick", perception=1, agility=4)
    ally = hero("Ally", perception=1, agility=4)
    order = sorted([quick, sharp, ally], key=RULES.tie_break_key)
    assert [s.name for s in order] == ["Sharp", "Ally", "Quick"]


def test_derived_shows_health_edge_defense_and_effects() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: Health, best defense and special effects at a glance."""
    vex = replace(
        npc(perception=2, agility=3, armor=4, might=4, toughness=4), counters={"effect:stun": 1, "effect:ensnare": -1}
    )
    got = RULES.derived(vex)
    assert (got["health"], got["edge"], got["defense"]["trait"], got["effects"]) == (
        4,
        5,
        "armor",
        {"stun": 1, "ensnare": "scene"},
    )


def test_damage_is_never_subdual() -> None:
    """prowlers-and-paragons.txt, Attacks and Defenses: damage reduces Health; there is no subdual damage."""
    with pytest.raises(BadInput, match="no subdual"):
        RULES.damage(npc(might=3, toughness=3), 1, subdual=True)


# --- Range and Movement, chases ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "a, b, travel, pages",
    [
        ("close", "close", False, 1),
        ("close", "distant", False, 2),
        ("extreme", "close", False, 4),
        ("close", "distant", True, 1),
        ("close", "extreme", True, 2),
    ],
)
def test_movement_takes_pages_by_range_class(a: str, b: str, travel: bool, pages: int) -> None:
    """prowlers-and-paragons.txt, Range and Movement: 1 page in Close Range, 2 a range class, 1 by Travel Power."""
    assert pnp_move(hero(agility=3, flight=4), a, b, travel) == pages


def test_moving_by_travel_power_needs_one_and_ranges_must_be_known() -> None:
    """prowlers-and-paragons.txt, Range and Movement: 'unless you have a Travel Power'; three range classes."""
    with pytest.raises(BadInput, match="no Travel Power"):
        pnp_move(hero(agility=3), "close", "distant", True)
    with pytest.raises(BadInput, match="not a range class"):
        pnp_move(hero(agility=3), "close", "orbit", False)


def test_on_foot_against_a_travel_power_rolls_half_agility_rounded_up() -> None:
    """prowlers-and-paragons.txt, Range and Movement: 'on foot use half their Agility' against Travel Powers."""
    dice = box(chase="2,2,2", against="2,1")
    effects = pnp_chase(hero(agility=5), npc(flight=2), {}, dice)
    data = one(effects, "CheckResolved")
    assert dice.taken["chase"].spec == pool(3) and list(dice.taken) == ["against", "chase"]
    assert (data["halved"], data["opponent_trait"], data["net"], data["narrator"]) == (True, "flight", 2, "Ann")


def test_agility_against_agility_is_not_halved() -> None:
    """prowlers-and-paragons.txt, Range and Movement: chases use 'Agility or Travel Powers'."""
    dice = box(chase="2,2,2,2,2", against="2,2")
    data = one(pnp_chase(hero(agility=5), npc(agility=2), {}, dice), "CheckResolved")
    assert (data["halved"], data["dice"], data["net"]) == (False, 5, 3)


def test_a_chase_uses_only_agility_or_a_travel_power() -> None:
    """prowlers-and-paragons.txt, Range and Movement: chases use 'Agility or Travel Powers'."""
    assert "against-with" in {o.name for o in CHASE_DECLS}
    with pytest.raises(BadInput, match="Agility or a Travel Power"):
        pnp_chase(hero(agility=3, might=5), npc(agility=2), {"with": "might"}, box())


# --- Resolve and Adversity ---------------------------------------------------------------------------------


def test_start_of_issue_sets_a_heros_resolve() -> None:
    """prowlers-and-paragons.txt, Resolve and Adversity: 'Heroes begin every issue' with some Resolve."""
    ann = hero(resolve=1)
    assert apply_all(ann, start_of_issue(ann, 3)).resources["resolve"] == 3
    with pytest.raises(BadInput, match="not a hero"):
        start_of_issue(npc(), 3)


def test_gm_adversity_starts_each_issue_at_one_per_hero() -> None:
    """prowlers-and-paragons.txt, Resolve and Adversity: 'GMs begin every issue with 1 point of Adversity per Hero'."""
    gm = replace(RULES.gm_sheet(), resources={"adversity": 7})
    assert RULES.starting_adversity(4) == 4
    assert apply_all(gm, start_of_issue_gm(gm, 4)).resources["adversity"] == 4


def test_spending_resolve_lowers_it_and_overspending_is_refused() -> None:
    """prowlers-and-paragons.txt, Resolve and Adversity: Resolve 'can be spent', but only what is left."""
    ann = hero(resolve=2)
    data = one(RULES.spend(ann, "resolve", 2, purpose="lucky-break"), "ResourceChanged")
    assert data == {"resource": "resolve", "delta": -2, "value": 0, "purpose": "lucky-break"}
    with pytest.raises(ImpossibleAction, match="2 Resolve left"):
        RULES.spend(ann, "resolve", 3, purpose="lucky-break")


def test_spending_needs_a_known_purpose_and_a_resource_the_sheet_holds() -> None:
    """prowlers-and-paragons.txt, Resolve and Adversity: enemy NPCs don't use Resolve; the GM has Adversity."""
    with pytest.raises(BadInput, match="not something to spend"):
        RULES.spend(hero(resolve=2), "resolve", 1, purpose="pizza")
    with pytest.raises(BadInput, match="Vex has no Resolve"):
        RULES.spend(npc(), "resolve", 1, purpose="reroll")


def test_the_gm_spends_and_gains_adversity_on_the_gm_sheet() -> None:
    """prowlers-and-paragons.txt, Resolve and Adversity: Adversity 'works much the same way'."""
    gm = replace(RULES.gm_sheet(), resources={"adversity": 2})
    gm = apply_all(gm, RULES.gain(gm, "adversity", 1, reason="players"))
    gm = apply_all(gm, RULES.spend(gm, "adversity", 3, purpose="extra-dice"))
    assert gm.resources["adversity"] == 0


def test_resolve_is_earned_from_flaws_and_heroics() -> None:
    """prowlers-and-paragons.txt, Resolve and Adversity: earned by heroic sacrifices or from Flaws."""
    ann = hero(resolve=0)
    ann = apply_all(ann, RULES.gain(ann, "resolve", 1, reason="flaw"))
    ann = apply_all(ann, RULES.gain(ann, "resolve", 2, reason="heroics"))
    assert ann.resources["resolve"] == 3
    with pytest.raises(BadInput, match="not a reason"):
        RULES.gain(ann, "resolve", 1, reason="bribe")


def test_resolve_buys_extra_dice_on_an_attack() -> None:
    """prowlers-and-paragons.txt, Resolve and Adversity: spent 'to ... add extra dice to challenge rolls'."""
    ann = hero(blast=2, resolve=3)
    dice = box(attack="2,2,2,2", defense="1")
    effects = RULES.attack(ann, npc(agility=1, might=6, toughness=6), {"with": "blast", "extra-dice": 2}, dice)
    assert dice.taken["attack"].spec == pool(4)
    assert apply_all(ann, effects).resources["resolve"] == 1
    assert one(effects, "AttackResolved")["damage"] == 4


def test_extra_dice_beyond_the_resolve_left_are_refused_before_any_roll() -> None:
    """prowlers-and-paragons.txt, Resolve and Adversity: only Resolve you have can be spent."""
    dice = box(attack="2,2,2,2", defense="1")
    with pytest.raises(ImpossibleAction, match="1 Resolve left"):
        RULES.attack(hero(blast=2, resolve=1), npc(agility=1), {"with": "blast", "extra-dice": 2}, dice)
    assert dice.taken == {}


def test_resolve_buys_a_complete_reroll() -> None:
    """prowlers-and-paragons.txt, Resolve and Adversity: spent to 'reroll them completely'."""
    ann = hero(charm=3, resolve=1)
    effects = RULES.check(
        ann, "charm", dc=2, against=None, options={"reroll": True}, dice=box(check="1,1,1", reroll="6,4,1")
    )
    data = one(effects, "CheckResolved")
    assert (data["successes_before_reroll"], data["successes"], data["net"]) == (0, 3, 1)
    assert apply_all(ann, effects).resources["resolve"] == 0


def test_an_npcs_extra_dice_are_owed_from_adversity() -> None:
    """prowlers-and-paragons.txt, Resolve and Adversity: 'enemy NPCs don't use Resolve, the GM has ... Adversity'."""
    effects = RULES.check(
        npc(covert=1), "covert", dc=1, against=None, options={"extra-dice": 2}, dice=box(check="2,2,2")
    )
    assert one(effects, "CheckResolved")["adversity_due"] == 2
    assert [e for e in effects if e.event == "ResourceChanged"] == []


def test_resolve_buys_recovery_from_attacks() -> None:
    """prowlers-and-paragons.txt, Resolve and Adversity: Resolve can be spent to 'recover from attacks'."""
    ann = replace(hero(might=4, toughness=4, resolve=3), hp=0, conditions=("defeated",))
    after = apply_all(ann, RULES.spend(ann, "resolve", 2, purpose="recovery"))
    assert (after.hp, after.resources["resolve"], after.has("defeated")) == (2, 1, False)
    with pytest.raises(ImpossibleAction, match="full Health"):
        RULES.spend(hero(might=4, toughness=4, resolve=3), "resolve", 1, purpose="recovery")
