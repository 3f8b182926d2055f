"""`init` and `session start|end`."""

from __future__ import annotations

import click

from commands.context import AppContext, pass_app


@click.command("init")
@click.option("--system", "system", required=True, type=click.Choice(["hnh", "d20", "pnp"]), help="The rule system.")
@click.option("--name", default=None, help="The campaign's name.")
@pass_app
def init(app: AppContext, system: str, name: str | None) -> None:
    """Start a campaign in this ledger (ruling 1).

    Example: ledger init --system hnh --name "Bay City Nights"
    """
    result = app.ledger.init(system, name)
    app.wrote(result, lambda r: f"{r['name']} ({r['system']}) started in {app.ledger.target.describe()}")


@click.group("session")
def session() -> None:
    """Play sessions: optional; rulings made outside one are recorded with no session."""


@session.command("start")
@click.argument("title", required=False)
@click.option("--new-day", is_flag=True, help="hnh: a new in-game day begins (each hero's victory points back to 2).")
@pass_app
def session_start(app: AppContext, title: str | None, new_day: bool) -> None:
    """Open a play session (numbered 1, 2, ...).

    Example: ledger session start "The heist" --new-day
    """
    app.wrote(app.ledger.start_session(title, new_day=new_day), lambda r: f"session {r['session']} started: {r['title']}")


@session.command("end")
@pass_app
def session_end(app: AppContext) -> None:
    """Close the open play session."""
    app.wrote(app.ledger.end_session(), lambda r: f"session {r['session']} ended")


def register(cli: click.Group) -> None:
    """Attach these commands."""
    cli.add_command(init)
    cli.add_command(session)
