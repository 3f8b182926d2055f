"""docs/verify.md, What the ledger refuses at the boundary: import accepts only the ledger's own events, and the store
refuses foreign files, read-only files and full disks in one line."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from tests.conftest import REPO, Cli, event_count


@pytest.fixture
def source(tmp_path: Path) -> tuple[Cli, Path]:
    """A small ledger and its JSONL export."""
    cli = Cli(str(tmp_path / "src.ledger"))
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "toughness=4")
    cli.ok("damage", "Ann", "--amount", "2")
    out = tmp_path / "src.jsonl"
    cli.ok("export", "--format", "jsonl", "-o", str(out))
    return cli, out


def _tables(path: Path) -> set[str]:
    con = sqlite3.connect(path)
    try:
        return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        con.close()


def test_import_never_imports_a_module_a_file_names(source: tuple[Cli, Path], tmp_path: Path) -> None:
    """docs/verify.md, What the ledger refuses at the boundary: a crafted topic is refused before anything resolves it
    (no module named by the file is imported)."""
    _, export = source
    rows = export.read_bytes().splitlines()
    row = orjson.loads(rows[2])
    row["topic"] = "antigravity:fly"
    rows[2] = orjson.dumps(row)
    crafted = tmp_path / "crafted.jsonl"
    crafted.write_bytes(b"\n".join(rows) + b"\n")
    target = tmp_path / "t.ledger"
    p = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from commands.main import main\ntry:\n    main()\nfinally:\n    print('antigravity' "
            "in sys.modules, file=sys.stderr)",
            "--db",
            str(target),
            "import",
            str(crafted),
        ],
        capture_output=True,
        cwd=REPO,
        timeout=120,
    )
    assert p.returncode == 2 and b"not the ledger's own" in p.stderr
    assert p.stderr.strip().endswith(b"False")  # the module was never imported
    assert not target.exists()


def test_import_of_an_endless_line_fails_cleanly(tmp_path: Path) -> None:
    """docs/verify.md, What the ledger refuses at the boundary: `import /dev/zero` reads a bounded line and refuses;
    nothing is created."""
    target = tmp_path / "z.ledger"
    r = Cli(str(target))("import", "/dev/zero")
    assert r.exit_code == 2 and "longer than" in r.stderr
    assert not target.exists()


def test_import_into_a_file_whose_views_were_kept(source: tuple[Cli, Path], tmp_path: Path) -> None:
    """docs/export-format.md, What import checks, before writing anything: a database with read models but no events
    imports and folds its views again (no spinning)."""
    cli, export = source
    target = tmp_path / "kept.ledger"
    shutil.copy(cli.db, target)
    con = sqlite3.connect(target)
    con.execute("DELETE FROM stored_events")
    con.execute("DELETE FROM stored_snapshots")
    con.commit()
    con.close()
    copy = Cli(str(target))
    copy.ok("import", str(export))
    assert copy("verify").exit_code == 0
    assert copy.json("character", "show", "Ann")["hp"] == 4


def test_a_sqlite_file_of_another_application_is_refused_and_left_alone(tmp_path: Path) -> None:
    """docs/verify.md, What the ledger refuses at the boundary: never add tables to a file that isn't a ledger."""
    other = tmp_path / "notes.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE notes (body TEXT)")
    con.commit()
    con.close()
    cli = Cli(str(other))
    for args in (("init", "--system", "hnh"), ("character", "list"), ("verify",), ("rebuild",), ("undo",)):
        r = cli(*args)
        assert r.exit_code == 2 and "Traceback" not in r.stderr, args
    assert _tables(other) == {"notes"}


def test_a_stored_events_table_of_another_layout_is_refused(tmp_path: Path) -> None:
    """docs/verify.md, What the ledger refuses at the boundary: a SQLite file with another `stored_events` layout is not
    a ledger."""
    other = tmp_path / "es.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE stored_events (id INTEGER PRIMARY KEY, payload TEXT)")
    con.commit()
    con.close()
    r = Cli(str(other))("init", "--system", "hnh")
    assert r.exit_code == 2 and "another layout" in r.stderr
    assert _tables(other) == {"stored_events"}


def test_a_file_that_is_not_sqlite_is_refused(tmp_path: Path) -> None:
    """docs/verify.md, What the ledger refuses at the boundary: a text file given as --db is one line, and stays as it
    was."""
    other = tmp_path / "readme.txt"
    other.write_text("hello\n" * 200)
    r = Cli(str(other))("init", "--system", "hnh")
    assert r.exit_code == 2 and "Traceback" not in r.stderr
    assert other.read_text() == "hello\n" * 200


@pytest.fixture
def immutable(tmp_path: Path) -> Iterator[Cli]:
    """A ledger file the OS refuses to write (chattr +i: read-only even for root)."""
    cli = Cli(str(tmp_path / "ro.ledger"))
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "toughness=4")
    if subprocess.run(["chattr", "+i", cli.db], capture_output=True).returncode != 0:
        os.chmod(cli.db, 0o444)
        if os.geteuid() == 0:
            pytest.skip("can't make a file read-only here (no chattr, running as root)")
    yield cli
    subprocess.run(["chattr", "-i", cli.db], capture_output=True)
    os.chmod(cli.db, 0o644)


def test_a_read_only_ledger_reads_and_refuses_writes_in_one_line(immutable: Cli) -> None:
    """docs/verify.md, What the ledger refuses at the boundary: on a read-only file reads still work; a write is one
    line, exit 2, nothing appended."""
    before = event_count(immutable.db)
    assert immutable.json("character", "show", "Ann")["hp"] == 6
    assert immutable("verify").exit_code == 0
    assert immutable("log").exit_code == 0
    r = immutable("damage", "Ann", "--amount", "1")
    assert r.exit_code == 2 and "read-only" in r.stderr and "Traceback" not in r.stderr
    assert event_count(immutable.db) == before


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 256 KB tmpfs to fill up (needs the right to mount: skipped where there is none)."""
    mnt = tmp_path / f"disk-{uuid.uuid4().hex[:6]}"
    mnt.mkdir()
    if (
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)], capture_output=True).returncode
        != 0
    ):
        pytest.skip("can't mount a small tmpfs here to fill")
    yield mnt
    subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_a_full_disk_is_one_line_and_the_ledger_stays_sound(small_disk: Path) -> None:
    """docs/verify.md, What the ledger refuses at the boundary: a full disk refuses the ruling in one line; what was
    saved still verifies."""
    cli = Cli(str(small_disk / "full.ledger"))
    cli.ok("init", "--system", "hnh")
    try:
        with open(small_disk / "filler", "wb") as f:
            while True:
                f.write(b"\0" * 4096)
                f.flush()
    except OSError:
        pass
    refused = None
    for i in range(50):
        r = cli("character", "add", f"N{i}", "--trait", "toughness=1")
        assert r.exit_code in (0, 2) and "Traceback" not in r.stderr
        if r.exit_code == 2:
            refused = r.stderr
            break
    assert refused is not None and "disk is full" in refused
    (small_disk / "filler").unlink()
    assert cli("verify").exit_code == 0
