"""`ledger play`: a session shell that keeps one process, one open ledger and one read side for a whole session.

Each line is split like a shell would (shlex) and run through the same click group as a one-shot command,
so every command, option, output, error line and exit status is the one-shot's. Interactive on a
terminal (commands/prompt.py: prompt_toolkit completion with help, a toolbar with the turns, history search);
from a pipe or a file, a script without prompts (prompt_toolkit is never loaded).
"""

from __future__ import annotations

import io
import shlex
import sys
import time
import traceback
from collections.abc import Iterator
from typing import Any, TextIO

import click

from commands.complete import LEAVE, Completer
from commands.context import AppContext
from commands.output import in_shell
from commands.registry import command
from ledger import catalog as C
from ledger.errors import BadInput
from ledger.rules import get_rules, health_word, round_word

__all__ = ["Completer", "Session", "play"]


class Session:
    """One shell session: the hosting AppContext, the global options every line gets, and what failed."""

    def __init__(self, app: AppContext, group: click.Group, *, keep_going: bool) -> None:
        self.app = app
        self.group = group
        self.keep_going = keep_going
        self.pre = _global_args(app)
        self.failed: list[int] = []
        self.lines = 0
        self._roster: list[dict[str, Any]] | None = None
        self._toolbar: str | None = None
        self._system: str | None = None
        self._title = ""
        self._idle = True  # the campaign passes over turns with nothing to do (init -o pass-over=no-action)
        self._requests: list[dict[str, Any]] = []
        self._asked_at = 0.0

    def run(self, line: str, number: int, *, script: bool) -> bool:
        """Run one line; False when the session should end (exit/quit, or a failure with --stop-on-error)."""
        if not line.strip() or line.lstrip().startswith("#"):
            return True
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
        self.forget()  # the roster and the turns may have changed
        return True if status == 0 else self._failed(number)

    def dispatch(self, words: list[str], *, script: bool) -> int:
        """One command through the click group, exactly as one-shot; its exit status."""
        stdin = sys.stdin
        if script:
            sys.stdin = io.StringIO("")  # a prompt inside a script reads no answer instead of the next line
        try:
            with in_shell():
                self.group.main(args=[*self.pre, *words], prog_name="ledger", standalone_mode=True)
            status = 0
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
        except KeyboardInterrupt:
            click.echo("error: interrupted", err=True)
            status = 1
        except Exception:  # a bug: show it, and go on with fresh connections
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
            click.echo(
                f"error: the read models could not catch up: {str(e).splitlines()[0] if str(e) else type(e).__name__}",
                err=True,
            )
            click.echo("hint: they catch up by themselves on the next command; or run: ledger rebuild", err=True)

    def _failed(self, number: int) -> bool:
        self.failed.append(number)
        return self.keep_going

    # -- what completion and the toolbar read (cached until the next command) ----------------------
    def roster(self) -> list[dict[str, Any]]:
        """Live characters' sheets from the read side, in the order they were added."""
        if self._roster is None:
            try:
                # lazy: SQLAlchemy, the read side's; kept out of `ledger --help`
                from sqlalchemy import select

                # lazy: the read side (SQLAlchemy); kept out of `ledger --help`
                from ledger.model.sheet import is_gm_pool
                from projections.db import sheets

                self.app.caught_up()  # fold in what this shell (or anyone) wrote
                with self.app.read.engine.connect() as conn:
                    rows = conn.execute(select(sheets.c.sheet).where(sheets.c.active).order_by(sheets.c.added)).all()
                self._roster = [dict(r[0]) for r in rows if not is_gm_pool(r[0])]  # not the GM's hidden pool
            except Exception:  # no campaign yet, or the database is away: nothing to offer
                self._roster = []
        return self._roster

    def character_names(self) -> list[tuple[str, str]]:
        """Live characters' names, each with their standing (HP and conditions) as help."""
        return [(str(s["name"]), standing(s, self.system())) for s in self.roster()]

    def sheet(self, name: str) -> dict[str, Any] | None:
        """A live character's sheet as the read side has it (any case; quotes around the name allowed)."""
        key = name.strip("'\"").strip().casefold()
        return next((s for s in self.roster() if str(s["name"]).casefold() == key), None)

    def system(self) -> str | None:
        """The campaign's rule system (None before `init`)."""
        if self._system is None:
            try:
                campaign = self.app.ledger.campaign()
                self._system, self._title = campaign.system, str(campaign.domain.get("name") or "")
                # lazy: the options' declarations (6 ms), once the campaign is read
                from ledger.rules.options import passes_over

                self._idle = passes_over(campaign.domain.get("settings", {}))
            except Exception:  # no campaign yet
                return None
        return self._system

    def condition_names(self) -> list[tuple[str, str]]:
        """The campaign's rule system's condition names, with what the rules say of each."""
        system = self.system()
        if system is None:
            return []
        rules = get_rules(system)
        return [(c, rules.condition_help(c)) for c in sorted(rules.conditions)]

    def toolbar(self) -> str:
        """The bottom toolbar: the round, who is up and the next two who act, with their HP; and the oldest request
        from a player's page as the ruling's sentence to be made (F2 accepts it)."""
        if self._toolbar is None:
            try:
                self._toolbar = self._turns()
            except Exception:  # the toolbar must never break the prompt
                self._toolbar = ""
        asked = self._asked()
        if not asked:
            return self._toolbar
        first = asked[0]
        more = f" (+{len(asked) - 1} more: ledger pending)" if len(asked) > 1 else ""
        return f"{self._toolbar} | {first['hero']} asks: {first['said']}  [F2 accepts #{first['num']}]{more}"

    def _asked(self) -> list[dict[str, Any]]:
        """The players' open requests, looked at most once a second (the toolbar is redrawn every second)."""
        now = time.monotonic()
        if now - self._asked_at >= 1.0:
            self._asked_at = now
            try:
                self._requests = self.app.ledger.players.proposals() if self.system() is not None else []
            except Exception:  # the toolbar must never break the prompt
                self._requests = []
        return self._requests

    def first_request(self) -> int | None:
        """The number of the oldest open request from a player's page (F2 accepts it), if any."""
        self._asked_at = 0.0
        asked = self._asked()
        return int(asked[0]["num"]) if asked else None

    def _turns(self) -> str:
        system = self.system()
        if system is None:
            return " no campaign yet: init --system hnh|d20|pnp"
        # lazy: SQLAlchemy, the read side's; kept out of `ledger --help`
        from sqlalchemy import select

        # lazy: the read side (SQLAlchemy); kept out of `ledger --help`
        from projections.db import encounters

        self.app.caught_up()
        with self.app.read.engine.connect() as conn:
            enc = conn.execute(select(encounters).order_by(encounters.c.number.desc()).limit(1)).mappings().first()
        if enc is None or not enc["active"]:
            return f" {self._title} ({system}): no encounter running"
        return " " + turn_line(enc["order"], enc["current"], enc["round"], system, self.roster(), self._idle)

    def forget(self) -> None:
        """Drop what the last command may have changed."""
        self._roster = None
        self._toolbar = None


def standing(sheet: dict[str, Any], system: str | None) -> str:
    """A character's HP (Health in P&P), minion count and conditions, in a few words."""
    hp = health_word(system or "")
    count = f"x{sheet.get('count')} " if sheet.get("minion") else ""
    # lazy: the durations' rules; kept out of `ledger --help`
    from ledger.rules.durations import left, shown

    conditions = ", ".join(shown(sheet.get("conditions") or (), left(sheet)))
    return f"{count}{hp} {sheet.get('hp')}/{sheet.get('max_hp')}" + (f" [{conditions}]" if conditions else "")


def turn_line(
    order: list[dict[str, Any]],
    current: str | None,
    rnd: int,
    system: str,
    roster: list[dict[str, Any]],
    idle: bool = True,
) -> str:
    """`round 2 | up: Ann HP 6/6 | next: Bob HP 3/6, Thugs x3 HP 1/1`; the next two are those `encounter next` would
    not pass over (the rules give them a turn and, with `idle`, something to do in it)."""
    # lazy: the sheet model; kept out of `ledger --help`
    from ledger.model.sheet import Sheet

    rules = get_rules(system)
    by_id = {}
    for s in roster:
        by_id[str(s["name"]).casefold()] = s
    names = [e["name"] for e in order]
    at = names.index(current) if current in names else 0

    def show(name: str) -> str:
        sheet = by_id.get(name.casefold())
        return f"{name} {standing(sheet, system)}" if sheet else name

    upcoming: list[str] = []
    for step in range(1, len(order)):
        name = names[(at + step) % len(order)]
        sheet = by_id.get(name.casefold())
        if sheet is not None:
            live = Sheet.from_dict(sheet)
            if not rules.takes_turn(live) or rules.no_turn(live) is not None or (idle and rules.nothing_to_do(live)):
                continue
        upcoming.append(show(name))
        if len(upcoming) == 2:
            break
    word = round_word(system)
    nxt = f" | next: {', '.join(upcoming)}" if upcoming else ""
    return f"{word} {rnd} | up: {show(current or names[at])}{nxt}"


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


def _interactive(session: Session, *, input: Any = None, output: Any = None) -> None:
    """The prompt loop (prompt_toolkit): completion with help, fuzzy matching, a toolbar with the turns, history."""
    # lazy: prompt_toolkit, the session shell's; kept out of `ledger --help`
    from commands.prompt import prompt_session

    prompt = prompt_session(session, input=input, output=output)
    click.echo(
        "ledger play: one command a line, as after `ledger`; Tab completes, Ctrl-R searches history; help "
        "lists commands; exit or Ctrl-D leaves."
    )
    number = 0
    while True:
        try:
            line = prompt.prompt()
        except EOFError:
            click.echo()
            return
        except KeyboardInterrupt:
            continue
        number += 1
        if not session.run(line, number, script=False):
            return


@command(C.PLAY)
@click.argument("script", type=click.File("r"), required=False)
@click.option(
    "--keep-going/--stop-on-error",
    default=False,
    help="Scripts: after a failing line, go on, or stop there (the default: every later line would land one turn off).",
)
@click.pass_context
def play(ctx: click.Context, script: TextIO | None, keep_going: bool) -> None:
    """A session shell: the same commands in one open process, each costing milliseconds.

    \b
    On a terminal: a prompt with completion (Tab) of commands, options, character names, conditions
    and roll names with their help, fuzzy matching, a bottom toolbar with the round and who is up next,
    and history (~/.ledger_history; Ctrl-R searches it). A failing command prints its usual error line
    and the shell goes on. `help [COMMAND]` shows help; exit, quit or Ctrl-D leave.
    From a pipe or a SCRIPT file: one command a line, without the word `ledger`; blank lines and
    `#` comments are skipped; no prompts (a command that would ask gets no answer: give it --yes).
    A script stops at its first failing line (--keep-going runs the rest) and says how many lines ran.
    Global options before `play` (--db, --seed, --as, --json) apply to every line; with --seed the
    dice are those of the same commands run one-shot. Exit status: 0 if every line succeeded, else 2.
    Examples:
      ledger play
      ledger --db bay-city.ledger play < session3.txt
      ledger play examples/tour.txt
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
            if session.keep_going:
                click.echo(f"error: {len(session.failed)} of {session.lines} commands failed (line {lines})", err=True)
            else:
                ran = f"{session.lines} command{'' if session.lines == 1 else 's'} ran"
                click.echo(f"error: the script stopped at line {lines}, which failed ({ran})", err=True)
                click.echo("hint: fix that line and play the rest, or run every line with play --keep-going", err=True)
        ctx.exit(2)
    if stream is not None and not app.as_json:
        click.echo(f"({session.lines} command{'' if session.lines == 1 else 's'} ran)")
