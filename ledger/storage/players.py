"""Players at the table: each hero's page link and the rolls waiting for a player, in side tables of the ledger's
database.

A link is a random token (192 bits) of which only the SHA-256 is kept: the URL is printed once, by `ledger player
link`, and never enters the event log, its exports or its hash chain. A new link for a hero replaces the old one;
`ledger player revoke` ends it. A request is one roll a GM's command waits for: `ledger serve` (another process,
maybe another machine on PostgreSQL) shows it on the hero's page and writes the player's answer; the waiting
command reads it. Nothing here is part of the record: the roll enters the log with the ruling that used it.
"""

from __future__ import annotations

import hashlib
import secrets as random_source
import threading
import time
from typing import Any

import orjson

from ledger.errors import StoreError
from ledger.storage.secrets import DiceSecrets
from ledger.storage.target import Target

TOKEN_BYTES = 24  # 192 bits
LINKS = "ledger_player_links"
REQUESTS = "ledger_player_asks"  # (the first players' release kept `ledger_player_requests`: left as it was)
ALIVE = 3.0  # seconds: a request whose waiting command has not looked at it for longer is not waited for
CHANNEL = "ledger_players"  # PostgreSQL: notified by the statement that opens or closes a request (commands/live.py)
ACTIONS = "ledger_player_actions"  # what players ask their hero to do, for the GM to accept, edit or refuse
SERVED = "ledger_serve"  # where `ledger serve` listens, for `player link` (one row per server; the newest wins)
DDL = (
    f"CREATE TABLE IF NOT EXISTS {LINKS} (hero_key VARCHAR(200) PRIMARY KEY, hero VARCHAR(200) NOT NULL,"
    " token_hash VARCHAR(64) NOT NULL UNIQUE, created DOUBLE PRECISION NOT NULL)",
    f"CREATE TABLE IF NOT EXISTS {REQUESTS} (id VARCHAR(32) PRIMARY KEY, hero_key VARCHAR(200) NOT NULL,"
    " hero VARCHAR(200) NOT NULL, roll VARCHAR(200) NOT NULL, spec TEXT NOT NULL, created DOUBLE PRECISION NOT NULL,"
    " expires DOUBLE PRECISION NOT NULL, alive DOUBLE PRECISION NOT NULL, ask INTEGER NOT NULL,"
    " answer TEXT, state VARCHAR(16) NOT NULL, why TEXT)",
    f"CREATE TABLE IF NOT EXISTS {SERVED} (url VARCHAR(300) PRIMARY KEY, started DOUBLE PRECISION NOT NULL)",
    f"CREATE TABLE IF NOT EXISTS {ACTIONS} (num INTEGER PRIMARY KEY, hero_key VARCHAR(200) NOT NULL,"
    " hero VARCHAR(200) NOT NULL, words TEXT NOT NULL, said TEXT NOT NULL, created DOUBLE PRECISION NOT NULL,"
    " expires DOUBLE PRECISION NOT NULL, state VARCHAR(16) NOT NULL)",
)


def token_hash(token: str) -> str:
    """What the side table keeps of a token."""
    return hashlib.sha256(token.encode()).hexdigest()


class Players:
    """Links and pending rolls, read and written in short autocommit statements (SQLite or PostgreSQL)."""

    def __init__(self, target: Target) -> None:
        self.db = DiceSecrets(target)
        self.ready = False
        self.conn: Any = None  # one connection, kept (a waiting command looks five times a second)
        self.lock = threading.Lock()  # `ledger serve` asks from its worker threads

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with self.lock:
            for attempt in (0, 1):
                if self.conn is None:
                    self.conn = self.db._connect()  # StoreError in one line when the database is away
                try:
                    if not self.ready:
                        for ddl in DDL:
                            self.conn.execute(ddl)
                        self.ready = True
                    q = sql if self.db.target.kind == "sqlite" else sql.replace("?", "%s")
                    cur = self.conn.execute(q, params)
                    return list(cur.fetchall()) if cur.description else []
                except StoreError:
                    raise
                except Exception as e:
                    self.release()
                    if attempt or type(e).__name__ not in ("OperationalError", "InterfaceError"):
                        raise StoreError(f"the players' tables can't be read: {str(e).splitlines()[0]}") from None
                finally:
                    if self.db.target.kind == "sqlite":  # a file: opened per statement (serve's threads share this)
                        self.release()
            return []

    def release(self) -> None:
        """Let the kept connection go."""
        conn, self.conn = self.conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # already broken: nothing to release
                pass

    # -- links ----------------------------------------------------------------------------
    def new_token(self) -> str:
        """A fresh token for a hero's page (not yet a link: `link` makes it one once its URL is printed)."""
        return random_source.token_urlsafe(TOKEN_BYTES)

    def link(self, hero_key: str, hero: str, token: str | None = None) -> str:
        """Make `token` (or a new one) the hero's page link: the old one, if any, stops working; only its hash is
        kept. The replacement is one statement each way, so a failure leaves the old link or the new one."""
        token = token or self.new_token()
        self._run(f"DELETE FROM {LINKS} WHERE hero_key = ?", (hero_key,))
        self._run(
            f"INSERT INTO {LINKS} (hero_key, hero, token_hash, created) VALUES (?, ?, ?, ?)",
            (hero_key, hero, token_hash(token), time.time()),
        )
        return token

    def revoke(self, hero_key: str) -> bool:
        """End a hero's link (and cancel what waits for it: the waiting command stops at once); whether there was
        one."""
        had = bool(self._run(f"SELECT hero FROM {LINKS} WHERE hero_key = ?", (hero_key,)))
        self._run(f"DELETE FROM {LINKS} WHERE hero_key = ?", (hero_key,))
        self._run(
            f"UPDATE {REQUESTS} SET state = 'cancelled', why = ? WHERE hero_key = ? AND state = 'open'",
            ("the hero's link was revoked", hero_key),
        )
        return had

    def linked(self, hero_key: str) -> bool:
        """Whether a hero has a page."""
        return bool(self._run(f"SELECT 1 FROM {LINKS} WHERE hero_key = ?", (hero_key,)))

    def hero_of(self, token: str) -> tuple[str, str] | None:
        """(hero key, hero name) of a token's page, or None for a token that is no live link."""
        rows = self._run(f"SELECT hero_key, hero FROM {LINKS} WHERE token_hash = ?", (token_hash(token),))
        return (str(rows[0][0]), str(rows[0][1])) if rows else None

    # -- actions players ask for ----------------------------------------------------------
    def propose(self, hero_key: str, hero: str, words: list[str], said: str, seconds: float) -> int:
        """A player's request that their hero act (the command's words, and the ruling's sentence to be made); its
        number for the GM. The hero's earlier open request, if any, is withdrawn: one at a time."""
        now = time.time()
        self._run(
            self._notifying(f"UPDATE {ACTIONS} SET state = 'withdrawn' WHERE hero_key = ? AND state = 'open'"),
            (hero_key,),
        )
        for _ in range(5):  # two players asking at the same instant take the same number: the second tries again
            try:
                self._run(
                    self._notifying(
                        f"INSERT INTO {ACTIONS} (num, hero_key, hero, words, said, created, expires, state)"
                        f" SELECT COALESCE(MAX(num), 0) + 1, ?, ?, ?, ?, ?, ?, 'open' FROM {ACTIONS}"
                    ),
                    (hero_key, hero, orjson.dumps(words).decode(), said, now, now + seconds),
                )
                break
            except Exception:  # noqa: BLE001 - a duplicate number (sqlite3 or psycopg IntegrityError): again
                time.sleep(0.05)
        rows = self._run(f"SELECT MAX(num) FROM {ACTIONS} WHERE hero_key = ? AND created = ?", (hero_key, now))
        return int(rows[0][0])

    def proposals(self, *, open_only: bool = True) -> list[dict[str, Any]]:
        """The players' requests, oldest first (open and unexpired ones only, unless told)."""
        where = " WHERE state = 'open' AND expires > ?" if open_only else ""
        rows = self._run(
            f"SELECT num, hero_key, hero, words, said, created, expires, state FROM {ACTIONS}{where} ORDER BY num",
            (time.time(),) if open_only else (),
        )
        return [_proposal(r) for r in rows]

    def proposal(self, num: int) -> dict[str, Any] | None:
        """One request by number, whatever its state (an open one past its time reads `expired`)."""
        rows = self._run(
            f"SELECT num, hero_key, hero, words, said, created, expires, state FROM {ACTIONS} WHERE num = ?", (num,)
        )
        return _proposal(rows[0]) if rows else None

    def latest_proposal(self, hero_key: str) -> dict[str, Any] | None:
        """A hero's latest request, whatever its state (for their page)."""
        rows = self._run(
            f"SELECT num, hero_key, hero, words, said, created, expires, state FROM {ACTIONS} WHERE hero_key = ?"
            " ORDER BY num DESC LIMIT 1",
            (hero_key,),
        )
        return _proposal(rows[0]) if rows else None

    def settle(self, num: int, state: str) -> bool:
        """Close an open, unexpired request as `accepted`, `edited` or `refused`; whether it was open."""
        self._run(
            self._notifying(f"UPDATE {ACTIONS} SET state = ? WHERE num = ? AND state = 'open' AND expires > ?"),
            (state, num, time.time()),
        )
        found = self.proposal(num)
        return found is not None and found["state"] == state

    # -- where `ledger serve` listens -------------------------------------------------------
    def serving(self, url: str) -> None:
        """Record that a server listens at `url` (the address the players' phones reach), for `player link`."""
        self._run(f"DELETE FROM {SERVED} WHERE url = ?", (url,))
        self._run(f"INSERT INTO {SERVED} (url, started) VALUES (?, ?)", (url, time.time()))

    def stopped(self, url: str) -> None:
        """Forget a server that stopped (only its own row: another server on the same ledger stays)."""
        self._run(f"DELETE FROM {SERVED} WHERE url = ?", (url,))

    def served(self) -> str | None:
        """The URL of the server that started last and still runs (as far as the table knows), or None."""
        rows = self._run(f"SELECT url FROM {SERVED} ORDER BY started DESC LIMIT 1")
        return str(rows[0][0]) if rows else None

    # -- requests -------------------------------------------------------------------------
    def ask(self, hero_key: str, hero: str, roll: str, spec: dict[str, Any], seconds: float, ask: int) -> str:
        """Open a request for one roll, the ask the log recorded as ruling `ask`; its id."""
        rid = random_source.token_hex(16)
        now = time.time()
        insert = (
            f"INSERT INTO {REQUESTS} (id, hero_key, hero, roll, spec, created, expires, alive, ask, answer, state, why)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 'open', NULL)"
        )
        self._run(
            self._notifying(insert),
            (rid, hero_key, hero, roll, orjson.dumps(spec).decode(), now, now + seconds, now, ask),
        )
        return rid

    def look(self, rid: str) -> tuple[str, dict[str, Any] | None, str]:
        """The waiting command's look at its request: (state, the answer if any, why it was closed), and a sign
        that the command still waits (the page stops asking once that sign is ALIVE seconds old)."""
        self._run(f"UPDATE {REQUESTS} SET alive = ? WHERE id = ? AND state = 'open'", (time.time(), rid))
        rows = self._run(f"SELECT state, answer, why FROM {REQUESTS} WHERE id = ?", (rid,))
        if not rows:
            return "cancelled", None, "its request was deleted from the database"
        state, answer, why = rows[0]
        return str(state), (orjson.loads(answer) if answer else None), str(why or "")

    def _notifying(self, change: str) -> str:
        """On PostgreSQL, `change` (an INSERT or UPDATE of a request) also wakes `ledger serve` up (LISTEN), in the
        same statement: no round trip of its own. SQLite's servers see the file's change counter move instead."""
        if self.db.target.kind == "sqlite":
            return change
        return f"WITH changed AS ({change} RETURNING hero_key) SELECT pg_notify('{CHANNEL}', hero_key) FROM changed"

    def close(self, rid: str, state: str = "cancelled", why: str = "") -> None:
        """Close a request nobody will answer now (cancelled or expired), or one its ruling has used ("used")."""
        self._run(self._notifying(f"UPDATE {REQUESTS} SET state = ?, why = ? WHERE id = ?"), (state, why, rid))

    def cancel_ask(self, ask: int, why: str) -> None:
        """Cancel the open request of an ask (its command stops waiting)."""
        self._run(
            self._notifying(f"UPDATE {REQUESTS} SET state = 'cancelled', why = ? WHERE ask = ? AND state = 'open'"),
            (why, ask),
        )

    def cancel_all(self, why: str) -> None:
        """Cancel every open request (the session ended: nothing asked in it will be recorded)."""
        self._run(self._notifying(f"UPDATE {REQUESTS} SET state = 'cancelled', why = ? WHERE state = 'open'"), (why,))

    def pending(self, hero_key: str) -> dict[str, Any] | None:
        """The newest request of a hero's page that is open or was closed in the last minute (the page says what
        became of it), if any."""
        rows = self._run(
            f"SELECT id, roll, spec, expires, alive, ask, state, why, answer FROM {REQUESTS} WHERE hero_key = ?"
            " ORDER BY created DESC LIMIT 1",
            (hero_key,),
        )
        if not rows:
            return None
        rid, roll, spec, expires, alive, ask, state, why, answer = rows[0]
        return {
            "id": str(rid),
            "roll": str(roll),
            "spec": orjson.loads(spec),
            "expires": float(expires),
            "alive": float(alive),
            "ask": int(ask),
            "state": str(state),
            "why": str(why or ""),
            "answered": bool(answer),
        }

    def request(self, rid: str) -> dict[str, Any] | None:
        """One request by id, whatever its state."""
        rows = self._run(
            f"SELECT hero_key, roll, spec, expires, state, alive, ask FROM {REQUESTS} WHERE id = ?", (rid,)
        )
        if not rows:
            return None
        hero_key, roll, spec, expires, state, alive, ask = rows[0]
        return {
            "hero_key": hero_key,
            "roll": roll,
            "spec": orjson.loads(spec),
            "expires": expires,
            "state": state,
            "alive": float(alive),
            "ask": int(ask),
        }

    def answer(self, rid: str, answer: dict[str, Any]) -> bool:
        """Record a player's answer to an open, unexpired request whose command still waits (once: a second answer
        changes nothing)."""
        now = time.time()
        self._run(
            f"UPDATE {REQUESTS} SET answer = ?, state = 'answered' WHERE id = ? AND state = 'open' AND expires > ?"
            " AND alive > ?",
            (orjson.dumps(answer).decode(), rid, now, now - ALIVE),
        )
        rows = self._run(f"SELECT answer FROM {REQUESTS} WHERE id = ? AND state = 'answered'", (rid,))
        return bool(rows) and orjson.loads(rows[0][0]) == answer


def _proposal(row: Any) -> dict[str, Any]:
    num, hero_key, hero, words, said, created, expires, state = row
    if state == "open" and float(expires) <= time.time():
        state = "expired"
    return {
        "num": int(num), "hero_key": str(hero_key), "hero": str(hero), "words": list(orjson.loads(words)),
        "said": str(said), "created": float(created), "expires": float(expires), "state": str(state),
    }  # fmt: skip
