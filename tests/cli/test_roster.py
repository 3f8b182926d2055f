"""The roster: `character add --copies`, `character copy`, `character set`, `character retire`, `list --all`,
and encounters that take several names and `--copies` groups."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli, event_count


def names(doc: Any) -> list[str]:
    return [c["name"] for c in doc]


def d20(cli: Cli) -> None:
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Ann", "--trait", "hp=10", "--trait", "dex=14", "--pc")


def test_copies_add_numbered_characters_with_the_same_sheet_in_one_ruling(cli: Cli) -> None:
    """d20-supers.txt, Damage (Hitpoints per character): d20 has no minion groups, so five thugs are five sheets;
    `--copies 3` adds Thug 1 .. Thug 3 in one ruling (one undo takes all three back)."""
    d20(cli)
    r = cli.json("character", "add", "Thug", "--trait", "hp=6", "--copies", "3")
    assert isinstance(r, dict) and names(r["characters"]) == ["Thug 1", "Thug 2", "Thug 3"]
    listed = cli.json("character", "list")
    assert names(listed) == ["Ann", "Thug 1", "Thug 2", "Thug 3"]
    assert {(c["hp"], c["max_hp"]) for c in listed[1:]} == {(6, 6)}  # type: ignore[index]
    cli.ok("undo")
    assert names(cli.json("character", "list")) == ["Ann"]


def test_copy_makes_a_fresh_character_from_a_stat_block(cli: Cli) -> None:
    """d20-supers.txt, Damage: a copy has the same Hitpoints (traits) and starts unhurt, whatever the original took."""
    d20(cli)
    cli.ok("damage", "Ann", "--amount", "4")
    copied = cli.json("character", "copy", "Ann", "Bea")
    assert isinstance(copied, dict)
    bea = cli.json("character", "show", "Bea")
    ann = cli.json("character", "show", "Ann")
    assert isinstance(bea, dict) and isinstance(ann, dict)
    assert bea["traits"] == ann["traits"] and (bea["hp"], bea["max_hp"]) == (10, 10) and ann["hp"] == 6


def test_set_changes_a_trait_as_a_ruling_that_undo_retraction_and_why_see(cli: Cli, tmp_path: Path) -> None:
    """d20-supers.txt, Damage: Hitpoints are the sheet's `hp`; a mistyped value is set by a ruling (HP follows, the
    damage taken stays), `why` names it, and retracting it gives exactly the history without it."""
    other = Cli(str(tmp_path / "without.ledger"))
    for c in (cli, other):
        d20(c)
        c.ok("damage", "Ann", "--amount", "3")
    r = cli.json("character", "set", "Ann", "--trait", "hp=18")
    assert isinstance(r, dict)
    ruling = r["ruling"]
    ann = cli.json("character", "show", "Ann")
    assert isinstance(ann, dict) and (ann["hp"], ann["max_hp"], ann["traits"]["hp"]) == (15, 18, 18)
    why = cli.ok("why", "Ann", "max_hp").stdout
    assert f"ruling {ruling} (character set" in why
    for c in (cli, other):
        c.ok("damage", "Ann", "--amount", "2")
    cli.ok("retract", str(ruling), "--yes")
    assert cli.json("character", "show", "Ann") == other.json("character", "show", "Ann")


@pytest.mark.parametrize("trait", ["dex=abc", "dex=-3", "hp=0", "b@d=3"])
def test_set_refuses_a_value_the_rules_cannot_hold(cli: Cli, db: str, trait: str) -> None:
    """d20-supers.txt, Damage: "If a character reaches 0 Hitpoints he or she is disabled": a sheet's Hitpoints start
    from 1; ability scores are whole numbers (docs/interpretations.md, d20 sheet vocabulary): exit 2, nothing appended."""
    d20(cli)
    before = event_count(db)
    r = cli("character", "set", "Ann", "--trait", trait)
    assert r.exit_code == 2 and r.stderr.startswith("error: ")
    assert event_count(db) == before


def test_retire_takes_a_character_out_of_lists_and_the_tracker_and_undo_brings_it_back(cli: Cli) -> None:
    """d20-supers.txt, Initiative: the order is of those who fight; a retired character leaves it and the lists,
    keeps its history (`list --all`, `log`), and undo restores the roster and the tracker exactly."""
    d20(cli)
    cli.ok("character", "add", "Thug", "--trait", "hp=6", "--copies", "2")
    cli.ok("encounter", "start", "Ann", "Thug", "--init", "Ann=15", "--init", "Thug 1=9", "--init", "Thug 2=5")
    before = (cli.json("encounter", "show"), cli.json("character", "list"))
    cli.ok("character", "retire", "Thug 2")
    assert names(cli.json("character", "list")) == ["Ann", "Thug 1"]
    doc = cli.json("encounter", "show")
    assert isinstance(doc, dict) and names(doc["order"]) == ["Ann", "Thug 1"]
    everyone = cli.json("character", "list", "--all")
    assert [(c["name"], c.get("retired", False)) for c in everyone] == [  # type: ignore[union-attr]
        ("Ann", False),
        ("Thug 1", False),
        ("Thug 2", True),
    ]
    r = cli("damage", "Thug 2", "--amount", "1")
    assert r.exit_code == 2 and "Thug 2" in r.stderr
    cli.ok("undo")
    assert (cli.json("encounter", "show"), cli.json("character", "list")) == before


def test_encounters_take_several_names_and_copies_groups(cli: Cli) -> None:
    """d20-supers.txt, Initiative: every combatant rolls; the group's name brings NAME 1 .. NAME N, join takes several."""
    d20(cli)
    cli.ok("character", "add", "Thug", "--trait", "hp=6", "--copies", "3")
    cli.ok("character", "add", "Cy", "--trait", "hp=6")
    cli.ok("character", "add", "Dee", "--trait", "hp=6")
    doc = cli.json("encounter", "start", "Ann", "Thug")
    assert isinstance(doc, dict) and sorted(names(doc["order"])) == ["Ann", "Thug 1", "Thug 2", "Thug 3"]
    doc = cli.json("encounter", "join", "Cy", "Dee")
    assert isinstance(doc, dict) and sorted(doc["initiatives"]) == ["Cy", "Dee"]
    assert len(doc["order"]) == 6
