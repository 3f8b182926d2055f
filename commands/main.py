"""The `ledger` command group: global options, lazy wiring, and the one place errors become exit codes."""

from __future__ import annotations

import importlib
import re
import sqlite3
import sys
from typing import Any

import click
import orjson

from commands.context import AppContext
from commands.params import number
from ledger.errors import LedgerError, close_match
from ledger.model.bounds import check_actor, safe

EPILOG = """\b
Exit codes: 0 success; 1 `verify` found problems; 2 bad usage or bad input (nothing appended).
Examples:
  ledger init --system hnh --name "Bay City"
  ledger character add Ann --trait agility=3 --trait toughness=4 --pc
  ledger damage Ann --amount 2
  ledger undo
  ledger --json log
  ledger attack Ann Thug --rank 6 -v            (-v: also every raw event)
  ledger character show Ann --json              (--json and -v may follow the command)
"""

# Global flags a user may also write after the command (`ledger character show Ann --json`).
TRAILING_FLAGS = {"--json": "--json", "-v": "--verbose", "--verbose": "--verbose", "--secret": "--secret"}
TRAILING_VALUED = ("--note",)  # global options with a value that may follow the command too (`attack A B --note TEXT`)


class LedgerGroup(click.Group):
    """A click group whose every refusal (bad usage or a LedgerError) is one line on stderr and exit code 2."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command name, loaded or not."""
        # lazy: the command table; kept out of `ledger --version`
        from ledger.catalog import top_level

        return sorted(set(top_level()) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """A command, importing its module on first use."""
        # lazy: the command table; kept out of `ledger --version`
        from ledger.catalog import modules_of

        load(*modules_of(cmd_name))  # the group's module, then every module that adds to it (`session show`)
        return self.commands.get(cmd_name)

    def load_all(self) -> None:
        """Import every command module (help, completion, tests that walk the whole tree)."""
        # lazy: the command table; kept out of `ledger --version`
        from ledger.catalog import COMMANDS

        load(*(c.cli for c in COMMANDS))

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Move --json and -v/--verbose written after the command to the front, where the group reads them."""
        return super().parse_args(ctx, hoist(args))

    def main(
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run; in standalone mode map refusals to 'error: …' (+ 'hint: …') and exit codes, never tracebacks."""
        words = list(sys.argv[1:] if args is None else args)
        global _as_json
        _as_json = "--json" in words[: words.index("--") if "--" in words else len(words)]
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        words = sys.argv[1:] if args is None else list(args)
        if any("\udc80" <= c <= "\udcff" for w in words if isinstance(w, str) for c in w):
            report(
                "an argument is not valid UTF-8 text", "type names and paths in UTF-8"
            )  # bytes the OS could not decode
            sys.exit(2)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except LedgerError as e:
            report(e.message, e.hint)
            sys.exit(getattr(e, "exit_code", 2))  # 130 for a wait cancelled with Ctrl-C
        except click.exceptions.NoArgsIsHelpError as e:  # `ledger` alone, or a group without its verb
            if e.ctx is not None:
                click.echo(e.ctx.get_help())
            sys.exit(0)
        except click.UsageError as e:
            path = e.ctx.command_path if e.ctx else "ledger"
            message, hint = e.format_message().replace("\n", " "), _command_hint(e)
            if hint:  # one suggestion, in the hint (click puts its own in the message)
                message = message.split(" Did you mean", 1)[0]
            report(message, hint or f"see: {path} --help")
            sys.exit(2)
        except click.ClickException as e:
            report(e.format_message())
            sys.exit(e.exit_code)
        except click.Abort:
            report("aborted")
            sys.exit(1)
        except Exception as e:
            if not database_failure(e):
                raise  # a bug: its traceback is wanted
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            report(
                f"the ledger's database failed: {first[:200]}",
                "run: ledger verify (and restore a copy if it is damaged)",
            )
            sys.exit(2)
        warn_snapshots()
        sys.exit(rv if isinstance(rv, int) else 0)


_as_json = False  # whether the running command line asked for --json (errors then come as JSON too)


def hoist(args: list[str]) -> list[str]:
    """The global flags (and `--note TEXT`) found after the command (before any `--`), moved to the front; the rest
    in order."""
    end = args.index("--") if "--" in args else len(args)
    valued: list[str] = []
    kept: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if i < end and a in TRAILING_VALUED and i + 1 < end:
            valued += [a, args[i + 1]]
            i += 2
            continue
        if i < end and a.partition("=")[0] in TRAILING_VALUED and "=" in a:
            valued.append(a)
        else:
            kept.append(a)
        i += 1
    end = kept.index("--") if "--" in kept else len(kept)
    flags = [TRAILING_FLAGS[a] for a in kept[:end] if a in TRAILING_FLAGS]
    if not flags and not valued:
        return args
    rest = [a for j, a in enumerate(kept) if j >= end or a not in TRAILING_FLAGS]
    return [*dict.fromkeys(flags), *valued, *rest]


def database_failure(e: BaseException) -> bool:
    """Whether an exception is the database's own failure (a damaged file, a lost server), not a bug in the ledger."""
    names = {c.__module__.split(".")[0] + "." + c.__name__ for c in type(e).__mro__}
    return isinstance(e, sqlite3.DatabaseError) or bool(
        names & {"eventsourcing.PersistenceError", "sqlalchemy.DBAPIError", "psycopg.Error", "psycopg.OperationalError"}
    )


def _command_hint(e: click.UsageError) -> str | None:
    """A did-you-mean for a mistyped command name (`ledger atack`, `ledger encounter nxt`)."""
    found = re.match(r"No such command '(.+)'\.", e.message)
    group = e.ctx.command if e.ctx else None
    if not found or not isinstance(group, click.Group) or e.ctx is None:
        return None
    close = close_match(found.group(1), group.list_commands(e.ctx))
    path = " ".join(["ledger", *e.ctx.command_path.split()[1:]])
    return f"did you mean '{path} {close}'?" if close else None


def report(message: str, hint: str | None = None) -> None:
    """The one way a refusal is shown: 'error: …' and optionally 'hint: …' on stderr, made safe for a terminal.

    Under --json it is one JSON object on stderr instead: {"error": ..., "hint": ...}.
    """
    if _as_json:
        click.echo(orjson.dumps({"error": safe(message), "hint": safe(hint) if hint else None}).decode(), err=True)
        return
    click.echo(f"error: {safe(message)}", err=True)
    if hint:
        click.echo(f"hint: {safe(hint)}", err=True)


def warn_snapshots() -> None:
    """Say once that a snapshot was ignored because it does not match the chain link that took it."""
    found = sys.modules["ledger.snapshots"].REPORTS if "ledger.snapshots" in sys.modules else []
    for line in found:
        click.echo(f"warning: {line}: ignored, folded from the events instead", err=True)
    if found:
        click.echo("hint: run: ledger verify", err=True)
        found.clear()


@click.group(cls=LedgerGroup, epilog=EPILOG, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    envvar="LEDGER_DB",
    default=None,
    metavar="TARGET",
    help="SQLite file or database URL [env LEDGER_DB; default campaign.ledger].",
)
@click.option(
    "--seed",
    envvar="LEDGER_SEED",
    type=number("seed"),
    default=None,
    help="Make the ledger's own dice reproducible [env LEDGER_SEED].",
)
@click.option(
    "--as",
    "actor",
    envvar="LEDGER_ACTOR",
    default=None,
    metavar="NAME",
    help="Who is recording [env LEDGER_ACTOR; default the OS user].",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Machine output: one JSON document on stdout (also after the command)."
)
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="After a ruling's sentence and dice, every raw event (also after the command).",
)
@click.option(
    "--note",
    default=None,
    metavar="TEXT",
    help="A note kept in the intent of the ruling this command records, shown in log, why and exports (also after "
    "the command).",
)
@click.option(
    "--secret",
    is_flag=True,
    help="Keep the ruling this command records off the players' screen (its words and dice) until `encounter "
    "reveal --ruling N` (also after the command).",
)
@click.option("--asked-by", "asked_by", default=None, hidden=True, help="(set by `ledger pending accept`)")
@click.version_option(package_name="ledger", message="ledger %(version)s")
@click.pass_context
def cli(
    ctx: click.Context,
    db: str | None,
    seed: int | None,
    actor: str | None,
    as_json: bool,
    verbose: bool,
    note: str | None,
    secret: bool,
    asked_by: str | None,
) -> None:
    """An event-sourced campaign ledger for superhero tabletop games (hnh, d20, pnp).

    Every command that changes anything appends one ruling: its intent, every die, who, when, and the
    events it produced. Undo, redo and `verify` work on that record; nothing is ever edited.
    """
    if actor is not None:
        actor = check_actor(actor)
    ctx.obj = AppContext(
        db=db, seed=seed, actor=actor, as_json=as_json, verbose=verbose, note=note, secret=secret, asked_by=asked_by
    )
    ctx.call_on_close(ctx.obj.close)


_loaded: set[str] = set()


def load(*modules: str) -> None:
    """Import command modules (each once, in the order given) and attach the commands they declare
    (commands/registry.py); a command's module is imported only when that command runs, or when help lists all."""
    # lazy: the command table; kept out of `ledger --version`
    from commands.registry import attach

    for name in dict.fromkeys(modules):
        if name not in _loaded:
            _loaded.add(name)
            importlib.import_module(f"commands.{name}")
            attach(cli)


def main() -> None:
    """Console-script entry point."""
    cli.main(prog_name="ledger")
