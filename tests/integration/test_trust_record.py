"""The record is never lost through the CLI: `export -o` onto the ledger, a database or an existing file (CLI.md)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import Cli, Recorded, event_count


def _record_started(cli: Cli) -> None:
    """A ledger with a campaign, a character and an open session (whose dice secret lives in the database)."""
    cli.ok("init", "--system", "hnh", "--name", "Bay City")
    cli.ok("character", "add", "Ann", "--trait", "agility=3", "--trait", "toughness=4", "--pc")
    cli.ok("session", "start", "Night one")


@pytest.fixture
def started(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_started records, recorded once and copied for this test."""
    return recorded(cli, _record_started)


def test_export_onto_the_ledgers_own_file_is_refused(started: Cli, tmp_path: Path) -> None:
    """CLI.md, export: `export -o FILE` never writes onto a ledger, not even with --force; the ledger still verifies."""
    if "://" in started.db:
        pytest.skip("a PostgreSQL ledger has no file to export onto")
    before = Path(started.db).read_bytes()
    for extra in ((), ("--force",)):
        r = started("export", "-o", started.db, "--format", "jsonl", *extra)
        assert r.exit_code == 2 and "this ledger's own database" in r.stderr and "Traceback" not in r.stderr
    assert Path(started.db).read_bytes() == before
    started.ok("verify")


def test_export_onto_any_sqlite_database_is_refused(started: Cli, tmp_path: Path) -> None:
    """CLI.md, export: an export never replaces a SQLite database (another ledger), --force or not."""
    other = tmp_path / "other.ledger"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    before = other.read_bytes()
    r = started("export", "-o", str(other), "--format", "md", "--force")
    assert r.exit_code == 2 and "is a SQLite database" in r.stderr
    assert other.read_bytes() == before


def test_export_onto_an_existing_file_needs_force(started: Cli, tmp_path: Path) -> None:
    """CLI.md, export: an existing file is refused without --force (kept as it was) and replaced whole with it."""
    out = tmp_path / "notes.md"
    out.write_text("my notes\n")
    r = started("export", "-o", str(out))
    assert r.exit_code == 2 and "already exists" in r.stderr and "--force" in r.stderr
    assert out.read_text() == "my notes\n"
    started.ok("export", "-o", str(out), "--force")
    assert out.read_text().startswith("# Bay City")


def test_a_failed_export_leaves_the_old_file(started: Cli, tmp_path: Path) -> None:
    """CLI.md, export: written through a temporary file and a rename, so a refused export leaves the old file whole."""
    out = tmp_path / "x.csv"
    out.write_text("old\n")
    r = started("export", "-o", str(out), "--force", "--session", "99")
    assert r.exit_code == 2 and out.read_text() == "old\n"
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".ledger-export-")]


def test_export_refusals_append_nothing(started: Cli, tmp_path: Path) -> None:
    """DESIGN.md, Errors and bad input: a refused command appends nothing."""
    n = event_count(started.db)
    out = tmp_path / "a.jsonl"
    out.write_text("x")
    assert started("export", "-o", str(out)).exit_code == 2
    assert event_count(started.db) == n


def sql(db: str, *statements: str) -> None:
    """Run statements on the ledger's database behind its back (SQLite file or PostgreSQL URL)."""
    if "://" not in db:
        con = sqlite3.connect(db)
        for s in statements:
            con.execute(s)
        con.commit()
        con.close()
        return
    import psycopg

    with psycopg.connect(db.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as conn:
        for s in statements:
            conn.execute(s)


def dropping_trigger(db: str) -> tuple[str, ...]:
    """A trigger that silently drops every insert into the event log."""
    if "://" not in db:
        return ("CREATE TRIGGER t BEFORE INSERT ON stored_events BEGIN SELECT RAISE(IGNORE); END",)
    return (
        "CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$",
        "CREATE TRIGGER t BEFORE INSERT ON ledger_events FOR EACH ROW EXECUTE FUNCTION f()",
    )


def test_a_trigger_on_the_log_is_reported_by_verify_and_refuses_writes(started: Cli) -> None:
    """DESIGN.md, The ruling: a ruling's events are saved all or nothing; a trigger dropping them is named by verify
    (exit 1) and every write refuses in one line naming it, appending nothing."""
    sql(started.db, *dropping_trigger(started.db))
    n = event_count(started.db)
    r = started("character", "add", "Bob", "--trait", "agility=2")
    assert r.exit_code == 2 and "trigger 't'" in r.stderr and "ruling" not in r.stdout
    assert len(r.stderr.strip().splitlines()) == 2  # error: and hint:
    v = started("verify")
    assert v.exit_code == 1 and "trigger 't'" in v.stdout
    assert event_count(started.db) == n
    sql(started.db, "DROP TRIGGER t" + ("" if "://" not in started.db else " ON ledger_events"))
    started.ok("verify")
    assert started.ok("character", "add", "Bob", "--trait", "agility=2").stdout.startswith("ruling ")


@pytest.mark.parametrize(
    "statement",
    [
        "CREATE VIEW peek AS SELECT 1 AS x",
        "CREATE INDEX ix_odd ON {events} (topic)",
    ],
)
def test_views_and_extra_indexes_are_reported(started: Cli, statement: str) -> None:
    """DESIGN.md, The ruling (verify detects any edit): an object the ledger never makes is reported, exit 1."""
    events = "stored_events" if "://" not in started.db else "ledger_events"
    sql(started.db, statement.format(events=events))
    v = started("verify")
    assert v.exit_code == 1 and "which the ledger never makes" in v.stdout
    assert started("session", "end").exit_code == 2


def test_a_postgres_rule_is_reported(started: Cli) -> None:
    """DESIGN.md, The ruling: a PostgreSQL rule rewriting inserts is reported by verify and refuses writes."""
    if "://" not in started.db:
        pytest.skip("rules are PostgreSQL's")
    sql(started.db, "CREATE RULE r AS ON INSERT TO ledger_events DO INSTEAD NOTHING")
    assert "rule 'r'" in started("verify").stdout
    r = started("session", "end")
    assert r.exit_code == 2 and "rule 'r'" in r.stderr


def test_a_commit_checks_its_rows_landed(db: str) -> None:
    """DESIGN.md, The ruling: saved all or nothing. A trigger made after this writer checked the schema (another
    program, mid-session) still can't make a ruling report success with nothing stored: the commit reads its rows
    back, rolls back and refuses."""
    from ledger.application import Ledger
    from ledger.errors import StoreError

    ledger = Ledger(db, actor="tester", seed=1)
    try:
        ledger.init("hnh", "Bay City")
        ledger.add_character("Ann", {"agility": "3"})
        n = event_count(db)
        sql(db, *dropping_trigger(db))
        with pytest.raises(StoreError, match="rows as written"):
            ledger.add_character("Bob", {"agility": "2"})
        assert event_count(db) == n
    finally:
        ledger.close()


def test_a_postgres_sequence_set_back_is_named_with_its_fix(started: Cli) -> None:
    """DESIGN.md, Storage: the log's position sequence behind its head is reported by verify and refuses writes in
    one line with the statement that fixes it (not "too busy"); after the fix, writes work again."""
    if "://" not in started.db:
        pytest.skip("the sequence is PostgreSQL's")
    sql(started.db, "ALTER SEQUENCE ledger_events_notification_id_seq RESTART WITH 1")
    v = started("verify")
    assert v.exit_code == 1 and "ledger_events_notification_id_seq" in v.stdout
    r = started("session", "end")
    assert r.exit_code == 2 and "setval(" in r.stderr and "busy" not in r.stderr
    sql(
        started.db,
        "SELECT setval('ledger_events_notification_id_seq', (SELECT MAX(notification_id) FROM ledger_events))",
    )
    started.ok("session", "end")
    started.ok("verify")
