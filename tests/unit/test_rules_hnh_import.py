"""Import of character-creator save files (fixtures/README.md; hnh-site/defenses.txt, effect-protection.txt)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ledger.errors import BadInput
from ledger.rules.hnh.creator import import_character

FIXTURES = Path(__file__).parents[2].parent / "shared" / "fixtures" / "hnh-characters"


def load(name: str) -> tuple[str, dict[str, int], dict[str, dict]]:
    """Import one fixture by file stem."""
    return import_character(json.loads((FIXTURES / f"{name}.json").read_text()))


def test_all_38_fixtures_import():
    """fixtures/README.md: 38 example characters saved by the character creator."""
    files = sorted(FIXTURES.glob("*.json"))
    assert len(files) == 38
    for f in files:
        name, traits, powers = import_character(json.loads(f.read_text()))
        assert name and {"dodge", "parry", "fortitude", "will", "toughness", "strength"} <= set(traits)
        assert all(isinstance(v, int) for v in traits.values())


def test_defense_totals_are_ability_plus_purchased_ranks():
    """fixtures/README.md: 'Dodge = Agility + Dodge ranks, Parry = Fighting + Parry ranks, ...'."""
    name, t, _ = load("battlesuit")  # Agility 0, Fighting 6, Stamina 0, Presence 1; ranks 7, 2, 5, 8
    assert name == "Battlesuit"
    assert (t["dodge"], t["parry"], t["fortitude"], t["will"]) == (7, 8, 5, 9)


def test_toughness_is_layered_protection_plus_defensive_roll():
    """effect-protection.txt: Protection 'is layered' and 'the Defensive Roll advantage stacks'."""
    assert load("battlesuit")[1]["toughness"] == 10  # Stamina 0, Protection 10
    assert load("crime-fighter")[1]["toughness"] == 10  # Stamina 1, Protection 7, Defensive Roll 3
    assert load("martial-artist")[1]["toughness"] == load("martial-artist")[1]["stamina"] + 2  # no Protection, DR 2
    assert load("thug")[1]["toughness"] == 2  # Stamina 2 beats a leather jacket (Protection 1)


def test_no_toughness_from_growth():
    """fixtures/README.md: 'Like the creator, take no Toughness from Growth.'"""
    _, t, _ = load("gaint-robot")  # Growth 4, Protection 12
    assert t["toughness"] == max(12, t["stamina"])


def test_skills_are_totals_under_hyphenated_keys_and_initiative_advantage():
    """the-basics.txt, Skills: 'Agility 6 and ... Acrobatics ... rank 7 ... bonus ... is 13'; gameplay.txt,
    Initiative."""
    _, t, _ = load("speedster")
    assert t["improved-initiative"] == 5
    assert t["close-combat-unarmed"] == t["fighting"] + 6
    _, t, _ = load("thug")
    assert t["expertise-streetwise"] == 0 + 4 and t["athletics"] == 2 + 4


def test_powers_and_equipment_with_attack_bonus_and_affliction_conditions():
    """effect-affliction.txt: conditions by degree and the defense chosen; gameplay.txt, Attack Check: the combat
    skill."""
    _, _, p = load("battlesuit")
    assert p["force-beams"]["effect"] == "Damage" and p["force-beams"]["rank"] == 10
    assert p["force-beams"]["attack"] == 2 + 8 and p["force-beams"]["range"] == "ranged"
    assert p["armor"]["effect"] == "Protection"
    _, _, p = load("mewtwo")
    mc = p["mind-control"]
    assert mc["conditions"] == ["dazed", "compelled", "controlled"] and mc["resisted-by"] == "will" and mc["cumulative"]
    _, _, p = load("thug")
    assert p["light-pistol"]["equipment"] is True


def test_malformed_save_is_bad_input():
    """CLI.md, Commands (`character import`): a malformed file is bad input."""
    for bad in (
        {},
        {"Hero": {"name": "X"}},
        {"Hero": {"name": "X"}, "Abilities": {"Strength": "lots"}},
        [],
        {"Hero": "X"},
    ):
        with pytest.raises(BadInput):
            import_character(bad)  # type: ignore[arg-type]


def test_absent_ability_counts_as_zero():
    """fixtures/README.md: 'An absent ability counts as 0 for defenses.'"""
    _, t, _ = import_character({"Hero": {"name": "Blob"}, "Abilities": {"Stamina": None}, "Defenses": {"Fortitude": 3}})
    assert t["stamina"] == 0 and t["fortitude"] == 3 and t["toughness"] == 0
