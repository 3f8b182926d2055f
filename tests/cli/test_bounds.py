"""docs/verify.md, What the ledger refuses at the boundary: every number and text entering a ruling is checked at the
boundary (exit 2, nothing appended)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from ledger.errors import BadInput
from ledger.model.bounds import BOUNDS, STORED_MAX, safe, whole
from tests.conftest import REPO, Cli, Recorded, event_count

HUGE = str(2**63)  # one past the largest 64-bit integer: the number that bricked a ledger


def _record_table(cli: Cli) -> None:
    """An hnh ledger with Ann and a minion group."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "toughness=4", "--trait", "fighting=4", "--pc")
    cli.ok("character", "add", "Thugs", "--minion", "--count", "3")


@pytest.fixture
def table(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_table records, recorded once and copied for this test."""
    return recorded(cli, _record_table)


REFUSED = [
    ("character", "add", "Mob", "--minion", "--count", HUGE),
    ("character", "add", "Mob", "--minion", "--count", "0"),
    ("character", "add", "Mob", "--minion", "--count", "-2"),
    ("damage", "Ann", "--amount", "3000000000"),
    ("damage", "Ann", "--amount", "-5"),
    ("damage", "Ann", "--rank", HUGE),
    ("damage", "Ann", "--rank", "-1"),
    ("attack", "Ann", "Thugs", "--rank", "6", "--bonus", HUGE),
    ("attack", "Ann", "Thugs", "--rank", "6", "-o", f"bonus={HUGE}"),
    ("attack", "Ann", "Thugs", "--rank", "6", "-o", f"anything={HUGE}"),
    ("check", "Ann", "fighting", "--dc", HUGE),
    ("recover", "Ann", "--hours", HUGE),
    ("recover", "Ann", "--hours", "-8"),
    ("spend", "Ann", "victory-points", HUGE),
    ("spend", "Ann", "victory-points", "-1"),
    ("gain", "Ann", "victory-points", HUGE),
    ("roll", "3dF+" + HUGE),
    ("roll", "1d20-" + "9" * 40),
    ("roll", "9" * 5000 + "d6"),
    ("roll", "1d" + HUGE),
    ("--seed", HUGE, "roll", "3dF"),
    ("--seed", "-1", "roll", "3dF"),
    ("retract", HUGE, "--yes"),
    ("log", "--session", HUGE),
    ("character", "show", "Ann", "--at", HUGE),
    ("session", "show", HUGE),
    ("export", "--format", "md", "--session", HUGE),
]


@pytest.mark.parametrize("args", REFUSED, ids=lambda a: " ".join(a)[:50])
def test_a_number_out_of_its_declared_range_is_one_line_and_appends_nothing(table: Cli, args: tuple[str, ...]) -> None:
    """docs/verify.md, What the ledger refuses at the boundary: a number outside its declared range
    (ledger/model/bounds.py) is refused at the boundary."""
    before = event_count(table.db)
    r = table(*args, seed=None)
    assert r.exit_code == 2, r.stdout + r.stderr
    assert r.stderr.startswith("error: ") and "Traceback" not in r.stderr and len(r.stderr.splitlines()) <= 2
    assert event_count(table.db) == before
    assert table("verify").exit_code == 0  # the ledger is not bricked


def test_a_huge_hit_point_total_projects_on_every_backend(cli: Cli) -> None:
    """docs/verify.md, What the ledger refuses at the boundary: read-model columns hold every value a ruling may carry
    (64-bit on PostgreSQL too)."""
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Titan", "--trait", "hp=3000000000")
    cli.ok("damage", "Titan", "--amount", "1000000")
    shown = cli.json("character", "show", "Titan")
    assert isinstance(shown, dict) and (shown["hp"], shown["max_hp"]) == (2_999_000_000, 3_000_000_000)
    assert cli("verify").exit_code == 0 and cli("rebuild").exit_code == 0


def test_a_ruling_the_read_side_cannot_hold_is_never_appended(cli: Cli) -> None:
    """docs/verify.md, What the ledger refuses at the boundary: a trait beyond 2**53 would reach a read-model column:
    refused, nothing appended."""
    cli.ok("init", "--system", "d20")
    before = event_count(cli.db)
    r = cli("character", "add", "Colossus", "--trait", f"hp={2**70}")
    assert r.exit_code == 2 and "Traceback" not in r.stderr
    assert event_count(cli.db) == before
    assert cli("verify").exit_code == 0


@pytest.mark.parametrize("name", ["Ann\nBob", "\x1b[31mRed", "Null\x00", "Bell\x07", "Rtl\u202eevil", "Tab\there"])
def test_control_characters_in_a_name_are_refused(table: Cli, name: str) -> None:
    """docs/verify.md, What the ledger refuses at the boundary: newlines and terminal escape codes can't be part of a
    character's name."""
    before = event_count(table.db)
    r = table("character", "add", name)
    assert r.exit_code == 2 and "control character" in r.stderr
    assert "\x1b" not in r.stderr and "\x00" not in r.stderr  # the refusal itself is safe to print
    assert event_count(table.db) == before


@pytest.mark.parametrize("actor", ["gm\nroot", "\x1b]0;owned\x07", ""])
def test_control_characters_in_as_are_refused(table: Cli, actor: str) -> None:
    """docs/verify.md, What the ledger refuses at the boundary: --as is kept on every ruling, so it is refused like a
    name."""
    before = event_count(table.db)
    r = table.runner.invoke(
        __import__("commands.main", fromlist=["cli"]).cli, ["--db", table.db, "--as", actor, "roll", "3dF"]
    )
    assert r.exit_code == 2 and r.stderr.startswith("error: --as")
    assert event_count(table.db) == before


def test_control_characters_in_any_typed_text_are_refused(table: Cli) -> None:
    """docs/verify.md, What the ledger refuses at the boundary: a session title (any typed text) with an escape code is
    refused."""
    before = event_count(table.db)
    assert table("session", "start", "Night\x1b[2J").exit_code == 2
    assert event_count(table.db) == before


def test_stored_text_is_made_safe_for_the_terminal(table: Cli) -> None:
    """docs/verify.md, What the ledger refuses at the boundary: text edited into the database never reaches the
    terminal: the edited read model is not shown (the sheet is folded from the log), and what is printed has no
    control character."""
    from sqlalchemy import select, update

    from ledger.storage.target import parse_target
    from projections.db import ReadSide, sheets

    table.ok("character", "list")  # the views exist once something has read them (writes leave catching up to reads)
    read = ReadSide(parse_target(table.db))
    with read.engine.begin() as conn:
        sheet = conn.execute(select(sheets.c.sheet).where(sheets.c.key == "ann")).scalar_one()
        conn.execute(
            update(sheets).where(sheets.c.key == "ann").values(name="Ann\x1b[2J", sheet={**sheet, "name": "Ann\x1b[2J"})
        )
    read.close()
    out = table.ok("character", "list").stdout
    assert "\x1b" not in out and "Ann  HP 6/6" in out


def test_a_refused_init_creates_no_database_file(tmp_path: Path) -> None:
    """docs/verify.md, What the ledger refuses at the boundary: a refused command never creates a database file."""
    path = tmp_path / "new.ledger"
    cli = Cli(str(path))
    assert cli("init", "--system", "hnh", "--name", "Bay\nCity").exit_code == 2
    assert cli("init", "--system", "nope").exit_code == 2
    assert cli("damage", "Ann", "--amount", "2").exit_code == 2
    assert cli("verify").exit_code == 2
    assert not path.exists()


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+psycopg://u@[::1/db",
        "postgresql+psycopg://u@host:99999/db",
        "postgresql+psycopg://u@host:abc/db",
        "sqlite:///x%00y",
        "campaign\x00.ledger",
        "mysql://u@h/db",
        "sqlite://",
    ],
)
def test_a_malformed_db_url_is_one_line(tmp_path: Path, url: str) -> None:
    """docs/verify.md, What the ledger refuses at the boundary: a malformed --db URL (bad IPv6, port 99999 or abc, a
    null byte) is one line, exit 2."""
    r = Cli(url)("verify")
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and "Traceback" not in r.stderr


def test_an_argument_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    """docs/verify.md, What the ledger refuses at the boundary: bytes the OS could not decode (surrogates) never reach a
    query or the log."""
    db = str(tmp_path / "u.ledger")
    Cli(db).ok("init", "--system", "hnh")
    env = {**os.environ, "LEDGER_DB": db, "PYTHONPATH": str(REPO)}
    p = subprocess.run(
        [sys.executable, "-c", "from commands.main import main; main()", "character", "show", os.fsdecode(b"\xff")],
        capture_output=True,
        env=env,
        cwd=REPO,
        timeout=60,
    )
    assert p.returncode == 2 and b"not valid UTF-8" in p.stderr and b"Traceback" not in p.stderr


def test_a_play_script_with_invalid_utf8_fails_that_line_only(tmp_path: Path) -> None:
    """docs/verify.md, What the ledger refuses at the boundary: invalid UTF-8 in a play script fails its line with one
    error, the others run."""
    db = str(tmp_path / "p.ledger")
    cli = Cli(db)
    cli.ok("init", "--system", "hnh")
    script = tmp_path / "s.txt"
    script.write_bytes(b"roll 3dF\nsession start \xff\xfe\nroll 1d20\n")
    r = cli("play", "--keep-going", str(script))
    assert r.exit_code == 2 and "line 2 is not UTF-8 text" in r.stderr and "Traceback" not in r.stderr
    assert len([e for e in cli.json("log") if e["type"] == "RulingRecorded"]) == 3  # init and the two rolls


def test_bounds_module_declares_and_checks() -> None:
    """docs/verify.md, What the ledger refuses at the boundary: one module declares every bound; `whole` checks text and
    numbers against it."""
    assert whole("count", "12") == 12
    for name, (lo, hi) in BOUNDS.items():
        assert lo <= hi <= STORED_MAX or name == "seed"
        with pytest.raises(BadInput):
            whole(name, hi + 1)
        with pytest.raises(BadInput):
            whole(name, lo - 1)
    with pytest.raises(BadInput):
        whole("count", "1e3")
    assert safe("a\x1b[31mb\nc") == "a\\x1b[31mb\\nc"
    assert orjson.loads(orjson.dumps(safe("ok"))) == "ok"


def test_read_models_of_the_first_release_on_postgresql_are_widened(cli: Cli) -> None:
    """docs/verify.md, What the ledger refuses at the boundary: 32-bit read-model columns (the first release's, on
    PostgreSQL) are replaced and folded again."""
    if not cli.db.startswith("postgresql"):
        pytest.skip("SQLite's INTEGER is 64-bit already")
    from sqlalchemy import text

    from ledger.storage.target import parse_target
    from projections.db import ReadSide

    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Ann", "--trait", "hp=12")
    cli.ok("character", "list")  # the views exist once something has read them
    read = ReadSide(parse_target(cli.db))
    with read.engine.begin() as conn:
        conn.execute(text("ALTER TABLE ledger_sheets ALTER COLUMN hp TYPE integer, ALTER COLUMN max_hp TYPE integer"))
        # the first release kept no mark that this release made the view tables (projections/db.py, mark_tables)
        conn.execute(text("DELETE FROM ledger_tracking WHERE name = 'tables'"))
    read.close()
    cli.ok("character", "add", "Titan", "--trait", "hp=3000000000")
    assert cli.json("character", "show", "Titan")["max_hp"] == 3_000_000_000
    assert cli("verify").exit_code == 0
