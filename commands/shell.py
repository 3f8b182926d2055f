"""`ledger play`: a session shell that keeps one process, one open ledger and one read side for a whole session.

Each line is split like a shell would (shlex) and run through the same click group as a one-shot command,
so every command, option, output, error line and exit status is the one-shot's. Interactive on a
terminal (readline history and tab completion); from a pipe or a file, a script without prompts.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TextIO

import click

from commands.context import AppContext
from ledger.errors import BadInput

PROMPT = "ledger> "
HISTORY = "~/.ledger_history"
LEAVE = frozenset({"exit", "quit"})
CHARACTER_ARGS = frozenset({"attacker", "target", "name", "names"})
GLOBAL_VALUE_OPTIONS = frozenset({"--db", "--seed", "--as"})


class Session:
    """One shell session: the hosting AppContext, the global options every line gets, and what failed."""

    def __init__(self, app: AppContext, group: click.Group, *, keep_going: bool) -> None:
        self.app = app
        self.group = group
        self.keep_going = keep_going
        self.pre = _global_args(app)
        self.failed: list[int] = []
        self.lines = 0
        self._names: list[str] | None = None
        self._system: str | None = None

    def run(self, line: str, number: int, *, script: bool) -> bool:
        """Run one line; False when the session should end (exit/quit, or a failure with --stop-on-error)."""
        if not line.strip() or line.lstrip().startswith("#"):
            return True
        import shlex

        self.lines += 1
        if any("\udc80" <= c <= "\udcff" for c in line):
            click.echo(f"error: line {number} is not UTF-8 text", err=True)
            click.echo("hint: save the script as UTF-8", err=True)
            return self._failed(number)
        try:
            words = shlex.split(line, comments=True)
        except ValueError as e:
            click.echo(f"error: can't read the line: {e}", err=True)
            click.echo("hint: close the quotes, or put a backslash before a lone quote", err=True)
            return self._failed(number)
        if words[0] == "ledger":
            words = words[1:]  # tolerate a copied one-shot command line
        if not words:
            return True
        if words[0] in LEAVE:
            return False
        if words[0] == "help":
            words = [*words[1:], "--help"]
        status = self.dispatch(words, script=script)
        self._names = None  # the roster may have changed
        return True if status == 0 else self._failed(number)

    def dispatch(self, words: list[str], *, script: bool) -> int:
        """One command through the click group, exactly as one-shot; its exit status."""
        stdin = sys.stdin
        if script:
            sys.stdin = io.StringIO("")  # a prompt inside a script reads no answer instead of the next line
        try:
            self.group.main(args=[*self.pre, *words], prog_name="ledger", standalone_mode=True)
            status = 0
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
        except KeyboardInterrupt:
            click.echo("error: interrupted", err=True)
            status = 1
        except Exception:  # a bug: show it, and go on with fresh connections
            import traceback

            traceback.print_exc()
            status = 70
        finally:
            sys.stdin = stdin
        if status != 0:
            self.app.reset()  # a failed command may have left a connection in a bad state
        return status

    def settle(self) -> None:
        """Bring the views up to date with what this session wrote (each write defers that to the next read)."""
        try:
            self.app.settle()
        except Exception as e:  # the rulings are safe in the log; any later command catches the views up
            click.echo(f"error: the read models could not catch up: {str(e).splitlines()[0] if str(e) else type(e).__name__}", err=True)
            click.echo("hint: they catch up by themselves on the next command; or run: ledger rebuild", err=True)

    def _failed(self, number: int) -> bool:
        self.failed.append(number)
        return self.keep_going

    # -- what completion needs ---------------------------------------------------------------
    def character_names(self) -> list[str]:
        """Live characters' names from the read side (cached until the next command)."""
        if self._names is None:
            try:
                from sqlalchemy import select

                from projections.db import sheets

                with self.app.read.engine.connect() as conn:
                    rows = conn.execute(select(sheets.c.name).where(sheets.c.active).order_by(sheets.c.added)).all()
                self._names = [str(r[0]) for r in rows]
            except Exception:  # no campaign yet, or the database is away: nothing to offer
                self._names = []
        return self._names

    def condition_names(self) -> list[str]:
        """The campaign's rule system's condition names."""
        try:
            from ledger.rules import get_rules

            if self._system is None:
                self._system = self.app.ledger.campaign().system
            return sorted(get_rules(self._system).conditions)
        except Exception:  # no campaign yet
            return []


def _global_args(app: AppContext) -> list[str]:
    """The global options given before `play`, for every line."""
    out: list[str] = []
    if app.db is not None:
        out += ["--db", app.db]
    if app.seed is not None:
        out += ["--seed", str(app.seed)]
    if app.actor is not None:
        out += ["--as", app.actor]
    if app.as_json:
        out.append("--json")
    if app.verbose:
        out.append("--verbose")
    return out


class Completer:
    """Tab completion: command and option names, character names and condition names."""

    def __init__(self, group: click.Group, names: Callable[[], list[str]], conditions: Callable[[], list[str]]) -> None:
        self.group = group
        self.names = names
        self.conditions = conditions

    def candidates(self, before: str, text: str) -> list[str]:
        """What may replace `text`, given the line before it."""
        import shlex

        try:
            words = shlex.split(before)
        except ValueError:
            words = before.split()
        words = _skip_globals(words)
        cmd: click.Command = self.group
        path: list[str] = []
        while isinstance(cmd, click.Group) and words and words[0] in cmd.commands:
            path.append(words[0])
            cmd = cmd.commands[words.pop(0)]
        if isinstance(cmd, click.Group):
            if words:
                return []
            extra = sorted(LEAVE | {"help"}) if not path else []
            return [c for c in sorted(cmd.commands) + extra if c.startswith(text)]
        if text.startswith("-"):
            opts = [o for p in cmd.params if isinstance(p, click.Option) for o in p.opts]
            return sorted(o for o in [*opts, "--help"] if o.startswith(text))
        kind = self._kind(cmd, path, words)
        if kind == "character":
            return _matching(self.names(), text)
        if kind == "condition":
            return _matching(self.conditions(), text)
        return []

    def _kind(self, cmd: click.Command, path: list[str], words: list[str]) -> str | None:
        """Whether the word being completed names a character, a condition, or neither."""
        options = {o: p for p in cmd.params if isinstance(p, click.Option) for o in p.opts}
        if words and words[-1] in options:
            p = options[words[-1]]
            return "character" if not p.is_flag and p.metavar == "NAME" else None
        position, skip = 0, False
        for w in words:
            if skip:
                skip = False
            elif w in options:
                skip = not options[w].is_flag
            elif not w.startswith("-"):
                position += 1
        args = [p for p in cmd.params if isinstance(p, click.Argument)]
        if not args:
            return None
        arg = args[min(position, len(args) - 1)] if args[-1].nargs == -1 else (args[position] if position < len(args) else None)
        if arg is None:
            return None
        if path and path[0] == "condition" and arg.name == "name":
            return "condition"
        return "character" if arg.name in CHARACTER_ARGS else None

    def __call__(self, text: str, state: int) -> str | None:
        """The readline completer protocol."""
        import readline

        if state == 0:
            try:
                self._found = self.candidates(readline.get_line_buffer()[: readline.get_begidx()], text)
            except Exception:  # completion must never break the prompt
                self._found = []
        return self._found[state] if state < len(self._found) else None


def _skip_globals(words: list[str]) -> list[str]:
    """The words after any global options at the start of a line."""
    i = 0
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in GLOBAL_VALUE_OPTIONS else 1
    return words[i:]


def _matching(names: Iterable[str], text: str) -> list[str]:
    """Names starting with `text` (case-insensitive), quoted when they hold a space."""
    import shlex

    bare = text.lstrip("'\"").casefold()
    return [shlex.quote(n) if " " in n else n for n in names if n.casefold().startswith(bare)]


MAX_LINE = 2**20  # bytes in one script line: a stream of zeros or one endless line never fills memory


def _script_lines(stream: TextIO) -> Iterator[tuple[int, str]]:
    """Numbered lines of a script; bytes that are not UTF-8 are kept as surrogates, for `Session.run` to refuse."""
    raw = getattr(stream, "buffer", None)
    if raw is None:
        for number, line in enumerate(stream, 1):
            yield number, line.rstrip("\n")
        return
    number = 0
    while True:
        chunk = raw.readline(MAX_LINE + 1)
        if not chunk:
            return
        number += 1
        if len(chunk) > MAX_LINE:
            raise BadInput(f"line {number} of the script is longer than {MAX_LINE} bytes", "one command a line")
        yield number, chunk.decode("utf-8", "surrogateescape").rstrip("\n")


def _interactive(session: Session) -> None:
    """The prompt loop with readline history and completion."""
    import readline

    history = os.path.expanduser(HISTORY)
    try:
        readline.read_history_file(history)
    except OSError:
        pass
    readline.set_history_length(1000)
    readline.set_completer(Completer(session.group, session.character_names, session.condition_names))
    readline.set_completer_delims(" \t\n")
    bind = "bind ^I rl_complete" if "libedit" in (readline.__doc__ or "") else "tab: complete"
    readline.parse_and_bind(bind)
    click.echo("ledger play: one command a line, as after `ledger`; tab completes; help lists commands; exit or Ctrl-D leaves.")
    number = 0
    try:
        while True:
            try:
                line = input(PROMPT)
            except EOFError:
                click.echo()
                return
            except KeyboardInterrupt:
                click.echo()
                continue
            number += 1
            if not session.run(line, number, script=False):
                return
    finally:
        try:
            readline.write_history_file(history)
        except OSError:
            pass


@click.command("play")
@click.argument("script", type=click.File("r"), required=False)
@click.option("--keep-going/--stop-on-error", default=True, help="Scripts: after a failing line, go on (default) or stop there.")
@click.pass_context
def play(ctx: click.Context, script: TextIO | None, keep_going: bool) -> None:
    """A session shell: the same commands in one open process, each costing milliseconds.

    \b
    On a terminal: a prompt, readline history (~/.ledger_history) and tab completion of commands,
    options, character names and condition names. A failing command prints its usual error line and
    the shell goes on. `help [COMMAND]` shows help; exit, quit or Ctrl-D leave.
    From a pipe or a SCRIPT file: one command a line, without the word `ledger`; blank lines and
    `#` comments are skipped; no prompts (a command that would ask gets no answer: give it --yes).
    Global options before `play` (--db, --seed, --as, --json) apply to every line; with --seed the
    dice are those of the same commands run one-shot. Exit status: 0 if every line succeeded, else 2.
    Examples:
      ledger play
      ledger --db bay-city.ledger play < session3.txt
      printf 'damage Ann --amount 2\\ncharacter show Ann\\n' | ledger play
    """
    app: AppContext = ctx.obj
    if AppContext.hosted():
        raise BadInput("already in a session shell", "type the command itself")
    group = ctx.find_root().command
    assert isinstance(group, click.Group)
    if hasattr(group, "load_all"):
        group.load_all()  # a long-lived shell completes every command
    stream: TextIO | None = script
    if stream is None and not sys.stdin.isatty():
        stream = sys.stdin
    session = Session(app, group, keep_going=keep_going if stream is not None else True)
    with app.hosting():
        if stream is None:
            _interactive(session)
        else:
            for number, line in _script_lines(stream):
                if not session.run(line, number, script=True):
                    break
        session.settle()
    if session.failed:
        lines = ", ".join(str(n) for n in session.failed[:20]) + (" ..." if len(session.failed) > 20 else "")
        if stream is not None:
            click.echo(f"error: {len(session.failed)} of {session.lines} commands failed (line {lines})", err=True)
        ctx.exit(2)


def register(cli: click.Group) -> None:
    """Attach this command."""
    cli.add_command(play)

