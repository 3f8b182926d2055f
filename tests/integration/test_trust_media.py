"""Reads work where writes can't: a ledger on a full disk or a read-only medium (a small tmpfs, mounted by the test
where the machine allows it) answers every read command, verify and serve; writes refuse in one line
(DESIGN.md, Errors and bad input; Storage and scale)."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Cli

READS = [
    ("verify",),
    ("character", "list"),
    ("character", "show", "Ann"),
    ("log", "-n", "2"),
    ("session", "show", "1"),
    ("export", "--format", "md"),
    ("export", "--format", "jsonl"),
    ("timeline", "Ann"),
]


def _mount(*args: str) -> bool:
    try:
        return subprocess.run(["mount", *args], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.fixture
def medium(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB tmpfs of this test's own (unmounted afterwards); skipped where the machine can't mount one."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root and mount(8): this machine has neither")
    where = tmp_path / f"medium-{uuid.uuid4().hex[:6]}"
    where.mkdir()
    if not _mount("-t", "tmpfs", "-o", "size=2M", "tmpfs", str(where)):
        pytest.skip("this machine does not allow mounting a tmpfs (no CAP_SYS_ADMIN)")
    try:
        yield where
    finally:
        _mount("-o", "remount,rw", str(where))
        subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=20)


def _ledger(where: Path) -> Cli:
    cli = Cli(str(where / "camp.ledger"))
    cli.ok("init", "--system", "hnh", "--name", "Archive")
    cli.ok("character", "add", "Ann", "--trait", "agility=3", "--pc")
    cli.ok("session", "start", "Night one")
    cli.ok("damage", "Ann", "--amount", "2")
    cli.ok("character", "list")
    return cli


def _out(cli: Cli, args: tuple[str, ...]) -> str:
    out = cli.ok(*args).stdout
    return out.split("\n", 1)[1] if "jsonl" in args else out  # the JSONL header says when it was exported


def _expected(cli: Cli) -> dict[tuple[str, ...], str]:
    return {args: _out(cli, args) for args in READS}


def _check_reads_and_refused_write(cli: Cli, before: dict[tuple[str, ...], str], says: str) -> None:
    for args, out in before.items():
        assert _out(cli, args) == out, args
    r = cli("damage", "Ann", "--amount", "1")
    assert r.exit_code == 2 and says in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 2
    assert cli.ok("--json", "character", "show", "Ann").stdout.count('"hp": 4') == 1


def test_every_read_works_on_a_full_disk(medium: Path) -> None:
    """DESIGN.md, Errors and bad input: on a full disk every read command and verify answer as before; a write says
    the disk is full in one line and appends nothing."""
    cli = _ledger(medium)
    before = _expected(cli)
    fd = os.open(medium / "filler", os.O_WRONLY | os.O_CREAT)
    try:  # fill the medium to its last byte
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    _check_reads_and_refused_write(cli, before, "the disk is full")


def test_every_read_works_on_a_read_only_medium(medium: Path) -> None:
    """DESIGN.md, Storage: an archived ledger on a read-only medium is checked in place: every read command and
    verify work (SQLite opened mode=ro, or immutable=1 where its WAL index can't be made); writes refuse in one line."""
    cli = _ledger(medium)
    before = _expected(cli)
    if not _mount("-o", "remount,ro", str(medium)):
        pytest.skip("this machine does not allow remounting the tmpfs read-only")
    _check_reads_and_refused_write(cli, before, "read-only")
    r = cli("rebuild")
    assert r.exit_code == 2 and "read-only" in r.stderr


def test_serve_works_on_a_read_only_medium(medium: Path) -> None:
    """CLI.md, serve: the players' screen of an archived ledger on a read-only medium."""
    from tests.serving import serving

    cli = _ledger(medium)
    if not _mount("-o", "remount,ro", str(medium)):
        pytest.skip("this machine does not allow remounting the tmpfs read-only")
    with serving(cli.db) as server:
        status, html = server.get("/")
    assert status == 200 and "Ann" in html and "4/6" in html
