"""Whose turn it is (CLI.md, Additions agreed in the second round): passing over the dead and defeated, `encounter
remove`, `--init`, out-of-turn notes."""

from __future__ import annotations

from typing import Any

from tests.conftest import Cli, event_count


def setup(cli: Cli, system: str, *characters: tuple[str, ...]) -> None:
    cli.ok("init", "--system", system)
    for c in characters:
        cli.ok("character", "add", *c)


def names(doc: Any) -> list[str]:
    return [e["name"] for e in doc["order"]]


def intent_of(cli: Cli, ruling: int) -> dict[str, Any]:
    log = cli.json("log")
    assert isinstance(log, list)
    return next(e["data"]["intent"] for e in log if e["ruling"] == ruling and e["type"] == "RulingRecorded")


def test_hnh_next_passes_over_the_dead_and_says_so(cli: Cli) -> None:
    """humans-and-heroes.txt, Health Points: "At HP -3 (which is the minimum) you are dead": the dead take no turns."""
    setup(cli, "hnh", ("Ann", "--pc"), ("Bob",), ("Cy",))
    cli.ok("encounter", "start", "Ann", "Bob", "Cy", "--init", "Ann=3", "--init", "Bob=2", "--init", "Cy=1")
    cli.ok("damage", "Bob", "--amount", "9")
    r = cli.ok("encounter", "next")
    assert "Bob's turn passes (dead)" in r.stdout.splitlines()[0]  # said in the result's first line ...
    assert [ln.split() for ln in r.stdout.splitlines() if "Bob" in ln][-1] == [
        "Bob",
        "2",
        "-3/6",
        "DEAD,",
        "prone,",
        "(passed",
        "over:",
        "dead)",
    ]  # ... and its row, with HP and marks
    doc = cli.json("encounter", "next")
    assert (doc["current"], doc["round"], doc["skipped"]) == ("Ann", 2, [])
    doc = cli.json("encounter", "next")
    assert (doc["current"], doc["skipped"]) == ("Cy", [{"name": "Bob", "why": "dead"}])
    assert names(doc) == ["Ann", "Bob", "Cy"]  # passed over, not taken out of the order


def test_hnh_a_dying_character_keeps_the_turn_that_brings_the_dying_check(cli: Cli) -> None:
    """humans-and-heroes.txt, Starting Your Turn: "If you are dying make a Fortitude check (DC 5)" (at their turn)."""
    setup(cli, "hnh", ("Ann", "--pc"), ("Bob",))
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=3", "--init", "Bob=2")
    cli.ok("damage", "Bob", "--amount", "7")
    doc = cli.json("encounter", "next", "--roll", "fortitude=-,-,-")
    assert (doc["current"], doc["skipped"]) == ("Bob", [])
    checks = [e for e in doc["events"] if e["type"] == "CheckResolved"]
    assert checks and checks[0]["data"]["check"] == "dying" and checks[0]["character"] == "Bob"


def test_hnh_the_dead_keep_their_turn_while_it_still_tracks_something(cli: Cli) -> None:
    """gameplay.txt, Taking Your Turn: "even if you are incapacitated or dead you still get a turn in order to keep
    track of any ongoing effects"; Action Limitations: the 130-round revival cooldown counts down on those turns."""
    setup(cli, "hnh", ("Ann", "--pc"), ("Bob",), ("Cy",))
    cli.ok("damage", "Bob", "--amount", "9")
    cli.ok("revive", "Bob", "--means", "healing")
    assert cli.json("character", "show", "Bob")["counters"]["revive-cooldown"] == 130
    cli.ok("encounter", "start", "Ann", "Bob", "Cy", "--init", "Ann=3", "--init", "Bob=2", "--init", "Cy=1")
    cli.ok("damage", "Bob", "--amount", "9")
    doc = cli.json("encounter", "next")
    assert (doc["current"], doc["skipped"]) == ("Bob", [])  # dead, with the cooldown still running
    assert cli.json("character", "show", "Bob")["counters"]["revive-cooldown"] == 129


def test_delay_passes_over_the_dead_too(cli: Cli) -> None:
    """gameplay.txt, Delay: the delayer's turn passes to the next who acts; the dead act no more."""
    setup(cli, "hnh", ("Ann", "--pc"), ("Bob",), ("Cy",))
    cli.ok("encounter", "start", "Ann", "Bob", "Cy", "--init", "Ann=3", "--init", "Bob=2", "--init", "Cy=1")
    cli.ok("damage", "Bob", "--amount", "9")
    doc = cli.json("encounter", "delay")
    assert (doc["current"], doc["skipped"]) == ("Cy", [{"name": "Bob", "why": "dead"}])


def test_pnp_next_passes_over_the_defeated_and_a_group_with_no_minions_left(cli: Cli) -> None:
    """prowlers-and-paragons.txt, Combat (Damage): "Once a target's Health has falls to 0, they're defeated and out of
    the fight"."""
    setup(
        cli,
        "pnp",
        ("Mara", "--trait", "perception=3", "--trait", "agility=4", "--pc"),
        ("Vic", "--trait", "perception=2"),
        ("Goons", "--minion", "--count", "2", "--trait", "threat=1"),
    )
    start = cli.json("encounter", "start", "Mara", "Vic", "Goons")
    assert names(start) == ["Mara", "Vic", "Goons"]
    cli.ok("damage", "Vic", "--amount", "20")
    cli.ok("damage", "Goons", "--amount", "2")
    assert cli.json("character", "show", "Goons")["count"] == 0
    doc = cli.json("encounter", "next")
    assert (doc["current"], doc["round"]) == ("Mara", 2)
    assert [s["name"] for s in doc["skipped"]] == ["Vic", "Goons"]
    assert all(s["why"].startswith("defeated") for s in doc["skipped"])
    assert "page 2: Mara's turn" in cli.ok("encounter", "show").stdout


def test_d20_next_passes_over_the_dead_and_the_dying(cli: Cli) -> None:
    """d20-supers.txt, Damage: -1 to -9 dying: "They are unconsious and can take no actions" (still in the order, no
    turn); "-10 or below they are dead"."""
    setup(cli, "d20", ("Rex", "--trait", "hp=10"), ("Vex", "--trait", "hp=10"), ("Zed", "--trait", "hp=10"))
    cli.ok("encounter", "start", "Rex", "Vex", "Zed", "--init", "Rex=15", "--init", "Vex=10", "--init", "Zed=5")
    cli.ok("damage", "Vex", "--amount", "12")  # dying
    cli.ok("damage", "Zed", "--amount", "25")  # dead
    doc = cli.json("encounter", "next")
    assert (doc["current"], doc["round"], doc["skipped"]) == (
        "Rex",
        2,
        [{"name": "Vex", "why": "dying"}, {"name": "Zed", "why": "dead"}],
    )
    assert [e["name"] for e in doc["order"]] == ["Rex", "Vex", "Zed"]


def test_when_no_one_takes_a_turn_next_is_refused_and_nothing_appended(cli: Cli) -> None:
    """CLI.md, Additions agreed in the second round (`encounter next`): a fight with no one left to act is ended, not
    turned forever."""
    setup(cli, "hnh", ("Ann", "--pc"), ("Bob",))
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=3", "--init", "Bob=2")
    cli.ok("damage", "Ann", "--amount", "9")
    cli.ok("damage", "Bob", "--amount", "9")
    before = event_count(cli.db)
    r = cli("encounter", "next")
    assert (
        r.exit_code == 2
        and r.stderr == "error: no one left in the encounter takes a turn\nhint: end it: ledger encounter end\n"
    )
    assert event_count(cli.db) == before


def test_encounter_remove_keeps_the_order_and_the_turn_right(cli: Cli) -> None:
    """CLI.md (second round): `encounter remove NAME`; the current turn stays with who had it."""
    setup(cli, "hnh", ("Ann", "--pc"), ("Bob",), ("Cy",), ("Dee",))
    cli.ok(
        "encounter",
        "start",
        "Ann",
        "Bob",
        "Cy",
        "Dee",
        *[f"--init={n}={v}" for n, v in (("Ann", 4), ("Bob", 3), ("Cy", 2), ("Dee", 1))],
    )
    cli.ok("encounter", "next")  # Bob is up
    doc = cli.json("encounter", "remove", "Ann")  # before the current one
    assert (names(doc), doc["current"], doc["removed"]) == (["Bob", "Cy", "Dee"], "Bob", "Ann")
    doc = cli.json("encounter", "remove", "dee")  # after it, any case
    assert (names(doc), doc["current"], doc["round"]) == (["Bob", "Cy"], "Bob", 1)
    out = cli.ok("encounter", "remove", "Bob").stdout  # the one up: the next one's turn starts
    assert out.startswith("ruling 10: ") and "Bob" not in out.split("\n", 1)[1]  # gone from the order shown
    doc = cli.json("encounter", "show")
    assert (names(doc), doc["current"], doc["round"]) == (["Cy"], "Cy", 1)
    log = cli.ok("encounter", "log").stdout
    assert "Bob leaves the encounter; Cy's turn (round 1)" in log


def test_removing_the_last_one_in_the_order_while_up_starts_a_new_round(cli: Cli) -> None:
    """gameplay.txt, Initiative: a round ends when the order comes back to its top."""
    setup(cli, "hnh", ("Ann", "--pc"), ("Bob",), ("Cy",))
    cli.ok("encounter", "start", "Ann", "Bob", "Cy", "--init", "Ann=3", "--init", "Bob=2", "--init", "Cy=1")
    cli.ok("encounter", "next")
    cli.ok("encounter", "next")
    cli.ok("damage", "Bob", "--amount", "9")
    doc = cli.json("encounter", "remove", "Cy")
    assert (doc["current"], doc["round"]) == ("Ann", 2)
    cli.ok("undo")
    doc = cli.json("encounter", "show")
    assert (names(doc), doc["current"], doc["round"]) == (["Ann", "Bob", "Cy"], "Cy", 1)


def test_encounter_remove_refusals(cli: Cli) -> None:
    """Bad input: one error line, a hint (a did-you-mean for a near name), exit 2, nothing appended."""
    setup(cli, "hnh", ("Ann", "--pc"), ("Bob",))
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=3", "--init", "Bob=2")
    before = event_count(cli.db)
    r = cli("encounter", "remove", "Bbo")
    assert (r.exit_code, r.stderr) == (2, "error: Bbo is not in the encounter\nhint: did you mean 'Bob'?\n")
    cli.ok("encounter", "remove", "Bob")
    before = event_count(cli.db)
    r = cli("encounter", "remove", "Ann")
    assert (r.exit_code, r.stderr) == (
        2,
        "error: Ann is the last one in the encounter\nhint: end it instead: ledger encounter end\n",
    )
    assert event_count(cli.db) == before


def test_remove_ends_surprise_with_the_fight(cli: Cli) -> None:
    """hnh-site/conditions.txt, Surprised: it lasts for the combat; a character who leaves it is no longer surprised."""
    setup(cli, "hnh", ("Ann", "--pc"), ("Thugs", "--minion", "--count", "3"))
    cli.ok("encounter", "start", "Ann", "Thugs", "--surprised", "Thugs", "--init", "Ann=3", "--init", "Thugs=-7")
    assert "surprised" in cli.json("character", "show", "Thugs")["conditions"]
    cli.ok("encounter", "remove", "Thugs")
    assert "surprised" not in cli.json("character", "show", "Thugs")["conditions"]


def test_init_sets_initiative_by_hand_recorded_in_the_intent(cli: Cli) -> None:
    """CLI.md (second round): `encounter start --init NAME=VALUE` (repeatable) sets initiative by hand."""
    setup(cli, "hnh", ("Ann", "--trait", "agility=3", "--pc"), ("Bob", "--trait", "agility=1"), ("Cy",))
    doc = cli.json(
        "encounter", "start", "Ann", "Bob", "Cy", "--init", "Bob=17", "--init", "cy=-2", "--roll", "Ann=0,0,0"
    )
    assert [(e["name"], e["initiative"]) for e in doc["order"]] == [("Bob", 17), ("Ann", 3), ("Cy", -2)]
    assert intent_of(cli, 5)["init"] == {"Bob": 17, "cy": -2}
    rolls = [e for e in doc["events"] if e["type"] == "DiceRolled"]
    assert [e["character"] for e in rolls] == ["Ann"]  # the entered initiatives rolled nothing


def test_init_ties_are_still_settled_by_the_rules(cli: Cli) -> None:
    """gameplay.txt, Initiative: ties go to the higher Dodge, then Agility, then Awareness, then a roll-off."""
    setup(cli, "hnh", ("Ann", "--trait", "agility=1", "--pc"), ("Bob", "--trait", "agility=3"), ("Cy",), ("Dee",))
    doc = cli.json("encounter", "start", "Ann", "Bob", "--init", "Ann=5", "--init", "Bob=5")
    assert names(doc) == ["Bob", "Ann"]  # the higher Agility
    cli.ok("encounter", "end")
    doc = cli.json(
        "encounter",
        "start",
        "Cy",
        "Dee",
        "--init",
        "Cy=2",
        "--init",
        "Dee=2",
        "--roll",
        "rolloff-Cy=-,-,-",
        "--roll",
        "rolloff-Dee=+,+,+",
    )
    assert names(doc) == ["Dee", "Cy"]  # all equal: the roll-off, in 3dF like the initiative roll
    assert {e["character"] for e in doc["events"] if e["type"] == "DiceRolled"} == {"Cy", "Dee"}


def test_init_refusals(cli: Cli) -> None:
    """Bad input: one error line (and hint), exit 2, nothing appended."""
    setup(cli, "d20", ("Rex",), ("Vex",))
    before = event_count(cli.db)
    cases = [
        (("--init", "Rex=high"), "error: --init Rex: initiative is a whole number, got 'high'\n"),
        (("--init", "Rex"), "error: --init 'Rex' is not NAME=VALUE\nhint: for example --init Ann=14\n"),
        (("--init", "Rexx=4"), "error: --init Rexx: not one of the participants\nhint: did you mean 'Rex'?\n"),
        (
            ("--init", "Rex=4", "--roll", "rex=12"),
            "error: Rex: give an initiative (--init) or its roll (--roll), not both\n",
        ),
    ]
    for extra, err in cases:
        r = cli("encounter", "start", "Rex", "Vex", *extra)
        assert (r.exit_code, r.stderr) == (2, err)
    assert event_count(cli.db) == before


def test_acting_out_of_turn_is_noted_on_stderr_and_recorded(cli: Cli) -> None:
    """CLI.md, Additions agreed in the second round (`encounter next`): an action by someone who is not up prints a
    one-line note (reactions are legitimate)."""
    setup(cli, "hnh", ("Ann", "--trait", "awareness=2", "--pc"), ("Bob",), ("Cy",))
    r = cli.ok("check", "Bob", "awareness", "--dc", "5")
    assert r.stderr == ""  # no encounter: no turns
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=3", "--init", "Bob=2")
    assert cli.ok("check", "Ann", "awareness", "--dc", "5").stderr == ""
    r = cli.ok("attack", "Bob", "Ann", "--rank", "2", "--roll", "attack=0,0,0")
    assert r.stderr == "note: it is Ann's turn, not Bob's (recorded all the same)\n"
    r = cli.ok("check", "Cy", "awareness", "--dc", "5")
    assert r.stderr == "note: it is Ann's turn, not Cy's; Cy is not in the encounter (recorded all the same)\n"
    doc = cli.json("check", "bob", "awareness", "--dc", "5")
    assert doc["not_up"] == {"name": "Bob", "up": "Ann", "in_encounter": True}
    cli.ok("encounter", "next")
    assert cli.ok("check", "Bob", "awareness", "--dc", "5").stderr == ""
