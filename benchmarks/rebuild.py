"""Rebuild throughput: `ledger rebuild` (every read model from zero) against a raw sqlite3 + orjson scan of the same
log.

Run: python benchmarks/rebuild.py [--rulings N] [--runs N] [--repeat N] [--seed N] [--db PATH]
A long hnh campaign is generated from a fixed seed (sessions, encounters turn by turn, attacks, damage,
conditions, undo and redo), then both are timed alternately in the same run, so machine noise hits both alike.
Each of --repeat measurements prints events/s for each (medians of --runs) and their ratio; then the ratios'
median and spread (goal: rebuild at least 30% of raw), and the same ratio of CPU times, which a loaded machine
disturbs less than wall times.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import orjson

from ledger.application import Ledger
from ledger.errors import LedgerError

HEROES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fox"]
MINIONS = ["Thugs", "Drones"]


def generate(db: str, rulings: int, seed: int) -> None:
    """A reproducible campaign of about `rulings` rulings."""
    rng = random.Random(seed)
    led = Ledger(db, actor="bench", seed=seed)
    led.init("hnh", "Benchmark")
    for n in HEROES:
        led.add_character(
            n,
            {"agility": str(rng.randint(0, 4)), "dodge": str(rng.randint(2, 8)), "toughness": str(rng.randint(2, 6))},
            pc=True,
        )
    minions = list(MINIONS)
    for n in minions:
        led.add_character(n, {"agility": "1", "toughness": "1"}, minion=True, count=8)
    made = 0

    def do(fn: object, *args: object, **kw: object) -> None:
        nonlocal made
        try:
            fn(*args, **kw)  # type: ignore[operator]
            made += 1
        except LedgerError:
            pass

    while made < rulings:
        do(led.start_session, f"Session at {made}")
        for _ in range(3):
            for n in HEROES:
                if led.sheet(n).has("dead"):
                    do(led.revive, n, "healing")
            groups = [n for n in minions if led.sheet(n).count > 0]
            if not groups:
                minions.append(f"Thugs{len(minions)}")
                do(led.add_character, minions[-1], {"agility": "1", "toughness": "1"}, minion=True, count=8)
                groups = minions[-1:]
            cast = rng.sample(HEROES, 3) + [rng.choice(groups)]
            do(led.start_encounter, cast, surprised=[cast[-1]] if rng.random() < 0.3 else [])
            for _ in range(rng.randint(8, 20)):
                roll = rng.random()
                a, t = rng.sample(cast, 2)
                if roll < 0.35:
                    do(led.attack, a, t, {"rank": rng.randint(2, 8)})
                elif roll < 0.5:
                    do(led.damage, t, rng.randint(1, 2))
                elif roll < 0.6:
                    do(led.condition, t, rng.choice(["dazed", "hindered", "vulnerable"]), add=rng.random() < 0.6)
                elif roll < 0.7:
                    do(led.undo)
                elif roll < 0.75:
                    do(led.redo)
                elif roll < 0.8:
                    do(led.roll, "3dF", for_name=a)
                do(led.next_turn)
            do(led.end_encounter)
            for n in HEROES:
                do(led.recover, n, hours=8, restful=True, treated=False)
        do(led.end_session)
    led.close()


def raw_scan(db: str) -> int:
    """Read every stored event with sqlite3 and decode its state with orjson: the floor any rebuild pays."""
    con = sqlite3.connect(db)
    n = 0
    loads = orjson.loads
    for row in con.execute(
        "SELECT rowid, originator_id, originator_version, topic, state FROM stored_events ORDER BY rowid"
    ):
        loads(row[4])
        n += 1
    con.close()
    return n


def rebuild_all(db: str) -> int:
    """`ledger rebuild`: empty every read model and fold the whole log again."""
    from ledger.storage.target import parse_target
    from projections.db import ReadSide
    from projections.views import rebuild

    read = ReadSide(parse_target(db))
    try:
        return rebuild(read)
    finally:
        read.close()


def timed(fn: object, db: str) -> tuple[float, float, int]:
    """Wall and CPU seconds of one call, and what it returned (the events it read)."""
    t0, c0 = time.perf_counter(), time.process_time()
    n = fn(db)  # type: ignore[operator]
    return time.perf_counter() - t0, time.process_time() - c0, n


def measure(db: str, runs: int) -> dict[str, float]:
    """One side-by-side measurement: raw scan and rebuild alternately, `runs` times; medians (wall and CPU)."""
    samples: dict[str, list[float]] = {"raw": [], "raw_cpu": [], "rebuild": [], "rebuild_cpu": []}
    events = 0
    for _ in range(runs):
        wall, cpu, events = timed(raw_scan, db)
        samples["raw"].append(wall)
        samples["raw_cpu"].append(cpu)
        wall, cpu, n = timed(rebuild_all, db)
        samples["rebuild"].append(wall)
        samples["rebuild_cpu"].append(cpu)
        assert n == events, (n, events)
    return {"events": events, **{k: statistics.median(v) for k, v in samples.items()}}


def spread(values: list[float]) -> str:
    """`median (min-max across N)` of ratios, as percentages."""
    return f"{statistics.median(values):.1%} ({min(values):.1%}-{max(values):.1%} across {len(values)})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rulings", type=int, default=2500)
    ap.add_argument("--runs", type=int, default=5, help="alternations per measurement (their medians)")
    ap.add_argument("--repeat", type=int, default=3, help="side-by-side measurements (the ratio's median and spread)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--db", help="the campaign's file: kept, and reused when it is there (else a temporary one)")
    args = ap.parse_args()
    folder = None if args.db else tempfile.mkdtemp(prefix="ledger-bench-")
    db = args.db or os.path.join(str(folder), "bench.ledger")
    if not os.path.exists(db):
        t0 = time.perf_counter()
        generate(db, args.rulings, args.seed)
        print(f"generated a campaign of {args.rulings}+ rulings (seed {args.seed}) in {time.perf_counter() - t0:.1f} s")
    rebuild_all(db), raw_scan(db)  # warm the page cache, imports and the view tables
    walls, cpus = [], []
    for k in range(args.repeat):
        m = measure(db, args.runs)
        raw_rate, reb_rate = m["events"] / m["raw"], m["events"] / m["rebuild"]
        walls.append(reb_rate / raw_rate)
        cpus.append(m["raw_cpu"] / m["rebuild_cpu"])
        print(
            f"measurement {k + 1}: {m['events']} events; raw sqlite3 + orjson scan and decode {raw_rate:>9,.0f} "
            f"events/s, ledger rebuild {reb_rate:>8,.0f} events/s (medians of {args.runs}): {walls[-1]:.1%} of raw "
            f"(CPU time: {cpus[-1]:.1%})"
        )
    print(f"rebuild / raw scan and decode, wall: {spread(walls)}  (goal >= 30%)")
    print(f"rebuild / raw scan and decode, CPU:  {spread(cpus)}")
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
