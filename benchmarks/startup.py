"""One-shot start-up: `ledger --json character show X` against the bare import of the project's dependencies.

Run: python benchmarks/startup.py [--runs N]
Both are fresh processes, measured alternately in the same run, so machine noise hits both alike.
Prints the medians and their ratio (goal from issue 2: at most 1.3x).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BASELINE = "import eventsourcing.application, eventsourcing.sqlite, sqlalchemy, click, orjson"


def timed(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=21)
    args = ap.parse_args()
    ledger = shutil.which("ledger") or sys.exit("install the project first: pip install -e .")
    folder = tempfile.mkdtemp(prefix="ledger-bench-")
    env = {**os.environ, "LEDGER_DB": os.path.join(folder, "bench.ledger"), "LEDGER_SEED": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: the project's modules load from .pyc like the dependencies
    for step in (["init", "--system", "hnh"], ["character", "add", "Ann", "--trait", "agility=3"], ["damage", "Ann", "--amount", "2"]):
        subprocess.run([ledger, *step], env=env, check=True, stdout=subprocess.DEVNULL)
    show = [ledger, "--json", "character", "show", "Ann"]
    base = [sys.executable, "-c", BASELINE]
    timed(show, env), timed(base, env)  # warm the page cache and .pyc files
    a, b = [], []
    for _ in range(args.runs):
        b.append(timed(base, env))
        a.append(timed(show, env))
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"bare import of eventsourcing+sqlalchemy+click+orjson: median {mb * 1000:7.1f} ms over {args.runs} runs")
    print(f"ledger --json character show Ann:                     median {ma * 1000:7.1f} ms over {args.runs} runs")
    print(f"ratio: {ma / mb:.2f}x (goal <= 1.3x)")
    shutil.rmtree(folder)


if __name__ == "__main__":
    main()
