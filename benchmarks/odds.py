"""Fight odds: 10,000 trials of four heroes against six foes in each system, and the 2,000-trial quick estimate,
against the write side's bare import, side by side.

Run: python benchmarks/odds.py [--runs N] [--trials N] [--quick N]
Each system gets a ledger with the same fight (4 heroes, 6 foes, an encounter started with initiative entered); each
measurement is a fresh process (`ledger odds --trials N --seed 1`), alternated with the bare import of the write side
(`import click, orjson, eventsourcing.application, eventsourcing.sqlite`) in the same run so machine noise hits both.
Prints the medians of wall time and of the process's CPU time (its forked workers included) and their ratios to the
bare import (goal, README.md Benchmarks: 10,000 trials at most 12x), and the quick estimate's time in process (the
forecast alone, after the ledger is open; goal: under 1 s). The forecasts are seeded, so every run plays the same
trials.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.startup import WRITE_BASELINE, timed  # noqa: E402

FIGHTS: dict[str, tuple[list[str], list[str], list[str]]] = {
    # system: (init options, a hero's traits, a foe's traits)
    "hnh": (
        ["-o", "action-economy=off"],
        ["fighting=6", "strength=4", "parry=5", "dodge=4", "toughness=4", "agility=2"],
        ["fighting=4", "strength=3", "parry=4", "dodge=3", "toughness=3", "agility=1"],
    ),
    "d20": (
        ["-o", "action-economy=off"],
        ["str=14", "dex=12", "attack=3", "hp=20"],
        ["str=12", "dex=12", "attack=2", "hp=12"],
    ),
    "pnp": ([], ["might=4", "agility=3", "toughness=3"], ["might=3", "agility=2", "toughness=2"]),
}


def setup(ledger: str, folder: str, system: str) -> dict[str, str]:
    """A ledger of the system with four heroes and six foes in a running encounter."""
    env = {**os.environ, "LEDGER_DB": os.path.join(folder, f"{system}.ledger"), "LEDGER_SEED": "1"}
    opts, hero, foe = FIGHTS[system]
    steps = [["init", "--system", system, *opts]]
    names = []
    for i in range(1, 5):
        steps.append(["character", "add", f"Hero {i}", *[a for t in hero for a in ("--trait", t)], "--pc"])
        names.append(f"Hero {i}")
    for i in range(1, 7):
        steps.append(["character", "add", f"Foe {i}", *[a for t in foe for a in ("--trait", t)]])
        names.append(f"Foe {i}")
    steps.append(["encounter", "start", *names, *[a for k, n in enumerate(names) for a in ("--init", f"{n}={20 - k}")]])
    for step in steps:
        subprocess.run([ledger, *step], env=env, check=True, stdout=subprocess.DEVNULL)
    return env


def in_process(env: dict[str, str], trials: int) -> tuple[float, float]:
    """Seconds of wall and CPU time the forecast itself takes in a process (the ledger opened first; fewer trials than
    ledger/odds/forecast.py PARALLEL_FROM run in that one process)."""
    code = (
        "import sys, time\n"
        "from ledger.application import Ledger\n"
        "from commands.odds import forecast_of\n"
        f"led = Ledger({env['LEDGER_DB']!r})\n"
        "led.campaign()\n"
        "t0, c0 = time.perf_counter(), time.process_time()\n"
        f"forecast_of(led, (), (), {{}}, None, {trials}, 1, 'focus-weakest', 20)\n"
        "print(time.perf_counter() - t0, time.process_time() - c0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True).stdout
    wall, cpu = out.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--trials", type=int, default=10_000)
    ap.add_argument("--quick", type=int, default=2_000)
    ap.add_argument("--systems", default="hnh,d20,pnp")
    args = ap.parse_args()
    ledger = shutil.which("ledger") or sys.exit("install the project first: pip install -e .")
    folder = tempfile.mkdtemp(prefix="ledger-odds-bench-")
    systems = args.systems.split(",")
    envs = {s: setup(ledger, folder, s) for s in systems}
    base_env = envs[systems[0]]
    walls: dict[str, list[float]] = {}
    cpus: dict[str, list[float]] = {}
    quick: dict[str, list[tuple[float, float]]] = {}
    for _ in range(args.runs):
        for key, cmd, env in [
            ("bare import", [sys.executable, "-c", WRITE_BASELINE], base_env),
            *[
                (f"{s} odds --trials {args.trials}", [ledger, "odds", "--trials", str(args.trials), "--seed", "1"],
                 envs[s])
                for s in systems
            ],
            *[
                (f"{s} odds --trials {args.quick}", [ledger, "odds", "--trials", str(args.quick), "--seed", "1"],
                 envs[s])
                for s in systems
            ],
        ]:  # fmt: skip
            wall, cpu = timed(cmd, env)
            walls.setdefault(key, []).append(wall)
            cpus.setdefault(key, []).append(cpu)
        for s in systems:
            quick.setdefault(s, []).append(in_process(envs[s], args.quick))
    bw, bc = statistics.median(walls["bare import"]), statistics.median(cpus["bare import"])
    print(
        f"medians of {args.runs} runs; bare import of the write side: wall {bw * 1000:.0f} ms, CPU {bc * 1000:.0f} ms"
    )
    print(f"{'measurement':<32} {'wall s':>8} {'CPU s':>8} {'wall x':>8} {'CPU x':>8}")
    for key in walls:
        w, c = statistics.median(walls[key]), statistics.median(cpus[key])
        print(f"{key:<32} {w:8.2f} {c:8.2f} {w / bw:8.1f} {c / bc:8.1f}")
    for s in systems:
        wall = statistics.median(w for w, _ in quick[s])
        cpu = statistics.median(c for _, c in quick[s])
        print(f"{s} quick estimate ({args.quick:,} trials) in process: wall {wall:.2f} s, CPU {cpu:.2f} s")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
