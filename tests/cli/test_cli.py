"""The real CLI through CliRunner and subprocesses: exit codes, one-line errors, JSON shapes (CLI.md)."""

from __future__ import annotations

import os
import subprocess
import sys

import click
import orjson
import pytest

from commands.main import cli as ledger_cli
from tests.conftest import Cli, Recorded, event_count


def all_commands(group: click.Group, prefix: tuple[str, ...] = ()):
    if hasattr(group, "load_all"):
        group.load_all()
    for name, cmd in group.commands.items():
        yield (*prefix, name), cmd
        if isinstance(cmd, click.Group):
            yield from all_commands(cmd, (*prefix, name))


def test_every_command_has_help_text():
    """STYLE.md, sqlite-utils: a test checks that every command has help text."""
    for path, cmd in all_commands(ledger_cli):
        assert (cmd.help or "").strip(), f"ledger {' '.join(path)} has no help"


def test_the_agreed_surface_exists():
    """CLI.md, Commands: the agreed names are there (extend, don't break)."""
    names = {" ".join(p) for p, _ in all_commands(ledger_cli)}
    for required in [
        "init",
        "session start",
        "session end",
        "character add",
        "character list",
        "character show",
        "roll",
        "damage",
        "condition add",
        "condition remove",
        "log",
        "timeline",
        "undo",
        "redo",
        "verify",
        "rebuild",
        "demo",
    ]:
        assert required in names


def _record_hnh(cli: Cli) -> None:
    """The ledger the hnh fixture starts from."""
    cli.ok("init", "--system", "hnh", "--name", "Test")
    cli.ok("character", "add", "Ann", "--trait", "agility=3", "--trait", "toughness=4", "--pc")


@pytest.fixture
def hnh(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_hnh records, recorded once and copied for this test."""
    return recorded(cli, _record_hnh)


def test_appending_commands_print_the_ruling_number(hnh: Cli):
    """CLI.md, JSON shapes: every command that appends prints the ruling's number."""
    assert hnh.json("damage", "Ann", "--amount", "2")["ruling"] == 3
    assert hnh.ok("condition", "add", "Ann", "dazed").stdout.startswith("ruling 4:")


def test_character_show_json_shape(hnh: Cli):
    """CLI.md, JSON shapes: character show has name, system, hp, max_hp, conditions, traits, resources."""
    hnh.ok("damage", "Ann", "--amount", "6")
    doc = hnh.json("character", "show", "ann")
    assert doc["name"] == "Ann" and doc["system"] == "hnh"
    assert (doc["hp"], doc["max_hp"]) == (0, 6)
    assert doc["conditions"] == ["battered"]  # humans-and-heroes.txt, Health Points: exactly 0 HP is battered
    assert doc["traits"] == {"agility": 3, "toughness": 4}
    assert "victory-points" in doc["resources"]


def test_character_list_is_an_array_of_objects(hnh: Cli):
    """CLI.md, JSON shapes: character list is an array, one object per character."""
    hnh.ok("character", "add", "Grunt", "--minion")
    rows = hnh.json("character", "list")
    assert [(r["name"], r["hp"], r["max_hp"]) for r in rows] == [("Ann", 6, 6), ("Grunt", 1, 1)]


def test_pnp_minion_group_shows_its_count(cli: Cli):
    """CLI.md, JSON shapes: for pnp hp/max_hp are Health; a minion group adds count."""
    cli.ok("init", "--system", "pnp")
    cli.ok("character", "add", "Goons", "--minion", "--count", "4", "--trait", "threat=2")
    cli.ok("damage", "Goons", "--amount", "3")
    doc = cli.json("character", "show", "Goons")
    assert doc["count"] == 1 and doc["hp"] == 1


def test_log_json_has_the_agreed_fields_and_marks_retractions(hnh: Cli):
    """CLI.md, JSON shapes: log entries carry seq, ruling, type, character, data, actor, session, at, retracted."""
    hnh.ok("session", "start", "One")
    hnh.ok("damage", "Ann", "--amount", "2")
    hnh.ok("undo")
    log = hnh.json("log")
    assert all(
        set(e) == {"seq", "ruling", "type", "character", "data", "actor", "session", "at", "retracted"} for e in log
    )
    dmg = next(e for e in log if e["type"] == "DamageApplied")
    assert dmg["character"] == "Ann" and dmg["data"]["amount"] == 2 and dmg["session"] == 1 and dmg["actor"] == "tester"
    assert dmg["retracted"]["by"] == dmg["ruling"] + 1 and dmg["retracted"]["actor"] == "tester"
    assert [e["seq"] for e in log] == sorted(e["seq"] for e in log)


def test_log_filters_by_character_and_session_and_hides_bookkeeping(hnh: Cli):
    """CLI.md, log: --character, --session, and --all adds the ledger's own bookkeeping events."""
    hnh.ok("character", "add", "Bob")
    hnh.ok("session", "start")
    hnh.ok("damage", "Bob", "--amount", "1")
    assert {e["character"] for e in hnh.json("log", "--character", "bob")} == {"Bob"}
    assert {e["ruling"] for e in hnh.json("log", "--session", "1")} == {4, 5}
    assert not any(e["type"] == "RulingChained" for e in hnh.json("log"))
    assert any(e["type"] == "RulingChained" for e in hnh.json("log", "--all"))


def test_timeline_lists_hp_points_without_undone_rulings(hnh: Cli):
    """CLI.md, timeline: HP over time; undone rulings are not part of the history."""
    hnh.ok("damage", "Ann", "--amount", "2")
    hnh.ok("damage", "Ann", "--amount", "3")
    hnh.ok("undo")
    hnh.ok("damage", "Ann", "--amount", "1")
    points = hnh.json("timeline", "Ann")
    assert [(p["ruling"], p["hp"]) for p in points] == [(2, 6), (3, 4), (6, 3)]
    assert set(points[0]) >= {"ruling", "hp", "at"}


@pytest.mark.parametrize(
    "args",
    [
        ("damage", "Nobody", "--amount", "1"),
        ("damage", "Ann", "--amount", "-2"),
        ("damage", "Ann", "--amount", "lots"),
        ("character", "add", "Ann"),
        ("character", "add", "Cy", "--trait", "agility=high"),
        ("character", "add", "Cy", "--trait", "agility"),
        ("condition", "add", "Ann", "sparkly"),
        ("roll", "3dF", "--roll", "roll=+,+"),
        ("roll", "3dF", "--roll", "roll=2,0,1"),
        ("roll", "3dF", "--roll", "other=+,+,+"),
        ("roll", "banana"),
        ("init", "--system", "hnh"),
        ("session", "end"),
        ("redo",),
    ],
)
def test_bad_input_is_one_error_line_exit_2_and_nothing_appended(hnh: Cli, db: str, args):
    """CLI.md, Exit codes: 2 for bad usage or input; one line on stderr (and an optional hint); nothing appended."""
    before = event_count(db)
    r = hnh(*args)
    assert r.exit_code == 2, r.stdout
    lines = r.stderr.strip().splitlines()
    assert lines[0].startswith("error: ") and len(lines) <= 2 and "Traceback" not in r.stderr
    assert event_count(db) == before


def test_unknown_system_is_refused(cli: Cli, db: str):
    """CLI.md, init: --system is one of hnh, d20, pnp."""
    r = cli("init", "--system", "gurps")
    assert r.exit_code == 2 and r.stderr.startswith("error: ")


def test_reads_before_init_are_refused_cleanly(cli: Cli):
    """DESIGN.md, Errors: one clear line, no traceback, when there is no campaign yet."""
    r = cli("character", "list")
    assert r.exit_code == 2 and "no campaign" in r.stderr


def test_an_uncreatable_database_is_exit_2(tmp_path):
    """DESIGN.md, Errors and bad input: an uncreatable database: a clear message, exit 2, no traceback."""
    r = Cli(str(tmp_path / "missing" / "folder" / "x.ledger"))("init", "--system", "hnh")
    assert r.exit_code == 2 and "does not exist" in r.stderr


def test_an_unreachable_postgres_is_exit_2():
    """DESIGN.md, Errors and bad input: an unreachable database is a clear message and exit 2."""
    r = Cli("postgresql+psycopg://nobody@127.0.0.1:9/nowhere")("init", "--system", "hnh")
    assert r.exit_code == 2 and r.stderr.startswith("error: can't open the ledger")


def test_verify_exits_0_when_intact(hnh: Cli):
    """CLI.md, verify: exit 1 on any problem, so 0 when the chain is intact."""
    r = hnh("verify")
    assert r.exit_code == 0 and r.stdout.startswith("ok:")


def test_verify_exits_1_with_one_line_per_problem(tmp_path):
    """CLI.md, Exit codes: 1 when a check found problems; beancount-style one line per problem."""
    import sqlite3

    sqlite_db = str(tmp_path / "tampered.ledger")
    c = Cli(sqlite_db)
    c.ok("init", "--system", "d20")
    c.ok("character", "add", "Bo", "--trait", "hp=9")
    c.ok("damage", "Bo", "--amount", "2")
    con = sqlite3.connect(sqlite_db)
    con.execute(
        "UPDATE stored_events SET state = replace(state, '\"amount\":2', '\"amount\":9') WHERE topic LIKE "
        "'%DamageApplied'"
    )
    con.commit()
    con.close()
    r = c("verify")
    assert r.exit_code == 1 and "hash mismatch" in r.stdout
    doc = orjson.loads(c("--json", "verify").stdout)
    assert doc["ok"] is False and doc["problems"]


def test_rebuild_reports_and_keeps_the_views(hnh: Cli):
    """CLI.md, rebuild: rebuild every projection from the event log."""
    before = hnh.json("character", "show", "Ann")
    hnh.ok("rebuild")
    assert hnh.json("character", "show", "Ann") == before


def test_seed_makes_rolls_reproducible(hnh: Cli, tmp_path):
    """CLI.md, --seed: the ledger's own rolls are reproducible."""
    other = Cli(str(tmp_path / "other.ledger"))
    other.ok("init", "--system", "hnh", "--name", "Test")
    other.ok("character", "add", "Ann", "--trait", "agility=3", "--trait", "toughness=4", "--pc")
    a = hnh.json("roll", "3dF+1", seed=99)["roll"]
    b = other.json("roll", "3dF+1", seed=99)["roll"]
    assert a["faces"] == b["faces"] and a["source"] == "seeded"


def test_the_console_script_runs_show_as_a_subprocess(hnh: Cli, db: str):
    """CLI.md: the `ledger` command itself, in a fresh process, with LEDGER_DB from the environment."""
    env = {**os.environ, "LEDGER_DB": db}
    out = subprocess.run(
        [sys.executable, "-m", "commands", "--json", "character", "show", "Ann"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert orjson.loads(out.stdout)["name"] == "Ann"


def test_demo_runs_on_a_fresh_folder(tmp_path):
    """README, Quickstart: `ledger demo` plays a scripted session in each system and shows sheets and a timeline."""
    out = subprocess.run(
        [sys.executable, "-m", "commands", "demo", "--db", str(tmp_path / "demo.ledger")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    for system in ("hnh", "d20", "pnp"):
        assert f"== {system}" in out.stdout
        assert (tmp_path / f"demo-{system}.ledger").exists()
    assert "HP timeline of" in out.stdout


def test_commands_on_a_missing_file_create_nothing(tmp_path):
    """DESIGN.md, Errors and bad input: a refusal appends nothing, and does not leave an empty ledger file behind."""
    path = tmp_path / "typo.ledger"
    for args in (("log",), ("damage", "Ann", "--amount", "1"), ("character", "list")):
        r = Cli(str(path))(*args)
        assert r.exit_code == 2 and "no campaign" in r.stderr
    assert not path.exists()


def test_ledger_alone_prints_help_and_exits_0():
    """CLI.md: the command line teaches; `ledger` with no command shows the help."""
    from click.testing import CliRunner

    r = CliRunner().invoke(ledger_cli, [])
    assert r.exit_code == 0 and "Commands:" in r.stdout


def test_a_damaged_event_is_reported_not_traced(tmp_path):
    """CLI.md, Exit codes: verify exits 1 with one line per problem; other commands refuse in one line (no
    traceback)."""
    import sqlite3

    path = str(tmp_path / "damaged.ledger")
    c = Cli(path)
    c.ok("init", "--system", "hnh")
    c.ok("character", "add", "Ann")
    con = sqlite3.connect(path)
    con.execute("UPDATE stored_events SET state = x'7b7b7b' WHERE rowid = 2")
    con.commit()
    con.close()
    r = c("rebuild")
    assert r.exit_code == 2 and r.stderr.startswith("error: event 2") and "Traceback" not in r.stderr
    r = c("verify")
    assert r.exit_code == 1 and "hash mismatch" in r.stdout and "Traceback" not in r.stderr


def test_a_sub_command_declared_in_another_module_is_found_after_either_loads(cli: Cli) -> None:
    """CLI.md, session show: `log` (whose module also declares `session show`) run before `session show` in one
    process leaves `session show` reachable."""
    cli.ok("init", "--system", "hnh")
    cli.ok("session", "start", "One")
    cli.ok("log")
    assert "session 1: One" in cli.ok("session", "show", "1").stdout
