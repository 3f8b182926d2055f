"""What the Humans & Heroes CLI tests share: reading a ruling's events and a sheet, and the undo/retract exactness
check."""

from __future__ import annotations

from typing import Any

from tests.conftest import Cli


def event(result: Any, kind: str) -> dict[str, Any]:
    """The data of the first event of a kind in a ruling's output."""
    return next(e["data"] for e in result["events"] if e["type"] == kind)


def show(cli: Cli, name: str) -> dict[str, Any]:
    """`--json character show NAME`."""
    shown = cli.json("character", "show", name)
    assert isinstance(shown, dict)
    return shown


def undo_and_retract_restore(cli: Cli, names: tuple[str, ...], *args: str) -> None:
    """`undo` and `retract` around a ruling give back exactly the sheets shown before it (DESIGN.md, exactness)."""
    before = [show(cli, n) for n in names]
    number = cli.json(*args)["ruling"]  # type: ignore[index]
    after = [show(cli, n) for n in names]
    assert after != before
    cli.ok("undo")
    assert [show(cli, n) for n in names] == before
    cli.ok("redo")
    assert [show(cli, n) for n in names] == after
    cli.ok("retract", str(number), "--yes")
    assert [show(cli, n) for n in names] == before
