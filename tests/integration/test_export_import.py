"""Lossless JSONL export and import (docs/export-format.md): same stored events, same views, `verify` passes; bad files
change nothing."""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from pathlib import Path
from uuid import UUID

import orjson
import pytest
from sqlalchemy import select

from ledger.application import Ledger
from ledger.audit.chain import notifications, verify
from ledger.errors import BadInput, Conflict
from ledger.history.exchange import export_jsonl, read_export, state_field, write_import
from ledger.storage.store import SNAPSHOT_INTERVAL
from ledger.storage.target import parse_target
from projections.db import VIEW_TABLES, ReadSide
from projections.views import catch_up
from tests.conftest import BACKENDS, PG_ADMIN_URL, _pg_database, _pg_drop, event_count


@pytest.fixture
def new_db(tmp_path: Path) -> Iterator[Callable[[str], str]]:
    """Make more empty ledgers: new_db('sqlite') or new_db('postgres')."""
    made: list[str] = []

    def make(kind: str) -> str:
        if kind == "sqlite":
            return str(tmp_path / f"copy{len(made)}-{len(list(tmp_path.iterdir()))}.ledger")
        url, name = _pg_database()
        made.append(name)
        return url

    yield make
    for name in made:
        _pg_drop(name)


def play(db: str, rounds: int = 8) -> None:
    """A session with an encounter, attacks, dice entered and rolled, conditions, undo and redo."""
    led = Ledger(db, actor="gm", seed=5)
    led.init("hnh", "Bay City")
    led.add_character("Ann", {"agility": "3", "toughness": "4", "fighting": "4"}, pc=True)
    led.add_character("Bob", {"toughness": "2", "dodge": "2", "parry": "2"})
    led.start_session("The heist")
    led.start_encounter(["Ann", "Bob"])
    led.attack("Ann", "Bob", {"rank": 5}, rolls={"attack": "+,+,0"})
    led.next_turn()
    led.roll("3dF+2", for_name="Bob", rolls={"roll": "+,0,-"})
    led.damage("Ann", 2)
    led.condition("Ann", "dazed", add=True)
    led.undo()
    led.redo()
    led.damage("Bob", 1)
    led.undo()
    led.end_encounter()
    led.end_session()
    led.start_session("Second night")
    for i in range(rounds):
        led.roll("3dF", for_name="Ann")
        if i % 3 == 0:
            led.condition("Bob", "dazed", add=True)
            led.condition("Bob", "dazed", add=False)
    led.close()


def export_to(db: str, path: Path) -> None:
    led = Ledger(db, actor="gm")
    with open(path, "wb") as f:
        export_jsonl(
            led.store.recorder, f, exported_at="2026-01-01T00:00:00+00:00", snapshots=led.store.snapshots.recorder
        )
    led.close()


def import_into(db: str, path: Path) -> None:
    led = Ledger(db, actor="gm")
    write_import(led.store, read_export(str(path)), db)
    led.close()
    read = ReadSide(parse_target(db))
    catch_up(read)
    read.close()


def dump(db: str) -> dict[str, list[tuple[object, ...]]]:
    read = ReadSide(parse_target(db))
    catch_up(read)
    with read.engine.connect() as conn:
        out = {
            t.name: [tuple(r) for r in conn.execute(select(t).order_by(*t.primary_key.columns)).all()]
            for t in VIEW_TABLES
        }
    read.close()
    return out


def stored(db: str) -> list[tuple[object, ...]]:
    led = Ledger(db, actor="gm")
    rows = [
        (n.originator_id.hex, n.originator_version, n.topic, bytes(n.state)) for n in notifications(led.store.recorder)
    ]
    led.close()
    return rows


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


@pytest.mark.parametrize("target_kind", BACKENDS)
def test_import_reproduces_every_stored_byte_and_every_view(db, new_db, tmp_path, target_kind):
    """docs/export-format.md, What import checks, before writing anything: import into an empty ledger reproduces it
    (same read models, verify passes), on and across backends."""
    play(db)
    path = tmp_path / "campaign.jsonl"
    export_to(db, path)
    copy = new_db(target_kind)
    import_into(copy, path)
    assert stored(copy) == stored(db)
    assert dump(copy) == dump(db)
    led = Ledger(copy, actor="gm")
    problems, counts = verify(led.store.recorder)
    assert problems == [] and counts["rulings"] == Ledger(db).campaign().rulings
    led.close()


def test_the_header_announces_counts_and_the_final_hash(sqlite_db, tmp_path):
    """docs/export-format.md, JSONL: the lossless format: a header line with counts and the final hash; envelopes for
    readers."""
    play(sqlite_db, rounds=1)
    path = tmp_path / "c.jsonl"
    export_to(sqlite_db, path)
    header, *rows = [orjson.loads(x) for x in lines(path)]
    events = [r for r in rows if "snapshot_of" not in r]
    led = Ledger(sqlite_db)
    campaign = led.campaign()
    assert (header["format"], header["version"], header["system"], header["name"]) == (
        "ledger-export",
        2,
        "hnh",
        "Bay City",
    )
    assert header["events"] == len(events) == event_count(sqlite_db)
    assert header["snapshots"] == len(rows) - len(events)
    assert header["rulings"] == campaign.rulings and header["final_hash"] == campaign.last_hash
    undone = [e for e in events if e["ruling"] and e["ruling"]["retracted"]]
    assert undone and all(e["ruling"]["retracted"]["actor"] == "gm" for e in undone)
    assert all("state" in e for e in events)  # everything this ledger writes re-encodes byte-identically
    led.close()


def test_imported_ledger_keeps_going_with_snapshots(sqlite_db, new_db, tmp_path):
    """DESIGN.md, Storage and scale: snapshots keep load time constant, so import takes them as play would have."""
    led = Ledger(sqlite_db, actor="gm", seed=2)
    led.init("d20")
    led.add_character("Tank", {"hp": "400"})
    for i in range(SNAPSHOT_INTERVAL + 5):
        led.damage("Tank", 1 + i % 3)
    led.close()
    path = tmp_path / "d20.jsonl"
    export_to(sqlite_db, path)
    copy = new_db("sqlite")
    import_into(copy, path)
    led = Ledger(copy, actor="gm", seed=2)
    from ledger.aggregates import CAMPAIGN_ID
    from ledger.snapshots import problem

    snaps = list(led.store.snapshots.get(CAMPAIGN_ID, desc=True, limit=1))
    # the campaign is snapshotted just before the chain link that crosses the interval, and that link vouches for it
    assert snaps and (snaps[0].originator_version + 1) % SNAPSHOT_INTERVAL == 0
    assert problem(led.store, snaps[0]) is None
    assert led.damage("Tank", 3)["ruling"] == SNAPSHOT_INTERVAL + 8  # the imported ledger goes on where it stopped
    assert verify(led.store.recorder)[0] == []
    led.close()


def long_play(db: str) -> None:
    led = Ledger(db, actor="gm", seed=2)
    led.init("d20")
    led.add_character("Tank", {"hp": "400"})
    for i in range(2 * SNAPSHOT_INTERVAL + 5):
        led.damage("Tank", 1 + i % 3)
    led.close()


def test_the_latest_vouched_snapshots_travel_in_the_file_and_import_as_stored(sqlite_db, new_db, tmp_path):
    """docs/export-format.md, Snapshots (version 2): after the events, the file carries the latest snapshot each
    aggregate's chain links vouch for; import checks each against its link and stores it as it is, so the copy holds the
    same snapshot rows as a version-1 import that folds them again (docs/export-format.md, JSONL: no fold on import)."""
    long_play(sqlite_db)
    path = tmp_path / "d20.jsonl"
    export_to(sqlite_db, path)
    header, *rows = [orjson.loads(x) for x in lines(path)]
    carried = [r for r in rows if "snapshot_of" in r]
    assert header["snapshots"] == len(carried) == 2  # the campaign and Tank
    assert all(r["topic"] == "ledger.snapshots:LedgerSnapshot" for r in carried)
    copy = new_db("sqlite")
    import_into(copy, path)
    # the same file as version 1, without its snapshot lines: import folds them again
    v1 = tmp_path / "v1.jsonl"
    v1.write_bytes(
        b"".join(
            orjson.dumps(r) + b"\n"
            for r in [
                {**{k: v for k, v in header.items() if k != "snapshots"}, "version": 1},
                *[r for r in rows if "snapshot_of" not in r],
            ]
        )
    )
    folded = new_db("sqlite")
    import_into(folded, v1)
    source, led, again = Ledger(sqlite_db), Ledger(copy), Ledger(folded)
    from ledger.snapshots import digest, problem

    for oid in {UUID(hex=r["snapshot_of"]) for r in carried}:
        mine = led.store.snapshots.recorder.select_events(oid)
        assert len(mine) == 1  # the latest vouched one only
        original = source.store.snapshots.recorder.select_events(
            oid, gt=mine[0].originator_version - 1, lte=mine[0].originator_version
        )
        assert [bytes(s.state) for s in mine] == [bytes(s.state) for s in original]  # stored as it was, byte for byte
        ours, refolded = next(iter(led.store.snapshots.get(oid))), next(iter(again.store.snapshots.get(oid)))
        assert digest(led.store.mapper.transcoder, ours) == digest(again.store.mapper.transcoder, refolded)
        assert problem(led.store, ours) is None
    assert led.damage("Tank", 1)["ruling"] == 2 * SNAPSHOT_INTERVAL + 8
    for x in (source, led, again):
        x.close()


def test_a_changed_snapshot_line_is_refused_and_verify_file_names_it(sqlite_db, new_db, tmp_path):
    """A snapshot line that doesn't match the digest its chain link recorded is a changed file: import refuses it
    (nothing written) and `verify --file` reports it (exit 1)."""
    from tests.conftest import Cli

    long_play(sqlite_db)
    path = tmp_path / "d20.jsonl"
    export_to(sqlite_db, path)
    assert Cli(str(tmp_path / "none.ledger")).ok("verify", "--file", str(path)).stdout.startswith("ok: ")
    ls = lines(path)
    i = next(i for i, x in enumerate(ls) if b'"snapshot_of"' in x)
    row = orjson.loads(ls[i])
    row["state"]["link"] = row["state"]["link"] + 1  # vouched for by another link than the one that took it
    ls[i] = orjson.dumps(row) + b"\n"
    path.write_bytes(b"".join(ls))
    copy = new_db("sqlite")
    _refused(copy, path, "snapshot of aggregate")
    r = Cli(str(tmp_path / "none.ledger"))("verify", "--file", str(path))
    assert r.exit_code == 1 and "snapshot of aggregate" in r.stdout
    path.write_bytes(b"".join(ls[:i] + ls[i + 1 :]))  # a snapshot line dropped: the header's count catches it
    _refused(copy, path, "snapshots its header announces")


def test_a_state_kept_as_base64_imports_to_the_same_bytes(sqlite_db, new_db, tmp_path):
    """docs/export-format.md, JSONL: the lossless format: state bytes that don't re-encode identically are carried as
    base64, losslessly."""
    assert state_field(b'{"a": 1}') == ("state_b64", base64.b64encode(b'{"a": 1}').decode())
    assert state_field(b'{"a":1}') == ("state", {"a": 1})
    play(sqlite_db, rounds=1)
    path = tmp_path / "c.jsonl"
    export_to(sqlite_db, path)
    rows = [orjson.loads(x) for x in lines(path)]
    for row in rows[1:]:
        row["state_b64"] = base64.b64encode(orjson.dumps(row.pop("state"))).decode()
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    copy = new_db("sqlite")
    import_into(copy, path)
    assert stored(copy) == stored(sqlite_db)


def test_a_file_reformatted_by_another_tool_still_imports_to_the_same_bytes(sqlite_db, new_db, tmp_path):
    """docs/export-format.md: an event's state is its JSON object. Import cuts the state's bytes from the line as the
    export wrote them (docs/export-format.md, JSONL: no second encoding); a file another tool re-wrote (spaces, other
    key order, escaped text) holds the same objects, fails that cut's chain walk, and is read again by re-encoding each
    object."""
    import json

    play(sqlite_db, rounds=1)
    path = tmp_path / "c.jsonl"
    export_to(sqlite_db, path)
    rows = [json.loads(x) for x in lines(path)]
    rewritten = [json.dumps(rows[0])] + [
        json.dumps(dict(reversed(list(r.items()))), ensure_ascii=True) for r in rows[1:]
    ]
    path.write_text("".join(x + "\n" for x in rewritten))
    copy = new_db("sqlite")
    import_into(copy, path)
    assert stored(copy) == stored(sqlite_db)


def test_a_state_edited_to_hold_the_ruling_key_is_still_refused(exported, db):
    """The cut between `"state":` and the last `"ruling":` key can't be fooled into hashing other bytes than it
    stores: a state edited to end in a `"ruling"` key of its own is refused like any other edit."""
    ls = lines(exported)
    i = next(i for i, x in enumerate(ls) if b"Character.DamageApplied" in x)
    row = orjson.loads(ls[i])
    row["state"]["note"] = ',"ruling":'
    ls[i] = orjson.dumps(row) + b"\n"
    exported.write_bytes(b"".join(ls))
    _refused(db, exported, "was changed or damaged")


def _refused(copy: str, path: Path, needle: str) -> None:
    with pytest.raises(BadInput) as err:
        import_into(copy, path)
    assert needle in err.value.message
    assert event_count(copy) == 0


@pytest.fixture
def exported(tmp_path) -> Path:
    source = str(tmp_path / "source.ledger")
    play(source, rounds=2)
    path = tmp_path / "c.jsonl"
    export_to(source, path)
    return path


def test_a_tampered_event_is_refused_and_nothing_written(exported, db):
    """docs/export-format.md, What import checks, before writing anything: a tampered file is refused with a clear
    message and nothing appended."""
    ls = lines(exported)
    i = next(i for i, x in enumerate(ls) if b"Character.DamageApplied" in x and b'"amount":2' in x)
    ls[i] = ls[i].replace(b'"amount":2', b'"amount":1')
    exported.write_bytes(b"".join(ls))
    _refused(db, exported, "was changed or damaged")


def test_reordered_events_are_refused(exported, db):
    """DESIGN.md, The ruling: reordered events break the chain, in a file as in the database."""
    ls = lines(exported)
    ls[5], ls[6] = ls[6], ls[5]
    exported.write_bytes(b"".join(ls))
    _refused(db, exported, "was changed or damaged")


def test_a_file_cut_at_a_line_end_is_refused_as_truncated(exported, db):
    """docs/export-format.md, What import checks, before writing anything: fewer events than the header announces is a
    truncated file."""
    exported.write_bytes(b"".join(lines(exported)[:-3]))
    _refused(db, exported, "is truncated: it holds")


def test_a_file_cut_mid_line_is_refused_as_truncated(exported, db):
    """docs/export-format.md, What import checks, before writing anything: a truncated file (the last line cut off) is
    refused."""
    raw = exported.read_bytes()
    exported.write_bytes(raw[: len(raw) - 40])
    _refused(db, exported, "is truncated: line")


def test_a_whole_missing_last_ruling_is_refused(exported, db):
    """docs/export-format.md, What import checks, before writing anything: fewer rulings than the header says, even when
    each ruling left is whole."""
    ls = lines(exported)
    header = orjson.loads(ls[0])
    chain_lines = [i for i, x in enumerate(ls) if b"Campaign.RulingChained" in x]
    kept = ls[1 : chain_lines[-2] + 1]
    header["events"] = len(kept)
    exported.write_bytes(orjson.dumps(header) + b"\n" + b"".join(kept))
    _refused(db, exported, "rulings its header announces")


def test_a_file_that_is_not_an_export_is_refused(tmp_path, db):
    """docs/export-format.md, What import checks, before writing anything: a non-JSONL or foreign JSONL file is refused
    with a clear message."""
    other = tmp_path / "notes.jsonl"
    other.write_text('{"hello": "world"}\n')
    _refused(db, other, "is not a ledger export")
    other.write_text("not json at all\n")
    _refused(db, other, "is not a ledger export")


def test_an_unknown_event_type_is_refused(exported, db):
    """docs/export-format.md, What import checks, before writing anything: import writes only events this ledger can
    read back."""
    exported.write_bytes(exported.read_bytes().replace(b"Character.DamageApplied", b"Character.Exploded"))
    _refused(db, exported, "unknown event type")


def test_import_refuses_a_ledger_that_is_not_empty(exported, db):
    """docs/export-format.md, What import checks, before writing anything: import only into an empty ledger; nothing is
    appended to a used one."""
    led = Ledger(db, actor="gm")
    led.init("pnp")
    before = event_count(db)
    with pytest.raises(Conflict):
        write_import(led.store, read_export(str(exported)), db)
    assert event_count(db) == before
    led.close()


@pytest.mark.skipif(not PG_ADMIN_URL, reason="needs LEDGER_TEST_POSTGRES")
def test_postgres_export_imports_into_sqlite(new_db, tmp_path):
    """docs/export-format.md, What import checks, before writing anything: across backends both ways (PostgreSQL to
    SQLite here; SQLite to PostgreSQL above)."""
    source = new_db("postgres")
    play(source, rounds=3)
    path = tmp_path / "pg.jsonl"
    export_to(source, path)
    copy = new_db("sqlite")
    import_into(copy, path)
    assert stored(copy) == stored(source)
    assert dump(copy) == dump(source)


def test_the_cli_round_trip_carries_the_snapshots(sqlite_db, tmp_path):
    """`ledger export --format jsonl` writes the vouched snapshots after the events and `ledger import` stores them:
    the copy verifies (its snapshots included) and answers like the original (docs/export-format.md, version 2)."""
    from tests.conftest import Cli

    long_play(sqlite_db)
    path = tmp_path / "out.jsonl"
    Cli(sqlite_db).ok("export", "--format", "jsonl", "-o", str(path))
    assert orjson.loads(lines(path)[0])["snapshots"] == 2
    copy = Cli(str(tmp_path / "copy.ledger"))
    copy.ok("import", str(path))
    doc = copy.json("verify")
    assert doc["ok"] is True and doc["snapshots"] == 2
    assert copy.json("character", "show", "Tank")["hp"] == Cli(sqlite_db).json("character", "show", "Tank")["hp"]
