"""H&H attacks: attack checks, criticals, range, conditions, maneuvers, minions (hnh-site/gameplay.txt)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ledger.errors import BadInput, ImpossibleAction
from ledger.model.sheet import Effect, Sheet, apply_all
from ledger.rules.hnh.options import ATTACK as ATTACK_DECLS
from ledger.rules.hnh.system import RULES
from tests.unit.fudge import dice


def attacker(**kw: object) -> Sheet:
    """An attacker: Fighting 4, Dexterity 3, Strength 3 and a rank 5 ranged blast (+5 to hit)."""
    traits = {"fighting": 4, "dexterity": 3, "strength": 3, "dodge": 3, "parry": 4, "toughness": 2, "stamina": 2}
    s = RULES.new_sheet("Ace", traits, minion=False, count=1, pc=True)
    powers = {
        "blast": {"effect": "Damage", "rank": 5, "range": "ranged", "attack": 5},
        "stun-ray": {
            "effect": "Affliction",
            "rank": 6,
            "range": "ranged",
            "attack": 5,
            "resisted-by": "will",
            "conditions": ["dazed", "stunned", "incapacitated"],
        },
    }
    return replace(s, powers=powers, **kw)  # type: ignore[arg-type]


def target(conditions: tuple[str, ...] = (), **kw: int) -> Sheet:
    """A target: Parry 2, Dodge 1, Toughness 1, Will 1 (traits overridable)."""
    traits = {
        "fighting": 2,
        "agility": 1,
        "parry": 2,
        "dodge": 1,
        "toughness": 1,
        "stamina": 1,
        "will": 1,
        "fortitude": 1,
    }
    s = RULES.new_sheet("Goon", {**traits, **kw}, minion=False, count=1, pc=False)
    return replace(s, conditions=conditions)


def minion(count: int = 1) -> Sheet:
    """A minion (max HP 1)."""
    return RULES.new_sheet("Mook", {"parry": 1, "dodge": 1, "toughness": 0}, minion=True, count=count, pc=False)


def data(effects: list[Effect], event: str) -> dict:
    """The data of the first effect of that event."""
    return dict(next(e.data for e in effects if e.event == event))


def test_attack_options_are_documented():
    """Contract: ATTACK_OPTIONS documents the keys the attack reads."""
    assert {"with", "rank", "bonus", "range", "maneuver", "concealment", "cover", "routine"} <= {
        o.name for o in ATTACK_DECLS
    }


def test_close_attack_against_parry_hits_on_equal():
    """the-basics.txt, Attack Checks: 'Parry for close attacks ... If you equal or exceed ... your attack hits.'"""
    e = RULES.attack(attacker(), target(), {}, dice(attack="--0", defense="+00", power="000", toughness="+++"))
    d = data(e, "AttackResolved")
    assert d["defense"] == "parry" and d["attack"]["total"] == 2 and d["defense_check"]["total"] == 3 and not d["hit"]
    e = RULES.attack(attacker(), target(), {}, dice(attack="-00", defense="+00", power="000", toughness="+++"))
    assert data(e, "AttackResolved")["hit"]


def test_ranged_attack_against_dodge_with_range_penalties():
    """gameplay.txt, Range: medium range '-1 circumstance modifier', long range '-2'."""
    e = RULES.attack(
        attacker(),
        target(),
        {"with": "blast", "range": "long"},
        dice(attack="000", defense="000", power="000", toughness="+++"),
    )
    d = data(e, "AttackResolved")
    assert d["defense"] == "dodge" and d["modifiers"]["range"] == -2 and d["attack"]["total"] == 3
    e = RULES.attack(
        attacker(),
        target(),
        {"with": "blast", "range": "medium"},
        dice(attack="000", defense="000", power="000", toughness="+++"),
    )
    assert data(e, "AttackResolved")["attack"]["total"] == 4


def test_beyond_long_range_misses_without_rolling():
    """gameplay.txt, Range: 'a target further away is out of range and cannot be attacked (automatic miss)'."""
    e = RULES.attack(attacker(), target(), {"with": "blast", "range": "beyond"}, dice())
    assert not data(e, "AttackResolved")["hit"]


def test_perception_attack_needs_no_attack_or_defense_roll():
    """gameplay.txt, Perception And Area Effects: 'do not require attack checks ... cannot have critical success'."""
    d = dice(power="000", toughness="000")
    e = RULES.attack(attacker(), target(), {"with": "blast", "range": "perception"}, d)
    assert data(e, "AttackResolved")["hit"] and set(d.taken) == {"power", "toughness"}


def test_maneuvers_do_not_apply_to_area_attacks():
    """gameplay.txt, Perception And Area Effects: 'nor do modifiers ... including various maneuvers--affect them'."""
    with pytest.raises(BadInput):
        RULES.attack(attacker(), target(), {"with": "blast", "range": "area", "maneuver": "power"}, dice())


def test_all_plus_is_a_critical_hit_when_the_total_meets_the_defense():
    """gameplay.txt, Critical Hits: '... equal to or greater than the target's defense check. If so, it is a critical
    hit.'"""
    e = RULES.attack(attacker(), target(), {}, dice(attack="+++", defense="000", power="000", toughness="000"))
    d = data(e, "AttackResolved")
    assert d["hit"] and d["critical_hit"] and d["rank"] == 3
    r = data(e, "ResistanceResolved")
    assert r["power"]["total"] == 4  # increased effect: +1 to the difficulty to resist


def test_all_plus_below_the_defense_is_only_a_critical_threat():
    """gameplay.txt, Critical Hits: 'If not, the attack still hits, but as a normal attack, not a critical hit.'"""
    e = RULES.attack(attacker(), target(parry=12), {}, dice(attack="+++", defense="000", power="000", toughness="000"))
    d = data(e, "AttackResolved")
    assert d["hit"] and d["critical_threat"] and not d["critical_hit"]


def test_all_minus_always_misses():
    """the-basics.txt, Attack Checks: 'if all 3 Fudge dice come up as -1 ... it always misses'."""
    e = RULES.attack(attacker(), target(parry=-10), {}, dice(attack="---", defense="000"))
    assert not data(e, "AttackResolved")["hit"]


def test_active_defense_critical_failure_lets_the_attack_hit():
    """the-basics.txt, Critical Success/failure: Active Defense critical failure is 'Automatic failure'."""
    e = RULES.attack(attacker(), target(parry=10), {}, dice(attack="000", defense="---", power="000", toughness="+++"))
    assert data(e, "AttackResolved")["hit"]


def test_vulnerable_halves_the_defense_result_rounded_up():
    """conditions.txt, Vulnerable: 'halving their active defense results (rounded up)'."""
    e = RULES.attack(
        attacker(),
        target(parry=4, conditions=("vulnerable",)),
        {},
        dice(attack="000", defense="+00", power="000", toughness="+++"),
    )
    assert data(e, "AttackResolved")["defense_check"]["total"] == 3


def test_defenseless_defense_is_zero_without_a_roll():
    """conditions.txt, Defenseless: 'no need to roll dice ... the sum is always 0'."""
    d = dice(attack="-00", power="000", toughness="+++")
    e = RULES.attack(attacker(), target(parry=8, conditions=("bound",)), {}, d)
    assert data(e, "AttackResolved")["defense_check"]["total"] == 0
    assert "defense" not in d.taken


def test_concealment_and_cover_penalties():
    """gameplay.txt, Concealment and Cover: partial -1, total -2."""
    e = RULES.attack(
        attacker(), target(), {"concealment": "partial", "cover": "total"}, dice(attack="000", defense="000")
    )
    d = data(e, "AttackResolved")
    assert d["modifiers"]["concealment"] == -1 and d["modifiers"]["cover"] == -2 and d["attack"]["total"] == 1


def test_complete_cover_cannot_be_attacked():
    """gameplay.txt, Cover: 'If a target is completely behind cover, then you cannot attack that target'."""
    with pytest.raises(ImpossibleAction):
        RULES.attack(attacker(), target(), {"cover": "complete"}, dice())


def test_prone_target_is_easier_to_hit_close_and_harder_ranged():
    """conditions.txt, Prone: '+1 circumstance bonus to close attack checks but a -1 penalty to ranged'."""
    e = RULES.attack(
        attacker(), target(conditions=("prone",)), {}, dice(attack="000", defense="000", power="000", toughness="+++")
    )
    assert data(e, "AttackResolved")["modifiers"]["target prone"] == 1
    e = RULES.attack(
        attacker(),
        target(conditions=("prone",)),
        {"with": "blast"},
        dice(attack="000", defense="000", power="000", toughness="+++"),
    )
    assert data(e, "AttackResolved")["modifiers"]["target prone"] == -1


def test_accurate_and_power_attack_trade_bonus_and_rank():
    """gameplay.txt, Maneuvers: Accurate Attack -1 effect +1 attack; Power Attack -1 attack +1 effect."""
    e = RULES.attack(
        attacker(), target(), {"maneuver": "accurate"}, dice(attack="000", defense="000", power="000", toughness="+++")
    )
    d = data(e, "AttackResolved")
    assert d["attack"]["total"] == 5 and d["rank"] == 2
    e = RULES.attack(
        attacker(), target(), {"maneuver": "power"}, dice(attack="000", defense="000", power="000", toughness="+++")
    )
    d = data(e, "AttackResolved")
    assert d["attack"]["total"] == 3 and d["rank"] == 4


def test_power_attack_cannot_reduce_the_attack_bonus_to_zero():
    """gameplay.txt, Power Attack: 'You can't use this if your attack bonus would be reduced to 0 or below.'"""
    with pytest.raises(BadInput):
        RULES.attack(attacker(), target(), {"maneuver": "power", "bonus": 1}, dice())


def test_all_out_attack_lowers_own_defenses_until_next_turn():
    """gameplay.txt, All-out Attack: '+1 bonus to your attack ... -1 penalty on your active defenses ... for 1
    round'."""
    a = attacker()
    e = RULES.attack(
        a, target(), {"maneuver": "all-out"}, dice(attack="000", defense="000", power="000", toughness="+++")
    )
    assert data(e, "AttackResolved")["attack"]["total"] == 5
    a2 = apply_all(a, e)
    hit_back = RULES.attack(target(), a2, {"rank": 2}, dice(attack="000", defense="000", power="000", toughness="+++"))
    assert data(hit_back, "AttackResolved")["defense_check"]["total"] == 3
    a3 = apply_all(a2, RULES.start_of_turn(a2, dice()))
    assert a3.counter("all-out-attack") == 0


def test_defensive_attack_raises_own_defenses():
    """gameplay.txt, Defensive Attack: '-1 penalty on your attack bonus and get a +1 to your active defenses'."""
    a = apply_all(
        attacker(),
        RULES.attack(
            attacker(),
            target(),
            {"maneuver": "defensive"},
            dice(attack="000", defense="000", power="000", toughness="+++"),
        ),
    )
    back = RULES.attack(target(), a, {"rank": 2}, dice(attack="000", defense="000", power="000", toughness="+++"))
    assert data(back, "AttackResolved")["defense_check"]["total"] == 5


def test_charge_and_aim_modify_the_attack_check():
    """gameplay.txt, Charge: '-1 circumstance penalty'; Aim: close '+2', ranged at a distance '+1'."""
    e = RULES.attack(
        attacker(), target(), {"maneuver": "charge"}, dice(attack="000", defense="000", power="000", toughness="+++")
    )
    assert data(e, "AttackResolved")["modifiers"]["charge"] == -1
    e = RULES.attack(
        attacker(), target(), {"maneuver": "aim"}, dice(attack="000", defense="000", power="000", toughness="+++")
    )
    assert data(e, "AttackResolved")["modifiers"]["aim"] == 2
    e = RULES.attack(
        attacker(),
        target(),
        {"maneuver": "aim", "with": "blast"},
        dice(attack="000", defense="000", power="000", toughness="+++"),
    )
    assert data(e, "AttackResolved")["modifiers"]["aim"] == 1


def test_finishing_attack_against_dc_zero_is_a_critical_and_kills_on_three_degrees():
    """gameplay.txt, Finishing Attack: 'The DC is 0 and is always a critical hit ... three or more degrees ... dies'."""
    t = target(conditions=("bound",))
    d = dice(attack="000", power="+00", toughness="---")
    e = RULES.attack(attacker(), t, {"maneuver": "finishing"}, d)
    assert data(e, "AttackResolved")["critical_hit"] and "defense" not in d.taken
    assert apply_all(t, e).has("dead")


def test_finishing_attack_needs_a_defenseless_target():
    """gameplay.txt, Finishing Attack: 'a non-routine attack against a defenseless target at close range'."""
    with pytest.raises(BadInput):
        RULES.attack(attacker(), target(), {"maneuver": "finishing"}, dice())


def test_slam_uses_speed_rank_and_the_attacker_checks_toughness_against_half():
    """gameplay.txt, Slam Attack: damage 'equals your movement speed rank, or your normal damage rank, whichever is
    higher'."""
    d = dice(
        {
            "attack": "+00",
            "defense": "000",
            "power": "000",
            "toughness": "+++",
            "slam-power": "000",
            "slam-toughness": "000",
        }
    )
    e = RULES.attack(attacker(), target(), {"maneuver": "slam", "speed": 10, "full-speed": True}, d)
    assert data(e, "AttackResolved")["rank"] == 11
    mine = [x.data for x in e if x.event == "ResistanceResolved" and x.target == "Ace"]
    assert mine and mine[0]["rank"] == 5  # 11 / 2 rounded down


def test_team_attack_adds_to_the_main_attacks_rank():
    """gameplay.txt, Team Attack: 'one degree provides a +1 ... three or more provides a +2 circumstance bonus'."""
    e = RULES.attack(
        attacker(),
        target(),
        {"maneuver": "team", "team-degrees": 3},
        dice(attack="000", defense="000", power="000", toughness="+++"),
    )
    assert data(e, "AttackResolved")["rank"] == 5


def test_aid_grants_the_ally_a_bonus_without_hitting():
    """gameplay.txt, Aid: 'attack check against DC 0 ... +1 ... Three or more degrees of success grant a +2 bonus'."""
    e = RULES.attack(attacker(), target(), {"maneuver": "aid", "ally": "Bea", "bonus": 7}, dice(attack="000"))
    d = data(e, "CheckResolved")
    assert d["aid_bonus"] == 2 and not any(x.event == "DamageApplied" for x in e)
    e = RULES.attack(attacker(), target(), {"maneuver": "aid", "bonus": -4}, dice(attack="000"))
    assert data(e, "CheckResolved")["aid_bonus"] == -1


def test_non_minions_attack_minions_as_routine_checks():
    """gameplay.txt, Minion Rules: 'Non-minions can make attack checks against minions as routine checks'."""
    d = dice(defense="000", power="000", toughness="+++")
    e = RULES.attack(attacker(), minion(), {"routine": True}, d)
    assert data(e, "AttackResolved")["attack"]["routine"] and "attack" not in d.taken and "defense" in d.taken


def test_routine_attack_on_an_ordinary_target_is_refused():
    """the-basics.txt, Routine Checks (GM decides) and gameplay.txt, Minion Rules: routine attacks are for minions."""
    with pytest.raises(BadInput):
        RULES.attack(attacker(), target(), {"routine": True}, dice())


def test_minion_failing_toughness_suffers_the_worst_degree():
    """gameplay.txt, Minion Rules: 'If a minion fails a defense check, the minion suffers the worst degree'."""
    m = minion()
    e = RULES.attack(attacker(), m, {}, dice(attack="000", defense="000", power="000", toughness="-00"))
    assert apply_all(m, e).has("dead")


def test_one_of_a_minion_group_is_defeated():
    """gameplay.txt, Death: 'minions can be easily killed off with a successful attack' (a group loses one)."""
    m = minion(count=5)
    e = RULES.attack(attacker(), m, {}, dice(attack="000", defense="000", power="000", toughness="-00"))
    assert apply_all(m, e).count == 4


def test_critical_increased_effect_against_a_minion_bypasses_the_check():
    """gameplay.txt, Effects Of A Critical Hit: 'Against a minion, this bypasses the defense check entirely'."""
    d = dice(attack="+++", defense="000")
    e = RULES.attack(attacker(), minion(), {}, d)
    assert "toughness" not in d.taken and apply_all(minion(), e).has("dead")


def test_minions_cannot_crit_non_minions():
    """gameplay.txt, Minion Rules: 'Minions cannot score critical hits against non-minions.'"""
    m = replace(minion(), traits={"fighting": 5, "strength": 2})
    e = RULES.attack(m, target(), {}, dice(attack="+++", defense="000", power="000", toughness="000"))
    d = data(e, "AttackResolved")
    assert d["hit"] and not d["critical_hit"]


def test_affliction_attack_imposes_the_degree_of_failure():
    """effect-affliction.txt: 'Failure (two degrees): ... stunned' for a dazed/stunned/incapacitated Affliction."""
    t = target()
    e = RULES.attack(
        attacker(), t, {"with": "stun-ray"}, dice(attack="000", defense="000", power="000", toughness="000")
    )
    r = data(e, "ResistanceResolved")
    assert r["defense"] == "will" and r["degree"] == 2
    after = apply_all(t, e)
    assert "stunned" in after.conditions and after.counter("affliction:stun-ray") == 2


def test_dead_or_incapacitated_attackers_are_refused():
    """conditions.txt, Stunned: 'cannot take any actions'; Dead: the dead don't act."""
    with pytest.raises(ImpossibleAction):
        RULES.attack(attacker(conditions=("incapacitated",)), target(), {}, dice())
    with pytest.raises(ImpossibleAction):
        RULES.attack(attacker(conditions=("dead",), hp=-3), target(), {}, dice())


def test_attacking_with_a_power_the_character_lacks_is_bad_input():
    """DESIGN.md, Errors and bad input: a power the character lacks."""
    with pytest.raises(BadInput):
        RULES.attack(attacker(), target(), {"with": "laser-eyes"}, dice())
