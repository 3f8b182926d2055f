"""`ledger serve`'s wake-up: what tells the server, at once, that another process wrote to the ledger's database.

Only a wake-up: the server then reads the log (and the players' side tables) itself, as the source. SQLite: the
database's change counter (`PRAGMA data_version`, which moves when another connection commits), looked at every
WAKE seconds on one read-only connection (no writer pays anything). PostgreSQL: LISTEN on the channel every write of
the log already notifies inside its own transaction (eventsourcing's recorder, ledger/storage/pg.py), and on the
players' channel, which a GM's ask notifies in the statement that opens it (ledger/storage/players.py); a thread
waits for them. Nothing here writes, so `serve` runs on a read-only medium too; the server's own timer (every
POLL seconds) stays as the backstop when a wake-up can't be had.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from typing import Any

from ledger.storage.players import CHANNEL
from ledger.storage.schema import PG_LOG_TABLES

HEARTBEAT = 15.0  # seconds between keep-alive comments on an idle stream
WAKE = 0.02  # seconds between looks at SQLite's change counter (a read of a page already in memory)
LOG_CHANNEL = PG_LOG_TABLES[
    0
]  # eventsourcing's channel: the events table's name (NOTIFY in every insert's transaction)


class Wakeup:
    """Sets an asyncio.Event each time another process may have written; `wait(timeout)` waits for it."""

    def __init__(self, target: Any) -> None:
        self.target = target
        self.event = asyncio.Event()
        self.loop = asyncio.get_running_loop()
        self.stopping = threading.Event()
        self.task: asyncio.Task[None] | None = None
        self.thread: threading.Thread | None = None
        if target.kind == "sqlite":
            self.task = asyncio.create_task(self._sqlite())
        else:
            self.thread = threading.Thread(target=self._listen, name="ledger-serve-listen", daemon=True)
            self.thread.start()

    async def wait(self, timeout: float) -> None:
        """Until the next wake-up, or `timeout` seconds (the backstop)."""
        try:
            await asyncio.wait_for(self.event.wait(), timeout)
        except TimeoutError:
            pass
        self.event.clear()

    def close(self) -> None:
        """Stop looking (the thread ends within a second)."""
        self.stopping.set()
        if self.task is not None:
            self.task.cancel()

    async def _sqlite(self) -> None:
        conn: sqlite3.Connection | None = None
        seen: int | None = None
        while True:
            try:
                if conn is None:
                    conn = sqlite3.connect(f"file:{self.target.path}?mode=ro", uri=True, check_same_thread=False)
                now = int(conn.execute("PRAGMA data_version").fetchone()[0])
                if seen is not None and now != seen:
                    self.event.set()
                seen = now
            except sqlite3.Error:  # the file is being replaced or locked for a moment: open it again next time
                if conn is not None:
                    conn.close()
                conn, seen = None, None
            await asyncio.sleep(WAKE)

    def _listen(self) -> None:
        while not self.stopping.is_set():
            try:
                with self.target.pg_connect() as conn:
                    conn.execute(f'LISTEN "{LOG_CHANNEL}"')
                    conn.execute(f'LISTEN "{CHANNEL}"')
                    self.loop.call_soon_threadsafe(self.event.set)  # writes before LISTEN: look once
                    while not self.stopping.is_set():
                        for _ in conn.notifies(timeout=0.5, stop_after=1):
                            self.loop.call_soon_threadsafe(self.event.set)
            except Exception:  # noqa: BLE001 - a lost server: the timer keeps the page right; try again shortly
                self.stopping.wait(1.0)


def sse(head: int, html: str, event: str = "screen") -> str:
    """One Server-Sent Event (`screen`: the page's main part; a player's page also gets `hero` and `ask`), its id
    the log's head."""
    data = "".join(f"data: {line}\n" for line in html.splitlines()) or "data: \n"
    return f"event: {event}\nid: {head}\n{data}\n"
