"""Import throughput: `ledger import` (parse, check every hash link, write, snapshot) against a raw sqlite3 insert.

Run: python benchmarks/import_rate.py [--rulings N] [--runs N] [--repeat N]
A seeded d20 ledger is played through the application, exported to JSONL once (as `ledger export` writes it: the
events, then the snapshots their chain links vouch for), then imported into fresh SQLite
files, alternating with a raw sqlite3 one-transaction executemany of the same rows (already in memory, same
table schema) in the same run, so machine noise hits both alike. Each of --repeat measurements prints both rates
(medians of --runs) and their ratio; then the ratios' median and spread (goal, README.md Benchmarks: at least 30%),
then the read models' catch-up rate.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ledger.application import Ledger  # noqa: E402
from ledger.audit.chain import notifications  # noqa: E402
from ledger.history.exchange import export_jsonl, read_export, write_import  # noqa: E402
from ledger.storage.target import parse_target  # noqa: E402


def play(path: str, rulings: int) -> None:
    """A seeded d20 campaign: attacks, damage and free rolls in turn."""
    led = Ledger(path, actor="bench", seed=8)
    led.init("d20", "Benchmark")
    led.add_character("Ann", {"hp": "1000000", "dex": "14"})
    led.add_character("Bob", {"hp": "1000000"})
    led.start_session("Long night")
    for i in range(rulings):
        if i % 3 == 0:
            led.attack("Ann", "Bob", {})
        elif i % 3 == 1:
            led.damage("Bob", 1 + i % 4)
        else:
            led.roll("1d20+2", for_name="Ann")
    led.close()


def import_once(jsonl: str, target: str) -> float:
    """Seconds for read_export + write_import into a fresh ledger (its tables created before the clock starts)."""
    led = Ledger(target)
    recorder = led.store.recorder
    t0 = time.perf_counter()
    write_import(led.store, read_export(jsonl), target)
    dt = time.perf_counter() - t0
    assert recorder.max_notification_id()
    led.close()
    return dt


def raw_once(rows: list[tuple[str, int, str, bytes]], target: str) -> float:
    """Seconds for a raw sqlite3 executemany of the same rows in one transaction, into the same table schema."""
    Ledger(target).store.close()  # the recorder's own CREATE TABLE, outside the clock
    t0 = time.perf_counter()
    con = sqlite3.connect(target)
    with con:
        con.executemany(
            "INSERT INTO stored_events (originator_id, originator_version, topic, state) VALUES (?, ?, ?, ?)", rows
        )
    con.close()
    return time.perf_counter() - t0


def views_once(target: str) -> float:
    """Seconds for the read models to catch up with an imported log."""
    from projections.db import ReadSide
    from projections.views import catch_up

    read = ReadSide(parse_target(target))
    read.ensure_tables()
    t0 = time.perf_counter()
    catch_up(read)
    dt = time.perf_counter() - t0
    read.close()
    return dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rulings", type=int, default=3000)
    ap.add_argument("--runs", type=int, default=5, help="alternations per measurement (their medians)")
    ap.add_argument("--repeat", type=int, default=3, help="side-by-side measurements (the ratio's median and spread)")
    args = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="ledger-import-bench-")
    try:
        source, jsonl = os.path.join(folder, "source.ledger"), os.path.join(folder, "source.jsonl")
        play(source, args.rulings)
        led = Ledger(source)
        with open(jsonl, "wb") as f:
            summary = export_jsonl(
                led.store.recorder, f, exported_at="2026-01-01T00:00:00+00:00", snapshots=led.store.snapshots.recorder
            )
        rows = [
            (n.originator_id.hex, n.originator_version, n.topic, bytes(n.state))
            for n in notifications(led.store.recorder)
        ]
        led.close()
        n = summary.events
        print(f"{summary.rulings} rulings, {n} events, {os.path.getsize(jsonl) / 1e6:.1f} MB of JSONL")
        ratios, k = [], 0
        for r in range(args.repeat):
            times: dict[str, list[float]] = {"import": [], "raw": []}
            for _ in range(args.runs):
                k += 1
                times["raw"].append(raw_once(rows, os.path.join(folder, f"raw{k}.ledger")))
                times["import"].append(import_once(jsonl, os.path.join(folder, f"imp{k}.ledger")))
            imp, raw = n / statistics.median(times["import"]), n / statistics.median(times["raw"])
            ratios.append(imp / raw)
            print(
                f"measurement {r + 1}: raw sqlite3, one transaction {raw:>9,.0f} events/s; ledger import (parse, check,"
                f" write, snapshot) {imp:>8,.0f} events/s (medians of {args.runs}): {imp / raw:.0%} of raw"
            )
        spread = f"{min(ratios):.0%}-{max(ratios):.0%} across {len(ratios)}"
        print(f"import / raw insert: {statistics.median(ratios):.0%} ({spread})  (goal >= 30%)")
        print(
            "read models catch-up after import:      "
            f"{n / views_once(os.path.join(folder, f'imp{k}.ledger')):>10,.0f} events/s"
        )
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
