"""`ledger retract` and `ledger why` through the CLI (CLI.md, Commands; docs/cli.md)."""

from __future__ import annotations

import pytest

from tests.conftest import Cli, Recorded, event_count


def _record_fight(cli: Cli) -> None:
    """hnh: Ann takes three direct hits; the second one is contested."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "toughness=2", "--pc")
    cli.ok("session", "start", "One")  # 3
    cli.ok("damage", "Ann", "--amount", "4")  # 4: 6 -> 2
    cli.ok("damage", "Ann", "--amount", "3")  # 5: 2 -> -1, dying
    cli.ok("session", "end")  # 6
    cli.ok("session", "start", "Two")  # 7
    cli.ok("damage", "Ann", "--amount", "2")  # 8: -1 -> -3, dead


@pytest.fixture
def fight(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_fight records, recorded once and copied for this test."""
    return recorded(cli, _record_fight)


def test_dry_run_shows_who_would_not_have_died_and_appends_nothing(fight: Cli, db: str):
    """CLI.md, Commands (`retract`): --dry-run shows the diff only (deaths, HP) and appends nothing."""
    before = event_count(db)
    r = fight.ok("retract", "5", "--dry-run")
    assert "HP -3 -> 0" in r.stdout and "-dead" in r.stdout and "+battered" in r.stdout
    assert event_count(db) == before


def test_retract_across_sessions_re_derives_later_rulings(fight: Cli):
    """DESIGN.md, What it is for: "that hit in session 3 should have missed": a later ruling is re-derived, not replayed
    as a delta."""
    doc = fight.json("retract", "5", "--yes")
    assert [c["ruling"] for c in doc["rederived"]] == [8]
    ann = fight.json("character", "show", "Ann")
    assert (ann["hp"], ann["conditions"]) == (
        0,
        ["battered"],
    )  # humans-and-heroes.txt, Health Points: exactly 0 is battered


def test_retract_without_yes_off_a_terminal_is_refused(fight: Cli, db: str):
    """CLI.md, Commands (`retract`): appends only on confirmation (or --yes); nothing appended otherwise."""
    before = event_count(db)
    r = fight("retract", "5")
    assert r.exit_code == 2 and event_count(db) == before


def test_log_marks_the_retracted_ruling_and_undo_reinstates_it(fight: Cli):
    """CLI.md, Commands (`retract`): the log marks retracted rulings with who and when; `undo` right after a retraction
    undoes it."""
    fight.ok("retract", "5", "--yes")
    marked = {e["ruling"] for e in fight.json("log") if e["retracted"]}
    assert 5 in marked
    fight.ok("undo")
    assert fight.json("character", "show", "Ann")["hp"] == -3
    assert 5 not in {e["ruling"] for e in fight.json("log") if e["retracted"]}


def test_retracting_a_retraction_reinstates_the_ruling(fight: Cli):
    """CLI.md, Commands (`retract`): retracting a retraction reinstates the ruling."""
    x = fight.json("retract", "5", "--yes")["ruling"]
    fight.ok("retract", str(x), "--yes")
    ann = fight.json("character", "show", "Ann")
    assert (ann["hp"], ann["conditions"]) == (
        -3,
        ["dead", "prone"],
    )  # the incapacitated fall prone (conditions.txt, Incapacitated)
    assert fight.ok("verify").stdout.startswith("ok")


def test_retracting_an_unknown_or_undo_ruling_is_refused(fight: Cli, db: str):
    """CLI.md, Commands (`retract`): only live rulings can be retracted; the campaign's creation can't."""
    fight.ok("undo")
    before = event_count(db)
    for n in ("1", "99", "9", "8"):
        assert fight("retract", n, "--yes").exit_code == 2, n
    assert event_count(db) == before


def test_a_roll_never_made_is_rolled_and_named(cli: Cli):
    """CLI.md, Commands (`retract`): where re-derivation needs a roll that was never made, the ledger rolls it (or takes
    --roll N.NAME) and says which."""
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Blaze", "--trait", "str=10", "--trait", "hp=10")
    cli.ok("character", "add", "Thug", "--trait", "dex=10", "--trait", "hp=10")
    cli.ok("act", "Blaze", "charge")  # 4: +2 to attack
    # 5: with the charge, 9 + 2 = 11 meets DR 10... make it miss without: 8 + 2 = 10 hits, 8 misses
    cli.ok("attack", "Blaze", "Thug", "--damage", "1d6", "--roll", "attack=8", "--roll", "damage=4")
    doc = cli.json("retract", "4", "--dry-run")
    assert doc["rederived"] and doc["rederived"][0]["ruling"] == 5
    doc = cli.json("retract", "4", "--yes", "--roll", "5.damage=6")
    assert cli.json("character", "show", "Thug")["hp"] == 10  # without the charge the attack misses: no damage


def test_why_explains_hp_by_rulings(fight: Cli):
    """docs/cli.md, ledger why: `ledger why NAME hp` lists the rulings that made the value."""
    doc = fight.json("why", "Ann", "hp")
    assert doc["value"] == -3
    assert [s["ruling"] for s in doc["because"]] == [2, 4, 5, 8]
    assert doc["because"][-1]["session"] == 2


def test_why_explains_a_condition(fight: Cli):
    """docs/cli.md, ledger why: why a condition is there."""
    doc = fight.json("why", "Ann", "dead")
    assert doc["value"] is True and doc["because"][-1]["ruling"] == 8


def test_timeline_and_earlier_sheets_follow_the_re_derived_history(fight: Cli):
    """DESIGN.md, The ruling: the unit of play, of audit and of undo (undo and retraction refold): after a retraction
    the HP timeline and `show --at` read as the history without it."""
    fight.ok("retract", "5", "--yes")
    points = [(p["ruling"], p["hp"]) for p in fight.json("timeline", "Ann")]
    assert points == [(2, 6), (4, 2), (8, 0)]
    assert fight.json("character", "show", "Ann", "--at", "8")["hp"] == 0
    assert fight.json("character", "show", "Ann", "--at", "5")["hp"] == 2


def test_rebuild_after_a_retraction_gives_the_same_views(fight: Cli):
    """CLI.md, Commands (`retract`): read models stay rebuildable after retractions."""
    fight.ok("retract", "5", "--yes")
    before = (fight.json("timeline", "Ann"), fight.json("character", "list"), fight.json("log"))
    fight.ok("rebuild")
    assert (fight.json("timeline", "Ann"), fight.json("character", "list"), fight.json("log")) == before


def test_encounter_log_and_session_history_show_the_re_derived_outcomes(cli: Cli):
    """DESIGN.md, The ruling: the unit of play, of audit and of undo (undo and retraction refold): the encounter log and
    the session history read as the history without the ruling."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "toughness=2")
    cli.ok("character", "add", "Bob")
    cli.ok("session", "start")  # 4
    cli.ok("encounter", "start", "Ann", "Bob", "--roll", "Ann=+,0,0", "--roll", "Bob=0,0,0")  # 5
    cli.ok("damage", "Ann", "--amount", "5")  # 6: 6 -> 1
    cli.ok("damage", "Ann", "--amount", "3")  # 7: 1 -> -2, dying
    cli.ok("retract", "6", "--yes")
    log = cli.json("encounter", "log")
    hps = [
        e["data"]["hp"] for t in log["turns"] for r in t["rulings"] for e in r["events"] if e["type"] == "DamageApplied"
    ]
    assert hps == [3]
    history = cli.json("session", "show", "1")
    seven = next(r for r in history["rulings"] if r["ruling"] == 7)
    assert [e["data"]["hp"] for e in seven["events"] if e["type"] == "DamageApplied"] == [3]
    assert next(r for r in history["rulings"] if r["ruling"] == 6)["retracted"]


def _record_two(cli: Cli) -> None:
    """hnh: Ann falls dying and then dead; Bob only takes small hits (humans-and-heroes.txt, Health Points)."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "toughness=2", "--pc")
    cli.ok("character", "add", "Bob")
    cli.ok("damage", "Ann", "--amount", "4")  # 4: Ann 6 -> 2
    cli.ok("damage", "Bob", "--amount", "1")  # 5: Bob 6 -> 5
    cli.ok("damage", "Ann", "--amount", "3")  # 6: Ann 2 -> -1, dying
    cli.ok("damage", "Bob", "--amount", "1")  # 7: Bob 5 -> 4
    cli.ok("damage", "Bob", "--amount", "1")  # 8: Bob 4 -> 3
    cli.ok("damage", "Ann", "--amount", "2")  # 9: Ann -1 -> -3, dead


@pytest.fixture
def two(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_two records, recorded once and copied for this test."""
    return recorded(cli, _record_two)


def test_a_changed_outcome_is_told_as_its_sentence_before_and_after(two: Cli):
    """humans-and-heroes.txt, Health Points: without ruling 4 Ann never falls below 0, so rulings 6 and 9 change
    outcome (no longer dying, no longer dead); the diff leads with each as the describer's sentence, was and now."""
    out = two.ok("retract", "4", "--dry-run").stdout.splitlines()
    assert out[1] == "Outcomes that change:"
    assert out[2:5] == [
        "  ruling 6 (damage):",
        "    was: Ann takes 3 damage: HP 2 -> -1, now dying and prone.",
        "    now: Ann takes 3 damage: HP 6 -> 3.",
    ]
    assert "    now: Ann takes 2 damage: HP 3 -> 1." in out
    assert out[out.index("Final states:") + 1].startswith("  Ann: HP -3 -> 1, conditions -dead -prone")


def test_values_that_only_shift_are_one_line_per_character(two: Cli):
    """Without ruling 5 Bob's later hits land the same, each 1 HP higher: one line for Bob, no ruling listed."""
    out = two.ok("retract", "5", "--dry-run").stdout.splitlines()
    assert "No outcome changes." in out and "ruling 7 (damage):" not in "\n".join(out)
    assert "  Bob: HP +1 from ruling 7 on (2 rulings; final HP 3 -> 4)" in out


def test_full_tells_every_re_derived_ruling(two: Cli):
    """`--full` tells the rulings that only shift too, each as its sentence before and after."""
    out = two.ok("retract", "5", "--dry-run", "--full").stdout.splitlines()
    assert out[1] == "Every re-derived ruling:"
    assert out[2:5] == [
        "  ruling 7 (damage):",
        "    was: Bob takes 1 damage: HP 5 -> 4.",
        "    now: Bob takes 1 damage: HP 6 -> 5.",
    ]
    assert "    now: Bob takes 1 damage: HP 5 -> 4." in out


def test_json_keeps_every_re_derived_ruling_and_says_which_change_an_outcome(two: Cli):
    """`--json` has every re-derived ruling in full, the outcome-changing ones named, the shifts per character."""
    doc = two.json("retract", "5", "--dry-run")
    assert [c["ruling"] for c in doc["rederived"]] == [7, 8] and doc["outcomes"] == []
    assert [(s["name"], s["rulings"], s["hp"], s["final_hp"]) for s in doc["shifts"]] == [
        ("Bob", [7, 8], [1, 1], [3, 4])
    ]
    doc = two.json("retract", "4", "--dry-run")
    assert doc["outcomes"] == [6, 9] and doc["shifts"] == []


def test_the_committed_retraction_prints_the_same_readable_diff(two: Cli):
    """`--yes` prints what it appended in the same order: the retracted ruling's sentence, outcomes, shifts, final
    states."""
    out = two.ok("retract", "5", "--yes").stdout
    assert out.startswith(
        "ruling 10: retracted ruling 5 (damage): Bob takes 1 damage: HP 6 -> 5.\nNo outcome changes.\nValues "
        "that only shift:"
    )
