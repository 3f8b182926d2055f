"""Colour and the pager are for a person at a terminal only (README.md, A short tour): never in pipes, files or
tests."""

from __future__ import annotations

import os
import pty
import sys
from pathlib import Path

from tests.conftest import REPO, Cli

LEDGER = [sys.executable, "-m", "commands"]


def on_terminal(args: list[str], env: dict[str, str]) -> str:
    """Run `ledger ARGS` with stdin and stdout on a pseudo-terminal; everything it wrote there."""
    pid, fd = pty.fork()
    if pid == 0:  # the child, on the terminal
        os.chdir(REPO)
        os.environ.pop("NO_COLOR", None)
        os.environ.update(env)
        os.execv(sys.executable, [*LEDGER, *args])
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    os.close(fd)
    return out.decode(errors="replace")


def setup(cli: Cli) -> None:
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "toughness=4", "--pc")


def test_hp_drops_are_coloured_at_a_terminal_unless_no_color(sqlite_db: str) -> None:
    """README.md, A short tour: at a terminal an HP drop stands out in red; NO_COLOR turns colour off; a pipe never has
    it."""
    cli = Cli(sqlite_db)
    setup(cli)
    env = {"TERM": "xterm", "LEDGER_ACTOR": "tester"}
    shown = on_terminal(["--db", sqlite_db, "damage", "Ann", "--amount", "1"], {**env})
    assert "takes 1 damage: \x1b[31m\x1b[1mHP 6 -> 5\x1b[0m." in shown, repr(shown)
    plain = on_terminal(["--db", sqlite_db, "damage", "Ann", "--amount", "1"], {**env, "NO_COLOR": "1"})
    assert "ruling 4: Ann takes 1 damage: HP 5 -> 4." in plain and "\x1b[" not in plain
    piped = cli.ok("damage", "Ann", "--amount", "1").stdout
    assert piped == "ruling 5: Ann takes 1 damage: HP 4 -> 3.\n"


def test_a_long_log_goes_through_the_pager_at_a_terminal_only(sqlite_db: str, tmp_path: Path) -> None:
    """README.md, A short tour: `log` longer than the screen opens in $PAGER at a terminal; piped, it is printed as
    is."""
    cli = Cli(sqlite_db)
    setup(cli)
    for _ in range(12):
        cli.ok("condition", "add", "Ann", "dazed")
        cli.ok("condition", "remove", "Ann", "dazed")
    paged = tmp_path / "paged.txt"
    pager = tmp_path / "pager.sh"  # a pager that keeps what it was given
    pager.write_text(f"#!/bin/sh\ncat > {paged}\n")
    pager.chmod(0o755)
    on_terminal(["--db", sqlite_db, "log"], {"TERM": "xterm", "PAGER": str(pager)})
    piped = cli.ok("log").stdout
    assert len(piped.splitlines()) > 40 and paged.read_text() == piped
    paged.unlink()
    on_terminal(["--db", sqlite_db, "log", "-n", "1"], {"TERM": "xterm", "PAGER": str(pager)})
    assert not paged.exists()  # a short page is printed, not paged
