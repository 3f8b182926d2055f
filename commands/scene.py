"""`scene end`: end a scene outside an encounter (Prowlers & Paragons; `encounter end` also ends its scene)."""

from __future__ import annotations

from typing import Any

import click

from commands.context import AppContext, pass_app
from commands.encounter import happened


@click.group("scene")
def scene() -> None:
    """Scenes (pnp): effects that last "for the rest of the scene" end with it."""


def ended_text(r: dict[str, Any]) -> str:
    """The ruling and whom the scene's end changed."""
    who = ", ".join(r["scene_ended_for"]) or "no one"
    return "\n".join(p for p in (f"the scene ends (effects ended for {who})", happened(r)) if p)


@scene.command("end")
@pass_app
def end(app: AppContext) -> None:
    """End the scene: special effects end, and so does defeat by one (not defeat at 0 Health).

    Outside an encounter only: `ledger encounter end` ends the encounter's scene. Example: ledger scene end
    """
    app.wrote(app.ledger.end_scene(), ended_text)


def register(cli: click.Group) -> None:
    """Attach these commands."""
    cli.add_command(scene)
