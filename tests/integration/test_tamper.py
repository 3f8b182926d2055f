"""docs/verify.md, What `verify` checks: random edits of events, chain links, snapshots and read-model rows in a ledger
file, each caught by `verify` (exit 1, or one line and exit 2) or harmless after `rebuild` (every state, loaded from the
write side and read from the views, is the untouched ledger's). A fixed budget (EDITS, derandomized); `-s` prints the
figures.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.application import Ledger
from tests.conftest import Cli, figures_seen

EDITS = 120
FIGURES: Counter[str] = Counter()
# test_tamper_figures adds up what the other tests of this file tried: under pytest-xdist they all run in one worker
pytestmark = pytest.mark.xdist_group("tamper")
VIEWS = [
    "ledger_sheets",
    "ledger_rulings",
    "ledger_log",
    "ledger_hp",
    "ledger_sheet_events",
    "ledger_sessions",
    "ledger_encounters",
    "ledger_encounter_log",
    "ledger_amendments",
    "ledger_tracking",
]


def _campaign(db: str) -> None:
    """A campaign with snapshots, an encounter, an undo, a redo and a retraction."""
    led = Ledger(db, actor="gm", seed=5)
    led.init("hnh")
    led.add_character("Ann", {"toughness": "4", "fighting": "6", "parry": "5"}, pc=True)
    led.add_character("Bob", {"toughness": "3", "dodge": "2"})
    led.add_character("Thugs", {"toughness": "1"}, minion=True, count=4)
    led.start_session("Heist")
    led.start_encounter(["Ann", "Bob"])
    for i in range(26):
        led.damage("Ann" if i % 2 else "Bob", 0)
        led.condition("Bob", "dazed", add=i % 4 == 0) if i % 4 in (0, 2) else led.roll("3dF")
    led.damage("Bob", 2)
    led.undo()
    led.redo()
    led.damage("Ann", 1)
    led.retract(led.campaign().rulings - 3)  # the damage that was undone and redone
    led.end_session()
    led.close()


def _state(db: str) -> bytes:
    """Everything a GM can see: write-side sheets (snapshots and all), and the views' characters, log, sessions, HP
    timelines and encounter."""
    cli = Cli(db)
    led = Ledger(db, actor="gm")
    try:
        campaign = led.campaign()
        sheets = {n: led.sheet(n).to_dict() for n in ("Ann", "Bob", "Thugs")}
        write = {"rulings": campaign.rulings, "head": campaign.last_hash, "sheets": sheets}
    finally:
        led.close()
    views = [
        cli.json(*args)
        for args in (
            ("character", "list"),
            ("log", "--all"),
            ("session", "show", "1"),
            ("timeline", "Ann"),
            ("timeline", "Bob"),
            ("encounter", "show"),
            ("encounter", "log", "1"),
        )
    ]
    return orjson.dumps({"write": write, "views": views}, option=orjson.OPT_SORT_KEYS)


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """The untouched ledger file and what it shows."""
    path = tmp_path_factory.mktemp("tamper") / "original.ledger"
    _campaign(str(path))
    Cli(str(path)).ok("verify")
    return path, _state(str(path))


def _rows(con: sqlite3.Connection, table: str) -> list[tuple[Any, ...]]:
    return con.execute(f"SELECT rowid, * FROM {table}").fetchall()  # noqa: S608 - our own table names


def _mutate_json(raw: Any, rnd: random.Random) -> bytes:
    """Change one leaf of a JSON document (a number, a text, a flag), or flip one byte if it isn't JSON."""
    data = bytes(raw) if isinstance(raw, (bytes, memoryview)) else str(raw).encode()
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        doc = None
    leaves: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
        for k, v in items:
            if isinstance(v, (dict, list)):
                walk(v)
            else:
                leaves.append((node, k))

    if isinstance(doc, (dict, list)):
        walk(doc)
    if not leaves:
        i = rnd.randrange(len(data)) if data else 0
        return data[:i] + bytes([data[i] ^ 0x01]) + data[i + 1 :] if data else b"x"
    node, key = rnd.choice(leaves)
    v = node[key]
    if isinstance(v, bool):
        node[key] = not v
    elif isinstance(v, int):
        node[key] = v + rnd.choice([1, -1, 50])
    else:
        node[key] = (v + "x") if isinstance(v, str) else 0
    return orjson.dumps(doc)


@st.composite
def edit(draw: st.DrawFn) -> tuple[str, Any]:
    """One tampering: where, and a function of the open database that makes it (returns a description)."""
    kind = draw(st.sampled_from(["event", "event", "link", "snapshot", "view", "view", "structure", "schema"]))
    pick = draw(st.integers(0, 10**6))
    how = draw(st.integers(0, 9))
    rnd = draw(st.randoms(use_true_random=False))

    def apply(con: sqlite3.Connection) -> str:
        if kind in ("event", "link"):
            rows = [
                r
                for r in _rows(con, "stored_events")
                if (r[3] == "ledger.aggregates:Campaign.RulingChained") == (kind == "link")
            ]
            rowid, oid, version, topic, state = rows[pick % len(rows)]
            if how == 0:
                con.execute("DELETE FROM stored_events WHERE rowid = ?", (rowid,))
                return f"{kind} {rowid} deleted"
            if how == 1:
                other = rows[(pick // 7) % len(rows)]
                con.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (other[4], rowid))
                return f"{kind} {rowid} given the state of {other[0]}"
            if how == 2:
                con.execute(
                    "UPDATE stored_events SET originator_version = originator_version + 1000 WHERE rowid = ?", (rowid,)
                )
                return f"{kind} {rowid} version moved"
            if how == 3:
                con.execute("DELETE FROM stored_events WHERE rowid >= ?", (rowid,))
                return f"log cut from {rowid}"
            new = _mutate_json(state, rnd)
            con.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (new, rowid))
            return f"{kind} {rowid} edited"
        if kind == "snapshot":
            rows = con.execute("SELECT originator_id, originator_version, state FROM stored_snapshots").fetchall()
            oid, version, state = rows[pick % len(rows)]
            if how == 0:
                con.execute(
                    "DELETE FROM stored_snapshots WHERE originator_id = ? AND originator_version = ?", (oid, version)
                )
                return f"snapshot {version} deleted"
            if how == 1:
                con.execute(
                    "UPDATE stored_snapshots SET originator_version = originator_version - 1 WHERE "
                    "originator_id = ? AND originator_version = ?",
                    (oid, version),
                )
                return f"snapshot {version} renumbered"
            con.execute(
                "UPDATE stored_snapshots SET state = ? WHERE originator_id = ? AND originator_version = ?",
                (_mutate_json(state, rnd), oid, version),
            )
            return f"snapshot {version} edited"
        if kind == "view":
            table = VIEWS[pick % len(VIEWS)]
            rows = _rows(con, table)
            if not rows:
                return f"{table} empty: nothing edited"
            row = rows[(pick // 11) % len(rows)]
            cols = [c[1] for c in con.execute(f"PRAGMA table_info({table})")]
            if how == 0:
                con.execute(f"DELETE FROM {table} WHERE rowid = ?", (row[0],))
                return f"{table} row deleted"
            col = cols[(pick // 13) % len(cols)]
            value = row[1 + cols.index(col)]
            new = (
                (value + 1)
                if isinstance(value, int)
                else _mutate_json(value, rnd).decode(errors="replace")
                if value is not None
                else 1
            )
            try:
                con.execute(f'UPDATE {table} SET "{col}" = ? WHERE rowid = ?', (new, row[0]))
            except sqlite3.IntegrityError:
                return f"{table}.{col} edit refused by the database"
            return f"{table}.{col} edited"
        if kind == "schema":  # an object the ledger never makes, which can drop, change or hide rows
            table = ("stored_events", "stored_snapshots", *VIEWS)[pick % (2 + len(VIEWS))]
            if how < 4:
                con.execute(f"CREATE TRIGGER t{how} BEFORE INSERT ON {table} BEGIN SELECT RAISE(IGNORE); END")
                return f"trigger on {table}"
            if how < 7:
                con.execute(f"CREATE TRIGGER u{how} AFTER INSERT ON {table} BEGIN DELETE FROM {table}; END")
                return f"deleting trigger on {table}"
            if how < 9:
                con.execute(f"CREATE VIEW v{how} AS SELECT * FROM {table}")
                return f"view on {table}"
            con.execute("CREATE INDEX ix_extra ON stored_events (topic)")
            return "index on stored_events"
        table = VIEWS[pick % len(VIEWS)] if how < 5 else "stored_snapshots"
        con.execute(f"DROP TABLE {table}")
        return f"{table} dropped"

    return kind, apply


@pytest.mark.parametrize("batch", [0])
def test_every_tampering_is_caught_or_harmless_after_rebuild(
    original: tuple[Path, bytes], tmp_path: Path, batch: int
) -> None:
    """docs/verify.md, What `verify` checks: each random edit is caught by verify, or rebuild makes it harmless (the
    ledger shows exactly what it did)."""
    path, shown = original

    @settings(
        max_examples=EDITS, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(edit())
    def one(change: tuple[str, Any]) -> None:
        kind, apply = change
        FIGURES["files"] += 1
        copy = tmp_path / f"copy{FIGURES['files']}.ledger"  # a new name each time: no stale -wal file beside it
        shutil.copy(path, copy)
        con = sqlite3.connect(copy)
        what = apply(con)
        con.commit()
        con.close()
        cli = Cli(str(copy))
        if kind == "view" and "edited" in what:  # a forged read-model row: shown as it was, or folded from the log?
            try:
                FIGURES["forged rows shown before verify"] += _state(str(copy)) != shown
            except AssertionError:  # a read refused in one line (exit 2): nothing shown
                pass
            FIGURES["forged rows read"] += 1
        r = cli("verify")
        FIGURES["tried"] += 1
        FIGURES[f"tried {kind}"] += 1
        assert "Traceback" not in r.stdout + r.stderr, what
        assert r.exit_code in (0, 1, 2), what
        if r.exit_code != 0:
            FIGURES["caught by verify"] += 1
            return
        rb = cli("rebuild")
        assert rb.exit_code == 0, f"{what}: verify passed but rebuild failed: {rb.stderr}"
        assert _state(str(copy)) == shown, f"{what}: verify passed, and after rebuild the ledger shows something else"
        FIGURES["harmless after rebuild"] += 1

    one()


def test_tamper_figures() -> None:
    """The figures: how many edits were tried and how each was caught."""
    figures_seen(FIGURES["tried"], "tampering test")
    print(
        f"\ntamper: {FIGURES['tried']} edits tried "
        f"({', '.join(f'{k[6:]} {v}' for k, v in sorted(FIGURES.items()) if k.startswith('tried '))}); "
        f"{FIGURES['caught by verify']} caught by verify, {FIGURES['harmless after rebuild']} harmless after rebuild, "
        f"0 harmful unnoticed; {FIGURES['forged rows read']} forged read-model rows read before verify, "
        f"{FIGURES['forged rows shown before verify']} of them shown"
    )
    assert FIGURES["tried"] == FIGURES["caught by verify"] + FIGURES["harmless after rebuild"]
    assert FIGURES["forged rows shown before verify"] == 0
