"""The record is never lost through the CLI: `export -o` onto the ledger, a database or an existing file (CLI.md)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import Cli, event_count


@pytest.fixture
def started(cli: Cli) -> Cli:
    """A ledger with a campaign, a character and an open session (whose dice secret lives in the database)."""
    cli.ok("init", "--system", "hnh", "--name", "Bay City")
    cli.ok("character", "add", "Ann", "--trait", "agility=3", "--trait", "toughness=4", "--pc")
    cli.ok("session", "start", "Night one")
    return cli


def test_export_onto_the_ledgers_own_file_is_refused(started: Cli, tmp_path: Path) -> None:
    """CLI.md, export: `export -o FILE` never writes onto a ledger, not even with --force; the ledger still verifies."""
    if "://" in started.db:
        pytest.skip("a PostgreSQL ledger has no file to export onto")
    before = Path(started.db).read_bytes()
    for extra in ((), ("--force",)):
        r = started("export", "-o", started.db, "--format", "jsonl", *extra)
        assert r.exit_code == 2 and "this ledger's own database" in r.stderr and "Traceback" not in r.stderr
    assert Path(started.db).read_bytes() == before
    started.ok("verify")


def test_export_onto_any_sqlite_database_is_refused(started: Cli, tmp_path: Path) -> None:
    """CLI.md, export: an export never replaces a SQLite database (another ledger), --force or not."""
    other = tmp_path / "other.ledger"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    before = other.read_bytes()
    r = started("export", "-o", str(other), "--format", "md", "--force")
    assert r.exit_code == 2 and "is a SQLite database" in r.stderr
    assert other.read_bytes() == before


def test_export_onto_an_existing_file_needs_force(started: Cli, tmp_path: Path) -> None:
    """CLI.md, export: an existing file is refused without --force (kept as it was) and replaced whole with it."""
    out = tmp_path / "notes.md"
    out.write_text("my notes\n")
    r = started("export", "-o", str(out))
    assert r.exit_code == 2 and "already exists" in r.stderr and "--force" in r.stderr
    assert out.read_text() == "my notes\n"
    started.ok("export", "-o", str(out), "--force")
    assert out.read_text().startswith("# Bay City")


def test_a_failed_export_leaves_the_old_file(started: Cli, tmp_path: Path) -> None:
    """CLI.md, export: written through a temporary file and a rename, so a refused export leaves the old file whole."""
    out = tmp_path / "x.csv"
    out.write_text("old\n")
    r = started("export", "-o", str(out), "--force", "--session", "99")
    assert r.exit_code == 2 and out.read_text() == "old\n"
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".ledger-export-")]


def test_export_refusals_append_nothing(started: Cli, tmp_path: Path) -> None:
    """DESIGN.md, Errors and bad input: a refused command appends nothing."""
    n = event_count(started.db)
    out = tmp_path / "a.jsonl"
    out.write_text("x")
    assert started("export", "-o", str(out)).exit_code == 2
    assert event_count(started.db) == n
