"""A ruling waiting for a player's roll: record the ask in the log, show it on the hero's page, wait for the answer.

The ask is recorded first (a ruling of its own, kind "ask": the hero, the roll's name and the session's next
committed-roll counter, which it takes), and only then is the request put where `ledger serve` shows it: the
player's die is HMAC(secret, [session, counter, name, index, seed]) at the ask's counter, whatever is rolled while
the command waits. The wait ends with an answer (the ruling that uses it closes the ask as answered), or with the
ask's fate recorded: expired (`--wait` ran out), cancelled (Ctrl-C, SIGTERM or SIGHUP, the link revoked, the session
ended). While waiting, the command marks its request alive every look; the page stops offering the roll when that
mark is older than `ALIVE` seconds (the command is gone: nothing would be recorded). No terminal is needed.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ledger.aggregates import name_key
from ledger.errors import BadInput, LedgerError, StoreError
from ledger.model.roll_purpose import purpose

POLL = 0.2  # seconds between looks at the request
LOG_LOOK = 1.0  # seconds between looks at the log (the ask still open, its session still open)


class Cancelled(LedgerError):
    """The GM pressed Ctrl-C (or the command was told to stop) while it waited: the ask is closed (exit 130)."""

    exit_code = 130


class _Stopped(Exception):
    """SIGTERM or SIGHUP while waiting."""


@contextmanager
def _stop_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP end the wait like Ctrl-C (the ask's fate recorded), where signals can be caught."""

    def stop(signum: int, frame: Any) -> None:
        raise _Stopped(signal.Signals(signum).name)

    saved: dict[signal.Signals, Any] = {}
    stops = {signal.SIGTERM, signal.SIGHUP}
    try:
        for sig in stops:
            saved[sig] = signal.signal(sig, stop)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)  # a parent that blocked them must not make the wait deaf
    except ValueError:  # not the main thread: leave the process's handlers alone
        pass
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def wait_for_player(ledger: Any, need: Any) -> dict[str, Any]:
    """Record the ask, open a request on the roll's owner's page and wait for the answer, at most `ledger.wait`
    seconds; the answer with the ask's ruling and counter (what the die is derived at)."""
    spec = need.spec
    lo, hi = spec.face_range()
    shape = {"notation": spec.notation, "kind": spec.kind, "count": spec.count, "sides": spec.sides, "lo": lo, "hi": hi}
    shape["modifier"] = spec.modifier
    players = ledger.players
    key = name_key(need.owner)
    why = purpose(need.name, need.owner)
    what = f"{need.owner}'s {why} roll"
    ask, counter = ledger.record_ask(need.owner, need.name)  # in the log before any page can show it
    shape.update(what=what, counter=counter, ask=ask, purpose=why)
    deadline = time.monotonic() + ledger.wait
    next_log = time.monotonic() + LOG_LOOK
    unreachable = False
    try:
        with _stop_signals():
            try:
                rid = players.ask(key, need.owner, need.name, shape, ledger.wait, ask)
            except LedgerError:
                _close(ledger, ask, "cancelled", "the request could not be shown on the page")
                raise
            ledger.notify(f"waiting for {what} (asked in ruling {ask}; Ctrl-C to cancel)")
            while True:
                try:
                    state, answer, why = players.look(rid)
                except StoreError:  # the database is away (a restart): the page says the command is not waiting
                    if not unreachable:
                        ledger.notify("the ledger's database does not answer: still waiting")
                    unreachable, state, answer, why = True, "open", None, ""
                if state == "answered" and answer is not None:
                    if answer.get("ask") != ask:  # a seed the page sent for another ask: never used for this one
                        _give_up(ledger, players, rid, ask, "cancelled", "its answer was sent for another ask", what)
                    return {**dict(answer), "ask": ask, "counter": counter}
                if state not in ("open", "answered"):
                    _give_up(ledger, players, rid, ask, "cancelled", why or "its request was closed", what)
                if time.monotonic() >= next_log and not unreachable:
                    next_log = time.monotonic() + LOG_LOOK
                    gone = _ask_gone(ledger, ask)
                    if gone:
                        players.close(rid, "cancelled", gone)
                        raise BadInput(f"stopped waiting for {what}: {gone}; nothing was recorded")
                if time.monotonic() >= deadline:
                    why = f"no answer within {ledger.wait:g} s"
                    _close(ledger, ask, "expired", why)
                    players.close(rid, "expired", why)
                    raise BadInput(
                        f"no answer from {need.owner}'s page within {ledger.wait:g} s: nothing was recorded",
                        f"run the command again, give --wait SECONDS, or enter the dice: --roll {need.name}=FACES",
                    )
                time.sleep(POLL)
    except (KeyboardInterrupt, _Stopped) as e:
        how = "Ctrl-C" if isinstance(e, KeyboardInterrupt) else str(e)
        _close(ledger, ask, "cancelled", f"the GM's command was stopped ({how})")
        try:
            players.cancel_ask(ask, f"the GM's command was stopped ({how})")
        except LedgerError:
            pass
        raise Cancelled(f"cancelled while waiting for {what}: nothing was recorded") from None


def _give_up(ledger: Any, players: Any, rid: str, ask: int, fate: str, why: str, what: str) -> None:
    """The request was closed under the waiting command (the link revoked, the session ended): record the ask's fate
    and stop with one line."""
    _close(ledger, ask, fate, why)
    raise BadInput(f"stopped waiting for {what}: {why}; nothing was recorded")


def _ask_gone(ledger: Any, ask: int) -> str:
    """Why the log no longer waits for this ask ('' while it does): closed by another ruling (a session end)."""
    try:
        held = getattr(ledger.campaign(), "asks", {}).get(str(ask), {})
    except LedgerError:
        return ""
    if held.get("fate") is None:
        return ""
    return f"the log closed its ask in ruling {held.get('by')} ({held.get('fate')}: {held.get('why')})"


def _close(ledger: Any, ask: int, fate: str, why: str) -> None:
    """Record the ask's fate; a failure to record it is said in one line (the ask stays open in the log, and the
    page says the command is gone; the next ask of the hero closes it as re-asked)."""
    try:
        ledger.close_ask(ask, fate, why)
    except LedgerError as e:
        ledger.notify(f"warning: the ask's fate ({fate}) could not be recorded: {e.message}")
