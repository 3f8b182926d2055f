"""How text reaches a person: a ruling's sentence and dice, colour at a terminal, long pages through a pager."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import click

# What stands out at a terminal: who is hit, who is missed, criticals, the fallen, HP going down.
_BAD = re.compile(r"\b(critically hits|kills|now dead|now dying|now defeated|now incapacitated|dies|fall|falls)\b")
_HIT = re.compile(r"\b(hits)\b")
_MISS = re.compile(r"\b(misses|resists with \w+|fails \w+)\b")
_HP = re.compile(r"\b((?:HP|Health) (-?\d+) -> (-?\d+))")


def at_terminal(stream: Any = None) -> bool:
    """Whether a person reads this stream at a terminal (not a pipe, a file or a test runner)."""
    try:
        return bool((stream or sys.stdout).isatty())
    except (AttributeError, ValueError):
        return False


def colour_on(stream: Any = None) -> bool:
    """Colour only at a terminal, never for pipes, files or tests; NO_COLOR (any value) or TERM=dumb turns it off."""
    if "NO_COLOR" in os.environ and os.environ["NO_COLOR"] != "" or os.environ.get("TERM") == "dumb":
        return False
    return at_terminal(stream)


def paint(line: str) -> str:
    """The line with its outcome words coloured: red for criticals, deaths and HP drops; green hits; dim misses."""
    line = _BAD.sub(lambda m: click.style(m.group(1), fg="red", bold=True), line)
    line = _HIT.sub(lambda m: click.style(m.group(1), fg="green", bold=True), line)
    line = _MISS.sub(lambda m: click.style(m.group(1), fg="yellow"), line)

    def hp(m: re.Match[str]) -> str:
        drop = int(m.group(3)) < int(m.group(2))
        return click.style(m.group(1), fg="red" if drop else "green", bold=drop)

    return _HP.sub(hp, line)


def ruling_text(r: Mapping[str, Any]) -> str:
    """A ruling's first line (a sentence, in its system's words: Health in P&P), then its dice one per line."""
    # lazy: the sentences (ledger.words.describe, 12 ms to compile); kept out of `--version` and `odds`
    from ledger.words.describe import HpFold, ruling_lines

    fold, system = HpFold(), str(r.get("system") or "")
    for sheet in _sheets(r):  # the sheets the ruling touched: its system, and which names are groups of several
        fold.know(sheet)
        system = system or str(sheet.get("system") or "")
    return "\n".join(ruling_lines(r.get("events", []), fold=fold, system=system)) or "recorded"


def _sheets(r: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The sheets a ruling's result holds (`character`, `attacker`, `target`, `against`, `targets`)."""
    one = [r.get(k) for k in ("attacker", "character", "target", "against")]
    targets = r.get("targets")
    many: list[Any] = targets if isinstance(targets, list) else []
    return [s for s in [*one, *many] if isinstance(s, Mapping) and "name" in s]


def raw_events(r: Mapping[str, Any]) -> str:
    """Every event of a ruling as stored (`-v`)."""
    from ledger.words.describe import raw_line  # lazy: as ruling_text

    return "\n".join(f"    {raw_line(e)}" for e in r.get("events", []))


def show(text: str, *, page: bool = False) -> None:
    """Print text; a page that would not fit goes through the pager when a person reads it at a terminal, never
    inside the session shell (`ledger play`), where the fight goes on below it."""
    if page and not SHELL[0] and at_terminal() and at_terminal(sys.stdin) and text.count("\n") + 1 > _rows():
        click.echo_via_pager(text)
        return
    click.echo(text)


SHELL = [False]  # set while the session shell runs a command (commands/shell.py): no pager there


@contextmanager
def in_shell() -> Iterator[None]:
    """While the session shell runs a command: long output is printed, never paged."""
    was, SHELL[0] = SHELL[0], True
    try:
        yield
    finally:
        SHELL[0] = was


def _rows() -> int:
    try:
        lines = os.get_terminal_size().lines
    except OSError:
        lines = 0
    return (lines or 25) - 1
