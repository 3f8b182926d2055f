"""Encounters through the real CLI (CliRunner): a full encounter in each system, JSON shapes, refusals (CLI.md)."""

from __future__ import annotations

import pytest

from tests.conftest import Cli, event_count


def setup(cli: Cli, system: str, *characters: tuple[str, ...]) -> None:
    cli.ok("init", "--system", system)
    for c in characters:
        cli.ok("character", "add", *c)


def test_a_full_hnh_encounter_runs_turn_by_turn(cli: Cli):
    """CLI.md, Commands (`encounter`): a full hnh encounter from the CLI; gameplay.txt, Initiative and Surprise."""
    setup(
        cli,
        "hnh",
        ("Ann", "--trait", "agility=3", "--pc"),
        ("Bob", "--trait", "agility=1"),
        ("Thugs", "--minion", "--count", "3"),
    )
    start = cli.json(
        "encounter",
        "start",
        "Ann",
        "Bob",
        "Thugs",
        "--surprised",
        "Thugs",
        "--roll",
        "Ann=+,0,-",
        "--roll",
        "Bob=0,0,0",
        "--roll",
        "Thugs=+,+,+",
    )
    assert start["ruling"] == 5
    assert [(e["name"], e["initiative"]) for e in start["order"]] == [("Ann", 3), ("Bob", 1), ("Thugs", -6)]
    cli.ok("attack", "Ann", "Thugs", "--rank", "4")
    assert cli.json("encounter", "next")["current"] == "Bob"
    assert cli.ok("encounter", "next").stdout.startswith(
        "ruling 8: Round 1: Thugs' turn; Thugs: no longer surprised.\n"
    )
    assert "surprised" not in cli.json("character", "show", "Thugs")["conditions"]  # conditions.txt, Surprised
    doc = cli.json("encounter", "show")
    assert (doc["round"], doc["current"]) == (1, "Thugs")
    assert cli.json("encounter", "next")["round"] == 2
    assert cli.json("encounter", "end")["ruling"] == 10
    log = cli.ok("encounter", "log").stdout
    assert "round 1, Ann's turn" in log and "attack" in log and "Ann: 3dF+3 [+ 0 -] = 3 (entered)" in log


def test_a_full_d20_encounter_runs_turn_by_turn(cli: Cli):
    """CLI.md, Commands (`encounter`); d20-supers.txt, Initiative: 1d20 + Dex modifier."""
    setup(cli, "d20", ("Rex", "--trait", "dex=14", "--trait", "hp=12"), ("Vex", "--trait", "dex=10", "--trait", "hp=8"))
    start = cli.json("encounter", "start", "Rex", "Vex", "--roll", "Rex=5", "--roll", "Vex=9")
    assert [(e["name"], e["initiative"]) for e in start["order"]] == [("Vex", 9), ("Rex", 7)]
    cli.ok("attack", "Vex", "Rex", "--roll", "attack=2")
    assert cli.json("encounter", "next")["current"] == "Rex"
    cli.ok("damage", "Vex", "--amount", "3")
    assert cli.json("encounter", "next")["round"] == 2
    cli.ok("encounter", "end")
    assert [p["hp"] for p in cli.json("timeline", "Vex")] == [8, 5]


def test_a_full_pnp_encounter_runs_page_by_page(cli: Cli):
    """CLI.md, Commands (`encounter`); prowlers-and-paragons.txt, Combat: act in order of Edge; every character acts
    each page."""
    setup(
        cli,
        "pnp",
        ("Mara", "--trait", "perception=3", "--trait", "agility=4", "--pc"),
        ("Goons", "--minion", "--count", "4", "--trait", "threat=2"),
    )
    start = cli.json("encounter", "start", "Goons", "Mara")
    assert [(e["name"], e["initiative"]) for e in start["order"]] == [("Mara", 7), ("Goons", 4)]
    cli.ok(
        "attack", "Mara", "Goons", "--with", "agility", "--roll", "attack=6,1,1,1", "--roll", "defense=1,1"
    )  # 2 of 4 down
    assert cli.json("encounter", "next")["current"] == "Goons"
    text = cli.ok("encounter", "next").stdout
    assert "page 2: Mara's turn" in text
    cli.ok("encounter", "end")
    assert cli.json("character", "show", "Goons")["count"] < 4


def test_encounter_show_json_shape(cli: Cli):
    """CLI.md, JSON shapes: encounter show is {"round", "current", "order": [{"name", "initiative"}, ...]}."""
    setup(cli, "hnh", ("Ann", "--trait", "agility=2"), ("Bob",))
    cli.ok("encounter", "start", "Ann", "Bob", "--roll", "Ann=0,0,0", "--roll", "Bob=0,0,0")
    doc = cli.json("encounter", "show")
    assert {"round", "current", "order"} <= set(doc)
    assert [(e["name"], e["initiative"], e["delayed"]) for e in doc["order"]] == [("Ann", 2, False), ("Bob", 0, False)]


def test_encounter_show_rows_carry_hp_conditions_marks_count_and_up(cli: Cli):
    """CLI.md, Additions agreed in the second round: rows carry hp, max_hp, conditions, marks, count for minions, up."""
    setup(cli, "hnh", ("Ann", "--trait", "agility=2", "--pc"), ("Bob",), ("Thugs", "--minion", "--count", "3"))
    cli.ok(
        "encounter",
        "start",
        "Ann",
        "Bob",
        "Thugs",
        "--roll",
        "Ann=0,0,0",
        "--roll",
        "Bob=0,0,0",
        "--roll",
        "Thugs=-,-,-",
    )
    cli.ok("damage", "Bob", "--amount", "7")
    cli.ok("condition", "add", "Ann", "dazed")
    doc = cli.json("encounter", "show")
    rows = {e["name"]: e for e in doc["order"]}
    assert (rows["Ann"]["up"], rows["Bob"]["up"], doc["current"]) == (True, False, "Ann")
    assert (rows["Ann"]["hp"], rows["Ann"]["max_hp"], rows["Ann"]["conditions"], rows["Ann"]["pc"]) == (
        6,
        6,
        ["dazed"],
        True,
    )
    assert rows["Bob"]["hp"] == -1 and rows["Bob"]["marks"] == [
        "dying"
    ]  # hnh-site/conditions.txt, Dying: "while HP is negative"
    assert rows["Thugs"]["count"] == 3 and "count" not in rows["Ann"]
    text = cli.ok("encounter", "show").stdout.splitlines()
    assert text[0] == "encounter 1 (hnh), round 1: Ann's turn"
    assert text[1].split() == ["name", "init", "hp", "conditions"]
    assert text[2].split() == [">", "Ann", "2", "6/6", "dazed"]
    assert "DYING" in text[3] and text[3].split()[:3] == ["Bob", "0", "-1/6"]
    assert text[4].split()[:2] == ["Thugs", "x3"]
    assert len({line.index("/") for line in text[2:]}) == 1  # the HP column lines up


@pytest.mark.parametrize(
    "args",
    [
        ("encounter", "start", "Ann", "Nobody"),
        ("encounter", "start", "Ann", "Bob", "--roll", "Ann=5"),
        ("encounter", "start", "Ann", "Bob", "--roll", "Ann=+,+"),
        ("encounter", "next"),
        ("encounter", "delay"),
        ("encounter", "end"),
        ("encounter", "join", "Bob"),
    ],
)
def test_bad_encounter_input_is_one_error_line_exit_2_nothing_appended(cli: Cli, db: str, args: tuple[str, ...]):
    """CLI.md, encounter: unknown participant, no encounter running, faces of the wrong kind: exit 2, nothing
    appended."""
    setup(cli, "hnh", ("Ann",), ("Bob",))
    before = event_count(db)
    r = cli(*args)
    assert r.exit_code == 2
    assert r.stderr.startswith("error: ") and len([ln for ln in r.stderr.splitlines() if ln.startswith("error:")]) == 1
    assert event_count(db) == before


def test_a_dead_participant_joining_is_refused(cli: Cli, db: str):
    """CLI.md, encounter join: a dead participant joining is bad input (exit 2, nothing appended)."""
    setup(cli, "hnh", ("Ann",), ("Bob",), ("Cy",))
    cli.ok("encounter", "start", "Ann", "Bob")
    cli.ok("damage", "Cy", "--amount", "9")
    before = event_count(db)
    r = cli("encounter", "join", "Cy")
    assert r.exit_code == 2 and "dead" in r.stderr and event_count(db) == before


def test_timeline_prints_points_and_a_chart(cli: Cli):
    """CLI.md, Commands: `ledger timeline NAME` prints the points (ruling, session, time) and a small chart."""
    setup(cli, "hnh", ("Ann",))
    cli.ok("session", "start", "One")
    cli.ok("damage", "Ann", "--amount", "2")
    cli.ok("damage", "Ann", "--amount", "5")
    points = cli.json("timeline", "Ann")
    assert [(p["ruling"], p["hp"], p["session"]) for p in points] == [(2, 6, None), (4, 4, 1), (5, -1, 1)]
    text = cli.ok("timeline", "Ann").stdout
    assert "session 1" in text and text.rstrip().splitlines()[-1].startswith("  -1")


def test_character_show_at_an_earlier_ruling(cli: Cli):
    """CLI.md, Commands: a character's sheet at any earlier ruling (`character show NAME --at RULING`)."""
    setup(cli, "hnh", ("Ann",))
    cli.ok("damage", "Ann", "--amount", "2")
    cli.ok("condition", "add", "Ann", "dazed")
    assert cli.json("character", "show", "Ann", "--at", "2")["hp"] == 6
    at3 = cli.json("character", "show", "Ann", "--at", "3")
    assert (at3["hp"], at3["conditions"], at3["at"]) == (4, [], 3)
    assert cli.json("character", "show", "Ann", "--at", "4")["conditions"] == ["dazed"]
    assert cli("character", "show", "Ann", "--at", "99").exit_code == 2


def test_session_show_lists_every_ruling_readably(cli: Cli):
    """CLI.md, Commands: session history (every ruling of a session, readable), undone and retracted ones marked
    as such."""
    setup(cli, "hnh", ("Ann",))
    cli.ok("session", "start", "The heist")
    cli.ok("roll", "3dF", "--roll", "roll=+,0,-")
    cli.ok("damage", "Ann", "--amount", "1")
    cli.ok("undo")
    doc = cli.json("session", "show", "1")
    assert [r["command"] for r in doc["rulings"]] == ["session start", "roll", "damage", "undo"]
    assert doc["rulings"][2]["retracted"]["by"] == 6
    text = cli.ok("session", "show", "1").stdout
    assert (
        "session 1: The heist" in text and "[+ 0 -]" in text and "UNDONE by ruling 6" in text
    )  # an undo, not a retraction
    cli.ok("retract", "4", "--yes", "--reason", "the wrong dice")
    text = cli.ok("session", "show", "1").stdout
    assert "RETRACTED by ruling 7" in text and "UNDONE by ruling 6" in text
    assert "[RETRACTED by ruling 7" in cli.ok("log").stdout


def test_pnp_encounter_show_counts_pages_and_health_and_marks_defeated_minions(cli: Cli):
    """prowlers-and-paragons.txt, Combat: pages, Health; a minion group at count 0 is marked defeated."""
    setup(
        cli,
        "pnp",
        ("Mara", "--trait", "perception=3", "--trait", "agility=4", "--pc"),
        ("Goons", "--minion", "--count", "2", "--trait", "threat=2"),
    )
    cli.ok("encounter", "start", "Goons", "Mara")
    cli.ok("damage", "Goons", "--amount", "2")
    doc = cli.json("encounter", "show")
    goons = next(e for e in doc["order"] if e["name"] == "Goons")
    assert goons["count"] == 0 and "defeated" in goons["marks"]
    text = cli.ok("encounter", "show").stdout.splitlines()
    assert text[0].startswith("encounter 1 (pnp), page 1: Mara's turn") and "health" in text[1].split()
    assert "DEFEATED" in next(ln for ln in text if "Goons" in ln)
