"""Faults with real processes on real databases (DESIGN.md, Storage and scale): writers at once, and kill -9 mid-way.

Every check reads the log itself (`verify`: contiguous rulings, intact chain, no event after the last
chain link) and then the read side, which must catch up with whatever the killed process left.
"""

from __future__ import annotations

import collections
import fcntl
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from ledger.application import Ledger
from ledger.audit.chain import verify
from tests.conftest import BACKENDS, _pg_database, _pg_drop

LEDGER = [sys.executable, "-m", "commands"]
HUGE = 10**9
WRITERS = 4
RULINGS_PER_WRITER = int(os.environ.get("LEDGER_FAULT_RULINGS", "500"))  # 4 processes x 500 rulings
RECORDED = "ledger.aggregates:Ruling.RulingRecorded"


def recorded(db: str) -> list[dict[str, Any]]:
    """Every RulingRecorded event's state, in log order, read straight from the recorder."""
    led = Ledger(db)
    try:
        recorder, out, start = led.store.recorder, [], 1
        while page := recorder.select_notifications(start=start, limit=5000):
            out += [orjson.loads(n.state) for n in page if n.topic == RECORDED]
            start = page[-1].id + 1
        return out
    finally:
        led.close()


def d20_ledger(db: str) -> None:
    """A d20 campaign with one character who can take any amount of damage."""
    led = Ledger(db, actor="gm", seed=1)
    led.init("d20")
    led.add_character("Ann", {"hp": str(HUGE)})
    led.close()


def ledger_run(db: str, *args: str) -> subprocess.CompletedProcess[str]:
    """One-shot `ledger --db DB ARGS...` in a fresh process."""
    return subprocess.run([*LEDGER, "--db", db, *args], capture_output=True, text=True, timeout=300)


def assert_whole(db: str) -> dict[str, int]:
    """The log verifies (rulings 1..N, chain intact, no partial ruling) and the read side catches up to the write
    side."""
    led = Ledger(db)
    try:
        problems, counts = verify(led.store.recorder)
        hp = led.sheet("Ann").hp
    finally:
        led.close()
    assert problems == [], [p.line() for p in problems]
    r = ledger_run(db, "verify")
    assert r.returncode == 0, r.stdout + r.stderr
    shown = ledger_run(db, "--json", "character", "show", "Ann")
    assert shown.returncode == 0, shown.stderr
    assert orjson.loads(shown.stdout)["hp"] == hp
    return counts


def test_four_play_scripts_at_once_lose_and_duplicate_nothing(db: str, tmp_path: Path) -> None:
    """DESIGN.md, Storage and scale: 4 processes x 500 rulings at once through `ledger play` scripts; all present once,
    chain verifies."""
    d20_ledger(db)
    n = RULINGS_PER_WRITER
    procs = []
    for w in range(WRITERS):
        script = tmp_path / f"writer{w}.txt"
        script.write_text(
            "".join("damage Ann --amount 1\n" if i % 2 == 0 else f"roll 1d20+{i} --for Ann\n" for i in range(n))
        )
        with script.open() as stdin:
            procs.append(
                subprocess.Popen(
                    [*LEDGER, "--db", db, "--as", f"w{w}", "play"],
                    stdin=stdin,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
    counts = assert_whole(db)
    assert counts["rulings"] == 2 + WRITERS * n
    seen = collections.Counter((r["actor"], r["command"], r["intent"].get("expr")) for r in recorded(db)[2:])
    for w in range(WRITERS):
        assert seen[(f"w{w}", "damage", None)] == (n + 1) // 2
        for i in range(1, n, 2):
            assert seen[(f"w{w}", "roll", f"1d20+{i}")] == 1
    assert sum(seen.values()) == WRITERS * n
    shown = orjson.loads(ledger_run(db, "--json", "character", "show", "Ann").stdout)
    assert shown["hp"] == HUGE - WRITERS * ((n + 1) // 2)  # every damage ruling applied exactly once


PLAY_CYCLE = ["damage Ann --amount 1", "roll 1d20 --for Ann", "condition add Ann prone", "condition remove Ann prone"]


def test_kill_9_during_a_play_script_leaves_only_whole_rulings(db: str, tmp_path: Path) -> None:
    """DESIGN.md, Storage and scale: kill -9 at random points of a long `ledger play` script; the ledger opens,
    verifies, no partial ruling."""
    d20_ledger(db)
    script = tmp_path / "long.txt"
    script.write_text("\n".join(PLAY_CYCLE[i % len(PLAY_CYCLE)] for i in range(4000)) + "\n")
    rng = random.Random(9)
    before = 2
    for _ in range(3):
        with script.open() as stdin:
            p = subprocess.Popen(
                [*LEDGER, "--db", db, "play", "--keep-going"],  # a kill between `condition add` and `remove`
                stdin=stdin,  # leaves Ann prone: the next run's `add` is refused, and the script goes on
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        assert p.stdout is not None
        for _ in range(rng.randint(10, 150)):  # each ruling prints one line as it is made
            assert p.stdout.readline(), p.stderr.read() if p.stderr else ""
        time.sleep(rng.uniform(0, 0.05))
        p.send_signal(signal.SIGKILL)
        p.communicate(timeout=60)
        assert p.returncode == -signal.SIGKILL
        counts = assert_whole(db)
        assert counts["rulings"] > before
        before = counts["rulings"]
    damages = sum(1 for r in recorded(db) if r["command"] == "damage")
    assert orjson.loads(ledger_run(db, "--json", "character", "show", "Ann").stdout)["hp"] == HUGE - damages


@pytest.fixture(scope="module")
def long_export(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A JSONL export of a long campaign (30 heroes rolling initiative, 110 times), made once for every worker of
    the run (the workers' temporary folders share a parent; a lock lets one make it while the others wait)."""
    root = tmp_path_factory.getbasetemp().parent
    out, total_file = root / "long.jsonl", root / "long.total"
    with (root / "long.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not total_file.exists():
            folder = tmp_path_factory.mktemp("export")
            src = str(folder / "source.ledger")
            led = Ledger(src, actor="gm", seed=3)
            led.init("hnh")
            names = [f"Hero{i}" for i in range(30)]
            for name in names:
                led.add_character(name, {"agility": "2"})
            led.add_character("Ann", {"agility": "3"})
            for _ in range(110):
                led.start_encounter(names)
                led.end_encounter()
            total = led.store.recorder.max_notification_id()
            led.close()
            r = ledger_run(src, "export", "--format", "jsonl", "-o", str(out))
            assert r.returncode == 0, r.stderr
            total_file.write_text(str(int(total)))
    return out, int(total_file.read_text())


def _fresh_target(kind: str, folder: Path, k: int) -> tuple[str, str | None]:
    if kind == "sqlite":
        return str(folder / f"import{k}.ledger"), None
    return _pg_database()


@pytest.mark.parametrize("kind", BACKENDS)
def test_kill_9_during_a_long_import_leaves_only_whole_rulings(
    kind: str, long_export: tuple[Path, int], tmp_path: Path
) -> None:
    """DESIGN.md, Storage and scale: kill -9 at random points of a long `ledger import`; the ledger opens, verifies, no
    partial ruling."""
    from ledger.storage.target import parse_target
    from projections.db import ReadSide

    jsonl, total = long_export
    rng = random.Random(8)
    for k in range(3):
        db, pg_name = _fresh_target(kind, tmp_path, k)
        try:
            p = subprocess.Popen(
                [*LEDGER, "--db", db, "import", str(jsonl)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            read = ReadSide(parse_target(db))
            deadline = time.monotonic() + 120
            while p.poll() is None and time.monotonic() < deadline:  # kill once the first events are in
                with read.engine.connect() as conn:
                    if read.max_seq(conn) > 0:
                        break
                time.sleep(0.002)
            read.close()
            time.sleep(rng.uniform(0, 0.1))
            p.send_signal(signal.SIGKILL)
            p.wait(timeout=60)
            led = Ledger(db)
            try:
                problems, counts = verify(led.store.recorder)
            finally:
                led.close()
            assert problems == [], [pr.line() for pr in problems][:3]
            if counts["events"]:
                r = ledger_run(db, "verify")
                assert r.returncode == 0, r.stdout + r.stderr
                assert ledger_run(db, "character", "list").returncode == 0
            assert counts["events"] in range(total + 1)
        finally:
            if pg_name:
                _pg_drop(pg_name)
