"""The click side of the catalog (ledger/catalog.py): each click command is made from its declaration.

`@command(C.ATTACK)` makes the click command that `ledger attack` runs and files it under its declaration;
`commands/main.py` imports a command's module on first use and `attach`es what the module declared. Nothing
else lists commands: a command missing from the catalog cannot be declared here, and one declared in the
catalog but never made here fails tests/unit/test_catalog.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import click

from ledger.catalog import BY_NAME, COMMANDS, Command

MADE: dict[str, click.Command] = {}  # command name -> its click command, once its module is imported
SYSTEM_TAG = re.compile(r"^\s*(hnh|d20|pnp)\b[: ]|\((hnh|d20|pnp)\b[^()]*\)\s*$")  # `hnh: ...`, `... (d20)`


def other_system(text: str, system: str | None) -> bool:
    """Whether a line of help (or an option's help) is about another system than the campaign's (None: every system's
    help is shown, outside a campaign)."""
    m = SYSTEM_TAG.search(text)
    return system is not None and m is not None and (m.group(1) or m.group(2)) != system


class SystemCommand(click.Command):
    """A command whose --help, inside a campaign, shows only that system's lines: the examples tagged `(d20)`, the
    paragraphs and options led by `pnp:` of another system are left out (every system's outside a campaign)."""

    def _system(self, ctx: click.Context) -> str | None:
        # lazy: the campaign's system is read only for help
        from commands.options import campaign_system

        return campaign_system(ctx)

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        system = self._system(ctx)
        if system is None or not self.help:
            super().format_help_text(ctx, formatter)
            return
        saved = self.help
        self.help = "\n".join(line for line in saved.splitlines() if not other_system(line, system))
        try:
            super().format_help_text(ctx, formatter)
        finally:
            self.help = saved

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        system = self._system(ctx)
        rows = []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is not None and not isinstance(param, click.Argument) and not other_system(record[1], system):
                rows.append(record)
        if rows:
            with formatter.section("Options"):
                formatter.write_dl(rows)


def command(spec: Command, **settings: Any) -> Callable[[Callable[..., Any]], click.Command]:
    """A click command for a declared command (named by its last word), filed under its declaration."""

    def make(fn: Callable[..., Any]) -> click.Command:
        made = click.command(spec.word, cls=settings.pop("cls", SystemCommand), **settings)(fn)
        MADE[spec.name] = made
        return made

    return make


def group(spec: Command, **settings: Any) -> Callable[[Callable[..., Any]], click.Group]:
    """A click group for a declared group of sub-commands."""

    def make(fn: Callable[..., Any]) -> click.Group:
        made = click.group(spec.word, **settings)(fn)
        MADE[spec.name] = made
        return made

    return make


def attach(cli: click.Group) -> None:
    """Attach every command made so far to its group (or to the top level); a sub-command made before its group's
    module was imported (`session show` in commands/history.py, imported by `ledger log`) joins the group later."""
    for spec in COMMANDS:
        if spec.name not in MADE:
            continue
        parent = cli if spec.parent is None else MADE.get(spec.parent)
        if isinstance(parent, click.Group) and spec.word not in parent.commands:
            parent.add_command(MADE[spec.name], spec.word)


def spec_of(name: str) -> Command:
    """A command's declaration by its words."""
    return BY_NAME[name]
