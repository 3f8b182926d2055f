"""`ledger export` and `ledger import` through the real CLI (CLI.md, Commands: export, import)."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.conftest import REPO, Cli, Recorded, event_count


def _record_played(cli: Cli) -> None:
    """An hnh ledger: two sessions, an encounter, entered dice, an undo."""
    cli.ok("init", "--system", "hnh", "--name", "Bay City")
    cli.ok("character", "add", "Ann", "--trait", "agility=3", "--trait", "toughness=4", "--trait", "fighting=4", "--pc")
    cli.ok("character", "add", "Bob", "--trait", "toughness=2", "--trait", "parry=2", "--trait", "dodge=2")
    cli.ok("session", "start", "The heist")
    cli.ok("encounter", "start", "Ann", "Bob", "--roll", "Ann=+,+,0", "--roll", "Bob=-,0,0")
    cli.ok("roll", "3dF+3", "--for", "Ann", "--roll", "roll=+,0,+")
    cli.ok("damage", "Ann", "--amount", "4")
    cli.ok("damage", "Bob", "--amount", "5")
    cli.ok("undo")
    cli.ok("encounter", "next")
    cli.ok("encounter", "end")
    cli.ok("session", "end")
    cli.ok("session", "start", "Aftermath")
    cli.ok("condition", "add", "Ann", "dazed")


@pytest.fixture
def played(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_played records, recorded once and copied for this test."""
    return recorded(cli, _record_played)


def test_markdown_shows_sessions_dice_faces_outcomes_and_retractions(played: Cli):
    """docs/export-format.md, Markdown and HTML: a readable session history with rolls and their faces, outcomes,
    retractions noted."""
    md = played.ok("export", "--format", "md").stdout
    assert md.startswith("# Bay City: play history")
    assert "## Session 1: The heist" in md and "## Session 2: Aftermath" in md
    assert "`[+ 0 +]` = 5 (entered)" in md
    assert "Encounter 1 begins; initiative: Ann 5, Bob -1." in md and "Round 1: Bob's turn." in md
    assert "Ann takes 4 damage: HP 6 -> 2." in md
    assert "- ~~#8~~" in md and "**Undone** by ruling 9 (tester" in md  # an undo, said as one


def test_markdown_of_one_session_has_only_its_rulings(played: Cli):
    """CLI.md, export: --session N limits the history to that play session."""
    md = played.ok("export", "--format", "md", "--session", "2").stdout
    assert md.startswith("# Bay City: session 2, Aftermath")
    assert "Ann: now dazed." in md and "The heist" not in md and "takes 4 damage" not in md


def test_csv_has_one_row_per_event_with_its_envelope(played: Cli):
    """docs/export-format.md, CSV: one row per event with ruling, session, time, actor, character, type and the main
    values."""
    rows = list(csv.DictReader(io.StringIO(played.ok("export", "--format", "csv").stdout)))
    log = played.json("log")
    assert [int(r["seq"]) for r in rows] == [e["seq"] for e in log]
    roll = next(r for r in rows if r["type"] == "DiceRolled" and r["source"] == "entered" and r["roll"] == "roll")
    assert (roll["faces"], roll["total"], roll["character"], roll["session"], roll["actor"]) == (
        "[1,0,1]",
        "5",
        "Ann",
        "1",
        "tester",
    )
    dmg = next(r for r in rows if r["type"] == "DamageApplied" and r["character"] == "Bob")
    assert (dmg["amount"], dmg["hp"], dmg["retracted_by"], dmg["command"]) == ("5", "1", "9", "damage")
    assert orjson.loads(dmg["data"]) == {"amount": 5, "hp": 1}


def test_export_to_a_file_reports_counts(played: Cli, tmp_path: Path):
    """CLI.md, JSON shapes: a command that prints something has --json; -o writes the file."""
    out = tmp_path / "s1.html"
    doc = played.json("export", "--session", "1", "-o", str(out))
    assert doc["format"] == "html" and doc["file"] == str(out) and doc["rulings"] == 9
    assert out.read_text().startswith("<!doctype html>")


@pytest.mark.parametrize(
    "args, needle",
    [
        (("--format", "xml"), "unknown format 'xml'"),
        (("--format", "md", "--session", "7"), "there is no session 7"),
        (("--format", "jsonl", "--session", "1"), "JSONL exports the whole ledger"),
        (("--format", "html", "-o", "/nonexistent-folder/x.html"), "can't write /nonexistent-folder/x.html"),
        ((), "give --format"),
    ],
)
def test_bad_export_requests_are_one_error_line_and_exit_2(played: Cli, args: tuple[str, ...], needle: str):
    """DESIGN.md, Errors and bad input: bad input is one `error:` line on stderr, exit 2, nothing appended."""
    before = event_count(played.db)
    r = played("export", *args)
    assert r.exit_code == 2
    errors = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and needle in errors[0], r.stderr
    assert event_count(played.db) == before
    assert not os.path.exists("/nonexistent-folder")


def test_import_reproduces_the_ledger_through_the_cli(played: Cli, tmp_path: Path):
    """CLI.md, import: into an empty ledger, it reproduces it exactly; verify passes."""
    dump = tmp_path / "c.jsonl"
    played.ok("export", "--format", "jsonl", "-o", str(dump))
    copy = Cli(str(tmp_path / "copy.ledger"))
    doc = copy.json("import", str(dump))
    assert doc["events"] == event_count(played.db)
    for args in (("log", "--all"), ("character", "list"), ("timeline", "Ann"), ("export", "--format", "md")):
        assert copy(*args).stdout == played(*args).stdout
    assert copy.ok("verify").stdout.startswith("ok:")


def test_import_refusals_are_one_error_line_and_append_nothing(played: Cli, tmp_path: Path):
    """docs/export-format.md, What import checks, before writing anything: a tampered file or a non-empty target is
    refused: one error line, exit 2, nothing appended."""
    dump = tmp_path / "c.jsonl"
    played.ok("export", "--format", "jsonl", "-o", str(dump))
    r = played("import", str(dump))
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and "is not empty" in r.stderr
    dump.write_bytes(dump.read_bytes().replace(b'"title":"The heist"', b'"title":"The Heist"'))
    copy = Cli(str(tmp_path / "copy.ledger"))
    r = copy("import", str(dump))
    assert r.exit_code == 2 and r.stderr.splitlines()[0].startswith("error: ") and "was changed or damaged" in r.stderr
    assert event_count(copy.db) == 0
    r = copy("import", str(tmp_path / "missing.jsonl"))
    assert r.exit_code == 2 and "can't read" in r.stderr


def test_export_pipes_into_import_across_processes(played: Cli, tmp_path: Path):
    """CLI.md, import: the console command in real processes, stdout to a file, then verify's exit code."""
    env = {**os.environ, "LEDGER_ACTOR": "tester"}
    env.pop("LEDGER_DB", None)
    ledger = [sys.executable, "-m", "commands"]
    dump = tmp_path / "piped.jsonl"
    with open(dump, "wb") as f:
        subprocess.run(
            [*ledger, "--db", played.db, "export", "--format", "jsonl"], stdout=f, check=True, cwd=REPO, env=env
        )
    copy = str(tmp_path / "piped.ledger")
    r = subprocess.run([*ledger, "--db", copy, "import", str(dump)], capture_output=True, text=True, cwd=REPO, env=env)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert subprocess.run([*ledger, "--db", copy, "verify"], capture_output=True, cwd=REPO, env=env).returncode == 0


def test_export_into_a_device_writes_into_it_and_never_replaces_it(tmp_path: Path) -> None:
    """CLI.md, Additions agreed in the third round (`export -o FILE`): `export -o DEVICE` writes into the device (as a
    shell redirection would); the device stays a device."""
    import stat

    null = tmp_path / "null"  # a copy of /dev/null's node, so a regression replaces only this one
    try:
        os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError):
        pytest.skip("can't make a device node here")
    cli = Cli(str(tmp_path / "d.ledger"))
    cli.ok("init", "--system", "hnh")
    for fmt in ("md", "jsonl"):
        cli.ok("export", "--format", fmt, "-o", str(null))
        assert stat.S_ISCHR(os.stat(null).st_mode)
