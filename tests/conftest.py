"""Shared fixtures: a real ledger database per test (a SQLite file; PostgreSQL too when LEDGER_TEST_POSTGRES is set)."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

PG_ADMIN_URL = os.environ.get("LEDGER_TEST_POSTGRES", "")
BACKENDS = ["sqlite"] + (["postgres"] if PG_ADMIN_URL else [])
REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
FIXTURES = SHARED / "fixtures" / "hnh-characters"


# Test files whose tests take longest (`python -m pytest --durations=50`): scheduled first, so that no worker starts one
# of them when the others are nearly done (the files' own order of tests is kept).
SLOW_FIRST = (
    "integration/test_faults.py",
    "integration/test_tamper.py",
    "cli/test_write_side_only.py",
    "integration/test_trust_timeline.py",
    "cli/test_readme_tour.py",
    "integration/test_player_dice.py",
    "integration/test_serve.py",
    "integration/test_trust_serve.py",
    "cli/test_fuzz.py",
)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (pyproject.toml's addopts): two workers per core. Much of the suite waits on other processes (the CLI
    in subprocesses, `ledger serve`, PostgreSQL's server) rather than computing, so one worker per core leaves the
    cores idle for a large part of the run."""
    return 2 * (os.cpu_count() or 1)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slowest files' tests first (SLOW_FIRST), every other test in its collected order."""

    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0].removeprefix("tests/")
        return SLOW_FIRST.index(path) if path in SLOW_FIRST else len(SLOW_FIRST)

    items.sort(key=rank)


def figures_seen(count: int, what: str) -> None:
    """Skip a figures test that saw none of its file's tests: they report what the tests of their xdist group did in
    this process (`--dist loadgroup` runs a group on one worker, after the rest of the file), and must not pass on
    empty counts."""
    if not count:
        pytest.skip(f"no {what} ran in this process before the figures")


_ADMIN: list[Any] = []  # this process's one connection to the admin database, opened on first use


def _pg_admin(*statements: str) -> None:
    """Run statements on the admin database (LEDGER_TEST_POSTGRES), over one connection kept for the process."""
    import psycopg

    if not _ADMIN or _ADMIN[0].closed:
        admin = PG_ADMIN_URL.replace("postgresql+psycopg://", "postgresql://")
        _ADMIN[:] = [psycopg.connect(admin, autocommit=True)]
    for statement in statements:
        _ADMIN[0].execute(statement)


def _pg_database() -> tuple[str, str]:
    """A fresh PostgreSQL database for one test: (url, name)."""
    name = f"ledger_test_{uuid.uuid4().hex[:12]}"
    _pg_admin(f'CREATE DATABASE "{name}"')
    base, _, _ = PG_ADMIN_URL.rpartition("/")
    return f"{base}/{name}", name


def _pg_drop(name: str) -> None:
    _pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _pg_copy(master: str, name: str) -> None:
    """Make database `name` anew as a copy of database `master` (CREATE DATABASE ... TEMPLATE)."""
    _pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', f'CREATE DATABASE "{name}" TEMPLATE "{master}"')


Recipe = Callable[["Cli"], object]


class Recorded:
    """Ledgers recorded once per test process and backend, then copied into each test's own empty database.

    A fixture that replays the same CLI commands for every test of a file records them once: the first test's
    `recorded(cli, recipe)` runs the recipe on a ledger of its own (a SQLite file, a PostgreSQL database), and every
    test copies that ledger into its fresh database, byte for byte (a file copy; CREATE DATABASE ... TEMPLATE).
    The recipe must only run commands on the Cli it is given (nothing outside the database).
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.masters: dict[tuple[str, bool], str] = {}  # (recipe, on PostgreSQL) -> SQLite path or database name

    def __call__(self, cli: Cli, recipe: Recipe) -> Cli:
        """Give `cli`'s empty database the ledger `recipe` records; `cli` back."""
        key = (f"{recipe.__module__}.{recipe.__qualname__}", "://" in cli.db)
        if key not in self.masters:
            if key[1]:
                url, name = _pg_database()
            else:
                url = name = str(self.folder / f"master{len(self.masters)}.ledger")
            recipe(Cli(url))
            self.masters[key] = name
        master = self.masters[key]
        if key[1]:
            _pg_copy(master, cli.db.rpartition("/")[2])
        else:
            for suffix in ("", "-wal"):  # a closed ledger has no -wal left; copied should one be there
                if os.path.exists(master + suffix):
                    shutil.copyfile(master + suffix, cli.db + suffix)
        return cli

    def close(self) -> None:
        """Drop the PostgreSQL masters (the SQLite ones go with the session's temporary folder)."""
        for (_, pg), name in self.masters.items():
            if pg:
                _pg_drop(name)


@pytest.fixture(scope="session")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Recorded]:
    """`recorded(cli, recipe)`: cli's database holding what `recipe(cli)` records, recorded once per process."""
    rec = Recorded(tmp_path_factory.mktemp("recorded"))
    yield rec
    rec.close()


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
