"""What checking the read models costs a read: the per-read check (`projections.trust.mismatch`) in process, and
one-shot read commands as fresh processes, on a small ledger and a long one, so the growth ratio (goal, README.md
Benchmarks: a read at 100,000 events within 1.2x of one at a handful) can be read off side by side.

Run: python benchmarks/read_check.py [--big PATH] [--events N] [--runs N] [--src DIR ...]
--big reuses a ledger made by benchmarks/campaign.py (else one of --events events is generated, minutes at 100,000);
each --src is a source tree to measure (default: this checkout), e.g. an export of main (`git archive main`), each in
its own processes, alternated so machine noise hits all alike. Prints medians in milliseconds (wall and CPU time).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CHECK = """
import sys, time, statistics
from ledger.application import Ledger
from ledger.storage.target import Target
from projections.db import ReadSide
from projections.trust import mismatch
from projections.views import catch_up
db, runs = sys.argv[1], int(sys.argv[2])
read, led = ReadSide(Target("sqlite", path=db)), Ledger(db, actor="bench")
catch_up(read)
mismatch(read, led)
t = []
for _ in range(runs):
    a = time.perf_counter(); mismatch(read, led); t.append(time.perf_counter() - a)
print(statistics.median(t) * 1000)
"""
SHOW = ["--json", "character", "show", "Ann"]


def one(src: str, db: str, args: list[str]) -> tuple[float, float]:
    """Seconds of wall time and of CPU time (user + system, steadier on a busy machine) of one fresh process."""
    env = {**os.environ, "PYTHONPATH": src}
    r0, t = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "commands", "--db", db, *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
        cwd=os.path.dirname(db),
    )  # fmt: skip  (cwd: not a tree)
    wall, r1 = time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def check_ms(src: str, db: str, runs: int) -> float:
    """Median milliseconds of the per-read check in one process (warm)."""
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run(
        [sys.executable, "-c", CHECK, db, str(runs)], env=env, capture_output=True, text=True, cwd=os.path.dirname(db)
    )
    return float(out.stdout.strip() or "nan")


def main() -> None:
    """Generate or reuse the ledgers, measure, print."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--big")
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--src", action="append")
    args = ap.parse_args()
    sources = args.src or [ROOT]
    folder = tempfile.mkdtemp(prefix="ledger-bench-")
    sys.path[:0] = [HERE, ROOT]
    import campaign  # the generator beside this script

    try:
        small = os.path.join(folder, "small.ledger")
        campaign.small(small)
        big = args.big or os.path.join(folder, "big.ledger")
        if not args.big:
            campaign.big(big, args.events)
        for src in sources:  # warm the page cache and each tree's .pyc files
            for db in (small, big):
                one(src, db, SHOW)
        samples: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for _ in range(args.runs):
            for src in sources:
                for label, db in (("small", small), ("big", big)):
                    samples.setdefault((src, label), []).append(one(src, db, SHOW))
        for src in sources:
            cs, cb = check_ms(src, small, args.runs), check_ms(src, big, args.runs)
            print(f"{src}:")
            print(f"  per-read check (mismatch), in process: {cs:7.1f} ms small, {cb:7.1f} ms big")
            for i, what in ((0, "wall"), (1, "cpu")):
                s = statistics.median(x[i] for x in samples[(src, "small")]) * 1000
                b = statistics.median(x[i] for x in samples[(src, "big")]) * 1000
                print(f"  one-shot `character show Ann`, {what}: {s:7.1f} ms small, {b:7.1f} ms big = {b / s:.2f}x")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
