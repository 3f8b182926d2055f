"""`ledger demo`: a short scripted session in each system, then sheets and a timeline."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile

import click

from commands import render
from commands.context import AppContext
from commands.history import timeline_text
from commands.main import cli
from commands.registry import command
from ledger import catalog as C
from ledger.errors import BadInput
from ledger.rules import health_word

SCRIPTS: dict[str, list[tuple[str, ...]]] = {
    "hnh": [
        (
            "character",
            "add",
            "Ann",
            "--trait",
            "agility=3",
            "--trait",
            "fighting=6",
            "--trait",
            "parry=5",
            "--trait",
            "dodge=5",
            "--trait",
            "toughness=4",
            "--trait",
            "fortitude=5",
            "--pc",
        ),
        (
            "character",
            "add",
            "Bruiser",
            "--trait",
            "fighting=4",
            "--trait",
            "parry=3",
            "--trait",
            "dodge=2",
            "--trait",
            "toughness=3",
            "--trait",
            "agility=1",
        ),
        ("character", "add", "Grunts", "--minion", "--trait", "parry=1", "--trait", "toughness=1"),
        ("session", "start", "Harbour brawl"),
        (
            "encounter",
            "start",
            "Ann",
            "Bruiser",
            "Grunts",
            "--roll",
            "Ann=+,0,0",
            "--roll",
            "Bruiser=0,0,-",
            "--roll",
            "Grunts=0,0,0",
        ),
        (
            "attack",
            "Ann",
            "Bruiser",
            "--rank",
            "6",
            "--bonus",
            "6",
            "--roll",
            "attack=+,0,0",
            "--roll",
            "defense=0,0,0",
            "--roll",
            "power=+,0,0",
            "--roll",
            "toughness=0,-,0",
        ),
        ("encounter", "next"),
        (
            "attack",
            "Bruiser",
            "Ann",
            "--rank",
            "5",
            "--bonus",
            "4",
            "--roll",
            "attack=+,+,0",
            "--roll",
            "defense=-,0,0",
            "--roll",
            "power=+,+,0",
            "--roll",
            "toughness=-,-,0",
        ),
        ("retract", "9", "--yes"),
        ("encounter", "show"),
        ("session", "end"),
    ],
    "d20": [
        (
            "character",
            "add",
            "Blaze",
            "--trait",
            "dex=14",
            "--trait",
            "str=14",
            "--trait",
            "attack=2",
            "--trait",
            "hp=12",
            "--trait",
            "armor=2",
            "--pc",
        ),
        ("character", "add", "Thug", "--trait", "dex=10", "--trait", "hp=30", "--trait", "dn=1"),
        ("encounter", "start", "Blaze", "Thug", "--roll", "Blaze=15", "--roll", "Thug=9"),
        (
            "attack",
            "Blaze",
            "Thug",
            "--damage",
            "1d8",
            "--roll",
            "attack=20",
            "--roll",
            "confirm=14",
            "--roll",
            "death=3",
            "--roll",
            "damage=6",
        ),
        ("character", "add", "Mook", "--trait", "hp=4", "--copies", "2"),  # d20 has no minion groups: Mook 1, Mook 2
        ("encounter", "join", "Mook", "--roll", "Mook 1=5", "--roll", "Mook 2=3"),
        ("condition", "add", "Thug", "prone", "--rounds", "1", "--note", "knocked down by the hit"),
        ("encounter", "next"),
        ("attack", "Thug", "Blaze", "--roll", "attack=13", "--roll", "damage=3"),
        ("undo",),
        ("encounter", "next"),  # the end of Thug's turn: prone runs out, and the ruling says so
        ("encounter", "end"),
    ],
    "pnp": [
        (
            "character",
            "add",
            "Mara",
            "--trait",
            "might=4",
            "--trait",
            "agility=3",
            "--trait",
            "toughness=4",
            "--trait",
            "willpower=5",
            "--trait",
            "perception=3",
            "--pc",
        ),
        ("character", "add", "Goons", "--minion", "--count", "5", "--trait", "threat=2"),
        ("session", "start", "Issue 1"),
        ("gain", "Mara", "resolve", "2", "--reason", "heroics"),
        ("encounter", "start", "Mara", "Goons"),
        ("attack", "Mara", "Goons", "--with", "might", "--roll", "attack=6,4,2,1", "--roll", "defense=3,4"),
        ("encounter", "next"),
        ("attack", "Goons", "Mara", "--roll", "attack=6,2", "--roll", "defense=4,1,3"),
        ("spend", "Mara", "resolve", "1", "--purpose", "recovery"),
        ("session", "end"),
    ],
}


@command(C.DEMO)
@click.option(
    "--db",
    "demo_db",
    default=None,
    metavar="TARGET",
    help="Where to write the demo ledgers (one per system: TARGET-hnh ...).",
)
@click.pass_context
def demo(ctx: click.Context, demo_db: str | None) -> None:
    """Play a short scripted session in each system, then show sheets and a timeline.

    The demo writes one ledger per system next to --db (default: a fresh temporary folder) and uses a fixed
    seed, so its rolls are the same every time.
    """

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
        db = os.path.join(folder, f"{system}.ledger") if folder else _suffixed(str(base), system)
        seed = str(app.seed if app.seed is not None else 7)
        steps = [("init", "--system", system, "--name", "Demo"), *script]
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
            # lazy: the read side (SQLAlchemy); kept out of `ledger --help`
            from projections import queries

            sheets = queries.characters(sub.read)
            lines = {s["name"]: queries.timeline(sub.read, s["name"]) for s in sheets}
            first = max(lines, key=lambda n: len(lines[n]))  # the character whose HP moved most
            points = lines[first]
            summary[system] = {"db": db, "characters": sheets, "timeline": {first: points}}
            if not app.as_json:
                click.echo("\n".join(render.sheet(s) for s in sheets))
                word = health_word(system)
                click.echo(f"{word} timeline of {first}:\n{timeline_text(points, system)}\n")
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
