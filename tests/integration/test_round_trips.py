"""What a one-shot command says to its database (README.md, Benchmarks: statements and round trips per command), and
the marker rows that let it skip making tables (ledger/storage/pg.py; projections/db.py `look`). Counted by the
drivers themselves, as benchmarks/statements.py counts them: each command is a real `ledger` process."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, Cli

_spec = importlib.util.spec_from_file_location("statements", REPO / "benchmarks" / "statements.py")
assert _spec is not None and _spec.loader is not None
statements: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(statements)


def _count(db: str, tmp_path: Path, *args: str) -> dict[str, Any]:
    env = {**os.environ, "LEDGER_DB": db, "LEDGER_SEED": "1", "NO_COLOR": "1"}
    return statements.run(list(args), env, str(REPO), str(tmp_path))


def _ledger(db: str) -> Cli:
    cli = Cli(db)
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "agility=3", "--trait", "fighting=6", "--trait", "parry=5")
    cli.ok("character", "add", "Bob", "--trait", "parry=2", "--trait", "toughness=9")
    cli.ok("character", "show", "Ann")
    return cli


def _sql(db: str, *sql: str) -> list[Any]:
    if "://" not in db:
        import sqlite3

        con = sqlite3.connect(db)
        try:
            out = [con.execute(s).fetchall() for s in sql]
            con.commit()
            return out
        finally:
            con.close()
    import psycopg

    with psycopg.connect(db.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as conn:
        return [_fetch(conn, s) for s in sql]


def _fetch(conn: Any, s: str) -> list[Any]:
    cur = conn.execute(s)
    return cur.fetchall() if cur.description else []


@pytest.mark.parametrize("more", [0, 55])
def test_a_one_shot_write_on_postgres_takes_at_most_ten_round_trips(db: str, tmp_path: Path, more: int) -> None:
    """README.md, Benchmarks (statements per command): a one-shot `roll` and `attack` on PostgreSQL wait for the
    server at most ten times each (the schema survey, the writer lock, the loads, the insert and its commit), over at
    most two connections, and make no table; past a snapshot (55 more rulings: the campaign's and Ann's at version
    50) too, each snapshot read in the same query as its chain link and the events after it."""
    if "://" not in db:
        pytest.skip("round trips are PostgreSQL's")
    cli = _ledger(db)
    for _ in range(more):
        cli.ok("damage", "Ann", "--amount", "0")
    if more:
        assert _sql(db, "SELECT COUNT(*) FROM ledger_snapshots")[0] == [(2,)]
    for args in (("roll", "3dF"), ("attack", "Ann", "Bob", "--rank", "2", "--roll", "attack=+,0,0")):
        counted = _count(db, tmp_path, *args)
        assert counted["trips"] <= 10, counted["statements"]
        assert counted["connections"] <= 2
        assert not [s for s in counted["statements"] if "CREATE " in s.upper()]
        assert not [
            s
            for s in counted["statements"]
            if s.split("] ", 1)[-1].startswith('SELECT * FROM "public"."ledger_snapshots"')
        ]


def test_commands_make_no_tables_once_they_are_there(db: str, tmp_path: Path) -> None:
    """README.md, Benchmarks (statements per command): once a ledger's tables are made, neither a write nor a read
    asks to make them again or asks about each view table (one look answers whether they are all there)."""
    _ledger(db)
    for args in (("roll", "3dF"), ("character", "show", "Ann"), ("log", "-n", "5")):
        sent = _count(db, tmp_path, *args)["statements"]
        assert not [s for s in sent if "CREATE " in s.upper() or 'table_info("ledger_' in s], (args, sent)


def test_a_dropped_view_table_is_made_again_by_the_next_read(db: str) -> None:
    """README.md, How it works (read models are rebuildable, checked before they are shown): a view table dropped
    behind the ledger's back is made again by the next read (its look counts the tables), which then answers from the
    log as before, and `rebuild` repairs."""
    cli = _ledger(db)
    _sql(db, "DROP TABLE ledger_amendments")
    r = cli.ok("character", "show", "Ann")
    assert "Ann" in r.stdout
    tables = (
        "SELECT name FROM sqlite_master WHERE name = 'ledger_amendments'"
        if "://" not in db
        else "SELECT tablename FROM pg_tables WHERE tablename = 'ledger_amendments'"
    )
    assert _sql(db, tables)[0], "the read made the table again"
    cli.ok("rebuild")
    cli.ok("verify")


def test_a_marker_of_another_release_makes_the_log_tables_again(db: str) -> None:
    """ledger/storage/pg.py: the log's tables, type and insert function are made when the marker row names another
    release (a database an older release made): an index dropped meanwhile is there again, and the marker is this
    release's."""
    if "://" not in db:
        pytest.skip("the marker row is PostgreSQL's")
    from ledger.storage.pg import STORE_SCHEMA

    cli = _ledger(db)
    _sql(db, "DROP INDEX ledger_events_notification_id_idx", "UPDATE ledger_schema SET version = '0 an older release'")
    cli.ok("roll", "3dF")
    assert _sql(db, "SELECT version FROM ledger_schema WHERE name = 'store'")[0] == [(STORE_SCHEMA,)]
    found = _sql(db, "SELECT indexname FROM pg_indexes WHERE indexname = 'ledger_events_notification_id_idx'")
    assert found[0], "the index is made again"
    cli.ok("verify")


def test_the_marker_names_the_eventsourcing_release_installed() -> None:
    """ledger/storage/pg.py, STORE_SCHEMA: the marker names the eventsourcing release whose CREATE statements made the
    tables (pinned in pyproject.toml), so a new one makes them again."""
    from ledger.storage.pg import STORE_SCHEMA

    assert STORE_SCHEMA.endswith(f"eventsourcing {importlib.metadata.version('eventsourcing')}")
