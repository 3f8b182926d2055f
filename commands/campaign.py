"""`init` and `session start|end`."""

from __future__ import annotations

import click

from commands.context import AppContext, pass_app
from ledger.rules import system_keys


@click.command("init")
@click.option("--system", "system", required=True, metavar="SYSTEM", help=f"The rule system: {', '.join(system_keys())}.")
@click.option("--name", default=None, help="The campaign's name.")
@click.option(
    "-o", "--option", "settings", multiple=True, metavar="KEY=VALUE",
    help="A campaign setting of the system (repeatable); d20: action-economy=refuse|warn|off.",
)
@pass_app
def init(app: AppContext, system: str, name: str | None, settings: tuple[str, ...]) -> None:
    """Start a campaign in this ledger (ruling 1).

    Example: ledger init --system hnh --name "Bay City Nights"

    Example: ledger init --system d20 -o action-economy=warn
    """
    from ledger.rules.options import split_pairs

    result = app.ledger.init(system, name, split_pairs(settings))
    app.wrote(result, lambda r: f"{r['name']} ({r['system']}) started in {app.ledger.target.describe()}")


@click.group("session")
def session() -> None:
    """Play sessions: optional; rulings made outside one are recorded with no session."""


@session.command("start")
@click.argument("title", required=False)
@pass_app
def session_start(app: AppContext, title: str | None) -> None:
    """Open a play session (numbered 1, 2, ...).

    Example: ledger session start "The heist"
    """
    app.wrote(app.ledger.start_session(title), lambda r: f"session {r['session']} started: {r['title']}")


@session.command("end")
@pass_app
def session_end(app: AppContext) -> None:
    """Close the open play session."""
    app.wrote(app.ledger.end_session(), lambda r: f"session {r['session']} ended")


def register(cli: click.Group) -> None:
    """Attach these commands."""
    cli.add_command(init)
    cli.add_command(session)
