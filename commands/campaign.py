"""`init` and `session start|end`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from commands.context import AppContext, pass_app
from commands.registry import command, group
from ledger import catalog as C
from ledger.rules import system_keys
from ledger.rules.options import split_pairs

if TYPE_CHECKING:
    from ledger.intents import Recorded


@command(C.INIT)
@click.option(
    "--system", "system", required=True, metavar="SYSTEM", help=f"The rule system: {', '.join(system_keys())}."
)
@click.option("--name", default=None, help="The campaign's name.")
@click.option(
    "-o",
    "--option",
    "settings",
    multiple=True,
    metavar="KEY=VALUE",
    help="A campaign setting of the system (repeatable); d20 and hnh: action-economy=refuse|warn|off.",
)
@pass_app
def init(app: AppContext, system: str, name: str | None, settings: tuple[str, ...]) -> None:
    """Start a campaign in this ledger (ruling 1).

    Example: ledger init --system hnh --name "Bay City Nights"

    Example: ledger init --system d20 -o action-economy=warn
    """
    result = app.ledger.init(system, name, split_pairs(settings))
    app.wrote(result, lambda r: f"{r['name']} ({r['system']}) started in {app.ledger.target.describe()}")


@group(C.SESSION)
def session() -> None:
    """Play sessions: optional; rulings made outside one are recorded with no session."""


@command(C.SESSION_START)
@click.argument("title", required=False)
@click.option("--new-day", is_flag=True, help="hnh: a new in-game day begins (each hero's victory points back to 2).")
@click.option(
    "--commit-dice",
    is_flag=True,
    help="Verifiable dice: the ledger draws a secret and records only its SHA-256 (printed); "
    "every die it rolls this session derives from the secret, revealed at `session end` for `ledger verify --dice`.",
)
@click.option(
    "--player-dice",
    is_flag=True,
    help="Players roll their heroes' dice on their pages (`ledger player link`); implies --commit-dice. "
    "A command that needs a linked hero's roll waits for it (--wait SECONDS).",
)
@pass_app
def session_start(app: AppContext, title: str | None, new_day: bool, commit_dice: bool, player_dice: bool) -> None:
    """Open a play session (numbered 1, 2, ...).

    Example: ledger session start "The heist" --commit-dice --new-day

    Example: ledger session start --player-dice
    """
    result = app.ledger.start_session(title, commit_dice=commit_dice, new_day=new_day, player_dice=player_dice)
    app.wrote(result, started_text)


def started_text(r: Recorded) -> str:
    """The session's number and title, and its dice commitment for the players to note."""
    line = f"session {r['session']} started: {r['title']}"
    if "new_day" in r:  # H&H: "Players start each in game day with 2 Victory points"
        held = [f"{n} {', '.join(f'{v} {k}' for k, v in res.items())}" for n, res in r["new_day"].items() if res]
        line += "\na new in-game day: " + ("; ".join(held) if held else "no hero holds a resource")
    return line + (f"\ndice commitment (SHA-256): {r['commitment']}" if r.get("commitment") else "")


@command(C.SESSION_END)
@pass_app
def session_end(app: AppContext) -> None:
    """Close the open play session; one that committed its dice reveals its secret into the log."""
    result = app.ledger.end_session()
    result["head"] = (
        app.ledger.campaign().last_hash
    )  # the chain's head: note it; `ledger verify --expect HEAD` anchors the history
    app.wrote(result, ended_text)


def ended_text(r: Recorded) -> str:
    """The session's end, and what became of its dice secret."""
    line = f"session {r['session']} ended" + (f"\nhead: {r['head']}" if r.get("head") else "")
    if "revealed" not in r:
        return line
    if r["revealed"]:
        return line + f"\ndice secret revealed: {r['revealed']} (check: ledger verify --dice)"
    return line + (
        "\nwarning: this session's dice secret was lost (not in the database, or not the one committed);"
        " its dice can't be verified and `ledger verify --dice` fails this session"
    )
