"""One-shot start-up: a read (`character show`) against the full stack's import, and writes (`roll`, `damage`)
against the write side's import alone.

Run: python benchmarks/startup.py [--runs N] [--src DIR ...]
Every command is a fresh process; they are measured alternately in the same run, so machine noise hits all alike.
Each --src is a source tree whose commands are measured too (e.g. an export of main, `git archive main`; run with
PYTHONPATH=DIR), alternated with this checkout's, so a change's before and after are side by side.
--instructions also runs every command once under valgrind's callgrind and prints the instructions it executed
(PYTHONHASHSEED=0): the same on every run however busy the machine is (a minute or two per command).
Prints the medians (wall time, and the child process's CPU time, which a busy machine disturbs less) and the
ratios: `character show` / BASELINE (goal, README.md Benchmarks: at most 1.3x), and
`roll 3dF`, `damage X --amount 1` / WRITE_BASELINE (goal, README.md Benchmarks: at most 1.6x; a write never imports the
read side's SQLAlchemy: the views catch up on the next read).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BASELINE = "import eventsourcing.application, eventsourcing.sqlite, sqlalchemy, click, orjson"
WRITE_BASELINE = "import click, orjson, eventsourcing.application, eventsourcing.sqlite"


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds of wall time and of the child's CPU time (user + system) for one fresh process."""
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    wall, r1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def instructions(cmd: list[str], env: dict[str, str]) -> int:
    """The instructions one fresh process executes, counted by valgrind's callgrind (deterministic)."""
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        env={**env, "PYTHONHASHSEED": "0"},
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    found = re.search(r"Collected : (\d+)", out)
    if found is None:
        sys.exit(f"valgrind printed no count: {out[-300:]}")
    return int(found[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--src", action="append", default=[], help="another source tree to measure beside this one")
    ap.add_argument("--instructions", action="store_true", help="count each command's instructions (valgrind)")
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
    trees = {"": env, **{f" [{src}]": {**env, "PYTHONPATH": os.path.abspath(src)} for src in args.src}}
    cmds: dict[str, tuple[list[str], dict[str, str]]] = {
        "base": ([sys.executable, "-c", BASELINE], env),
        "wbase": ([sys.executable, "-c", WRITE_BASELINE], env),
    }
    for tag, tree_env in trees.items():
        cmds["show" + tag] = ([ledger, "--json", "character", "show", "Ann"], tree_env)
        cmds["roll" + tag] = ([ledger, "roll", "3dF"], tree_env)
        cmds["damage" + tag] = ([ledger, "damage", "Ann", "--amount", "1"], tree_env)
    for c, e in cmds.values():
        timed(c, e)  # warm the page cache and .pyc files
    samples: dict[str, list[tuple[float, float]]] = {k: [] for k in cmds}
    for _ in range(args.runs):
        for k, (c, e) in cmds.items():
            samples[k].append(timed(c, e))
    wall = {k: statistics.median(w for w, _ in v) for k, v in samples.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in samples.items()}
    print(f"medians over {args.runs} runs: wall time, and the process's CPU time (steadier on a busy machine)")
    rows = [
        ("bare import of eventsourcing+sqlalchemy+click+orjson", "base", None, ""),
        ("bare import of click+orjson+eventsourcing (sqlite)", "wbase", None, ""),
    ]
    for tag in trees:
        rows += [
            ("ledger --json character show Ann" + tag, "show" + tag, "base", "goal <= 1.3x"),
            ("ledger roll 3dF" + tag, "roll" + tag, "wbase", "goal <= 1.6x"),
            ("ledger damage Ann --amount 1" + tag, "damage" + tag, "wbase", "goal <= 1.6x"),
        ]
    for label, k, base, goal in rows:
        line = f"{label + ':':54s} wall {wall[k] * 1000:7.1f} ms   cpu {cpu[k] * 1000:7.1f} ms"
        if base:
            line += f"   {wall[k] / wall[base]:.2f}x wall, {cpu[k] / cpu[base]:.2f}x cpu ({goal})"
        print(line)
    if args.instructions:
        if shutil.which("valgrind") is None:
            sys.exit("--instructions needs valgrind")
        counted = {k: instructions(c, e) for k, (c, e) in cmds.items()}
        print("instructions executed (valgrind callgrind, PYTHONHASHSEED=0)")
        for label, k, base, goal in rows:
            line = f"{label + ':':54s} {counted[k] / 1e6:9.1f} M"
            if base:
                line += f"   {counted[k] / counted[base]:.2f}x ({goal})"
            print(line)
    shutil.rmtree(folder)


if __name__ == "__main__":
    main()
