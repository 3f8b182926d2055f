"""History: `log`, `timeline`, `undo`, `redo`, `verify`, `rebuild`."""

from __future__ import annotations

import sys
from typing import Any

import click

from commands import render
from commands.context import AppContext, pass_app


@click.command("log")
@click.option("--session", type=int, default=None, help="Only rulings of play session N.")
@click.option("--character", "character_name", default=None, metavar="NAME", help="Only events about NAME.")
@click.option("--all", "everything", is_flag=True, help="Also the ledger's own bookkeeping events (chain links).")
@pass_app
def log(app: AppContext, session: int | None, character_name: str | None, everything: bool) -> None:
    """Every event in order; retracted rulings are marked with who retracted them and when.

    Example: ledger log --character Ann
    """
    from projections import queries

    rows = queries.events(app.read, session=session, character_name=character_name, everything=everything)
    app.emit(rows, render.log_lines)


@click.command("timeline")
@click.argument("name")
@pass_app
def timeline(app: AppContext, name: str) -> None:
    """A character's HP over time (undone rulings left out).

    Example: ledger timeline Ann
    """
    from projections import queries

    points = queries.timeline(app.read, name)
    app.emit(points, _timeline_text)


def _timeline_text(points: list[dict[str, Any]]) -> str:
    if not points:
        return "(no HP changes)"
    lo = min(min(p["hp"] for p in points), 0)
    hi = max(max(p["max_hp"] for p in points), max(p["hp"] for p in points))
    lines = []
    for p in points:
        bar = "#" * (p["hp"] - lo)
        lines.append(f"ruling {p['ruling']:>5}  {p['at']}  HP {p['hp']:>3}  |{bar:<{hi - lo}}|")
    return "\n".join(lines)


@click.command("undo")
@pass_app
def undo(app: AppContext) -> None:
    """Retract the latest live ruling: the state becomes that of the history without it."""
    app.wrote(app.ledger.undo(), lambda r: f"undid ruling {r['target']} ({r['command']})")


@click.command("redo")
@pass_app
def redo(app: AppContext) -> None:
    """Restore the latest undone ruling (only until a new ruling is made)."""
    app.wrote(app.ledger.redo(), lambda r: f"redid ruling {r['target']} ({r['command']})")


@click.command("verify")
@pass_app
def verify(app: AppContext) -> None:
    """Recompute the hash chain and every aggregate's version sequence; exit 1 on any problem.

    Example: ledger verify && echo intact
    """
    from ledger.verify import Problem, verify as run

    problems, counts = run(app.ledger.store.recorder)
    app.ledger.campaign()  # refuses an empty ledger
    problems += _view_problems(app, counts["events"])
    if app.as_json:
        app.emit({"ok": not problems, "problems": [p.__dict__ for p in problems], **counts})
    else:
        for p in problems:
            click.echo(p.line())
        summary = f"{counts['rulings']} rulings, {counts['events']} events, {counts['aggregates']} aggregates"
        click.echo(f"ok: {summary}" if not problems else f"{len(problems)} problem(s) in {summary}")
    if problems:
        raise SystemExit(1)
    _ = Problem


def _view_problems(app: AppContext, events: int) -> list[Any]:
    """The read side must not have seen more of the log than the log holds (a truncated log)."""
    from ledger.verify import Problem
    from projections.views import position

    read = app.read
    with read.engine.connect() as conn:
        pos = position(conn)
        top = read.max_seq(conn)
    if pos > top:
        return [Problem(pos, None, f"the views have seen event {pos} but the log ends at {top}: events were removed")]
    return []


@click.command("rebuild")
@pass_app
def rebuild(app: AppContext) -> None:
    """Rebuild every read model from the event log (with a progress bar)."""
    from projections.views import rebuild as run

    read = app.read
    with read.engine.connect() as conn:
        total = read.max_seq(conn)
    if app.as_json:
        n = run(read)
    else:
        with click.progressbar(length=total, label="rebuilding", file=sys.stderr) as bar:
            n = run(read, lambda done, step: bar.update(step))
    app.emit({"events": n}, f"rebuilt the views from {n} events")


def register(cli: click.Group) -> None:
    """Attach these commands."""
    for c in (log, timeline, undo, redo, verify, rebuild):
        cli.add_command(c)
