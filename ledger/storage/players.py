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
import time
from typing import Any

import orjson

from ledger.storage.secrets import DiceSecrets
from ledger.storage.target import Target

TOKEN_BYTES = 24  # 192 bits
LINKS = "ledger_player_links"
REQUESTS = "ledger_player_requests"
SERVED = "ledger_serve"  # where `ledger serve` listens, for `player link` (one row per server; the newest wins)
DDL = (
    f"CREATE TABLE IF NOT EXISTS {LINKS} (hero_key VARCHAR(200) PRIMARY KEY, hero VARCHAR(200) NOT NULL,"
    " token_hash VARCHAR(64) NOT NULL UNIQUE, created DOUBLE PRECISION NOT NULL)",
    f"CREATE TABLE IF NOT EXISTS {REQUESTS} (id VARCHAR(32) PRIMARY KEY, hero_key VARCHAR(200) NOT NULL,"
    " hero VARCHAR(200) NOT NULL, roll VARCHAR(200) NOT NULL, spec TEXT NOT NULL, created DOUBLE PRECISION NOT NULL,"
    " expires DOUBLE PRECISION NOT NULL, answer TEXT, state VARCHAR(16) NOT NULL)",
    f"CREATE TABLE IF NOT EXISTS {SERVED} (url VARCHAR(300) PRIMARY KEY, started DOUBLE PRECISION NOT NULL)",
)


def token_hash(token: str) -> str:
    """What the side table keeps of a token."""
    return hashlib.sha256(token.encode()).hexdigest()


class Players:
    """Links and pending rolls, read and written in short autocommit statements (SQLite or PostgreSQL)."""

    def __init__(self, target: Target) -> None:
        self.db = DiceSecrets(target)
        self.ready = False

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        conn = self.db._connect()
        try:
            if not self.ready:
                for ddl in DDL:
                    conn.execute(ddl)
                self.ready = True
            q = sql if self.db.target.kind == "sqlite" else sql.replace("?", "%s")
            cur = conn.execute(q, params)
            return list(cur.fetchall()) if cur.description else []
        finally:
            conn.close()

    # -- links ----------------------------------------------------------------------------
    def link(self, hero_key: str, hero: str) -> str:
        """A new token for a hero's page (the old one, if any, stops working); only its hash is kept."""
        token = random_source.token_urlsafe(TOKEN_BYTES)
        self._run(f"DELETE FROM {LINKS} WHERE hero_key = ?", (hero_key,))
        self._run(
            f"INSERT INTO {LINKS} (hero_key, hero, token_hash, created) VALUES (?, ?, ?, ?)",
            (hero_key, hero, token_hash(token), time.time()),
        )
        return token

    def revoke(self, hero_key: str) -> bool:
        """End a hero's link (and cancel what waits for it); whether there was one."""
        had = bool(self._run(f"SELECT hero FROM {LINKS} WHERE hero_key = ?", (hero_key,)))
        self._run(f"DELETE FROM {LINKS} WHERE hero_key = ?", (hero_key,))
        self._run(f"UPDATE {REQUESTS} SET state = 'cancelled' WHERE hero_key = ? AND state = 'open'", (hero_key,))
        return had

    def linked(self, hero_key: str) -> bool:
        """Whether a hero has a page."""
        return bool(self._run(f"SELECT 1 FROM {LINKS} WHERE hero_key = ?", (hero_key,)))

    def hero_of(self, token: str) -> tuple[str, str] | None:
        """(hero key, hero name) of a token's page, or None for a token that is no live link."""
        rows = self._run(f"SELECT hero_key, hero FROM {LINKS} WHERE token_hash = ?", (token_hash(token),))
        return (str(rows[0][0]), str(rows[0][1])) if rows else None

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
    def ask(self, hero_key: str, hero: str, roll: str, spec: dict[str, Any], seconds: float) -> str:
        """Open a request for one roll; its id."""
        rid = random_source.token_hex(16)
        now = time.time()
        self._run(
            f"INSERT INTO {REQUESTS} (id, hero_key, hero, roll, spec, created, expires, answer, state)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, NULL, 'open')",
            (rid, hero_key, hero, roll, orjson.dumps(spec).decode(), now, now + seconds),
        )
        return rid

    def answer_of(self, rid: str) -> dict[str, Any] | None:
        """The player's answer to a request ({"seed": hex} or {"faces": text}), once there is one."""
        rows = self._run(f"SELECT answer FROM {REQUESTS} WHERE id = ? AND state = 'answered'", (rid,))
        return orjson.loads(rows[0][0]) if rows and rows[0][0] else None

    def close(self, rid: str, state: str = "cancelled") -> None:
        """Close a request nobody will answer now (cancelled or expired), or one its ruling has used ("used")."""
        self._run(f"UPDATE {REQUESTS} SET state = ? WHERE id = ?", (state, rid))

    def pending(self, hero_key: str) -> dict[str, Any] | None:
        """The open, unexpired request of a hero's page, if any."""
        rows = self._run(
            f"SELECT id, roll, spec, expires FROM {REQUESTS} WHERE hero_key = ? AND state = 'open' AND expires > ?"
            " ORDER BY created DESC",
            (hero_key, time.time()),
        )
        if not rows:
            return None
        rid, roll, spec, expires = rows[0]
        return {"id": str(rid), "roll": str(roll), "spec": orjson.loads(spec), "expires": float(expires)}

    def request(self, rid: str) -> dict[str, Any] | None:
        """One request by id, whatever its state."""
        rows = self._run(f"SELECT hero_key, roll, spec, expires, state FROM {REQUESTS} WHERE id = ?", (rid,))
        if not rows:
            return None
        hero_key, roll, spec, expires, state = rows[0]
        return {"hero_key": hero_key, "roll": roll, "spec": orjson.loads(spec), "expires": expires, "state": state}

    def answer(self, rid: str, answer: dict[str, Any]) -> bool:
        """Record a player's answer to an open, unexpired request (once: a second answer changes nothing)."""
        self._run(
            f"UPDATE {REQUESTS} SET answer = ?, state = 'answered' WHERE id = ? AND state = 'open' AND expires > ?",
            (orjson.dumps(answer).decode(), rid, time.time()),
        )
        rows = self._run(f"SELECT answer FROM {REQUESTS} WHERE id = ? AND state = 'answered'", (rid,))
        return bool(rows) and orjson.loads(rows[0][0]) == answer
