"""A read's note names what clears it (docs/verify.md, What a read checks before it shows): `ledger rebuild` where the
read models differ from the log, `ledger verify` where the log itself was changed and no rebuild can help."""

from __future__ import annotations

import orjson

from tests.conftest import Cli
from tests.integration.test_trust_verify import _played, _sql

ADDED = "ledger.aggregates:Character.CharacterAdded"


def _ledger(db: str) -> Cli:
    """hnh: Ann across the snapshot interval (her aggregate and the campaign snapshotted), the views caught up."""
    _played(db)
    cli = Cli(db)
    cli.ok("character", "list")
    return cli


def test_an_event_changed_under_a_vouched_snapshot_is_noted_with_verify_not_rebuild(sqlite_db: str) -> None:
    """docs/verify.md, What a read checks before it shows and Snapshots: Ann's CharacterAdded edited in the file (her
    toughness), under a snapshot its chain link still vouches for. A fresh fold of the events now differs from the
    state the ledger loads, so `ledger rebuild` can't clear the difference: the note says so and names `ledger
    verify`, after any number of rebuilds; verify reports the changed ruling and the snapshot, naming no rebuild."""
    cli = _ledger(sqlite_db)
    rowid, state = _sql(sqlite_db, "SELECT rowid, state FROM stored_events WHERE topic = ?", (ADDED,))[0]
    doc = orjson.loads(state)  # type: ignore[arg-type]
    doc["sheet"]["traits"]["toughness"] = 9
    _sql(sqlite_db, "UPDATE stored_events SET state = ? WHERE rowid = ?", (orjson.dumps(doc), rowid))
    for _ in range(2):
        cli.ok("rebuild")
        for args in (("character", "show", "Ann"), ("log", "-n", "3"), ("character", "list")):
            r = cli.ok(*args)
            note = r.stderr.splitlines()
            assert len(note) == 1 and note[0].startswith("note: the log's events differ from its snapshots"), note
            assert note[0].endswith("ledger rebuild can't repair the log; run: ledger verify"), note
    v = cli("verify")
    assert v.exit_code == 1 and "hash mismatch" in v.stdout
    assert "its chain link vouches for it, so the ledger loads it" in v.stdout and "rebuild" not in v.stdout


def test_an_event_that_cant_be_read_is_one_error_naming_verify_and_no_rebuild_note(sqlite_db: str) -> None:
    """docs/verify.md, What a read checks before it shows: an event of Ann's that isn't an event any more (its state
    `[]`) can't be folded by rebuild either; a read that meets it says so in one error naming `ledger verify`
    (exit 2), without a note telling the GM to run `ledger rebuild` first."""
    cli = _ledger(sqlite_db)
    rowid = _sql(sqlite_db, "SELECT rowid FROM stored_events WHERE topic LIKE 'ledger.aggregates:Character.%' LIMIT 1 "
                 "OFFSET 3")[0][0]  # fmt: skip
    _sql(sqlite_db, "UPDATE stored_events SET state = '[]' WHERE rowid = ?", (rowid,))
    for args in (("log",), ("timeline", "Ann"), ("rebuild",), ("log",)):
        r = cli(*args)
        assert r.exit_code == 2, (args, r.stderr)
        lines = r.stderr.splitlines()
        assert lines[0].startswith("error: ") and "the ledger is damaged" in lines[0], (args, lines)
        assert lines[1:] == ["hint: run: ledger verify"], (args, lines)
