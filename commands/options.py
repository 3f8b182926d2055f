"""Click options generated from the rule systems' option declarations (ledger/rules/options.py).

A command's named rules options (`--rank`, `--cover`, ...) are the union of what the systems declare `named`
for it; `-o KEY=VALUE` takes any declared key. Values reach the ledger as given (text), or typed by click for
named options; the ledger types and validates them against the campaign's own system before deciding.
`--help`, completion and docs/cli.md read the same declarations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

import click
from click.shell_completion import CompletionItem

from commands.context import AppContext
from ledger.rules import declarations as declared_module
from ledger.rules import system_keys
from ledger.rules.options import Opt, split_pairs

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem

F = TypeVar("F", bound=Callable[..., Any])


@cache
def declarations(system: str) -> Mapping[str, tuple[Opt, ...]]:
    """A system's option declarations by command (`act ACTION` included), without loading its rules."""
    mod = _module(system)
    out: dict[str, tuple[Opt, ...]] = dict(mod.OPTIONS)
    for name, opts in getattr(mod, "ACTIONS", {}).items():
        out[f"act {name}"] = opts
    return out


def _module(system: str) -> Any:
    """A system's declarations module (ledger/rules/<key>/options.py)."""
    return declared_module(system)


def roll_names(command: str) -> dict[str, list[str]]:
    """The names of the rolls a command takes, per system (`act`: every action's)."""
    out: dict[str, list[str]] = {}
    for s in system_keys():
        mod = _module(s)
        if command == "act":
            names = [n for rolls in mod.ACTION_ROLLS.values() for n in rolls]
        else:
            names = list(mod.ROLLS.get(command, {}))
        if names:
            out[s] = list(dict.fromkeys(names))
    return out


def by_system(command: str) -> dict[str, tuple[Opt, ...]]:
    """The declarations of one command in every system that has it."""
    return {s: declarations(s).get(command, ()) for s in system_keys() if command in declarations(s)}


def named(command: str) -> list[tuple[str, Opt, str]]:
    """The named options of a command: (name, a declaration, help across systems), in declaration order."""
    seen: dict[str, tuple[Opt, list[str]]] = {}
    for system, opts in by_system(command).items():
        for o in opts:
            if o.named:
                first, helps = seen.setdefault(o.name, (o, []))
                helps.append(f"{system}: {o.help}" + (f" [{o.metavar}]" if o.kind == "choice" else ""))
    return [(name, o, "; ".join(helps)) for name, (o, helps) in seen.items()]


class RulesOption(click.Option):
    """A named rules option whose --help, inside a campaign, is that system's alone (other systems' are left out)."""

    def __init__(
        self, *args: Any, per_system: dict[str, str] | None = None, always: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.per_system = per_system or {}
        self.always = always  # shown in every system (its help narrowed where the system has its own)

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        """This option's help line for the campaign's system; None (not shown) when that system lacks it."""
        system = campaign_system(ctx)
        if system is None:
            return super().get_help_record(ctx)
        if system not in self.per_system:
            return super().get_help_record(ctx) if self.always else None
        saved, self.help = self.help, self.per_system[system]
        try:
            return super().get_help_record(ctx)
        finally:
            self.help = saved


def campaign_system(ctx: click.Context) -> str | None:
    """The rule system of the campaign the command would act on (None outside one, or when it can't be read)."""
    app = ctx.find_object(AppContext)
    if app is None:
        return None
    try:
        return str(app.ledger.campaign().system)
    except Exception:  # no ledger, no campaign, or a store that can't be opened: help for every system
        return None


def rules_options(command: str) -> Callable[[F], F]:
    """Add a command's named rules options and `-o KEY=VALUE` (the callback gets `rules_options={...}`)."""

    def decorate(fn: F) -> F:
        for name, opt, help_text in reversed(named(command)):
            param = name.replace("-", "_") + "_opt"
            per = {s: h for s, h in per_system(command, name).items()}
            if opt.kind == "flag":
                fn = click.option(
                    f"--{name}", param, cls=RulesOption, per_system=per, is_flag=True, default=None, help=help_text
                )(fn)
            else:
                meta = (
                    "N" if opt.kind == "int" else opt.metavar if opt.kind in ("names", "ints", "dice") else name.upper()
                )
                fn = click.option(
                    f"--{name}", param, cls=RulesOption, per_system=per, default=None, metavar=meta, help=help_text
                )(fn)
        return click.option(
            "-o",
            "--option",
            "extra",
            multiple=True,
            metavar="KEY=VALUE",
            shell_complete=complete(command),
            help="A rules option of the campaign's system (repeatable); `ledger options " + command + "` lists them.",
        )(fn)

    return decorate


def gather(command: str, params: dict[str, Any]) -> dict[str, Any]:
    """The rules options given: named ones (as given, 0 and no included) and `-o KEY=VALUE` pairs; pops them from
    params."""
    out: dict[str, Any] = {}
    for name, _opt, _help in named(command):
        value = params.pop(name.replace("-", "_") + "_opt", None)
        if value is not None:
            out[name] = value
    out.update(split_pairs(params.pop("extra", ())))
    return out


def per_system(command: str, name: str) -> dict[str, str]:
    """A named option's help in each system that declares it."""
    return {
        system: o.help + (f" [{o.metavar}]" if o.kind == "choice" else "")
        for system, opts in by_system(command).items()
        for o in opts
        if o.named and o.name == name
    }


def complete(command: str) -> Callable[[click.Context, click.Parameter, str], list[CompletionItem]]:
    """Completion of `-o KEY=VALUE` from the declarations of every system."""

    def items(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
        return [CompletionItem(text, help=h) for text, h in candidates(command, incomplete)]

    return items


def candidates(command: str, incomplete: str) -> list[tuple[str, str]]:
    """`KEY=` or `KEY=VALUE` completions with their help."""
    key, sep, value = incomplete.partition("=")
    out: dict[str, str] = {}
    for opts in by_system(command).values():
        for o in opts:
            if not sep and o.name.startswith(key):
                out.setdefault(f"{o.name}=", o.help)
            elif sep and o.name == key:
                for v in _values(o):
                    if v.startswith(value):
                        out.setdefault(f"{o.name}={v}", o.help)
    return sorted(out.items())


def _values(o: Opt) -> Iterable[str]:
    if o.kind == "flag":
        return ("yes", "no")
    return o.choices


def _set_wait(ctx: click.Context, _: click.Parameter, value: float | None) -> None:
    """Give the ledger this command's --wait (or the default: each command in the shell starts afresh)."""
    app = ctx.find_object(AppContext)
    if app is not None and not ctx.resilient_parsing:
        # lazy: the write side (eventsourcing); kept out of `ledger --help`
        from ledger.application import WAIT

        app.ledger.wait = WAIT if value is None else value


def wait_option(f: F) -> F:
    """--wait SECONDS: how long the command waits for a player's roll (session start --player-dice)."""
    return click.option(
        "--wait",
        type=click.FloatRange(min=0, min_open=True, max=86400),
        metavar="SECONDS",
        default=None,
        expose_value=False,
        callback=_set_wait,
        help="In a --player-dice session: how long to wait for a player's roll (default 300); then exit 2, nothing "
        "recorded.",
    )(f)
