"""Where a ledger lives, read from `--db` / `LEDGER_DB` (no database driver imported here)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from ledger.errors import StoreError

DEFAULT_TARGET = "campaign.ledger"


@dataclass(frozen=True)
class Target:
    """Where the ledger lives: a SQLite file, or a PostgreSQL database."""

    kind: str  # "sqlite" | "postgres"
    path: str = ""
    host: str = ""
    port: str = ""
    user: str = ""
    password: str = ""
    dbname: str = ""

    @property
    def sqlalchemy_url(self) -> str:
        """The URL SQLAlchemy Core uses for the projections on the same database."""
        if self.kind == "sqlite":
            return f"sqlite:///{self.path}"
        auth = self.user + (f":{self.password}" if self.password else "")
        return f"postgresql+psycopg://{auth}@{self.host}:{self.port}/{self.dbname}"

    def describe(self) -> str:
        """Human-readable, without the password."""
        return self.path if self.kind == "sqlite" else f"postgresql://{self.user}@{self.host}:{self.port}/{self.dbname}"

    def pg_connect(self, *, autocommit: bool = True) -> Any:
        """A psycopg connection of its own to this PostgreSQL database (5 s to connect); psycopg's error if not."""
        # lazy: psycopg, for PostgreSQL only; kept out of a one-shot write
        import psycopg

        return psycopg.connect(
            host=self.host,
            port=self.port,
            user=self.user,
            password=self.password or None,
            dbname=self.dbname,
            autocommit=autocommit,
            connect_timeout=5,
        )


def parse_target(target: str | None) -> Target:
    """Read `--db`: a path is a SQLite file; sqlite:///path and postgresql[+psycopg]://... are URLs."""
    target = (target or DEFAULT_TARGET).strip()
    if not target:
        raise StoreError("--db is empty", "give a file path or a database URL")
    if any(ord(c) < 32 or ord(c) == 127 or 0xD800 <= ord(c) <= 0xDFFF for c in target):
        raise StoreError(
            "--db contains a control character (a null byte, a newline)", "give a plain file path or a database URL"
        )
    if "://" not in target:
        return Target("sqlite", path=os.path.abspath(target))
    try:
        return _parse_url(target)
    except ValueError as e:  # urlsplit and .port: a bad IPv6 address, a port that is not 0-65535
        raise StoreError(
            f"--db is not a valid database URL: {e}", "postgresql+psycopg://user:pw@host:5432/db"
        ) from None


def _parse_url(target: str) -> Target:
    parts = urlsplit(target)
    scheme = parts.scheme.split("+")[0]
    if scheme == "sqlite":
        path = parts.path[1:] if parts.path.startswith("/") else parts.path
        if not path or path == ":memory:":
            raise StoreError(
                f"'{target}' names no file", "the ledger needs a real file, e.g. sqlite:///campaign.ledger"
            )
        path = unquote(path)
        if any(ord(c) < 32 or ord(c) == 127 for c in path):
            raise StoreError(
                "--db names a file with a control character (a null byte, a newline)", "give a plain file path"
            )
        return Target("sqlite", path=os.path.abspath(path))
    if scheme in ("postgresql", "postgres"):
        if not parts.hostname or not parts.path.strip("/"):
            raise StoreError(
                f"'{target}' needs a host and a database name", "postgresql+psycopg://user:pw@host:5432/db"
            )
        return Target(
            "postgres",
            host=parts.hostname,
            port=str(parts.port or 5432),
            user=unquote(parts.username or ""),
            password=unquote(parts.password or ""),
            dbname=parts.path.strip("/"),
        )
    raise StoreError(
        f"unknown database URL scheme '{parts.scheme}'", "use a file path, sqlite:///… or postgresql+psycopg://…"
    )
