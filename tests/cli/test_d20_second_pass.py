"""d20 Supers, second pass (d20-supers.txt), through the real CLI; each test cites its passage."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Cli, Recorded, event_count


def event(result: Any, kind: str) -> dict[str, Any]:
    return next(e["data"] for e in result["events"] if e["type"] == kind)


def state(cli: Cli, *names: str) -> list[Any]:
    """Every named sheet as `character show --json` prints it."""
    return [cli.json("character", "show", n) for n in names]


def _record_d20(cli: Cli) -> None:
    """The ledger the d20 fixture starts from."""
    cli.ok("init", "--system", "d20")
    cli.ok(
        "character",
        "add",
        "Zip",
        "--trait",
        "dex=14",
        "--trait",
        "speed=60",
        "--trait",
        "hp=12",
        "--trait",
        "acrobatics=5",
        "--trait",
        "attack=2",
        "--pc",
    )
    cli.ok("character", "add", "Thug", "--trait", "hp=10", "--trait", "dn=1")


@pytest.fixture
def d20(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_d20 records, recorded once and copied for this test."""
    return recorded(cli, _record_d20)


def refused(cli: Cli, db: str, *args: str) -> Any:
    """Run a command that must be refused: exit 2, one error line, nothing appended."""
    before = event_count(db)
    r = cli(*args)
    assert r.exit_code == 2, r.stdout + r.stderr
    assert r.stderr.startswith("error: ") and "Traceback" not in r.stderr
    assert event_count(db) == before
    return r


# -- item 1: check takes skills ------------------------------------------------------------------
@pytest.mark.parametrize("number", ["hp", "speed", "armor", "dn", "attack", "level", "Speed"])
def test_check_refuses_sheet_numbers_and_lists_the_skills(d20: Cli, db: str, number: str):
    """d20-supers.txt, Collosal Failures and Spectacular Success ("when doing skills"): a check rolls a skill, not HP or
    speed."""
    r = refused(d20, db, "check", "Zip", number, "--dc", "10", "--roll", "check=10")
    assert "not a skill" in r.stderr
    assert "str, dex, con, int, wis, cha, acrobatics" in r.stderr


def test_check_of_a_skill_the_sheet_lacks_names_it_and_lists_the_skills(d20: Cli, db: str):
    """d20-supers.txt, Collosal Failures and Spectacular Success: a skill the sheet lacks is refused with the skills it
    has."""
    r = refused(d20, db, "check", "Zip", "hacking", "--dc", "10")
    assert "no skill 'hacking'" in r.stderr and "acrobatics" in r.stderr


def test_check_of_a_skill_adds_its_rank_and_undo_restores(d20: Cli):
    """d20-supers.txt, Collosal Failures and Spectacular Success: a skill check is 1d20 + the skill."""
    before = state(d20, "Zip")
    r = d20.json("check", "Zip", "acrobatics", "--dc", "15", "--roll", "check=10")
    assert event(r, "CheckResolved")["total"] == 15 and event(r, "CheckResolved")["success"] is True
    d20.ok("undo")
    assert state(d20, "Zip") == before


# -- item 2: declining the confirming and instant-death rolls ---------------------------------------
def test_the_confirming_roll_is_taken_by_default_and_can_be_declined(d20: Cli):
    """d20-supers.txt, Collosal Failures and Spectacular Success: "after you roll a 20 ... you can roll again"."""
    r = d20.json(
        "attack",
        "Zip",
        "Thug",
        "--damage",
        "1d6",
        "-o",
        "confirm=no",
        "--roll",
        "attack=20",
        "--roll",
        "confirm=19",
        "--roll",
        "damage=4",
    )
    hit = event(r, "AttackResolved")
    assert hit["hit"] is True and hit["critical"] is False and hit["confirm"] is None
    assert hit["declined"] == ["confirm"]
    assert r["target"]["hp"] == 10 - (4 - 1)  # no Str bonus (Str 10), DN 1, not doubled
    unused = [e["data"]["name"] for e in r["events"] if e["type"] == "DiceRolled" and e["data"].get("used") is False]
    assert unused == ["confirm"]


def test_the_instant_death_roll_can_be_declined_and_the_critical_stands(d20: Cli):
    """d20-supers.txt: "If the first two break the DR you can roll a third time": the attacker may not."""
    before = state(d20, "Zip", "Thug")
    r = d20.json(
        "attack",
        "Zip",
        "Thug",
        "--damage",
        "1d6",
        "-o",
        "instant-death=no",
        "--roll",
        "attack=20",
        "--roll",
        "confirm=18",
        "--roll",
        "damage=4",
    )
    hit = event(r, "AttackResolved")
    assert hit["critical"] is True and hit["instant-death"] is False and hit["death"] is None
    assert hit["declined"] == ["death"]
    assert r["target"]["hp"] == 10 - (4 * 2 - 1)
    d20.ok("undo")
    assert state(d20, "Zip", "Thug") == before


def test_by_default_the_three_rolls_are_taken(d20: Cli):
    """d20-supers.txt: a 20, a second roll and a third that break the DR: the enemy dies instantly (the default)."""
    r = d20.json(
        "attack", "Zip", "Thug", "--roll", "attack=20", "--roll", "confirm=18", "--roll", "death=17", "--damage", "1d6"
    )
    assert event(r, "AttackResolved")["instant-death"] is True and event(r, "AttackResolved")["declined"] == []


def test_declining_is_kept_in_the_intent_so_a_retraction_re_derives_it(d20: Cli):
    """d20-supers.txt: the choice not to roll again is the attacker's; the ruling's intent keeps it (re-derivation
    honours it)."""
    d20.ok("damage", "Thug", "--amount", "1")  # ruling 4, retracted below
    d20.ok("attack", "Zip", "Thug", "--damage", "1d6", "-o", "confirm=no", "--roll", "attack=20", "--roll", "damage=4")
    r = d20.json("retract", "4", "--yes")
    assert r["rederived"] and r["new_rolls"] == []  # re-decided without a confirming roll
    assert d20.json("character", "show", "Thug")["hp"] == 7  # 10 - (4 - 1), uncritical


# -- item 4: minions -----------------------------------------------------------------------------
@pytest.mark.parametrize("extra", [["--minion"], ["--minion", "--count", "4"]])
def test_a_minion_group_is_refused_in_d20(d20: Cli, db: str, extra: list[str]):
    """d20-supers.txt has no minion rule ("Basics of Combat"): a group sharing one HP pool is refused, with what to
    do."""
    r = refused(d20, db, "character", "add", "Goons", "--trait", "hp=5", *extra)
    assert "not in the rules of d20 Supers" in r.stderr and "hint:" in r.stderr


# -- item 5: light weapons however written ----------------------------------------------------------
@pytest.mark.parametrize(
    "weapon", ["automatic-pistol", "Automatic Pistol", "AUTOMATIC_PISTOL", "light  hammer", "Dagger"]
)
def test_a_light_off_hand_weapon_is_recognised_however_written(d20: Cli, weapon: str):
    """d20-supers.txt, Two Weapon Fighting and Light Weapons: a light off-hand weapon gives -4/-8 instead of -6/-10."""
    r = d20.json("attack", "Zip", "Thug", "-o", "two-weapon=off", "-o", f"off-weapon={weapon}", "--roll", "attack=10")
    assert event(r, "AttackResolved")["attack-parts"]["two-weapon"] == -8


def test_an_off_hand_weapon_not_on_the_list_is_not_light(d20: Cli):
    """d20-supers.txt, Light Weapons: a longsword is not on the list: -10 off hand."""
    r = d20.json("attack", "Zip", "Thug", "-o", "two-weapon=off", "-o", "off-weapon=Longsword", "--roll", "attack=10")
    assert event(r, "AttackResolved")["attack-parts"]["two-weapon"] == -10


# -- item 6: subdual against normal damage -----------------------------------------------------------
def test_subdual_equal_to_hp_does_not_knock_out(d20: Cli):
    """d20-supers.txt, Types of Damage: "If your subdual damage exceeds normal damage": equal is not exceeding."""
    r = d20.json("damage", "Thug", "--amount", "10", "--subdual")
    assert r["character"]["hp"] == 10 and "unconscious" not in r["character"]["conditions"]


def test_subdual_above_current_hp_knocks_out_and_regular_damage_can_tip_it(d20: Cli):
    """d20-supers.txt, Types of Damage: subdual exceeding what the body has left (current HP) is unconsciousness."""
    d20.ok("damage", "Thug", "--amount", "6", "--subdual")  # 6 subdual, HP 10: awake
    assert "unconscious" not in d20.json("character", "show", "Thug")["conditions"]
    before = state(d20, "Thug")
    r = d20.json("damage", "Thug", "--amount", "5")  # HP 5 < 6 subdual
    assert r["character"]["hp"] == 5 and "unconscious" in r["character"]["conditions"]
    d20.ok("undo")
    assert state(d20, "Thug") == before


def test_a_first_punch_does_not_knock_out_a_fresh_character(d20: Cli):
    """d20-supers.txt, Types of Damage: read literally against damage taken, one punch would floor an unhurt hero; it
    does not."""
    r = d20.json("attack", "Zip", "Thug", "--roll", "attack=15", "--roll", "damage=2")
    assert r["target"]["counters"]["subdual"] == 1 and "unconscious" not in r["target"]["conditions"]


def test_healing_regular_damage_above_subdual_wakes(d20: Cli):
    """d20-supers.txt, Types of Damage: once subdual no longer exceeds HP the character is conscious again."""
    d20.ok("damage", "Thug", "--amount", "6")
    d20.ok("damage", "Thug", "--amount", "5", "--subdual")  # 5 > 4
    assert "unconscious" in d20.json("character", "show", "Thug")["conditions"]
    r = d20.json("recover", "Thug", "--amount", "2", "--cause", "first aid")  # HP 6 > 5
    assert "unconscious" not in r["character"]["conditions"]


# -- item 3: the action economy of a round ----------------------------------------------------------------
def fight(cli: Cli, *settings: str) -> Cli:
    cli.ok("init", "--system", "d20", *settings)
    cli.ok("character", "add", "Zip", "--trait", "hp=12", "--pc")
    cli.ok("character", "add", "Thug", "--trait", "hp=40")
    cli.ok("character", "add", "Kat", "--trait", "hp=12", "--pc")
    cli.ok("encounter", "start", "Zip", "Thug", "Kat", "--roll", "Zip=18", "--roll", "Thug=9", "--roll", "Kat=4")
    return cli


HIT = ("--roll", "attack=12", "--roll", "damage=2")


def encounter_state(db: str) -> dict[str, Any]:
    """The Encounter aggregate's whole state, read from the write side (the round's tally included)."""
    from ledger.application import Ledger
    from ledger.encounter import ENCOUNTER_ID

    led = Ledger(db)
    try:
        return dict(led.store.repository.get(ENCOUNTER_ID).state)
    finally:
        led.close()


def test_a_second_full_action_in_a_round_is_refused(cli: Cli, db: str):
    """d20-supers.txt, Attacks: "Full action - Any action which would take 6 seconds" -- a round "lasting 6 seconds"
    holds one."""
    fight(cli)
    cli.ok("act", "Zip", "action", "-o", "kind=full", "-o", "what=reload")
    r = refused(cli, db, "act", "Zip", "run")
    assert "already taken a full action this round" in r.stderr
    refused(cli, db, "attack", "Zip", "Thug", *HIT)  # a partial action after the full one
    cli.ok("act", "Zip", "action", "-o", "kind=free", "-o", "what=taunt")  # "does not count against other actions"
    cli.ok("encounter", "next")
    cli.ok("encounter", "next")
    cli.ok("encounter", "next")  # round 2: Zip's turn again
    cli.ok("act", "Zip", "run")


def test_partial_actions_then_a_full_one_is_refused(cli: Cli, db: str):
    """d20-supers.txt, Attacks: a partial action takes "less than 6 seconds"; a full one needs the whole round."""
    fight(cli)
    cli.ok("attack", "Zip", "Thug", *HIT)
    cli.ok("act", "Zip", "action", "-o", "what=draw an arrow")  # partial by default
    r = refused(cli, db, "act", "Zip", "action", "-o", "kind=full", "-o", "what=open a door")
    assert "full action takes the whole round" in r.stderr


def test_a_charge_includes_its_attack(cli: Cli, db: str):
    """d20-supers.txt, Charge: "he or she may make a charged attack, it is like a run": one full action, one attack with
    it."""
    fight(cli)
    cli.ok("act", "Zip", "charge")
    cli.ok("attack", "Zip", "Thug", *HIT)
    refused(cli, db, "attack", "Zip", "Thug", *HIT)


def test_one_attack_of_opportunity_per_round_against_one_foe(cli: Cli, db: str):
    """d20-supers.txt, Attack of Opportunity: "an extra attack per round"; "against either A or B, but, not both"."""
    fight(cli)
    cli.ok("act", "Zip", "action", "-o", "kind=full", "-o", "what=reload")
    cli.ok("attack", "Zip", "Thug", "-o", "free-attack=unaware", *HIT)  # extra: not against the round's actions
    r = refused(cli, db, "attack", "Zip", "Kat", "-o", "free-attack=has-the-drop", *HIT)
    assert "Attack of Opportunity this round (against Thug)" in r.stderr
    cli.ok("attack", "Kat", "Thug", "-o", "free-attack=unaware", *HIT)  # everyone's own
    for _ in range(3):
        cli.ok("encounter", "next")
    cli.ok("attack", "Zip", "Kat", "-o", "free-attack=unaware", *HIT)  # a new round


def test_undo_and_retraction_restore_the_rounds_tally_exactly(cli: Cli):
    """d20-supers.txt, Attacks: the tally is the live history's: an undone or retracted full action no longer counts."""
    fight(cli)
    before = encounter_state(cli.db)
    cli.ok("act", "Zip", "action", "-o", "kind=full", "-o", "what=reload")
    assert encounter_state(cli.db)["actions"]["by"]["Zip"]["full"] == 1
    cli.ok("undo")
    assert encounter_state(cli.db) == before
    run = cli.json("act", "Zip", "run")["ruling"]  # the undone full action is gone: this is the round's one
    cli.ok("undo")
    cli.ok("redo")
    assert cli("act", "Zip", "action", "-o", "kind=full").exit_code == 2  # redone: it counts again
    cli.ok("act", "Zip", "action", "-o", "kind=free", "-o", "what=shout")  # a later ruling, re-derived below
    cli.ok("retract", str(run), "--yes")
    cli.ok("act", "Zip", "action", "-o", "kind=full", "-o", "what=open a door")


def test_warn_setting_records_the_second_full_action_with_a_warning(cli: Cli):
    """d20-supers.txt, Attacks, read by a GM who wants to be told, not stopped (campaign setting
    action-economy=warn)."""
    fight(cli, "-o", "action-economy=warn")
    cli.ok("act", "Zip", "run")
    r = cli.json("act", "Zip", "action", "-o", "kind=full", "-o", "what=reload")
    assert r["warning"] == "Zip has already taken a full action this round"
    assert {"kind": "warning", "text": r["warning"], "character": "Zip"} in [
        e["data"] for e in r["events"] if e["type"] == "NoteRecorded"
    ]


def test_off_setting_keeps_no_tally_and_outside_encounters_nothing_is_counted(cli: Cli):
    """d20-supers.txt, Rounds: actions are counted in rounds, which only an encounter has; the GM may switch counting
    off."""
    fight(cli, "-o", "action-economy=off")
    cli.ok("act", "Zip", "run")
    cli.ok("act", "Zip", "action", "-o", "kind=full")
    cli.ok("encounter", "end")
    cli.ok("act", "Kat", "action", "-o", "kind=full")
    cli.ok("act", "Kat", "action", "-o", "kind=full")


@pytest.mark.parametrize(
    "args, says",
    [
        (("--system", "d20", "-o", "action-economy=maybe"), "can't be 'maybe'"),
        (("--system", "pnp", "-o", "action-economy=warn"), "no option"),
    ],
)
def test_bad_campaign_settings_are_refused(cli: Cli, args: tuple[str, ...], says: str):
    """d20-supers.txt, Attacks: the setting is refuse, warn or off, and P&P (no action economy) has none."""
    r = cli("init", *args)
    assert r.exit_code == 2 and says in r.stderr


def test_the_action_economy_in_the_session_shell(cli: Cli):
    """CLI.md, play: the shell runs the same commands: `act NAME action` is tallied and a second full action refused."""
    import subprocess
    import sys

    if cli.db.startswith("postgresql"):
        pytest.skip("the shell test runs on a SQLite file")
    fight(cli)
    r = subprocess.run(
        [sys.executable, "-m", "commands", "--db", cli.db, "--as", "tester", "play"],
        input="act Zip action -o kind=full -o what=reload\nact Zip run\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2
    assert "Zip takes a full action: reload." in r.stdout  # the GM's words, as typed
    assert "error: Zip has already taken a full action this round" in r.stderr


def test_a_major_action_by_a_disabled_character_knocks_them_out(cli: Cli):
    """d20-supers.txt, Damage: at 0 HP "you can not do anything major or you will fall unconcious"."""
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Zip", "--trait", "hp=5")
    cli.ok("damage", "Zip", "--amount", "5")
    r = cli.json("act", "Zip", "action", "-o", "what=shout a warning", "-o", "kind=free")
    assert "unconscious" not in r["character"]["conditions"]
    r = cli.json("act", "Zip", "action", "-o", "what=lift the car", "-o", "kind=full", "-o", "major=yes")
    assert "unconscious" in r["character"]["conditions"]
