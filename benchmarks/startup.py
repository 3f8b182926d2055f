"""One-shot start-up: a read (`character show`) against the full stack's import, and writes (`roll`, `damage`)
against the write side's import alone.

Run: python benchmarks/startup.py [--runs N]
Every command is a fresh process; they are measured alternately in the same run, so machine noise hits all alike.
Prints the medians and the ratios: `character show` / BASELINE (goal, README.md Benchmarks: at most 1.3x), and
`roll 3dF`, `damage X --amount 1` / WRITE_BASELINE (goal, README.md Benchmarks: at most 1.5x; a write never imports the
read side's SQLAlchemy: the views catch up on the next read).
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
WRITE_BASELINE = "import click, orjson, eventsourcing.application, eventsourcing.sqlite"


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
    for step in (
        ["init", "--system", "d20"],
        ["character", "add", "Ann", "--trait", "dex=14", "--trait", f"hp={10**9}"],
        ["damage", "Ann", "--amount", "2"],
    ):  # HP enough for every run's damage
        subprocess.run([ledger, *step], env=env, check=True, stdout=subprocess.DEVNULL)
    cmds = {
        "base": [sys.executable, "-c", BASELINE],
        "show": [ledger, "--json", "character", "show", "Ann"],
        "wbase": [sys.executable, "-c", WRITE_BASELINE],
        "roll": [ledger, "roll", "3dF"],
        "damage": [ledger, "damage", "Ann", "--amount", "1"],
    }
    for c in cmds.values():
        timed(c, env)  # warm the page cache and .pyc files
    samples: dict[str, list[float]] = {k: [] for k in cmds}
    for _ in range(args.runs):
        for k, c in cmds.items():
            samples[k].append(timed(c, env))
    m = {k: statistics.median(v) for k, v in samples.items()}
    print(
        f"bare import of eventsourcing+sqlalchemy+click+orjson: median {m['base'] * 1000:7.1f} ms over {args.runs} runs"
    )
    print(
        f"ledger --json character show Ann:                     median {m['show'] * 1000:7.1f} ms   {m['show'] / m['base']:.2f}x (goal <= 1.3x)"
    )
    print(f"bare import of click+orjson+eventsourcing (sqlite):   median {m['wbase'] * 1000:7.1f} ms")
    print(
        f"ledger roll 3dF:                                      median {m['roll'] * 1000:7.1f} ms   {m['roll'] / m['wbase']:.2f}x (goal <= 1.5x)"
    )
    print(
        f"ledger damage Ann --amount 1:                         median {m['damage'] * 1000:7.1f} ms   {m['damage'] / m['wbase']:.2f}x (goal <= 1.5x)"
    )
    shutil.rmtree(folder)


if __name__ == "__main__":
    main()
