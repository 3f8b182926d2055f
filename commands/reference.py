"""`ledger options [COMMAND]` and the generated CLI reference (docs/cli.md), both from the declarations.

Regenerate the reference after changing a command or a declaration: `python -m commands.reference --write`
(a test fails while docs/cli.md is out of date).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from commands.context import AppContext, pass_app
from commands.main import cli
from commands.options import declarations, roll_names
from commands.registry import command
from ledger import catalog as C
from ledger.errors import BadInput
from ledger.rules import system_keys
from ledger.rules.options import Opt, suggest

WIDTH = 100  # help is wrapped at this width in the reference, whatever the terminal
REFERENCE = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


def opt_doc(o: Opt) -> dict[str, Any]:
    """One declaration as plain data (the --json shape)."""
    doc: dict[str, Any] = {"name": o.name, "kind": o.kind, "help": o.help, "source": o.source, "named": o.named}
    if o.choices:
        doc["choices"] = list(o.choices)
    if o.default:
        doc["default"] = o.default
    if o.kind in ("int", "ints"):
        doc["range"] = [o.lo, o.hi]
    return doc


def _value(o: Opt) -> str:
    if o.kind == "int":
        return f"whole number {o.lo}..{o.hi}"
    if o.kind == "names" and o.choices:
        return "list of " + "|".join(o.choices)
    return {
        "flag": "yes/no",
        "names": "list of names",
        "ints": "list of whole numbers",
        "text": "text",
        "dice": "dice notation",
    }.get(o.kind, o.metavar)


def options_text(command: str, system: str, opts: tuple[Opt, ...]) -> str:
    """The declarations of one command in one system, for a terminal."""
    lines = [f"{system} {command}:"]
    for o in opts:
        flag = f" (also --{o.name})" if o.named else ""
        default = f"; default {o.default}" if o.default else ""
        lines.append(f"  {o.name}={_value(o)}{flag}: {o.help}{default}" + (f"  [{o.source}]" if o.source else ""))
    return "\n".join(lines)


@command(C.OPTIONS)
@click.argument("words", nargs=-1)
@click.option("--system", type=click.Choice(system_keys()), help="Only this rule system.")
@pass_app
def options(app: AppContext, words: tuple[str, ...], system: str | None) -> None:
    """The rules options (-o KEY=VALUE) each command understands, per rule system, with the passage they come from.

    \b
    Examples:
      ledger options attack
      ledger options act affliction --system hnh
      ledger --json options check
    """
    command = " ".join(" ".join(words).split()) or None  # `act run` as two words or one quoted
    systems = [system] if system else list(system_keys())
    doc: dict[str, Any] = {}
    for s in systems:
        decls = declarations(s)
        if command is None:
            doc[s] = {c: [opt_doc(o) for o in opts] for c, opts in decls.items()}
        elif command in decls:
            doc[s] = [opt_doc(o) for o in decls[command]]
    if command is not None and not doc:
        known = {c for s in systems for c in declarations(s)}
        raise BadInput(f"no rules options for '{command}'", suggest(command, known))

    def text(_: Any) -> str:
        blocks = []
        for s in systems:
            for c, opts in declarations(s).items():
                if command is None or c == command:
                    blocks.append(options_text(c, s, opts))
        return "\n\n".join(blocks)

    app.emit(doc, text)


def markdown() -> str:
    """docs/cli.md: every command's help, then every system's rules options and roll names."""
    cli.load_all()
    out = [
        "# CLI reference",
        "",
        "Generated from the commands and the rule systems' option declarations by `python -m "
        "commands.reference --write`;",
        "a test fails while it is out of date. The agreed surface is ../shared/CLI.md; readings are in "
        "interpretations.md.",
        "",
    ]
    ctx = click.Context(cli, info_name="ledger", terminal_width=WIDTH, max_content_width=WIDTH, **cli.context_settings)
    out += ["## ledger", "", "```", cli.get_help(ctx), "```", ""]
    for name, cmd in _walk(cli, ctx, "ledger"):
        sub = click.Context(cmd, info_name=name.split()[-1], parent=ctx, terminal_width=WIDTH, max_content_width=WIDTH)
        out += [
            f"## {name}",
            "",
            "```",
            cmd.get_help(sub).replace(f"Usage: {name.split()[-1]}", f"Usage: {name}", 1),
            "```",
            "",
        ]
    out += ["# Rules options by system", ""]
    for s in system_keys():
        out += [f"## {s}", ""]
        for c, opts in declarations(s).items():
            rolls = roll_names(c.split()[0]).get(s, []) if not c.startswith("act ") else []
            out += [f"### {s} {c}", ""]
            if rolls:
                out += [f"Rolls (`--roll NAME=FACES`): {', '.join(rolls)}", ""]
            out += ["| option | value | default | what | passage |", "|---|---|---|---|---|"]
            for o in opts:
                named = f" (`--{o.name}`)" if o.named else ""
                out.append(f"| `{o.name}`{named} | {_value(o)} | {o.default} | {o.help} | {o.source} |")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def _walk(group: click.Group, ctx: click.Context, prefix: str) -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []
    for name in sorted(group.list_commands(ctx)):
        cmd = group.get_command(ctx, name)
        if cmd is None:
            continue
        found.append((f"{prefix} {name}", cmd))
        if isinstance(cmd, click.Group):
            found += _walk(cmd, click.Context(cmd, info_name=name, parent=ctx), f"{prefix} {name}")
    return found


if __name__ == "__main__":
    text = markdown()
    if "--write" in sys.argv:
        REFERENCE.write_text(text)
    else:
        sys.stdout.write(text)
