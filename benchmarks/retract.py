"""Retraction at campaign scale: its cost follows what changed, not the length of the history.

Run: python benchmarks/retract.py [--runs N] [--reach N] [--repeat N] [--keep FOLDER]
Generates two d20 campaigns through the Ledger API, of 2,000 and 8,000 rulings. In both, ruling 7 (1 damage to
Bob) is the contested one and exactly --reach later rulings (default 300, spread over the history) damage Bob;
every other ruling acts on Ann, Cleo or Dax (damage, rolls, conditions) and reads nothing the retraction changes.
Then, alternating in one run (medians): one-shot `retract 7 --dry-run` on each, and `retract 7 --yes` on a fresh
copy of the long one. Goals: 8,000-ruling dry run <= 1.3x the 2,000-ruling one; `--yes` <= 1.2x `--dry-run`.
In process, it also times the plan that decides every later ruling again (the cost before reads were recorded).
Each of --repeat measurements prints its ratios (on stderr); the table gives their median and spread.
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
from collections.abc import Callable

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [HERE, ROOT]

from ledger.application import Ledger  # noqa: E402  (found through the sys.path line above)

HUGE = str(10**9)
OTHERS = ("Ann", "Cleo", "Dax")
TARGET = 7  # 1 init, 2-5 the four characters, 6 a session, 7 the contested damage to Bob
Row = tuple[str, str, str]


def contested(db: str, rulings: int, reach: int, seed: int = 1) -> int:
    """A campaign of `rulings` rulings whose ruling 7 reaches exactly `reach` later ones; returns the count made."""
    led = Ledger(db, actor="bench", seed=seed)
    try:
        led.init("d20", "Retraction bench")
        for name in ("Ann", "Bob", "Cleo", "Dax"):
            led.add_character(name, {"hp": HUGE, "dex": "14"}, pc=name == "Ann")
        led.start_session("One")
        assert led.damage("Bob", 1)["ruling"] == TARGET
        later = rulings - TARGET
        every = later / reach
        bob = {int(k * every) for k in range(reach)}
        for i in range(later):
            if i in bob:
                led.damage("Bob", 1)
                continue
            who = OTHERS[i % len(OTHERS)]
            kind = i % 4
            if kind in (0, 1):
                led.damage(who, 1)
            elif kind == 2:
                led.roll("1d20+2", for_name=who)
            else:
                led.condition(who, "prone", add="prone" not in led.sheet(who).conditions)
        return int(led.campaign().rulings)
    finally:
        led.close()


def timed(cmd: list[str], env: dict[str, str], before: Callable[[], None] | None = None) -> tuple[float, float]:
    """Seconds of wall time and of the child's CPU time (user + system) for one fresh process (`before` runs
    outside the clock)."""
    if before:
        before()
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    wall, r1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def alternate(runs: int, named: dict[str, Callable[[], tuple[float, float]]]) -> dict[str, float]:
    """Every measurement once per round, in turn, after one warm-up each; the medians of each (wall time under its
    name, CPU time under its name + `_cpu`)."""
    for f in named.values():
        f()
    samples: dict[str, list[tuple[float, float]]] = {k: [] for k in named}
    for _ in range(runs):
        for k, f in named.items():
            samples[k].append(f())
    out = {k: statistics.median(w for w, _ in v) for k, v in samples.items()}
    return out | {f"{k}_cpu": statistics.median(c for _, c in v) for k, v in samples.items()}


def in_process(db: str, incremental: bool) -> tuple[float, int]:
    """Seconds to plan the retraction in process (the store already open), and how many rulings were decided."""
    from ledger.history.rederive import Rederiver

    led = Ledger(db, actor="bench", seed=1)
    try:
        camp = led.campaign()
        t0 = time.perf_counter()
        plan = Rederiver(led.store, 1, camp, TARGET, {}, {}, incremental=incremental).plan()
        return time.perf_counter() - t0, plan.decided
    finally:
        led.close()


def spread(values: list[float]) -> str:
    """`median (min-max across N)` of ratios."""
    return f"{statistics.median(values):.2f}x ({min(values):.2f}-{max(values):.2f}x across {len(values)})"


def rows(
    runs: int = 7, reach: int = 300, sizes: tuple[int, int] = (2000, 8000), repeat: int = 1, keep: str | None = None
) -> list[Row]:
    """Generate both campaigns (or reuse those in `keep`), measure `repeat` times, and return the table rows."""
    folder = keep or tempfile.mkdtemp(prefix="ledger-bench-retract-")
    os.makedirs(folder, exist_ok=True)
    try:
        small, big = (os.path.join(folder, f"r{n}-{reach}.ledger") for n in sizes)
        made = []
        for db, n in ((small, sizes[0]), (big, sizes[1])):
            if not os.path.exists(db):
                contested(db, n, reach)
            led = Ledger(db, actor="bench")
            made.append(int(led.campaign().rulings))
            led.close()
        env = {**os.environ, "PYTHONPATH": ROOT, "LEDGER_SEED": "1", "LEDGER_ACTOR": "bench"}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        ledger = [sys.executable, "-m", "commands"]
        copy = os.path.join(folder, "copy.ledger")

        def fresh() -> None:
            for suffix in ("-wal", "-shm"):
                if os.path.exists(copy + suffix):
                    os.remove(copy + suffix)
            shutil.copy(big, copy)

        every: list[dict[str, float]] = []
        for k in range(repeat):
            m = alternate(
                runs,
                {
                    "dry_s": lambda: timed([*ledger, "--db", small, "retract", str(TARGET), "--dry-run"], env),
                    "dry_b": lambda: timed([*ledger, "--db", big, "retract", str(TARGET), "--dry-run"], env),
                    "yes_b": lambda: timed([*ledger, "--db", copy, "retract", str(TARGET), "--yes"], env, fresh),
                },
            )
            every.append(m)
            print(
                f"measurement {k + 1} (medians of {runs}): dry run at {sizes[1]:,} / at {sizes[0]:,} "
                f"{m['dry_b'] * 1000:.0f} / {m['dry_s'] * 1000:.0f} ms = {m['dry_b'] / m['dry_s']:.2f}x "
                f"(CPU {m['dry_b_cpu'] / m['dry_s_cpu']:.2f}x); --yes / --dry-run {m['yes_b'] * 1000:.0f} / "
                f"{m['dry_b'] * 1000:.0f} ms = {m['yes_b'] / m['dry_b']:.2f}x "
                f"(CPU {m['yes_b_cpu'] / m['dry_b_cpu']:.2f}x)",
                file=sys.stderr,
            )
        inc_s, dec_s = in_process(small, True)
        inc_b, dec_b = in_process(big, True)
        all_s, every_s = in_process(small, False)
        all_b, every_b = in_process(big, False)
    finally:
        if keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    a, b = made
    m = {k: statistics.median([e[k] for e in every]) for k in every[0]}
    return [
        (
            f"one-shot `retract 7 --dry-run` at {b:,} / at {a:,} rulings ({reach} later rulings reached)",
            f"{m['dry_b'] * 1000:.0f} / {m['dry_s'] * 1000:.0f} ms",
            f"{spread([e['dry_b'] / e['dry_s'] for e in every])} (goal <= 1.3x); CPU time "
            f"{spread([e['dry_b_cpu'] / e['dry_s_cpu'] for e in every])}",
        ),
        (
            f"one-shot `retract 7 --yes` / `--dry-run` at {b:,} rulings",
            f"{m['yes_b'] * 1000:.0f} / {m['dry_b'] * 1000:.0f} ms",
            f"{spread([e['yes_b'] / e['dry_b'] for e in every])} (goal <= 1.2x); CPU time "
            f"{spread([e['yes_b_cpu'] / e['dry_b_cpu'] for e in every])}",
        ),
        (
            f"retraction plan in process, at {b:,} / at {a:,} rulings: decided again",
            f"{inc_b * 1000:.0f} / {inc_s * 1000:.0f} ms: {dec_b:,} / {dec_s:,} rulings",
            f"every later ruling decided: {all_b * 1000:.0f} / {all_s * 1000:.0f} ms ({every_b:,} / {every_s:,})",
        ),
    ]


def main() -> None:
    """Command line: print the rows."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7, help="alternations per measurement (their medians)")
    ap.add_argument("--reach", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3, help="side-by-side measurements (the ratios' median and spread)")
    ap.add_argument("--keep", metavar="FOLDER", help="keep the two campaigns there, and reuse them when they are")
    args = ap.parse_args()
    out = rows(args.runs, args.reach, repeat=args.repeat, keep=args.keep)
    width = max(len(r[0]) for r in out)
    vwidth = max(len(r[1]) for r in out)
    for name, value, note in out:
        print(f"{name:<{width}}  {value:<{vwidth}}  {note}")


if __name__ == "__main__":
    main()
