"""docs/verify.md (Snapshots; The chain link; What `verify` checks): snapshots checked before use, links hashed over
every stored byte, and `verify` checks what the ledger trusts."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from ledger.aggregates import CAMPAIGN_ID
from ledger.application import Ledger
from ledger.model.chain import chain_hash
from tests.conftest import REPO, Cli

CHAIN = "ledger.aggregates:Campaign.RulingChained"


def _played(db: str, rounds: int = 60) -> None:
    """An hnh ledger where Ann crosses the snapshot interval."""
    led = Ledger(db, actor="gm", seed=3)
    led.init("hnh")
    led.add_character("Ann", {"toughness": "4"})
    for _ in range(rounds):
        led.damage("Ann", 0)
    led.damage("Ann", 2)
    led.close()


def _sql(db: str, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    con = sqlite3.connect(db)
    try:
        rows = con.execute(sql, params).fetchall()
        con.commit()
        return rows
    finally:
        con.close()


def _ann(db: str) -> str:
    return str(_sql(db, "SELECT character_id FROM ledger_sheets WHERE key = 'ann'")[0][0])


def _links(db: str) -> list[tuple[int, bytes]]:
    return [
        (int(r[0]), bytes(r[1]))
        for r in _sql(db, "SELECT rowid, state FROM stored_events WHERE topic = ? ORDER BY rowid", (CHAIN,))
    ]


@pytest.fixture
def played(sqlite_db: str) -> Cli:
    _played(sqlite_db)
    cli = Cli(sqlite_db)
    cli.ok("character", "list")  # the views caught up
    return cli


def _forge_snapshot(db: str, hex_id: str, hp: int) -> int:
    """Set the HP inside an aggregate's newest snapshot, as someone editing the file would."""
    oid, version, state = _sql(
        db,
        "SELECT originator_id, originator_version, state FROM stored_snapshots WHERE replace(originator_id, "
        "'-', '') = ? ORDER BY originator_version DESC LIMIT 1",
        (hex_id,),
    )[0]
    doc = orjson.loads(state)
    doc["state"]["sheet"]["hp"] = hp
    _sql(
        db,
        "UPDATE stored_snapshots SET state = ? WHERE originator_id = ? AND originator_version = ?",
        (orjson.dumps(doc), oid, version),
    )
    return int(version)  # type: ignore[arg-type]


def test_an_edited_snapshot_is_never_folded_and_verify_reports_it(played: Cli) -> None:
    """docs/verify.md, Snapshots: an edited snapshot is ignored (loads fold the events) and reported; undo writes no
    forged state."""
    db = played.db
    version = _forge_snapshot(db, _ann(db), 99)
    r = played("undo")
    assert r.exit_code == 0 and "warning: snapshot" in r.stderr
    led = Ledger(db, actor="gm")
    assert led.sheet("Ann").hp == 6  # 6 HP, minus 2, undone: the true state, not the forged 99
    led.close()
    assert played.json("character", "show", "Ann")["hp"] != 99
    v = played("verify")
    assert v.exit_code == 1 and f"at version {version} differs from its events" in v.stdout


def test_a_snapshot_of_the_first_release_is_checked_by_verify_and_not_folded(played: Cli) -> None:
    """docs/verify.md, Snapshots: a snapshot without a link (the first release's) can't be checked at load: never
    folded, verified by a fresh fold."""
    from eventsourcing.domain import Snapshot

    db = played.db
    led = Ledger(db, actor="gm")
    ann = led.store.repository.get(
        led.campaign().character("Ann") and __import__("uuid").UUID(led.campaign().character("Ann")["id"])
    )
    plain = Snapshot.take(ann)
    led.store.snapshots.put([plain])
    led.close()
    assert played("verify").exit_code == 0  # a true old-style snapshot verifies
    _sql(db, "DELETE FROM stored_snapshots WHERE topic != 'eventsourcing.domain:Snapshot'")
    doc_version = _forge_snapshot(db, _ann(db), 77)
    led = Ledger(db, actor="gm")
    assert led.sheet("Ann").hp == 4  # folded from events, the forged old-style snapshot ignored
    led.close()
    v = played("verify")
    assert v.exit_code == 1 and f"at version {doc_version} differs from its events" in v.stdout


def test_editing_a_later_links_kind_is_caught(played: Cli) -> None:
    """docs/verify.md, The chain link: the link's kind (play -> undo would bring a redo back) is inside the hash."""
    rowid, state = _links(played.db)[-5]
    assert b'"kind":"play"' in state
    _sql(
        played.db,
        "UPDATE stored_events SET state = ? WHERE rowid = ?",
        (state.replace(b'"kind":"play"', b'"kind":"undo"'), rowid),
    )
    r = played("verify")
    assert r.exit_code == 1 and "hash mismatch" in r.stdout


def test_a_key_added_to_a_link_is_caught(played: Cli) -> None:
    """docs/verify.md, The chain link: every stored byte of the link counts, added keys included."""
    rowid, state = _links(played.db)[-3]
    _sql(played.db, "UPDATE stored_events SET state = ? WHERE rowid = ?", (state[:-1] + b',"note":"x"}', rowid))
    assert played("verify").exit_code == 1


def test_a_link_downgraded_to_the_old_scheme_is_refused(played: Cli) -> None:
    """docs/verify.md, The chain link: a scheme-1 link after scheme-2 ones is a downgrade, even with a correct scheme-1
    hash."""
    from ledger.audit.chain import notifications

    led = Ledger(played.db, actor="gm")
    rows = list(notifications(led.store.recorder))
    led.close()
    last = rows[-1]
    doc = orjson.loads(last.state)
    pending = [r for r in rows if r.id > max(x.id for x in rows[:-1] if x.topic == CHAIN) and r.id != last.id]
    doc.pop("scheme")
    doc.pop("snapshots")
    doc["hash"] = chain_hash(doc["prev_hash"], pending)
    _sql(played.db, "UPDATE stored_events SET state = ? WHERE rowid = ?", (orjson.dumps(doc), last.id))
    r = played("verify")
    assert r.exit_code == 1 and "downgraded to scheme 1" in r.stdout


def test_rulings_deleted_from_the_tail_are_caught_and_expect_anchors_the_history(played: Cli) -> None:
    """docs/verify.md, What `verify` checks: rulings removed from the tail, with new ones after them, are reported;
    after a rebuild, `verify --expect` still fails."""
    db = played.db
    head = played.ok("verify").stdout.split("head: ")[1].strip()
    assert played("verify", "--expect", head).exit_code == 0
    links = _links(db)
    cut = links[-4][0]  # the last three rulings
    _sql(db, "DELETE FROM stored_events WHERE rowid > ?", (cut,))
    _sql(db, "DELETE FROM stored_snapshots")
    played.ok("damage", "Ann", "--amount", "1")
    r = played("verify")
    assert r.exit_code == 1 and "read model" in r.stdout
    played.ok("rebuild")
    assert played("verify").exit_code == 0  # the log itself is consistent again...
    r = played("verify", "--expect", head)
    assert r.exit_code == 1 and "no longer in the chain" in r.stdout  # ...but the head the players noted is gone


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE ledger_sheets SET hp = 99",
        "UPDATE ledger_rulings SET retracted_by = 3, retracted_actor = 'mallory' WHERE number = 5",
        "DROP TABLE ledger_log",
        "DELETE FROM ledger_hp",
        "UPDATE ledger_tracking SET position = position + 50 WHERE name = 'views'",
    ],
)
def test_edited_read_models_are_reported_and_rebuild_repairs_them(played: Cli, sql: str) -> None:
    """docs/verify.md, What `verify` checks: verify compares the read models with a fresh fold of the log; `rebuild`
    repairs."""
    _sql(played.db, sql)
    r = played("verify")
    assert r.exit_code == 1 and "rebuild" in r.stdout or "removed" in r.stdout
    played.ok("rebuild")
    assert played("verify").exit_code == 0


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE stored_events SET originator_version = 'x' WHERE rowid = 7",
        "UPDATE stored_events SET topic = NULL WHERE rowid = 8",
        "UPDATE stored_events SET state = 'not json' WHERE rowid = 9",
        "UPDATE stored_events SET originator_id = 'nonsense' WHERE rowid = 10",
        "UPDATE stored_events SET topic = 'os:system' WHERE rowid = 11",
    ],
)
def test_damaged_rows_are_reported_never_a_traceback(played: Cli, sql: str) -> None:
    """docs/verify.md, What `verify` checks: verify never crashes on damaged rows (it reports them); other commands say
    one line."""
    _sql(played.db, sql)
    r = played("verify")
    assert r.exit_code == 1 and "Traceback" not in r.stdout + r.stderr
    for args in (("character", "list"), ("undo",), ("rebuild",), ("log",)):
        r = played(*args)
        assert r.exit_code in (0, 2) and "Traceback" not in r.stderr


def test_a_corrupted_file_is_reported_by_sqlites_integrity_check(played: Cli) -> None:
    """docs/verify.md, What `verify` checks: verify runs SQLite's own integrity check; a damaged file is never a
    traceback."""
    _sql(played.db, "PRAGMA journal_mode=DELETE")
    data = bytearray(Path(played.db).read_bytes())
    page = 4096
    for i in range(page * 3, min(len(data), page * 6), 97):
        data[i] ^= 0x5A
    Path(played.db).write_bytes(bytes(data))
    r = played("verify")
    assert r.exit_code in (1, 2) and "Traceback" not in r.stdout + r.stderr


def test_expect_takes_a_hash(played: Cli) -> None:
    """docs/verify.md, What `verify` checks: `verify --expect` takes 64 hex digits; an unknown hash fails with exit
    1."""
    assert played("verify", "--expect", "abc").exit_code == 2
    r = played("verify", "--expect", "0" * 63 + "1")
    assert r.exit_code == 1 and "no longer in the chain" in r.stdout
    assert "head" in played.json("verify")


def test_session_end_and_exports_show_the_head(played: Cli, tmp_path: Path) -> None:
    """docs/verify.md, What `verify` checks: the head hash is shown where players can note it: session end, exports."""
    played.ok("session", "start")
    end = played.ok("session", "end").stdout
    head = played.json("verify")["head"]
    assert f"head: {head}" in end
    for fmt in ("md", "html"):
        out = tmp_path / f"x.{fmt}"
        played.ok("export", "--format", fmt, "-o", str(out))
        assert head in out.read_text()


def test_catch_up_never_spins_on_a_tracking_position_behind_its_rows(played: Cli) -> None:
    """docs/verify.md, What `verify` checks: a duplicate-key catch-up is retried a few times, then one line naming
    `ledger rebuild`."""
    _sql(played.db, "UPDATE ledger_tracking SET position = position - 20 WHERE name = 'views'")
    p = subprocess.run(
        [sys.executable, "-c", "from commands.main import main; main()", "--db", played.db, "character", "list"],
        capture_output=True,
        cwd=REPO,
        timeout=120,
    )
    assert p.returncode == 2 and b"ledger rebuild" in p.stderr and b"Traceback" not in p.stderr
    played.ok("rebuild")
    assert played("verify").exit_code == 0


def test_the_campaign_snapshot_is_vouched_for_by_its_link(played: Cli) -> None:
    """docs/verify.md, Snapshots: every snapshot the ledger takes is named, with its digest, by the chain link of its
    ruling."""
    from ledger.snapshots import problem

    led = Ledger(played.db, actor="gm")
    snaps = list(led.store.snapshots.get(CAMPAIGN_ID, desc=True))
    assert snaps and all(problem(led.store, s) is None for s in snaps)
    led.close()
