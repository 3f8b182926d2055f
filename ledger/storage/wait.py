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
from dataclasses import dataclass
from typing import Any

from ledger.aggregates import name_key
from ledger.errors import BadInput, LedgerError, StoreError
from ledger.model.roll_purpose import purpose

POLL = 0.2  # seconds between looks at the request
LOG_LOOK = 1.0  # seconds between looks at the log (the ask still open, its session still open)


class Cancelled(LedgerError):
    """The GM pressed Ctrl-C (or the command was told to stop) while it waited: the ask is closed (exit 130)."""

    exit_code = 130


class _Stopped(BaseException):
    """SIGTERM or SIGHUP while waiting. A BaseException, as KeyboardInterrupt is: the handler raises it wherever the
    signal lands, a database statement included, and the store's `except Exception` (a statement that failed, read
    as the database being away) must not take it for a failure to read and go on waiting."""


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


@dataclass
class _Card:
    """One ask of one hero's page: its rolls (the first is the one the rules asked for; one seed answers them all)."""

    owner: str
    names: list[str]
    spec: Any
    ask: int = 0
    counter: int = 0
    rid: str = ""
    answer: dict[str, Any] | None = None
    closed: bool = False

    @property
    def what(self) -> str:
        """The roll the rules asked for (the others on the card are made only if the rules need them)."""
        return f"{self.owner}'s {purpose(self.names[0], self.owner)} roll"

    def shape(self) -> dict[str, Any]:
        spec = self.spec
        lo, hi = spec.face_range()
        return {
            "notation": spec.notation, "kind": spec.kind, "count": spec.count, "sides": spec.sides, "lo": lo,
            "hi": hi, "modifier": spec.modifier, "what": self.what, "counter": self.counter, "ask": self.ask,
            "purpose": purpose(self.names[0], self.owner), "also": [purpose(n, self.owner) for n in self.names[1:]],
        }  # fmt: skip


def wait_for_players(ledger: Any, need: Any, keep: set[int] | None = None) -> dict[str, dict[str, Any]]:
    """Record the asks, open a request on each page and wait for every answer, at most `ledger.wait` seconds: the
    roll the rules asked for with the owner's other rolls this command may take (one card: one tap answers them all,
    and a roll the rules end up not needing is never made), and, with an initiative roll, every other linked hero's
    at the same time. Each roll's answer with its ask's ruling and counter (what its die is derived at). `keep`: the
    asks this command was answered already, which a new ask of the same hero must not supersede."""
    # lazy: the dice's spec, only when a page is asked
    from ledger.model.dice import DiceSpec

    first = need.spec
    cards = [_Card(need.owner, [need.name, *need.also], first)]
    cards += [_Card(o, [n], DiceSpec(first.kind, first.count, first.sides)) for o, n in need.others]
    players = ledger.players
    what = " and ".join(c.what for c in cards)
    deadline = time.monotonic() + ledger.wait
    next_log = time.monotonic() + LOG_LOOK
    unreachable = False
    asked: list[_Card] = []
    try:
        with _stop_signals():
            for card in cards:
                card.ask, card.counter = ledger.record_ask(card.owner, card.names[0], card.names[1:], keep or set())
                asked.append(card)
                try:
                    card.rid = players.ask(
                        name_key(card.owner), card.owner, card.names[0], card.shape(), ledger.wait, card.ask
                    )
                except LedgerError:
                    _abandon(ledger, players, asked, "cancelled", "the request could not be shown on the page")
                    raise
            rulings = ", ".join(str(c.ask) for c in cards)
            ledger.notify(
                f"waiting for {what} (asked in ruling{'s' if len(cards) > 1 else ''} {rulings}; Ctrl-C to cancel)"
            )
            while any(c.answer is None for c in cards):
                for card in cards:
                    if card.answer is not None:
                        continue
                    try:
                        state, answer, why = players.look(card.rid)
                    except StoreError:  # the database is away (a restart): the page says the command is not waiting
                        if not unreachable:
                            ledger.notify("the ledger's database does not answer: still waiting")
                        unreachable, state, answer, why = True, "open", None, ""
                    if state == "answered" and answer is not None:
                        if answer.get("ask") != card.ask:  # a seed sent for another ask: never used for this one
                            _give_up(ledger, players, cards, "its answer was sent for another ask", card.what)
                        card.answer = dict(answer)
                    elif state not in ("open", "answered"):
                        card.closed = True  # its request was closed under us (revoked, the session ended)
                        _give_up(ledger, players, cards, why or "its request was closed", card.what)
                if time.monotonic() >= next_log and not unreachable:
                    next_log = time.monotonic() + LOG_LOOK
                    for card in cards:
                        gone = _ask_gone(ledger, card.ask)
                        if gone:
                            card.closed = True
                            players.close(card.rid, "cancelled", gone)
                            _abandon(ledger, players, cards, "cancelled", f"{card.what} was closed: {gone}")
                            raise BadInput(f"stopped waiting for {card.what}: {gone}; nothing was recorded")
                if any(c.answer is None for c in cards) and time.monotonic() >= deadline:
                    late = [c for c in cards if c.answer is None]
                    why = f"no answer within {ledger.wait:g} s"
                    pages = " or ".join(f"{c.owner}'s" for c in late)
                    _abandon(ledger, players, cards, "expired", why)
                    raise BadInput(
                        f"no answer from {pages} page within {ledger.wait:g} s: nothing was recorded",
                        "run the command again, give --wait SECONDS, or enter the dice:"
                        f" --roll {late[0].names[0]}=FACES",
                    )
                if any(c.answer is None for c in cards):
                    time.sleep(POLL)
    except (KeyboardInterrupt, _Stopped) as e:
        how = "Ctrl-C" if isinstance(e, KeyboardInterrupt) else str(e)
        _abandon(ledger, players, asked, "cancelled", f"the GM's command was stopped ({how})")
        raise Cancelled(f"cancelled while waiting for {what}: nothing was recorded") from None
    out: dict[str, dict[str, Any]] = {}
    for card in cards:
        got = {**(card.answer or {}), "ask": card.ask, "counter": card.counter}
        for name in card.names if "seed" in got else card.names[:1]:  # typed faces answer the first roll only
            out[name] = got
    return out


def _abandon(ledger: Any, players: Any, cards: list[_Card], fate: str, why: str) -> None:
    """Close every ask of this wait that no ruling will use (answered or not): its fate in the log, its request on
    the page."""
    for card in cards:
        if not card.ask:
            continue
        if card.answer is not None:  # answered, but the ruling that would use it is not made
            _close(ledger, card.ask, "cancelled", f"not used: {why}")
        else:
            _close(ledger, card.ask, fate, why)
        if card.rid and not card.closed:
            try:
                players.cancel_ask(card.ask, why)
            except LedgerError:
                pass
        card.closed = True


def _give_up(ledger: Any, players: Any, cards: list[_Card], why: str, what: str) -> None:
    """A request was closed under the waiting command (the link revoked, the session ended): record every ask's fate
    and stop with one line."""
    _abandon(ledger, players, cards, "cancelled", why)
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
