"""Rebuild throughput: `ledger rebuild` (every read model from zero) against a raw sqlite3 + orjson scan of the same log.

Run: python benchmarks/rebuild.py [--rulings N] [--runs N] [--seed N]
A long hnh campaign is generated from a fixed seed (sessions, encounters turn by turn, attacks, damage,
conditions, undo and redo), then both are timed alternately in the same run, so machine noise hits both alike.
Prints events/s for each (medians) and their ratio (goal: rebuild at least 30% of raw).
"""

from __future__ import annotations

import argparse
import os
import random
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


def timed(fn: object, db: str) -> tuple[float, int]:
    t0 = time.perf_counter()
    n = fn(db)  # type: ignore[operator]
    return time.perf_counter() - t0, n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rulings", type=int, default=2500)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="ledger-bench-")
    db = os.path.join(folder, "bench.ledger")
    t0 = time.perf_counter()
    generate(db, args.rulings, args.seed)
    print(f"generated a campaign of {args.rulings}+ rulings (seed {args.seed}) in {time.perf_counter() - t0:.1f} s")
    rebuild_all(db), raw_scan(db)  # warm the page cache, imports and the view tables
    raw_t, reb_t, events = [], [], 0
    for _ in range(args.runs):
        dt, events = timed(raw_scan, db)
        raw_t.append(dt)
        dt, n = timed(rebuild_all, db)
        reb_t.append(dt)
        assert n == events, (n, events)
    raw_rate, reb_rate = events / statistics.median(raw_t), events / statistics.median(reb_t)
    print(f"events in the log:                  {events}")
    print(f"raw sqlite3 + orjson scan + decode: {raw_rate:>10,.0f} events/s (median of {args.runs})")
    print(f"ledger rebuild (every read model):  {reb_rate:>10,.0f} events/s (median of {args.runs})")
    print(f"ratio: {reb_rate / raw_rate:.1%} of raw (goal >= 30%)")
    for f in os.listdir(folder):
        os.remove(os.path.join(folder, f))
    os.rmdir(folder)


if __name__ == "__main__":
    main()
