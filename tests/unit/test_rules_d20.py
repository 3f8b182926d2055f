"""d20 Supers "Basics of Combat" rules engine: each test asserts one rule of d20-supers.txt and cites it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from ledger.errors import BadInput, ImpossibleAction
from ledger.history.rederive import ReplayDice
from ledger.model.dice import DiceBox, Roll, d20
from ledger.model.sheet import Effect, Sheet, apply_all
from ledger.rules import get_rules
from ledger.rules.contract import Recovery
from ledger.rules.d20.core import modifier
from ledger.rules.d20.options import ATTACK as ATTACK_DECLS
from ledger.rules.d20.system import RULES


def _run(sheet: Sheet, options: dict) -> list[Effect]:
    """`ledger act NAME run` as the rules perform it."""
    return RULES.perform("run", sheet, None, options, DiceBox())


def _charge(sheet: Sheet, options: dict) -> list[Effect]:
    """`ledger act NAME charge` as the rules perform it."""
    return RULES.perform("charge", sheet, None, options, DiceBox())


TEXT = "d20-supers.txt"


# --- helpers ---------------------------------------------------------------------------------------


def make(name: str = "Bolt", **traits: Any) -> Sheet:
    """A fresh d20 sheet; trait names with underscores become dashes (power_dr -> power-dr)."""
    fixed = {k.replace("_", "-"): v for k, v in traits.items()}
    return RULES.new_sheet(name, fixed, minion=False, count=1, pc=True)


def hero() -> Sheet:
    """Str 14 (+2), attack +3: an attack bonus of +5."""
    return make("Bolt", str=14, attack=3)


def brute(**traits: Any) -> Sheet:
    """Dex 12 (+1), armor 4: DR 15; 20 HP."""
    base: dict[str, Any] = {"dex": 12, "armor": 4, "hp": 20}
    return make("Brute", **{**base, **traits})


def box(**faces: int | str) -> DiceBox:
    """A DiceBox with entered faces only."""
    return DiceBox(entered={k: str(v) for k, v in faces.items()})


def strict(dice: DiceBox) -> DiceBox:
    """Assert the rule took exactly the entered rolls: nothing rolled at random, nothing left over."""
    assert set(dice.taken) == set(dice.entered)
    assert all(r.source == "entered" for r in dice.taken.values())
    return dice


def attack(
    attacker: Sheet, target: Sheet, options: Mapping[str, Any] | None = None, **faces: int | str
) -> tuple[dict[str, Any], list[Effect]]:
    """Run one attack with exact faces; return the AttackResolved data and all effects."""
    dice = box(**faces)
    effects = RULES.attack(attacker, target, options or {}, dice)
    strict(dice)
    resolved = [e for e in effects if e.event == "AttackResolved"]
    assert len(resolved) == 1
    return dict(resolved[0].data), effects


def events(effects: list[Effect], target: str) -> list[str]:
    """The event names aimed at one character."""
    return [e.event for e in effects if e.target == target]


# --- ability scores, DR and cover ---------------------------------------------------------------------


@pytest.mark.parametrize(("score", "mod"), [(1, -5), (8, -1), (9, -1), (10, 0), (11, 0), (12, 1), (15, 2), (20, 5)])
def test_modifier_is_score_minus_10_halved_down(score: int, mod: int) -> None:
    """d20-supers.txt, DR ("10± Dex. modifier"): the modifier of a score is (score - 10) // 2."""
    assert modifier(score) == mod


def test_score_not_given_counts_as_10_so_dr_is_10() -> None:
    """d20-supers.txt, DR: with no Dex score (counts as 10) and no armor, DR is exactly 10."""
    d = RULES.derived(make("Nobody"))
    assert d["modifiers"] == {k: 0 for k in ("str", "dex", "con", "int", "wis", "cha")}
    assert d["dr"] == 10


def test_dr_is_10_plus_dex_plus_armor_plus_powers() -> None:
    """d20-supers.txt, DR: "DR is 10± Dex. modifier + Any bonus from armor or powers"."""
    s = make("Tank", dex=16, armor=3, power_dr=2)
    assert RULES.dr(s, {}) == 10 + 3 + 3 + 2
    assert RULES.derived(s)["dr"] == 18


def test_low_dex_lowers_dr() -> None:
    """d20-supers.txt, DR: the "±" means a Dex penalty subtracts from DR."""
    assert RULES.dr(make("Clumsy", dex=6), {}) == 8


@pytest.mark.parametrize(("cover", "bonus"), [("1/4", 2), ("1/2", 4), ("3/4", 6), ("9/10", 10)])
def test_cover_adds_to_dr(cover: str, bonus: int) -> None:
    """d20-supers.txt, Cover Bonus (to DR): 1/4 +2, 1/2 +4, 3/4 +6, 9/10 +10."""
    assert RULES.dr(brute(), {"cover": cover}) == 15 + bonus


def test_cover_raises_dr_the_attack_must_reach() -> None:
    """d20-supers.txt, Cover Bonus: behind 1/2 cover a total of 15 no longer breaks a DR of 15 (now 19)."""
    data, effects = attack(hero(), brute(), {"cover": "1/2"}, attack=10)
    assert data["dr"] == 19 and data["total"] == 15
    assert data["miss"] and not effects[1:]


def test_complete_cover_cannot_be_attacked_and_takes_no_roll() -> None:
    """d20-supers.txt, Cover Bonus: "Complete - (Man behind solid wall) Total": no attack is possible."""
    dice = box()
    with pytest.raises(ImpossibleAction, match="complete cover"):
        RULES.attack(hero(), brute(), {"cover": "complete"}, dice)
    assert dice.taken == {}


def test_unknown_cover_is_bad_input() -> None:
    """d20-supers.txt, Cover Bonus: only the listed cover fractions exist."""
    with pytest.raises(BadInput, match="cover"):
        RULES.attack(hero(), brute(), {"cover": "1/3"}, box())


# --- breaking the DR ----------------------------------------------------------------------------------------


def test_attack_total_at_dr_hits_and_deals_damage() -> None:
    """d20-supers.txt, DR: 1d20 + attack bonus + Strength bonus "at or above the DR" scores a hit."""
    data, effects = attack(hero(), brute(), {"damage": "1d8"}, attack=10, damage=6)
    assert (data["natural"], data["attack-bonus"], data["total"], data["dr"]) == (10, 5, 15, 15)
    assert data["hit"] and not data["miss"]
    assert data["damage"]["dealt"] == 6 + 2  # weapon dice + Str modifier
    assert apply_all(brute(), effects).hp == 12


def test_attack_below_dr_misses_and_takes_no_damage_roll() -> None:
    """d20-supers.txt, DR: a total below the DR is no hit, so no damage is rolled."""
    data, effects = attack(hero(), brute(), {"damage": "1d8"}, attack=9)
    assert data["miss"] and data["total"] == 14
    assert data["damage"] is None
    assert events(effects, "Brute") == ["AttackResolved"]


def test_attack_penalty_subtracts() -> None:
    """d20-supers.txt, DR: "add or subtract your attack bonus/penalty and Strength bonus"."""
    weak = make("Weak", str=6, attack=-1)
    data, _ = attack(weak, brute(), attack=18, damage=1)
    assert data["attack-bonus"] == -3 and data["total"] == 15 and data["hit"]


def test_natural_1_is_a_colossal_failure_and_misses_whatever_the_total() -> None:
    """d20-supers.txt, Collosal Failures and Spectacular Success: a 1 on the d20 when attacking is a colossal
    failure."""
    data, effects = attack(hero(), make("Paper", hp=5), {"bonus": 30}, attack=1)
    assert data["total"] >= data["dr"]
    assert data["colossal-failure"] and data["miss"] and not data["hit"]
    assert events(effects, "Paper") == ["AttackResolved"]


def test_natural_20_breaks_any_dr_and_takes_confirm() -> None:
    """d20-supers.txt, Collosal Failures and Spectacular Success: "if you roll a 20, you break your opponents DR no
    matter what it is"; a failed second roll leaves an ordinary hit."""
    target = brute(armor=40)
    data, effects = attack(hero(), target, attack=20, confirm=5, damage=3)
    assert data["dr"] == 51 and data["hit"] and data["spectacular-success"]
    assert data["confirm"] == {"natural": 5, "total": 10, "breaks-dr": False}
    assert not data["critical"] and data["death"] is None
    assert data["damage"]["multiplier"] == 1
    assert apply_all(target, effects).counters["subdual"] == 5  # fists: 1d4 subdual + Str 2


def test_no_natural_20_no_confirm_roll() -> None:
    """d20-supers.txt, Collosal Failures and Spectacular Success: the second roll comes only "after you roll a 20"."""
    data, _ = attack(hero(), brute(), attack=19, damage=1)
    assert data["hit"] and data["confirm"] is None and not data["critical"]


def test_confirm_breaking_dr_is_a_critical_hit_with_double_damage() -> None:
    """d20-supers.txt, Collosal Failures and Spectacular Success: roll again after a 20; "if you once again break the
    DR you get a Critical Hit which does more damage" (multiplier x2, docs/interpretations.md (d20 Supers))."""
    data, effects = attack(hero(), brute(), {"damage": "1d8"}, attack=20, confirm=10, death=2, damage=5)
    assert data["confirm"] == {"natural": 10, "total": 15, "breaks-dr": True}  # same +5 against the same DR 15
    assert data["critical"] and not data["instant-death"]
    assert data["damage"]["multiplier"] == 2 and data["damage"]["dealt"] == (5 + 2) * 2
    assert apply_all(brute(), effects).hp == 20 - 14


def test_confirm_is_the_same_test_as_the_first_roll() -> None:
    """d20-supers.txt, Collosal Failures and Spectacular Success: the second roll must "once again break the DR":
    the same bonus and modifiers (flanking here) against the same DR."""
    data, _ = attack(
        hero(), brute(), {"modifiers": ["flanking"], "damage": "1d8"}, attack=20, confirm=8, death=3, damage=1
    )
    assert data["confirm"]["total"] == 8 + 5 + 2 and data["critical"]
    data, _ = attack(hero(), brute(), attack=20, confirm=8, damage=1)
    assert data["confirm"]["total"] == 13 and not data["critical"]


def test_natural_20_on_confirm_breaks_any_dr() -> None:
    """d20-supers.txt, Collosal Failures and Spectacular Success: a 20 breaks the DR "no matter what it is", also on
    the second roll."""
    data, _ = attack(hero(), brute(armor=60), {"damage": "1d8"}, attack=20, confirm=20, death=4, damage=1)
    assert data["critical"] and not data["instant-death"]


def test_natural_1_on_confirm_never_breaks_dr() -> None:
    """d20-supers.txt, Collosal Failures and Spectacular Success: a 1 on the d20 when attacking fails, so the second
    roll cannot break the DR with a 1 whatever the bonus."""
    data, _ = attack(hero(), brute(), {"bonus": 40}, attack=20, confirm=1, damage=1)
    assert data["hit"] and not data["critical"] and data["death"] is None


def test_third_roll_breaking_dr_kills_outright() -> None:
    """d20-supers.txt, Collosal Failures and Spectacular Success: "If the first two break the DR you can roll a third
    time, if this roll also breaks the DR the enemy dies instantly"; no damage roll is needed."""
    data, effects = attack(hero(), brute(), {"damage": "1d8"}, attack=20, confirm=15, death=12)
    assert data["instant-death"] and data["critical"] and data["damage"] is None
    after = apply_all(brute(), effects)
    assert after.hp == -10 and after.conditions == ("dead",)


def test_subdual_critical_takes_no_death_roll() -> None:
    """d20-supers.txt, Types of Damage: subdual is "Non lethal", so a subdual critical cannot kill outright."""
    data, effects = attack(hero(), brute(), attack=20, confirm=15, damage=4)
    assert data["critical"] and data["death"] is None and not data["instant-death"]
    assert apply_all(brute(), effects).counters["subdual"] == (4 + 2) * 2


def test_critical_multiplier_option() -> None:
    """d20-supers.txt, Collosal Failures and Spectacular Success: a critical "does more damage (see Weapons)"; the
    weapon's multiplier is an option."""
    data, _ = attack(
        hero(), brute(), {"damage": "1d8", "critical-multiplier": 3}, attack=20, confirm=15, death=2, damage=4
    )
    assert data["damage"]["dealt"] == (4 + 2) * 3


def test_critical_multiplier_below_2_is_refused() -> None:
    """d20-supers.txt, Collosal Failures and Spectacular Success: a critical hit "does more damage"."""
    with pytest.raises(BadInput, match="multiplier"):
        RULES.attack(hero(), brute(), {"critical-multiplier": 1}, box())


# --- combat modifiers -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("flanking", 2),
        ("high-ground", 1),
        ("invisible", 2),
        ("defender-sitting", 2),
        ("defender-climbing", -2),
        ("charging", 2),
    ],
)
def test_combat_modifiers_adjust_the_attack_roll(name: str, value: int) -> None:
    """d20-supers.txt, COMBAT MODIFIERS (to attack rolls) and Charge (+2 to Attack rolls)."""
    data, _ = attack(hero(), brute(), {"modifiers": [name]}, attack=5)
    assert data["attack-parts"][name] == value
    assert data["total"] == 5 + 5 + value


def test_defender_running_counts_against_ranged_attacks_only() -> None:
    """d20-supers.txt, COMBAT MODIFIERS: "Defender running -2 (to ranged attacks only: bows, guns etc.)"."""
    melee, _ = attack(hero(), brute(), {"modifiers": "defender-running"}, attack=5)
    assert melee["total"] == 10 and melee["ignored-modifiers"] == ["defender-running"]
    ranged, _ = attack(hero(), brute(), {"modifiers": "defender-running", "ranged": True}, attack=5)
    assert ranged["total"] == 8 and ranged["attack-parts"]["defender-running"] == -2


def test_a_running_target_is_harder_to_shoot() -> None:
    """d20-supers.txt, COMBAT MODIFIERS and Running: a target who ran this round counts as "Defender running"."""
    runner = apply_all(brute(), _run(brute(), {}))
    data, _ = attack(hero(), runner, {"ranged": True}, attack=5)
    assert data["attack-parts"]["defender-running"] == -2


def test_unknown_combat_modifier_is_bad_input() -> None:
    """d20-supers.txt, COMBAT MODIFIERS: only the listed modifiers exist."""
    with pytest.raises(BadInput, match="unknown combat modifier 'sneaky'"):
        RULES.attack(hero(), brute(), {"modifiers": ["sneaky"]}, box())


# --- damage ------------------------------------------------------------------------------------------------------


def test_fists_are_1d4_subdual_plus_strength() -> None:
    """d20-supers.txt, To Attack: "Fists are considered 1d4 subdual" + Strength modifier; HP unchanged."""
    data, effects = attack(hero(), brute(), attack=15, damage=3)
    assert data["damage"]["notation"] == "1d4" and data["damage"]["subdual"]
    after = apply_all(brute(), effects)
    assert after.hp == 20 and after.counters["subdual"] == 5


def test_damage_face_5_is_not_a_d4_face() -> None:
    """d20-supers.txt, To Attack: fists roll 1d4, so a damage face of 5 is refused."""
    with pytest.raises(BadInput, match="not a face of a d4"):
        RULES.attack(hero(), brute(), {}, box(attack=15, damage=5))


def test_dex_weapon_adds_dex_not_str() -> None:
    """d20-supers.txt, To Attack: damage adds "your Strength or Dexterity modifer depending on the weapon"."""
    archer = make("Archer", str=8, dex=18)
    data, _ = attack(archer, brute(), {"damage": "1d6", "weapon-ability": "dex"}, attack=19, damage=4)
    assert data["damage"]["ability-mod"] == 4 and data["damage"]["dealt"] == 8


def test_weapon_modifier_in_notation_counts() -> None:
    """d20-supers.txt, To Attack: "You roll the damage of your particular weapon" (here 2d6+1) + Str."""
    data, _ = attack(hero(), brute(), {"damage": "2d6+1"}, attack=15, damage="3,4")
    assert data["damage"]["roll"] == 8 and data["damage"]["dealt"] == 10


def test_firearms_add_no_dex_to_damage() -> None:
    """d20-supers.txt, To Attack: "you add no dexterity bonus to firearms"."""
    gunner = make("Gunner", dex=18)
    data, _ = attack(gunner, brute(), {"damage": "2d6", "firearm": True}, attack=15, damage="3,3")
    assert data["damage"]["ability-mod"] == 0 and data["damage"]["dealt"] == 6
    assert data["ranged"]


def test_firearm_within_10ft_gets_plus_3_attack() -> None:
    """d20-supers.txt, To Attack: firearms "get to +3 attack if you are 10 ft. from the opponent or less"."""
    options = {"damage": "2d6", "firearm": True, "within-10ft": True}
    close, _ = attack(make("Gunner"), brute(), options, attack=12, damage="1,1")
    assert close["attack-parts"]["firearm-within-10ft"] == 3 and close["total"] == 15 and close["hit"]
    far, _ = attack(make("Gunner"), brute(), {"damage": "2d6", "firearm": True}, attack=12)
    assert far["total"] == 12 and far["miss"]


def test_within_10ft_is_no_bonus_without_a_firearm() -> None:
    """d20-supers.txt, To Attack: the +3 within 10 ft. is the firearms' exception only."""
    data, _ = attack(hero(), brute(), {"within-10ft": True}, attack=5)
    assert data["attack-parts"]["firearm-within-10ft"] == 0


def test_dn_is_subtracted_from_damage() -> None:
    """d20-supers.txt, To Attack: "the DN number is subtracted from any damage you deal"."""
    data, effects = attack(hero(), brute(dn=3), {"damage": "1d8"}, attack=15, damage=6)
    assert data["damage"]["dn"] == 3 and data["damage"]["dealt"] == 5
    assert apply_all(brute(dn=3), effects).hp == 15


def test_dn_can_stop_all_damage() -> None:
    """d20-supers.txt, To Attack: DN "is protection from attacks"; damage below DN deals nothing (never negative)."""
    data, effects = attack(hero(), brute(dn=10), {"damage": "1d8"}, attack=15, damage=1)
    assert data["hit"] and data["damage"]["dealt"] == 0
    assert events(effects, "Brute") == ["AttackResolved"]


def test_subdual_option_makes_weapon_damage_subdual() -> None:
    """d20-supers.txt, Types of Damage: subdual damage is tracked apart from HP."""
    _, effects = attack(hero(), brute(), {"damage": "1d6", "subdual": True}, attack=15, damage=4)
    after = apply_all(brute(), effects)
    assert after.hp == 20 and after.counters["subdual"] == 6


@pytest.mark.parametrize("expr", ["sword", "3dF", "5d6 pool", "d", "0d6"])
def test_unknown_weapon_expression_is_refused(expr: str) -> None:
    """d20-supers.txt, To Attack: "You roll the damage of your particular weapon": weapon dice only."""
    dice = box(attack=15)
    with pytest.raises(BadInput, match="weapon expression"):
        RULES.attack(hero(), brute(), {"damage": expr}, dice)
    assert dice.taken == {}


# --- two weapon fighting ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "primary", "off"),
    [
        ({}, -6, -10),
        ({"off-light": True}, -4, -8),
        ({"ambidextrous": True}, -6, -6),
        ({"ambidextrous": True, "two-weapon-combat": True}, -4, -8),
        ({"off-light": True, "ambidextrous": True}, -4, -4),
        ({"off-light": True, "two-weapon-combat": True}, -2, -2),
    ],
)
def test_two_weapon_fighting_table(flags: dict[str, bool], primary: int, off: int) -> None:
    """d20-supers.txt, Two Weapon Fighting: the six rows of penalties (primary hand, off hand)."""
    p, _ = attack(hero(), brute(), {**flags, "two-weapon": "primary"}, attack=10)
    o, _ = attack(hero(), brute(), {**flags, "two-weapon": "off"}, attack=10)
    assert (p["attack-parts"]["two-weapon"], o["attack-parts"]["two-weapon"]) == (primary, off)
    assert p["total"] == 15 + primary


@pytest.mark.parametrize("weapon", ["Dagger", "automatic pistol", "Tomahawk", "sap"])
def test_light_weapons_list_makes_off_hand_light(weapon: str) -> None:
    """d20-supers.txt, Light Weapons: a listed weapon in the off hand uses the "off-hand is light" row (-4/-8)."""
    data, _ = attack(hero(), brute(), {"two-weapon": "off", "off-weapon": weapon}, attack=10)
    assert data["attack-parts"]["two-weapon"] == -8


def test_unlisted_off_hand_weapon_is_not_light() -> None:
    """d20-supers.txt, Light Weapons: a longsword is not on the list, so the normal -10 applies."""
    data, _ = attack(hero(), brute(), {"two-weapon": "off", "off-weapon": "longsword"}, attack=10)
    assert data["attack-parts"]["two-weapon"] == -10


def test_a_rock_has_no_two_weapon_penalty() -> None:
    """d20-supers.txt, Light Weapons: "A Rock never has any penalties when using with both hands"."""
    data, _ = attack(hero(), brute(), {"two-weapon": "off", "rock": True}, attack=10, damage=1)
    assert data["attack-parts"]["two-weapon"] == 0


def test_two_weapon_hand_must_be_primary_or_off() -> None:
    """d20-supers.txt, Two Weapon Fighting: penalties are for the Primary Hand or the Off Hand."""
    with pytest.raises(BadInput, match="two-weapon"):
        RULES.attack(hero(), brute(), {"two-weapon": "left"}, box())


# --- who can attack whom ------------------------------------------------------------------------------------


def test_dead_attacker_is_refused() -> None:
    """d20-supers.txt, Damage: at -10 or below a character is dead and cannot attack."""
    corpse = apply_all(hero(), RULES.damage(hero(), 30, subdual=False))
    dice = box(attack=15)
    with pytest.raises(ImpossibleAction, match="dead"):
        RULES.attack(corpse, brute(), {}, dice)
    assert dice.taken == {}


def test_dying_attacker_is_refused() -> None:
    """d20-supers.txt, Damage: at -1 to -9 a character is dying: "unconsious and can take no actions"."""
    dying = apply_all(hero(), RULES.damage(hero(), 12, subdual=False))
    with pytest.raises(ImpossibleAction, match="dying"):
        RULES.attack(dying, brute(), {}, box(attack=15))


def test_attacker_knocked_out_by_subdual_is_refused() -> None:
    """d20-supers.txt, Types of Damage: with subdual damage above HP "you are unconsicious"."""
    out = apply_all(hero(), RULES.damage(hero(), 11, subdual=True))
    with pytest.raises(ImpossibleAction, match="unconscious"):
        RULES.attack(out, brute(), {}, box(attack=15))


def test_dead_target_is_refused() -> None:
    """d20-supers.txt, Damage: the dead are dead; there is nobody to attack."""
    corpse = apply_all(brute(), RULES.damage(brute(), 40, subdual=False))
    with pytest.raises(ImpossibleAction, match="dead"):
        RULES.attack(hero(), corpse, {}, box(attack=15))


@pytest.mark.parametrize("face", ["0", "21"])
def test_impossible_d20_face_is_refused_through_dice_box(face: str) -> None:
    """d20-supers.txt, DR: the attack is "a 1d20": faces run 1 to 20, so 0 and 21 are refused."""
    with pytest.raises(BadInput, match="not a face of a d20"):
        RULES.attack(hero(), brute(), {}, DiceBox(entered={"attack": face}))


def test_recorded_dice_replay_gives_the_same_ruling() -> None:
    """d20-supers.txt, DR: replaying the recorded attack and damage faces reproduces the same hit."""
    rolls = {
        "attack": Roll("attack", d20(5), (12,), "entered"),
        "damage": Roll("damage", d20(), (3,), "entered"),
    }
    effects = RULES.attack(hero(), brute(), {"damage": "1d8"}, ReplayDice(1, rolls, DiceBox(), {}))
    _, expected = attack(hero(), brute(), {"damage": "1d8"}, attack=12, damage=3)
    assert effects == expected


def test_disabled_attacker_falls_unconscious_after_a_major_action() -> None:
    """d20-supers.txt, Damage: at 0 HP "you're not unconcious but you can not do anything major or you will fall
    unconcious"."""
    disabled = apply_all(hero(), RULES.damage(hero(), 10, subdual=False))
    assert disabled.conditions == ("disabled",)
    data, effects = attack(disabled, brute(), attack=15, damage=2)
    assert data["hit"]
    after = apply_all(disabled, effects)
    assert set(after.conditions) == {"disabled", "unconscious"}
    assert after.hp == 0


def test_free_attack_reason_is_recorded() -> None:
    """d20-supers.txt, Free Attack and Attack of Opportunity: unaware enemies and moving within five feet give a free
    attack, recorded with its reason."""
    data, _ = attack(hero(), brute(), {"free-attack": "unaware"}, attack=15, damage=1)
    assert data["free-attack"] == "unaware"
    data, _ = attack(hero(), brute(), {"free-attack": "moved-within-5ft"}, attack=3)
    assert data["free-attack"] == "moved-within-5ft"
    with pytest.raises(BadInput, match="free-attack"):
        RULES.attack(hero(), brute(), {"free-attack": "surprise"}, box())


def test_attack_options_are_documented_for_the_cli() -> None:
    """d20-supers.txt, Basics of Combat: every attack option the CLI can pass is listed with help text."""
    wanted = {
        "damage",
        "bonus",
        "weapon-ability",
        "firearm",
        "within-10ft",
        "subdual",
        "modifiers",
        "ranged",
        "cover",
        "two-weapon",
        "off-light",
        "ambidextrous",
        "two-weapon-combat",
        "critical-multiplier",
        "free-attack",
    }
    assert wanted <= {o.name for o in ATTACK_DECLS}
    assert all(o.help and o.source for o in ATTACK_DECLS)


# --- HP thresholds and subdual ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("damage", "conditions"),
    [(9, ()), (10, ("disabled",)), (11, ("dying", "unconscious")), (19, ("dying", "unconscious")), (20, ("dead",))],
)
def test_hp_thresholds(damage: int, conditions: tuple[str, ...]) -> None:
    """d20-supers.txt, Damage: 0 disabled; -1 to -9 dying and unconscious; -10 or below dead."""
    after = apply_all(hero(), RULES.damage(hero(), damage, subdual=False))
    assert after.hp == 10 - damage
    assert tuple(sorted(after.conditions)) == conditions


def test_subdual_above_current_hp_knocks_out_without_touching_hp() -> None:
    """d20-supers.txt, Types of Damage: "If your subdual damage exceeds normal damage, you are unconsicious"
    (read as: subdual above current HP)."""
    s = apply_all(hero(), RULES.damage(hero(), 10, subdual=True))
    assert s.hp == 10 and s.counters["subdual"] == 10 and not s.has("unconscious")
    s = apply_all(s, RULES.damage(s, 1, subdual=True))
    assert s.hp == 10 and s.has("unconscious")


def test_regular_damage_can_bring_subdual_above_hp() -> None:
    """d20-supers.txt, Types of Damage: lowering HP below the subdual total also knocks out."""
    s = apply_all(hero(), RULES.damage(hero(), 4, subdual=True))
    s = apply_all(s, RULES.damage(s, 7, subdual=False))
    assert s.hp == 3 and s.has("unconscious")


def test_hp_conditions_follow_hp_not_the_gm() -> None:
    """d20-supers.txt, Damage: disabled, dying and dead come from HP; the GM uses damage or recover."""
    with pytest.raises(BadInput, match="HP condition"):
        RULES.impose(hero(), "dead")
    with pytest.raises(BadInput, match="HP condition"):
        RULES.remove(hero(), "disabled")


def test_gm_ruled_unconscious_survives_later_damage_until_removed() -> None:
    """d20-supers.txt, Damage: an unconscious character stays so when other damage is applied, until the GM wakes
    them."""
    s = apply_all(hero(), RULES.impose(hero(), "unconscious"))
    s = apply_all(s, RULES.damage(s, 2, subdual=False))
    assert s.has("unconscious")
    s = apply_all(s, RULES.remove(s, "unconscious"))
    assert not s.has("unconscious")


def test_cannot_wake_someone_whose_subdual_exceeds_hp() -> None:
    """d20-supers.txt, Types of Damage: unconsciousness from subdual lasts while subdual exceeds HP."""
    s = apply_all(hero(), RULES.damage(hero(), 12, subdual=True))
    with pytest.raises(BadInput, match="unconscious from their damage"):
        RULES.remove(s, "unconscious")


# --- checks ------------------------------------------------------------------------------------------------------


def check(sheet: Sheet, trait: str, dc: int, options: Mapping[str, Any] | None = None, **faces: int) -> dict[str, Any]:
    """Run one check against a DC with exact faces; return the CheckResolved data."""
    dice = box(**faces)
    effects = RULES.check(sheet, trait, dc=dc, against=None, options=options or {}, dice=dice)
    strict(dice)
    assert effects[0].event == "CheckResolved"
    return dict(effects[0].data)


def test_check_is_d20_plus_ability_modifier_against_dc() -> None:
    """d20-supers.txt, Collosal Failures and Spectacular Success ("when doing skills"): d20 + modifier meets the DC."""
    smart = make("Brain", int=16)
    assert check(smart, "int", 15, check=12)["success"]
    assert not check(smart, "int", 16, check=12)["success"]


def test_check_natural_1_is_a_colossal_failure() -> None:
    """d20-supers.txt, Collosal Failures and Spectacular Success: a 1 "when doing skills" is a colossal failure."""
    data = check(make("Brain", int=30), "int", 5, check=1)
    assert data["colossal-failure"] and not data["success"] and data["total"] == 11


def test_check_natural_20_is_a_spectacular_success() -> None:
    """d20-supers.txt, Collosal Failures and Spectacular Success: "Rolling a 20 on a 1d20 is a Spectacular
    Success"."""
    data = check(make("Dim", int=3), "int", 40, check=20)
    assert data["spectacular-success"] and data["success"]


def test_check_with_a_skill_trait_and_bonus() -> None:
    """d20-supers.txt, Collosal Failures and Spectacular Success: skills are d20 checks; a skill trait is a flat
    bonus."""
    data = check(make("Sneak", stealth=6), "stealth", 20, {"bonus": 2}, check=12)
    assert data["modifier"] == 8 and data["total"] == 20 and data["success"]


def test_check_on_a_missing_trait_is_bad_input() -> None:
    """d20-supers.txt, Basics of Combat: only traits the character has can be checked."""
    with pytest.raises(BadInput, match="no skill 'stealth'"):
        RULES.check(make("Plain"), "stealth", dc=10, against=None, options={}, dice=box(check=10))


def test_check_needs_exactly_one_of_dc_or_opponent() -> None:
    """d20-supers.txt, Collosal Failures and Spectacular Success: a check is measured against one standard."""
    with pytest.raises(BadInput, match="DC or an opponent"):
        RULES.check(make("A"), "str", dc=None, against=None, options={}, dice=box())
    with pytest.raises(BadInput, match="DC or an opponent"):
        RULES.check(make("A"), "str", dc=10, against=(make("B"), "str"), options={}, dice=box())


def test_opposed_check_higher_total_wins_and_tie_goes_to_the_opponent() -> None:
    """d20-supers.txt, Collosal Failures and Spectacular Success: opposed d20 checks; natural 20 beats any total."""
    a, b = make("A", str=14), make("B", str=14)

    def opposed(mine: int, theirs: int) -> bool:
        dice = box(check=mine, opposed=theirs)
        e = RULES.check(a, "str", dc=None, against=(b, "str"), options={}, dice=dice)
        strict(dice)
        return bool(e[0].data["success"])

    assert opposed(12, 11) and not opposed(11, 11) and not opposed(10, 11)
    assert opposed(20, 19) is True and opposed(2, 1) is True


def test_unconscious_character_cannot_make_a_check() -> None:
    """d20-supers.txt, Damage: the dying are "unconsious and can take no actions"."""
    dying = apply_all(hero(), RULES.damage(hero(), 15, subdual=False))
    with pytest.raises(ImpossibleAction):
        RULES.check(dying, "str", dc=10, against=None, options={}, dice=box(check=10))


# --- recovery ------------------------------------------------------------------------------------------------------


def recover(sheet: Sheet, hours: int, amount: int | None, cause: str = "medical attention", **options: Any) -> Sheet:
    """Run a recovery and fold it."""
    dice = box()
    effects = RULES.recover(sheet, Recovery(hours=hours, amount=amount, cause=cause, options=options), dice)
    strict(dice)
    return apply_all(sheet, effects)


def test_regular_damage_heals_only_by_the_gm_amount_with_its_cause() -> None:
    """d20-supers.txt, Types of Damage: regular damage "Does not heal without a special power or medical attention or
    through the passage of time"."""
    hurt = apply_all(hero(), RULES.damage(hero(), 6, subdual=False))
    assert recover(hurt, 24, None).hp == 4
    effects = RULES.recover(hurt, Recovery(hours=0, amount=3, cause="healing power", options={}), box())
    assert effects[0].event == "HealthRecovered" and effects[0].data["cause"] == "healing power"
    assert apply_all(hurt, effects).hp == 7


def test_healing_stops_at_max_hp() -> None:
    """d20-supers.txt, Types of Damage: healing restores damage taken, never more than the character's HP."""
    hurt = apply_all(hero(), RULES.damage(hero(), 2, subdual=False))
    assert recover(hurt, 0, 50).hp == 10


def test_healing_the_dying_brings_them_round() -> None:
    """d20-supers.txt, Damage: above 0 HP a character is no longer dying, unconscious or disabled."""
    dying = apply_all(hero(), RULES.damage(hero(), 13, subdual=False))
    s = recover(dying, 0, 5)
    assert s.hp == 2 and s.conditions == ()


def test_subdual_fades_one_point_per_hour_per_level() -> None:
    """d20-supers.txt, Types of Damage: subdual ("Non lethal") fades with time, faster than regular damage."""
    s = apply_all(hero(), RULES.damage(hero(), 12, subdual=True))
    s = recover(s, 1, None, "rest")
    assert s.counters["subdual"] == 11 and s.has("unconscious")
    s = recover(s, 2, None, "rest")
    assert s.counters["subdual"] == 9 and not s.has("unconscious") and s.hp == 10
    leveled = apply_all(make("Vet", level=3), RULES.damage(make("Vet", level=3), 7, subdual=True))
    assert recover(leveled, 2, None, "rest").counters["subdual"] == 1
    assert recover(leveled, 1, None, "rest", **{"subdual-rate": 5}).counters["subdual"] == 2


def test_recovery_needs_a_cause() -> None:
    """d20-supers.txt, Types of Damage: healing comes from a power, medical attention or time: name which."""
    with pytest.raises(BadInput, match="cause"):
        RULES.recover(hero(), Recovery(hours=1, amount=1, cause=" ", options={}), box())


def test_the_dead_do_not_recover() -> None:
    """d20-supers.txt, Damage: the dead come back only by the named ways (a Gem of Eternity, Soul Bound...)."""
    corpse = apply_all(hero(), RULES.damage(hero(), 20, subdual=False))
    with pytest.raises(ImpossibleAction, match="dead"):
        RULES.recover(corpse, Recovery(hours=1, amount=5, cause="medical attention", options={}), box())


def test_healing_above_0_wakes_a_collapsed_disabled_character() -> None:
    """d20-supers.txt, Damage: collapsing at 0 HP lasts only while the character is at 0 HP."""
    disabled = apply_all(hero(), RULES.damage(hero(), 10, subdual=False))
    collapsed = apply_all(disabled, _run(disabled, {}))
    assert collapsed.has("unconscious")
    assert recover(collapsed, 0, 1).conditions == ("running",)


# --- initiative, running, charging ---------------------------------------------------------------------------


def test_initiative_is_1d20_plus_dex_modifier() -> None:
    """d20-supers.txt, Initiative: "Your initiative is 1d20+Dexterity Modifier"."""
    dice = box(initiative=11)
    total, effects = RULES.initiative(make("Quick", dex=17), dice)
    strict(dice)
    assert total == 14 and effects[0].data["initiative"] == 14


def test_initiative_ties_go_to_the_higher_dex() -> None:
    """d20-supers.txt, Initiative: with equal totals the higher Dexterity modifier acts first (sort descending)."""
    assert RULES.tie_break_key(make("A", dex=16)) > RULES.tie_break_key(make("B", dex=13))
    assert RULES.tie_break_key(make("C", dex=15)) > RULES.tie_break_key(make("D", dex=14))


def test_running_moves_4_times_speed_and_forbids_attacking() -> None:
    """d20-supers.txt, Running: "you move ... 4 x your normal speed but not attack"."""
    effects = _run(make("Runner", speed=40), {})
    assert effects[0].data["distance"] == 160
    runner = apply_all(make("Runner", speed=40), effects)
    with pytest.raises(ImpossibleAction, match="running"):
        RULES.attack(runner, brute(), {}, box(attack=15))


def test_running_speed_modified_by_armor() -> None:
    """d20-supers.txt, Running: 4 x normal speed "(unless modified by armor)": the speed option overrides."""
    assert _run(make("Runner"), {"speed": 20})[0].data["distance"] == 80
    assert _run(make("Runner"), {})[0].data["distance"] == 120


def test_running_ends_at_the_start_of_the_next_turn() -> None:
    """d20-supers.txt, Running and Rounds: the run lasts the round, until the runner's next turn."""
    runner = apply_all(hero(), _run(hero(), {}))
    after = apply_all(runner, RULES.start_of_turn(runner, box()))
    assert not after.has("running")
    assert RULES.end_of_turn(after, box()) == []


def test_charge_gives_plus_2_attack_and_minus_2_dr_until_next_turn() -> None:
    """d20-supers.txt, Charge: "you gain +2 to Attack rolls and lose -2 to DR"."""
    data, effects = attack(hero(), brute(), {"modifiers": ["charging"]}, attack=8, damage=1)
    assert data["attack-parts"]["charging"] == 2 and data["total"] == 15 and data["hit"]
    charger = apply_all(hero(), effects)
    assert charger.has("charging") and RULES.dr(charger, {}) == RULES.dr(hero(), {}) - 2
    rested = apply_all(charger, RULES.start_of_turn(charger, box()))
    assert RULES.dr(rested, {}) == RULES.dr(hero(), {}) and not rested.has("charging")


def test_declared_charge_carries_into_the_attack() -> None:
    """d20-supers.txt, Charge: "If one verbally elects" a charge, the charged attack gets +2."""
    charger = apply_all(hero(), _charge(hero(), {}))
    data, effects = attack(charger, brute(), attack=8, damage=1)
    assert data["attack-parts"]["charging"] == 2
    assert events(effects, "Bolt") == []


# --- death and the ways back -------------------------------------------------------------------------------------


def dead(sheet: Sheet) -> Sheet:
    """The sheet after damage to -10."""
    return apply_all(sheet, RULES.damage(sheet, sheet.hp + 10, subdual=False))


def test_gem_of_eternity_brings_back_the_dead() -> None:
    """d20-supers.txt, Damage: "The only way to reserect a fallen comrade is to A) aquire a "Gem of Eternity""."""
    corpse = dead(hero())
    effects = RULES.revive(corpse, means="gem-of-eternity", by=None)
    back = apply_all(corpse, effects)
    assert back.hp == 10 and back.conditions == () and back.counters["subdual"] == 0
    assert any(e.event == "EffectResolved" and e.data["means"] == "gem-of-eternity" for e in effects)


def test_only_the_dead_can_be_revived() -> None:
    """d20-supers.txt, Damage: resurrection is for "a fallen comrade"."""
    with pytest.raises(ImpossibleAction, match="not dead"):
        RULES.revive(hero(), means="gem-of-eternity", by=None)


def test_soul_bound_exchange_kills_the_one_who_takes_their_place() -> None:
    """d20-supers.txt, Damage: "if the fallen was your Soul Bound you can elect to take their place in death at which
    point you die and they return to the plane of the living"."""
    fallen = dead(make("Bolt", str=14))
    partner = make("Echo", **{"soul-bound": "Bolt"})
    effects = RULES.revive(fallen, means="soul-bound", by=partner)
    assert apply_all(fallen, effects).conditions == ()
    assert apply_all(fallen, effects).hp == 10
    gone = apply_all(partner, effects)
    assert gone.hp == -10 and gone.conditions == ("dead",)


def test_soul_bound_exchange_needs_the_bond() -> None:
    """d20-supers.txt, Damage: only "if the fallen was your Soul Bound"."""
    with pytest.raises(ImpossibleAction, match="not Soul Bound"):
        RULES.revive(dead(hero()), means="soul-bound", by=make("Stranger"))


def test_unknown_way_back_is_bad_input() -> None:
    """d20-supers.txt, Damage: the ways back are the ones the text names."""
    with pytest.raises(BadInput, match="way back"):
        RULES.revive(dead(hero()), means="necromancy", by=None)


# --- protocol ---------------------------------------------------------------------------------------------------------


def test_d20_is_the_registered_rules_and_parses_its_traits() -> None:
    """d20-supers.txt, DR: scores are numbers; soul-bound names a character."""
    rules = get_rules("d20")
    assert rules is RULES
    assert RULES.parse_trait("dex", "14") == 14
    assert RULES.parse_trait("soul-bound", " Echo ") == "Echo"
    with pytest.raises(BadInput):
        RULES.parse_trait("hp", "0")
