"""The click side of the catalog (ledger/catalog.py): each click command is made from its declaration.

`@command(C.ATTACK)` makes the click command that `ledger attack` runs and files it under its declaration;
`commands/main.py` imports a command's module on first use and `attach`es what the module declared. Nothing
else lists commands: a command missing from the catalog cannot be declared here, and one declared in the
catalog but never made here fails tests/unit/test_catalog.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from ledger.catalog import BY_NAME, COMMANDS, Command

MADE: dict[str, click.Command] = {}  # command name -> its click command, once its module is imported


def command(spec: Command, **settings: Any) -> Callable[[Callable[..., Any]], click.Command]:
    """A click command for a declared command (named by its last word), filed under its declaration."""

    def make(fn: Callable[..., Any]) -> click.Command:
        made = click.command(spec.word, **settings)(fn)
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
