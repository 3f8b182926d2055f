"""The tracker at the table: who is up with HP and conditions, who the rules give no turn or no action, sides down."""

from __future__ import annotations

from typing import Any

from tests.conftest import Cli, event_count


def d20(cli: Cli) -> None:
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Ann", "--trait", "hp=10", "--pc")
    cli.ok("character", "add", "Vil", "--trait", "hp=10")
    cli.ok("character", "add", "Cy", "--trait", "hp=5")
    cli.ok("encounter", "start", "Ann", "Vil", "Cy", "--init", "Ann=20", "--init", "Vil=10", "--init", "Cy=5")


def test_next_names_who_is_up_with_hp_and_conditions(cli: Cli) -> None:
    """d20-supers.txt, Initiative: the order says who acts; the GM reads their Hitpoints and conditions off the line."""
    d20(cli)
    cli.ok("damage", "Vil", "--amount", "4")
    cli.ok("condition", "add", "Vil", "prone", "--rounds", "2")
    r = cli.ok("encounter", "next")
    assert r.stdout.splitlines()[1] == "up: Vil  HP 6/10  prone 2"
    doc = cli.json("encounter", "next")
    assert isinstance(doc, dict) and doc["up"]["name"] == "Cy" and (doc["up"]["hp"], doc["up"]["max_hp"]) == (5, 5)


def test_d20_dying_get_no_turn_and_are_named(cli: Cli) -> None:
    """d20-supers.txt, Damage: "If a character reaches -1 to -9 Hitpoints he or she is dying. They are unconsious and
    can take no actions": the tracker passes over them, saying so."""
    d20(cli)
    cli.ok("damage", "Vil", "--amount", "12")
    r = cli.ok("encounter", "next")
    assert "(Vil is dying: no turn)" in r.stdout.splitlines()[0]
    doc = cli.json("encounter", "show")
    assert isinstance(doc, dict) and doc["current"] == "Cy"


def test_d20_a_dying_characters_action_is_refused_with_the_rules_reason(cli: Cli, db: str) -> None:
    """d20-supers.txt, Damage: the dying "can take no actions": an attack by one is refused, nothing appended."""
    d20(cli)
    cli.ok("damage", "Vil", "--amount", "12")
    before = event_count(db)
    r = cli("attack", "Vil", "Ann")
    assert r.exit_code == 2 and "dying" in r.stderr
    assert event_count(db) == before


def test_hnh_stunned_keep_their_turn_but_it_says_no_action(cli: Cli, db: str) -> None:
    """conditions.txt, Stunned: "Stunned characters cannot take any actions"; gameplay.txt, Taking Your Turn: "even if
    you are incapacitated or dead you still get a turn": the turn comes, named as one without action; attacks refused."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--pc")
    cli.ok("character", "add", "Bob")
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=5", "--init", "Bob=3")
    cli.ok("condition", "add", "Bob", "stunned", "--rounds", "1")
    r = cli.ok("encounter", "next")
    assert r.stdout.splitlines()[1] == "up: Bob  HP 6/6  stunned 1  (Bob is stunned: no action)"
    before = event_count(db)
    refused = cli("attack", "Bob", "Ann", "--rank", "2")
    assert refused.exit_code == 2 and "stunned" in refused.stderr
    assert event_count(db) == before


def test_pnp_stunned_attack_is_noted_where_the_text_leaves_it_to_the_gm(cli: Cli) -> None:
    """prowlers-and-paragons.txt, Attacks: "your target is stunned for 2 pages" (what a stun stops is not said): the
    attack is recorded with a warning, and the stunned one's turn is named as one without action."""
    cli.ok("init", "--system", "pnp")
    cli.ok("character", "add", "Ann", "--trait", "might=3", "--pc")
    cli.ok("character", "add", "Bob", "--trait", "might=2", "--trait", "agility=2")
    cli.ok("encounter", "start", "Ann", "Bob")
    cli.ok("condition", "add", "Ann", "stunned")
    doc: Any = cli.json("attack", "Ann", "Bob", "--with", "might", "--roll", "attack=6,6,6", "--roll", "defense=1,1")
    notes = [e for e in doc["events"] if e["type"] == "NoteRecorded"]
    assert notes and "stunned" in notes[0]["data"]["text"]


def test_the_ruling_that_downs_the_last_foe_says_so(cli: Cli) -> None:
    """d20-supers.txt, Damage: the dying and the dead are out of the fight; when every foe is, the ruling says so."""
    d20(cli)
    cli.ok("damage", "Vil", "--amount", "12")
    r = cli.ok("damage", "Cy", "--amount", "15")
    assert r.stdout.splitlines()[-1] == "Every foe is down."
    doc = cli.json("undo")
    assert isinstance(doc, dict) and "side_down" not in doc
