"""Shared fixtures: a real ledger database per test (a SQLite file; PostgreSQL too when LEDGER_TEST_POSTGRES is set)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

PG_ADMIN_URL = os.environ.get("LEDGER_TEST_POSTGRES", "")
BACKENDS = ["sqlite"] + (["postgres"] if PG_ADMIN_URL else [])
REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
FIXTURES = SHARED / "fixtures" / "hnh-characters"


def _pg_database() -> tuple[str, str]:
    """A fresh PostgreSQL database for one test: (url, name)."""
    import psycopg

    name = f"ledger_test_{uuid.uuid4().hex[:12]}"
    admin = PG_ADMIN_URL.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base, _, _ = PG_ADMIN_URL.rpartition("/")
    return f"{base}/{name}", name


def _pg_drop(name: str) -> None:
    import psycopg

    admin = PG_ADMIN_URL.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=BACKENDS)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A ledger target with nothing in it yet."""
    if request.param == "sqlite":
        yield str(tmp_path / "test.ledger")
        return
    url, name = _pg_database()
    yield url
    _pg_drop(name)


@pytest.fixture
def sqlite_db(tmp_path: Path) -> str:
    """A SQLite ledger file path (for tests that poke the file directly)."""
    return str(tmp_path / "test.ledger")


class Cli:
    """The real CLI through click's CliRunner, on one database."""

    def __init__(self, db: str) -> None:
        self.db = db
        self.runner = CliRunner()

    def __call__(self, *args: str, seed: int | None = 1, input: str | None = None) -> Result:
        """Run `ledger --db DB [--seed N] ARGS...`."""
        from commands.main import cli

        pre = ["--db", self.db, "--as", "tester"] + (["--seed", str(seed)] if seed is not None else [])
        return self.runner.invoke(cli, [*pre, *args], input=input, catch_exceptions=False)

    def ok(self, *args: str, seed: int | None = 1) -> Result:
        """Run and require exit code 0."""
        r = self(*args, seed=seed)
        assert r.exit_code == 0, f"ledger {' '.join(args)} -> {r.exit_code}\nstdout: {r.stdout}\nstderr: {r.stderr}"
        return r

    def json(self, *args: str, seed: int | None = 1) -> object:
        """Run with --json and decode stdout."""
        import orjson

        return orjson.loads(self.ok("--json", *args, seed=seed).stdout)


@pytest.fixture
def cli(db: str) -> Cli:
    """The CLI on a fresh database of each backend."""
    return Cli(db)


def event_count(db: str) -> int:
    """How many events the log holds (to prove nothing was appended)."""
    from ledger.storage.target import parse_target
    from projections.db import ReadSide

    read = ReadSide(parse_target(db))
    try:
        with read.engine.connect() as conn:
            return read.max_seq(conn)
    finally:
        read.close()
