"""Where a committed session's dice secret waits until `session end` reveals it: a side table in the ledger's database.

The row stays after the reveal (the secret is public by then): a ledger of an earlier release may have undone
`session end` and reopened a session that goes on rolling from the same secret (undo and retract now refuse that).

Not in the event log, its exports or its hash chain, so nobody reading the log can foresee a die; in the same
database, so every one-shot process and every GM's machine sharing a PostgreSQL ledger rolls from it. Anyone
who can read the database itself can read it (the GM can: see docs/verifiable-dice.md for what that means).
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

from ledger.aggregates import Campaign
from ledger.errors import StoreError
from ledger.storage.target import Target

if TYPE_CHECKING:
    from ledger.intents import Revealed

TABLE = "ledger_dice_secrets"
DDL = f"CREATE TABLE IF NOT EXISTS {TABLE} (commitment VARCHAR(64) PRIMARY KEY, secret VARCHAR(64) NOT NULL)"


class DiceSecrets:
    """Put, get and drop a session's secret by its commitment (hex strings)."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.known: dict[str, bytes] = {}  # secrets already read by this process

    def _connect(self) -> Any:
        t = self.target
        try:
            if t.kind == "sqlite":
                return sqlite3.connect(t.path, timeout=30, isolation_level=None)
            return t.pg_connect()
        except Exception as e:
            raise StoreError(
                f"can't open the dice secrets at {t.describe()}: {str(e).splitlines()[0] if str(e) else e}"
            ) from None

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        conn = self._connect()
        try:
            conn.execute(DDL)
            q = sql if self.target.kind == "sqlite" else sql.replace("?", "%s")
            cur = conn.execute(q, params)
            return list(cur.fetchall()) if cur.description else []
        finally:
            conn.close()

    def put(self, commitment: str, secret: bytes) -> None:
        """Keep a secret until its session ends."""
        self._run(f"INSERT INTO {TABLE} (commitment, secret) VALUES (?, ?)", (commitment, secret.hex()))

    def get(self, commitment: str) -> bytes | None:
        """The secret behind a commitment, or None if this database does not hold it."""
        if commitment not in self.known:
            rows = self._run(f"SELECT secret FROM {TABLE} WHERE commitment = ?", (commitment,))
            if not rows:
                return None
            try:
                self.known[commitment] = bytes.fromhex(str(rows[0][0]))
            except ValueError:
                return b""  # not a secret at all: it matches no commitment, and the roll is refused
        return self.known[commitment]

    def drop(self, commitment: str) -> None:
        """Forget a secret once the log holds it."""
        self._run(f"DELETE FROM {TABLE} WHERE commitment = ?", (commitment,))
        self.known.pop(commitment, None)


def session_dice(secrets: DiceSecrets, campaign: Any) -> dict[str, Any]:
    """The DiceBox settings for a ruling in the open session: its commitment, secret, scheme and counter of committed
    rolls, or nothing if it made none.

    A revealed secret (the session's end undone) comes from the log; otherwise from the side table.
    """
    number = campaign.open_session if campaign is not None else None
    if number is None:
        return {}
    entry: dict[str, Any] = next((s for s in campaign.domain["sessions"] if s["number"] == number), {})
    commitment = entry.get("commitment")
    if not commitment:
        return {}
    secret = bytes.fromhex(entry["secret"]) if entry.get("secret") else secrets.get(commitment)
    counts = getattr(campaign, "dice_counter", {})
    # per commitment (a session number can come back after an undo or a retraction; its commitment never does);
    # by number for a session an earlier release opened
    counter = int(counts.get(commitment, counts.get(str(number), 0)))
    return {
        "commitment": commitment,
        "secret": secret,
        "session": number,
        "scheme": int(entry.get("scheme", 1)),
        "counter": counter,
        "player_dice": bool(entry.get("player_dice")),  # ask linked heroes' pages (a retraction sets it False)
        "players": bool(entry.get("player_dice")),  # what the commitment was made for (scheme 3 binds it)
    }


def new_secret(version: int = 1, players: bool = False) -> tuple[bytes, str]:
    """A fresh session secret and its commitment (for scheme `version`, players rolling or not)."""
    # lazy: committed dice only; kept out of a one-shot write
    import secrets as random_source

    # lazy: committed dice only (hmac); kept out of a one-shot write
    from ledger.model.dice_scheme import SECRET_BYTES, commit

    secret = random_source.token_bytes(SECRET_BYTES)
    return secret, commit(secret, version, players)


def reveal(d: Any, number: int, secret_hex: str | None) -> Revealed:
    """At `session end`: record the secret of a session that committed its dice (the decider's part)."""
    # lazy: committed dice only (hmac); kept out of a one-shot write
    from ledger.model.dice_scheme import commit

    entry: dict[str, Any] = next((s for s in d.campaign.domain["sessions"] if s["number"] == number), {})
    commitment = entry.get("commitment")
    if not commitment:
        return {}
    try:
        secret = bytes.fromhex(secret_hex or "")
    except ValueError:
        secret = b""
    if not secret or commit(secret, int(entry.get("scheme", 1)), bool(entry.get("player_dice"))) != commitment:
        return {"commitment": commitment, "revealed": None}  # the secret is lost: this session's dice stay unverifiable
    d.campaign_event(Campaign.DiceRevealed, number=number, commitment=commitment, secret=secret_hex)
    return {"commitment": commitment, "revealed": secret_hex}
