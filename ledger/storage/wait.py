"""A ruling waiting for a player's roll: ask the hero's page, then wait for the answer (no terminal needed)."""

from __future__ import annotations

import time
from typing import Any

from ledger.aggregates import name_key
from ledger.errors import BadInput, LedgerError

POLL = 0.2  # seconds between looks at the request


class Cancelled(LedgerError):
    """The GM pressed Ctrl-C while a command waited: nothing was appended (exit code 130)."""

    exit_code = 130


def wait_for_player(ledger: Any, need: Any) -> dict[str, Any]:
    """Open a request on the roll's owner's page and wait for the answer, at most `ledger.wait` seconds."""
    spec = need.spec
    lo, hi = spec.face_range()
    shape = {"notation": spec.notation, "kind": spec.kind, "count": spec.count, "sides": spec.sides, "lo": lo, "hi": hi}
    shape["modifier"] = spec.modifier
    players = ledger.players
    what = f"{need.owner}'s {need.name} roll"
    rid = players.ask(name_key(need.owner), need.owner, need.name, {**shape, "what": what}, ledger.wait)
    ledger.notify(f"waiting for {what} (Ctrl-C to cancel)")
    deadline = time.monotonic() + ledger.wait
    try:
        while True:
            answer = players.answer_of(rid)
            if answer is not None:
                players.close(rid, "used")
                return dict(answer)
            if time.monotonic() >= deadline:
                players.close(rid, "expired")
                raise BadInput(
                    f"no answer from {need.owner}'s page within {ledger.wait:g} s: nothing was recorded",
                    f"run the command again, give --wait SECONDS, or enter the dice: --roll {need.name}=FACES",
                )
            time.sleep(POLL)
    except KeyboardInterrupt:
        players.close(rid, "cancelled")
        raise Cancelled(f"cancelled while waiting for {what}: nothing was recorded") from None
