"""`ledger demo`: a short scripted session in each system, then sheets and a timeline."""

from __future__ import annotations

import os
import tempfile

import click

from commands import render
from commands.context import AppContext

SCRIPTS: dict[str, list[tuple[str, ...]]] = {
    "hnh": [
        ("character", "add", "Ann", "--trait", "agility=3", "--trait", "toughness=4", "--trait", "fortitude=5", "--pc"),
        ("character", "add", "Grunt", "--minion", "--trait", "toughness=1"),
        ("session", "start", "Harbour brawl"),
        ("roll", "3dF+3", "--for", "Ann", "--roll", "roll=+,0,+"),
        ("damage", "Ann", "--amount", "4"),
        ("condition", "add", "Ann", "dazed"),
        ("damage", "Ann", "--amount", "5"),
        ("undo",),
        ("damage", "Ann", "--amount", "2"),
        ("session", "end"),
    ],
    "d20": [
        ("character", "add", "Blaze", "--trait", "dex=14", "--trait", "hp=12", "--trait", "armor=2", "--pc"),
        ("character", "add", "Thug", "--trait", "hp=8"),
        ("roll", "1d20+2", "--for", "Blaze"),
        ("damage", "Thug", "--amount", "9"),
        ("damage", "Blaze", "--amount", "3", "--subdual"),
    ],
    "pnp": [
        ("character", "add", "Mara", "--trait", "toughness=4", "--trait", "might=3", "--trait", "willpower=5", "--trait", "agility=4", "--pc"),
        ("character", "add", "Goons", "--minion", "--count", "5", "--trait", "threat=3"),
        ("roll", "5d6", "--for", "Mara"),
        ("damage", "Goons", "--amount", "2"),
        ("damage", "Mara", "--amount", "1"),
    ],
}


@click.command("demo")
@click.option("--db", "demo_db", default=None, metavar="TARGET", help="Where to write the demo ledgers (one per system: TARGET-hnh ...).")
@click.pass_context
def demo(ctx: click.Context, demo_db: str | None) -> None:
    """Play a short scripted session in each system, then show sheets and a timeline.

    The demo writes one ledger per system next to --db (default: a fresh temporary folder) and uses a fixed
    seed, so its rolls are the same every time.
    """
    import contextlib
    import io

    from commands.main import cli
    from ledger.errors import BadInput

    app: AppContext = ctx.obj
    base = demo_db or app.db
    if base is not None and "://" in base:
        raise BadInput("the demo writes one SQLite file per system", "give --db a file path, or leave it out")
    if base is not None:
        taken = [_suffixed(base, s) for s in SCRIPTS if os.path.exists(_suffixed(base, s))]
        if taken:
            raise BadInput(f"{taken[0]} already exists", "remove it or give the demo another --db")
    folder = tempfile.mkdtemp(prefix="ledger-demo-") if base is None else None
    summary: dict[str, object] = {}
    for system, script in SCRIPTS.items():
        db = os.path.join(folder, f"{system}.ledger") if folder else _suffixed(base, system)
        seed = str(app.seed if app.seed is not None else 7)
        steps = [("init", "--system", system, "--name", f"Demo ({system})"), *script]
        if not app.as_json:
            click.echo(f"== {system}: {db}")
        for step in steps:
            args = ["--db", db, "--seed", seed, "--as", "demo", *step]
            quiet = contextlib.redirect_stdout(io.StringIO()) if app.as_json else contextlib.nullcontext()
            if not app.as_json:
                click.echo(f"$ ledger {' '.join(_quote(a) for a in step)}")
            with quiet:
                cli.main(args=args, prog_name="ledger", standalone_mode=False)
        sub = AppContext(db=db, seed=None, actor="demo", as_json=app.as_json)
        try:
            from projections import queries

            sheets = queries.characters(sub.read)
            first = sheets[0]["name"]
            points = queries.timeline(sub.read, first)
            summary[system] = {"db": db, "characters": sheets, "timeline": {first: points}}
            if not app.as_json:
                click.echo("\n".join(render.sheet(s) for s in sheets))
                from commands.history import timeline_text

                click.echo(f"HP timeline of {first}:\n{timeline_text(points)}\n")
        finally:
            sub.close()
    if app.as_json:
        app.emit(summary)


def _suffixed(base: str, system: str) -> str:
    if "://" in base:
        return base  # one database URL: the demo can only use it for one system
    root, ext = os.path.splitext(base)
    return f"{root}-{system}{ext or '.ledger'}"


def _quote(a: str) -> str:
    return f'"{a}"' if (" " in a or not a) else a


def register(cli: click.Group) -> None:
    """Attach this command."""
    cli.add_command(demo)
