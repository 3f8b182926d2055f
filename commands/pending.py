"""`ledger pending [accept|edit|refuse N]`: what players asked their heroes to do from their pages (`ledger serve`).

A request is the words of one command the page offered (projections/choices.py) and the sentence of the ruling it
would make. Accepting records that command exactly, as if the GM had typed it, and the ruling keeps who asked
(`asked_by` in its intent); the player's dice are then asked of their page as for any of their hero's rolls.
Editing records the GM's own command instead (still asked by that hero); refusing, or letting it expire (two
minutes), records nothing.
"""

from __future__ import annotations

import shlex
import time
from typing import Any

import click

from commands.context import AppContext, pass_app
from commands.params import number
from commands.registry import command, group
from ledger import catalog as C
from ledger.errors import BadInput, Conflict, NotFound


@group(C.PENDING, invoke_without_command=True)
@click.pass_context
def pending(ctx: click.Context) -> None:
    """Players' requests from their pages, oldest first: each as the ruling's sentence to be made and its command.

    \b
    Accept one with `ledger pending accept N` (the F2 key in `ledger play`), record your own version with
    `ledger pending edit N -- COMMAND...`, or `ledger pending refuse N`. A request expires after two
    minutes; a refused or expired one records nothing.
    Example: ledger pending
    """
    if ctx.invoked_subcommand is not None:
        return
    app: AppContext = ctx.obj
    found = app.ledger.players.proposals()
    now = time.time()
    doc = [
        {"number": p["num"], "hero": p["hero"], "said": p["said"], "command": p["words"],
         "expires_in": max(0, round(p["expires"] - now))}
        for p in found
    ]  # fmt: skip
    app.emit(doc, lambda d: "\n".join(_line(x) for x in d) or "no requests from the players")


def _line(x: dict[str, Any]) -> str:
    return (
        f"{x['number']:>3}  {x['hero']} asks: {x['said']}   (ledger {shlex.join(x['command'])};"
        f" expires in {x['expires_in']} s)"
    )


def _open(app: AppContext, n: int) -> dict[str, Any]:
    """Request N, open and unexpired; NotFound or Conflict otherwise."""
    found = app.ledger.players.proposal(n)
    if found is None:
        raise NotFound(f"there is no request {n}", "see: ledger pending")
    if found["state"] != "open":
        raise Conflict(f"request {n} is {found['state']}: nothing to do", "see: ledger pending")
    return found


def _record(ctx: click.Context, hero: str, words: list[str]) -> None:
    """Run one command line as the GM typed it, recording that `hero`'s player asked for it."""
    app: AppContext = ctx.obj
    root = ctx.find_root().command
    assert isinstance(root, click.Group)
    pre = ["--db", app.db] if app.db else []
    pre += ["--as", app.actor] if app.actor else []
    pre += ["--seed", str(app.seed)] if app.seed is not None else []
    pre += ["--json"] if app.as_json else []
    with app.hosting():
        try:
            root.main(args=[*pre, "--asked-by", hero, *words], prog_name="ledger", standalone_mode=True)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
            if code:
                ctx.exit(code)


@command(C.PENDING_ACCEPT)
@click.argument("n", type=number("number"))
@click.pass_context
def accept(ctx: click.Context, n: int) -> None:
    """Record request N exactly as the player's page asked (the ruling records who asked).

    Example: ledger pending accept 3
    """
    app: AppContext = ctx.obj
    found = _open(app, n)
    _record(ctx, found["hero"], found["words"])
    app.ledger.players.settle(n, "accepted")


@command(C.PENDING_EDIT)
@click.argument("n", type=number("number"))
@click.argument("words", nargs=-1, type=click.UNPROCESSED)
@click.pass_context
def edit(ctx: click.Context, n: int, words: tuple[str, ...]) -> None:
    """Record your own version of request N (still asked by that hero); without a command, print the request's.

    \b
    Example: ledger pending edit 3 -- check Ann agility --dc 12
    """
    app: AppContext = ctx.obj
    found = _open(app, n)
    if not words:
        click.echo(f"ledger pending edit {n} -- {shlex.join(found['words'])}")
        return
    if words[0] == "ledger":
        words = words[1:]
    if not words:
        raise BadInput("give the command to record", f"ledger pending edit {n} -- {shlex.join(found['words'])}")
    _record(ctx, found["hero"], list(words))
    app.ledger.players.settle(n, "edited")


@command(C.PENDING_REFUSE)
@click.argument("n", type=number("number"))
@pass_app
def refuse(app: AppContext, n: int) -> None:
    """Refuse request N: nothing is recorded; the player's page says so.

    Example: ledger pending refuse 3
    """
    found = _open(app, n)
    app.ledger.players.settle(n, "refused")
    app.emit({"number": n, "refused": True}, f"request {n} refused ({found['hero']}: {found['said']})")
