"""An encounter that begins and ends: `encounter show` after the end, undo of the end, the end's summary."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Cli


def d20_fight(cli: Cli) -> None:
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Ann", "--trait", "hp=10", "--pc")
    cli.ok("character", "add", "Bob", "--trait", "hp=10")
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=15", "--init", "Bob=5")


def test_show_before_any_encounter_says_none_is_running(cli: Cli) -> None:
    """d20-supers.txt, Initiative: the order exists only once initiative is rolled; before that none is running."""
    cli.ok("init", "--system", "d20")
    r = cli.ok("encounter", "show")
    assert r.stdout.strip() == "no encounter is running"
    assert cli.json("encounter", "show") == {"running": False, "last": None}


def test_an_ended_encounter_is_no_longer_shown_as_running_and_undo_brings_it_back(cli: Cli) -> None:
    """d20-supers.txt, Rounds: rounds pass only while the fight runs; after `encounter end` no one is up, and
    undoing the end restores the tracker exactly as it was (a refold, never a reverse delta)."""
    d20_fight(cli)
    cli.ok("encounter", "next")
    before = cli.json("encounter", "show")
    assert isinstance(before, dict) and before["running"] is True and before["current"] == "Bob"
    cli.ok("encounter", "end")
    r = cli.ok("encounter", "show")
    assert r.stdout.splitlines()[0] == "no encounter is running"
    assert ">" not in r.stdout
    doc = cli.json("encounter", "show")
    assert isinstance(doc, dict) and doc["running"] is False and doc["last"]["encounter"] == 1
    cli.ok("undo")
    assert cli.json("encounter", "show") == before
    cli.ok("redo")
    assert cli.json("encounter", "show") == doc


def test_the_end_summary_counts_rounds_falls_and_damage_dealt_and_taken(cli: Cli) -> None:
    """d20-supers.txt, Damage: "If a character reaches -1 to -9 Hitpoints he or she is dying": the summary names the
    fall with its round, and each combatant's damage dealt and taken; `encounter show` then gives the same summary."""
    d20_fight(cli)
    cli.ok("attack", "Ann", "Bob", "--damage", "1d8", "--roll", "attack=18", "--roll", "damage=6")
    cli.ok("encounter", "next")
    cli.ok("encounter", "next")  # round 2, Ann's turn
    cli.ok("attack", "Ann", "Bob", "--damage", "1d8", "--roll", "attack=18", "--roll", "damage=5")
    r = cli.ok("encounter", "end")
    lines = r.stdout.splitlines()
    assert lines[0].startswith("ruling ") and "ends after 2 rounds" in lines[0]
    assert "Fell: Bob dying, unconscious (round 2, Ann's attack)." in lines
    assert [ln.split() for ln in lines if ln.strip().startswith(("Ann ", "Bob "))] == [
        ["Ann", "dealt", "11", "taken", "0"],
        ["Bob", "dealt", "0", "taken", "11"],
    ]
    doc = cli.json("encounter", "show")
    assert isinstance(doc, dict)
    assert doc["last"]["rounds"] == 2
    assert doc["last"]["fell"][0] | {"ruling": 0} == {
        "name": "Bob",
        "as": "dying, unconscious",
        "round": 2,
        "ruling": 0,
        "how": "Ann's attack",
    }
    assert doc["last"]["combatants"] == [
        {"name": "Ann", "dealt": 11, "taken": 0},
        {"name": "Bob", "dealt": 0, "taken": 11},
    ]


def test_an_undone_hit_is_left_out_of_the_summary(cli: Cli) -> None:
    """The summary is of the live history: a hit undone before the end deals and takes nothing."""
    d20_fight(cli)
    cli.ok("attack", "Ann", "Bob", "--damage", "1d8", "--roll", "attack=18", "--roll", "damage=6")
    cli.ok("undo")
    ended = cli.json("encounter", "end")
    assert isinstance(ended, dict)
    assert ended["summary"]["combatants"] == [
        {"name": "Ann", "dealt": 0, "taken": 0},
        {"name": "Bob", "dealt": 0, "taken": 0},
    ]


def test_the_same_summary_heads_the_encounter_in_the_markdown_and_html_exports(cli: Cli, tmp_path: Path) -> None:
    """d20-supers.txt, Damage ("dying"): the exports head each encounter with the summary `encounter end` prints."""
    d20_fight(cli)
    cli.ok("attack", "Ann", "Bob", "--damage", "1d8", "--roll", "attack=18", "--roll", "damage=6")
    cli.ok("damage", "Bob", "--amount", "5")
    cli.ok("encounter", "end")
    md, html = tmp_path / "h.md", tmp_path / "h.html"
    cli.ok("export", "--format", "md", "-o", str(md))
    cli.ok("export", "--format", "html", "-o", str(html))
    text = md.read_text()
    head = text.index("### Encounter 1")
    assert text.index("**Summary.** Encounter 1: 1 round. Fell: Bob dying, unconscious (round 1, damage).") > head
    assert "| Ann | 6 | 0 |" in text and "| Bob | 0 | 11 |" in text
    page = html.read_text()
    assert "<strong>Summary.</strong> Encounter 1: 1 round. Fell: Bob dying, unconscious (round 1, damage).</p>" in page
    assert "<tr><td>Bob</td><td>0</td><td>11</td></tr>" in page
