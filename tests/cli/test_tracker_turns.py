"""The tracker at the table: who is up with HP and conditions, who the rules give no turn or no action, sides down."""

from __future__ import annotations

from pathlib import Path
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
    assert "Vil's turn passes (dying)" in r.stdout.splitlines()[0]
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
    you are incapacitated or dead you still get a turn": with `init -o pass-over=never` the turn comes, named as one
    without action; attacks refused."""
    cli.ok("init", "--system", "hnh", "-o", "pass-over=never")
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
    assert r.stdout.splitlines()[0].endswith("now dead; every foe is down.")
    assert "Every foe is down." not in r.stdout  # said once, by the recorded sentence
    doc = cli.json("undo")
    assert isinstance(doc, dict) and "side_down" not in doc


def test_a_side_all_down_is_recorded_and_shown_in_log_session_and_exports(cli: Cli, tmp_path: Path) -> None:
    """d20-supers.txt, Damage: below 0 Hitpoints a character is dying, unconscious and takes no actions; the ruling
    that leaves every foe so records it (an EffectResolved), so `log`, `session show` and both exports say it."""
    cli.ok("init", "--system", "d20")
    cli.ok("session", "start", "Night")
    cli.ok("character", "add", "Ann", "--trait", "hp=10", "--pc")
    cli.ok("character", "add", "Vil", "--trait", "hp=10")
    cli.ok("encounter", "start", "Ann", "Vil", "--init", "Ann=20", "--init", "Vil=10")
    doc: Any = cli.json("damage", "Vil", "--amount", "12")
    assert doc["side_down"] == "foes"
    assert {"side_down": "foes"} in [e["data"] for e in doc["events"] if e["type"] == "EffectResolved"]
    assert "every foe is down" in cli.ok("log", "-n", "1").stdout
    assert "every foe is down" in cli.ok("session", "show").stdout
    for fmt in ("md", "html"):
        out = tmp_path / f"fight.{fmt}"
        cli.ok("export", "--format", fmt, "-o", str(out))
        assert "every foe is down" in out.read_text().lower()


def test_a_side_all_down_is_decided_again_by_retraction(cli: Cli, tmp_path: Path) -> None:
    """d20-supers.txt, Damage: retracting the damage that left Vil dying leaves a foe standing, so the later ruling
    that downed Cy, decided again, no longer says every foe is down; sheets and tracker as if it never was."""
    d20(cli)
    cli.ok("damage", "Vil", "--amount", "12")
    cli.ok("damage", "Cy", "--amount", "15")
    assert "every foe is down" in cli.ok("log", "-n", "1").stdout
    out = cli.ok("retract", "6", "--yes").stdout
    assert "now: Cy takes 15 damage: HP 5 -> -10, now dead.\n" in out and "was: Every foe is down" in out
    without = Cli(str(tmp_path / "without.ledger"))  # the same history without the retracted ruling
    d20(without)
    without.ok("damage", "Cy", "--amount", "15")
    for name in ("Vil", "Cy"):
        assert cli.json("character", "show", name) == without.json("character", "show", name)
    assert cli.json("encounter", "show") == without.json("encounter", "show")
