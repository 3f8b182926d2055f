"""The README's first install, `pip install -e .` with no extras (README.md, Quickstart): every command works.

Run with the plain venv's own python (pytest is not installed there), from any folder:

    python tests/plain/check_plain_install.py            # everything below; exit 1 and one line per problem
    python tests/plain/check_plain_install.py --modules  # only: what --help and the shell load, without extras

It checks (a) `ledger --help` and every group's and sub-command's `--help`, the tree discovered from the click
group itself, exit 0 and no traceback; (b) a short fight played through `ledger play` from a pipe, and the shell at
a terminal (a pseudo-terminal); (c) `ledger serve` and a PostgreSQL `--db` refused in one `error:` line, exit 2;
(d) that nothing an extra provides was imported on the way. tests/cli/test_plain_install.py runs the same
functions in the main suite (with the extras installed), through click's CliRunner.
"""

from __future__ import annotations

import contextlib
import io
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import click

# What pyproject.toml's optional dependencies (serve, postgres) bring and `dependencies` don't.
EXTRAS = ("jinja2", "markupsafe", "starlette", "uvicorn", "psycopg", "psycopg_pool")
SERVE_LINE = "error: ledger serve needs the serve extra (Starlette, uvicorn, Jinja2): pip install -e '.[serve]'"
POSTGRES_LINE = "error: a PostgreSQL ledger needs the postgres extra (psycopg): pip install -e '.[postgres]'"
POSTGRES_URL = "postgresql+psycopg://nobody@127.0.0.1:1/none"  # never reached: refused before any connection

# A short fight, one command a line, as a GM types them into `ledger play` (run with --seed 3).
FIGHT = [
    "init --system hnh --name Plain",
    "character add Ann --trait agility=3 --trait fighting=6 --trait parry=5 --trait toughness=4 --pc",
    "character add Thug --trait fighting=2 --trait parry=1 --trait toughness=1",
    "encounter start Ann Thug --init Ann=9 --init Thug=5",
    "attack Ann Thug --rank 6 --roll attack=+,+,0 --roll power=+,0,0 --roll toughness=-,0,0",
    "encounter next",
    "undo",
    "log",
    "encounter show",
    "character show Thug",
    "why Thug hp",
]
# What the fight must print, in this order.
FOUGHT = [
    "ruling 1: Plain (hnh) started",
    "ruling 2: added Ann",
    "ruling 3: added Thug",
    "ruling 4: Encounter 1 begins; initiative: Ann 9, Thug 5.",
    "ruling 5: Ann hits Thug",
    "ruling 6: Round 1: Thug's turn",
    "ruling 7: Undid ruling 6 (encounter next)",
    "[UNDONE by ruling 7",
    "> Ann",
    "Thug (hnh)",
    "Thug hp = -1",
]


@dataclass(frozen=True)
class Outcome:
    """One run of `ledger ARGS`: exit status, stdout, stderr (a traceback, if one was raised, is in stderr)."""

    code: int
    out: str
    err: str


Run = Callable[[Sequence[str], str | None], Outcome]  # ledger's arguments and stdin -> what it did


def in_process() -> Run:
    """`ledger ARGS` through click's CliRunner, in this process (commands.main.cli, as the console script runs it)."""
    # lazy: the CLI itself, imported only once a check runs (this file is read by the main suite too)
    from click.testing import CliRunner

    from commands.main import cli

    runner = CliRunner()

    def run(args: Sequence[str], stdin: str | None = None) -> Outcome:
        r = runner.invoke(cli, list(args), input=stdin, prog_name="ledger")
        err = r.stderr
        if r.exception is not None and not isinstance(r.exception, SystemExit) and r.exc_info is not None:
            err += "".join(traceback.format_exception(*r.exc_info))
        return Outcome(r.exit_code, r.stdout, err)

    return run


def console(ledger: str) -> Run:
    """`ledger ARGS` as a process: the console script an install made."""

    def run(args: Sequence[str], stdin: str | None = None) -> Outcome:
        p = subprocess.run([ledger, *args], input=stdin or "", capture_output=True, text=True, timeout=120)
        return Outcome(p.returncode, p.stdout, p.stderr)

    return run


def command_paths() -> list[tuple[str, ...]]:
    """Every command's and group's words, from the click group itself (its list_commands / get_command)."""
    # lazy: the CLI itself, imported only once a check runs
    from commands.main import cli

    found: list[tuple[str, ...]] = []

    def visit(group: click.Group, ctx: click.Context, words: tuple[str, ...]) -> None:
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            if cmd is None:
                raise AssertionError(f"ledger {' '.join((*words, name))}: listed but not found")
            found.append((*words, name))
            if isinstance(cmd, click.Group):
                visit(cmd, click.Context(cmd, parent=ctx, info_name=name), (*words, name))

    visit(cli, click.Context(cli, info_name="ledger"), ())
    return found


def _traced(o: Outcome) -> bool:
    return "Traceback (most recent call last)" in o.out + o.err


def walk(run: Run, paths: Sequence[tuple[str, ...]] | None = None) -> list[str]:
    """`ledger --help` and `ledger WORDS... --help` for every command: exit 0, its usage line, no traceback."""
    problems: list[str] = []
    for words in [(), *(command_paths() if paths is None else paths)]:
        line = " ".join(("ledger", *words, "--help"))
        o = run([*words, "--help"], None)
        usage = " ".join(("Usage: ledger", *words))
        if o.code != 0 or _traced(o) or usage not in o.out:
            problems.append(f"{line}: exit {o.code}; {_last(o)}")
    return problems


def fight(run: Run, db: str) -> list[str]:
    """The fight (FIGHT) through `ledger --db DB --seed 3 play` from a pipe: exit 0, nothing on stderr, what it
    must print (FOUGHT) in order."""
    o = run(["--db", db, "--seed", "3", "--as", "plain", "play"], "".join(f"{line}\n" for line in FIGHT))
    problems = [f"ledger play < fight: exit {o.code}; {_last(o)}"] if o.code != 0 or o.err.strip() else []
    at = 0
    for want in FOUGHT:
        found = o.out.find(want, at)
        if found < 0:
            return [*problems, f"ledger play < fight: {want!r} not printed (where expected)"]
        at = found + len(want)
    return problems


def refusals(run: Run) -> list[str]:
    """Without its extra, `ledger serve` and a PostgreSQL --db say what to install in one line; exit 2."""
    problems: list[str] = []
    for args, want in (
        (["serve"], SERVE_LINE),
        (["--db", POSTGRES_URL, "character", "list"], POSTGRES_LINE),
        (["--db", POSTGRES_URL, "init", "--system", "hnh", "--name", "X"], POSTGRES_LINE),
    ):
        o = run(args, None)
        if o.code != 2 or o.err.strip().splitlines() != [want] or o.out:
            problems.append(f"ledger {' '.join(args)}: exit {o.code}, stderr {o.err.strip()[-300:]!r} (want {want!r})")
    return problems


def shells(db: str) -> list[str]:
    """Build what `ledger play` builds, in this process: the piped script and the terminal's prompt (prompt_toolkit,
    fed through a pipe); the lines each printed that look wrong."""
    # lazy: the terminal side of the shell, what `ledger play` loads at a terminal
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from commands.context import AppContext
    from commands.main import cli
    from commands.shell import Session, _interactive

    problems = fight(in_process(), db)
    out = io.StringIO()
    app = AppContext(db=db, seed=None, actor="plain", as_json=False)
    try:
        cli.load_all()  # type: ignore[attr-defined]
        session = Session(app, cli, keep_going=True)
        with create_pipe_input() as keys, contextlib.redirect_stdout(out), app.hosting():
            keys.send_text("character show Ann\rexit\r")
            _interactive(session, input=keys, output=DummyOutput())
    finally:
        app.close()
    if "Ann (hnh, PC)" not in out.getvalue() or session.failed:
        problems.append(f"ledger play at a terminal: {out.getvalue()[-300:]!r}")
    return problems


def loaded_extras() -> list[str]:
    """The modules of an extra this process has imported."""
    return [m for m in EXTRAS if m in sys.modules]


def terminal(ledger: str, db: str) -> list[str]:
    """`ledger --db DB play` on a pseudo-terminal: the prompt comes up, a command runs, `exit` leaves with 0."""
    # lazy: pseudo-terminals, POSIX only
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # the child: the shell on a terminal
        os.environ.update({"HOME": os.path.dirname(db), "TERM": "xterm-256color"})
        os.execv(ledger, [ledger, "--db", db, "play"])
    screen = b""

    def read_until(marker: bytes, cap: float = 60) -> None:
        """Read the screen until `marker` shows after what was read so far (b"": until the shell closes it)."""
        nonlocal screen
        start, end = len(screen), time.monotonic() + cap
        while time.monotonic() < end and not (marker and marker in screen[start:]):
            if not select.select([fd], [], [], 0.05)[0]:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child has gone
                return
            if not chunk:
                return
            screen += chunk
            if b"\x1b[6n" in chunk:  # a terminal answers where its cursor is
                os.write(fd, b"\x1b[1;1R")

    read_until(b"ledger>")  # the prompt is up
    os.write(fd, b"character show Ann\r")
    read_until(b"Ann (hnh, PC)")  # the command ran
    os.write(fd, b"exit\r")
    read_until(b"")
    done, status = os.waitpid(pid, os.WNOHANG)
    if done == 0:  # still running a minute on: stopped, and reported below
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    os.close(fd)
    code, text = os.waitstatus_to_exitcode(status), screen.decode(errors="replace")
    if code != 0 or "ledger play: one command a line" not in text or "Ann (hnh, PC)" not in text or "Traceback" in text:
        return [f"ledger play at a terminal: exit {code}; {text[-300:]!r}"]
    return []


def _last(o: Outcome) -> str:
    lines = (o.err.strip() or o.out.strip()).splitlines()
    return lines[-1][:300] if lines else "(no output)"


@contextlib.contextmanager
def _folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="ledger-plain-") as d:
        yield Path(d)


def main(argv: Sequence[str]) -> int:
    """Everything, or with --modules only what --help and the shell import; one line per problem, exit 1 if any."""
    ledger = str(Path(sys.executable).with_name("ledger"))  # this venv's console script
    problems: list[str] = []

    took: list[str] = []

    def check(name: str, step: Callable[[], list[str]]) -> None:
        began = time.monotonic()
        try:
            problems.extend(step())
        except Exception as e:  # a check that could not even run (the CLI failed to import): its traceback, then on
            traceback.print_exc()
            problems.append(f"{name}: raised {type(e).__name__}: {e}")
        took.append(f"{name} {time.monotonic() - began:.1f}s")

    started = time.monotonic()
    with _folder() as d:
        if "--modules" in argv:
            check("every --help, in process", lambda: walk(in_process()))
            check("the shell, in process", lambda: shells(str(d / "shell.ledger")))
        else:
            run = console(ledger)
            check("ledger --help", lambda: walk(run, paths=[]))  # the console script itself
            check("every --help, in process", lambda: walk(in_process()))  # the whole tree, in one process
            check("ledger play < fight", lambda: fight(run, str(d / "pipe.ledger")))
            check("ledger play at a terminal", lambda: terminal(ledger, str(d / "pipe.ledger")))
            check("the refusals", lambda: refusals(run))
        problems += [f"imported {m}, of an extra" for m in loaded_extras()]
    for p in problems:
        print(f"problem: {p}", file=sys.stderr)
    print(f"plain install: {len(problems)} problems, checked in {time.monotonic() - started:.1f}s ({'; '.join(took)})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
