"""`scene end`: end a scene outside an encounter (Prowlers & Paragons; `encounter end` also ends its scene)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from commands.context import AppContext, pass_app
from commands.registry import command, group
from ledger import catalog as C
from ledger.words.describe import ruling_lines

if TYPE_CHECKING:
    from ledger.intents import Recorded


@group(C.SCENE)
def scene() -> None:
    """Scenes (pnp): effects that last "for the rest of the scene" end with it."""


def ended_text(r: Recorded) -> str:
    """`The scene ends (effects ended for Mara); Mara: no longer stunned.`, then any dice."""

    return "\n".join(ruling_lines(r.get("events", []), system="pnp")) or "The scene ends."


@command(C.SCENE_END)
@pass_app
def end(app: AppContext) -> None:
    """End the scene: special effects end, and so does defeat by one (not defeat at 0 Health).

    Outside an encounter only: `ledger encounter end` ends the encounter's scene. Example: ledger scene end
    """
    app.wrote(app.ledger.end_scene(), ended_text)
