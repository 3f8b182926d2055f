"""Every performance goal in one run, side by side: start-up, growth, the session shell, rebuild and import rates.

Run: python benchmarks/run_all.py [--runs N] [--events N] [--big PATH]
Builds a small ledger (a handful of events) and a generated one of --events events (default 100,000;
--big reuses a ledger made by benchmarks/campaign.py), then measures, alternating the compared
commands in the same run so machine noise hits both alike (medians throughout):
  1. one-shot `ledger --json character show Ann` / a bare import of the project's dependencies (goal <= 1.3x);
     one-shot writes `ledger roll 3dF` and `ledger damage Ann --amount 1` / a bare import of the write side's
     dependencies (click, orjson, eventsourcing with its SQLite recorder; goal <= 1.6x)
  2. one-shot commands at N events / at a handful: character show, damage, undo (goal <= 1.2x)
  3. the session shell (`ledger play`): median per table command, small and big ledger (goal <= 5 ms)
  4. `ledger rebuild` and `ledger import` rates against raw sqlite3 (benchmarks/rebuild.py, import_rate.py)
  5. retraction at campaign scale (benchmarks/retract.py): `retract --dry-run` at 8,000 / at 2,000 rulings when
     the retracted ruling reaches the same 300 later ones (goal <= 1.3x), and `--yes` / `--dry-run` (<= 1.2x)
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]

import campaign  # noqa: E402  (found through the sys.path line above)
from startup import BASELINE, WRITE_BASELINE  # noqa: E402

SHELL_LINES = [  # a cycle that leaves Ann as it found her; the undo refolds her (the costliest undo there is)
    "condition add Ann prone",
    "character show Ann",
    "condition remove Ann prone",
    "roll 1d20+2 --for Ann",
    "damage Ann --amount 1",
    "undo",
]
Row = tuple[str, str, str]


def timed(cmd: list[str], env: dict[str, str]) -> float:
    """Seconds for one fresh process (output discarded; a failure stops the benchmark)."""
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def alternate(runs: int, named: dict[str, Callable[[], float]]) -> dict[str, float]:
    """Run every measurement once per round, in turn; the median of each."""
    for f in named.values():
        f()  # warm page cache and .pyc files
    samples: dict[str, list[float]] = {k: [] for k in named}
    for _ in range(runs):
        for k, f in named.items():
            samples[k].append(f())
    return {k: statistics.median(v) for k, v in samples.items()}


def ms(s: float) -> str:
    return f"{s * 1000:.1f} ms"


def startup_and_growth(ledger: str, small: str, big: str, runs: int, events: int) -> list[Row]:
    """Sections 1 and 2: fresh processes only."""
    env = {**os.environ, "LEDGER_SEED": "1", "LEDGER_ACTOR": "bench"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: the project's own modules load from .pyc too

    def one(db: str, *a: str) -> Callable[[], float]:
        return lambda: timed([ledger, "--db", db, *a], env)

    m = alternate(
        runs,
        {
            "bare": lambda: timed([sys.executable, "-c", BASELINE], env),
            "wbare": lambda: timed([sys.executable, "-c", WRITE_BASELINE], env),
            "roll_s": one(small, "roll", "3dF"),
            "show_s": one(small, "--json", "character", "show", "Ann"),
            "show_b": one(big, "--json", "character", "show", "Ann"),
            "damage_s": one(small, "damage", "Ann", "--amount", "1"),
            "damage_b": one(big, "damage", "Ann", "--amount", "1"),
            "undo_s": one(small, "undo"),
            "undo_b": one(big, "undo"),
        },
    )
    rows: list[Row] = [
        (
            "one-shot `character show` / bare import of dependencies",
            f"{ms(m['show_s'])} / {ms(m['bare'])}",
            f"{m['show_s'] / m['bare']:.2f}x (goal <= 1.3x)",
        ),
        (
            "one-shot `roll 3dF` / bare import of the write side",
            f"{ms(m['roll_s'])} / {ms(m['wbare'])}",
            f"{m['roll_s'] / m['wbare']:.2f}x (goal <= 1.6x)",
        ),
        (
            "one-shot `damage Ann --amount 1` / bare import of the write side",
            f"{ms(m['damage_s'])} / {ms(m['wbare'])}",
            f"{m['damage_s'] / m['wbare']:.2f}x (goal <= 1.6x)",
        ),
    ]
    for key, label in (
        ("show", "character show Ann"),
        ("damage", "damage Ann --amount 1"),
        ("undo", "undo (of that damage)"),
    ):
        b, s = m[f"{key}_b"], m[f"{key}_s"]
        rows.append(
            (f"one-shot `{label}` at {events:,} / at a handful", f"{ms(b)} / {ms(s)}", f"{b / s:.2f}x (goal <= 1.2x)")
        )
    return rows


def shell_medians(db: str, rounds: int) -> dict[str, float]:
    """Per-line times of a `ledger play` session, in process (the shell's own Session), by command."""
    from commands.context import AppContext
    from commands.main import cli
    from commands.shell import Session

    app = AppContext(db=db, seed=1, actor="bench", as_json=False)
    session = Session(app, cli, keep_going=True)
    times: dict[str, list[float]] = {
        line.split()[0] if line != "character show Ann" else "show": [] for line in SHELL_LINES
    }
    with app.hosting(), contextlib.redirect_stdout(io.StringIO()):
        for r in range(rounds + 2):
            if r == 2:  # after two warm-up rounds
                start = time.perf_counter()
            for i, line in enumerate(SHELL_LINES):
                t0 = time.perf_counter()
                session.run(line, i, script=True)
                dt = time.perf_counter() - t0
                if r >= 2:
                    times[line.split()[0] if line != "character show Ann" else "show"].append(dt)
        session.settle()  # the views' deferred catch-up, counted in the mean
        total = time.perf_counter() - start
    app.close()
    assert not session.failed, f"shell lines failed: {session.failed}"
    out = {k: statistics.median(v) for k, v in times.items()}
    out["all"] = statistics.median([t for v in times.values() for t in v])
    out["mean"] = total / (rounds * len(SHELL_LINES))
    return out


def shell_process(ledger: str, db: str, lines: int) -> float:
    """Wall time per line of a real `ledger play` process fed a script (start-up included)."""
    script = "\n".join(SHELL_LINES[i % len(SHELL_LINES)] for i in range(lines)) + "\n"
    t0 = time.perf_counter()
    subprocess.run(
        [ledger, "--db", db, "--seed", "1", "play"], input=script, text=True, check=True, stdout=subprocess.DEVNULL
    )
    return (time.perf_counter() - t0) / lines


def shell_rows(ledger: str, small: str, big: str, rounds: int, events: int) -> list[Row]:
    """Section 3."""
    rows: list[Row] = []
    for label, db in (("a handful", small), (f"{events:,}", big)):
        m = shell_medians(db, rounds)
        detail = ", ".join(f"{k} {v * 1000:.1f}" for k, v in m.items() if k not in ("all", "mean"))
        rows.append(
            (
                f"session shell, median per table command, at {label}",
                ms(m["all"]),
                f"goal <= 5 ms; mean {ms(m['mean'])} ({detail} ms)",
            )
        )
    per = shell_process(ledger, small, 300)
    rows.append(("`ledger play` process fed 300 lines: wall time per line", ms(per), "mean, start-up included"))
    return rows


def rebuild_rows(big: str, runs: int) -> list[Row]:
    """Section 4a: benchmarks/rebuild.py's measurements on the big ledger."""
    import rebuild

    m = alternate(runs, {"raw": lambda: _t(rebuild.raw_scan, big), "rebuild": lambda: _t(rebuild.rebuild_all, big)})
    n = _events(big)
    raw, reb = n / m["raw"], n / m["rebuild"]
    return [
        (
            "`ledger rebuild` / raw sqlite3 + orjson scan",
            f"{reb:,.0f} / {raw:,.0f} events/s",
            f"{reb / raw:.0%} of raw (goal >= 30%)",
        )
    ]


def import_rows(big: str, folder: str, runs: int) -> list[Row]:
    """Section 4b: benchmarks/import_rate.py's measurements on the big ledger, exported once."""
    try:
        import import_rate

        from ledger.application import Ledger
        from ledger.audit.chain import notifications
        from ledger.history.exchange import export_jsonl, read_export, write_import
    except ImportError as e:
        return [("`ledger import` / raw sqlite3 insert", "skipped", f"not available: {e}")]
    jsonl = os.path.join(folder, "big.jsonl")
    led = Ledger(big)
    with open(jsonl, "wb") as f:
        export_jsonl(
            led.store.recorder, f, exported_at="2026-01-01T00:00:00+00:00", snapshots=led.store.snapshots.recorder
        )
    rows = [
        (n.originator_id.hex, n.originator_version, n.topic, bytes(n.state)) for n in notifications(led.store.recorder)
    ]
    led.close()
    k = iter(range(10**6))
    m = alternate(
        runs,
        {
            "raw": lambda: import_rate.raw_once(rows, os.path.join(folder, f"raw{next(k)}.ledger")),
            "import": lambda: _import_once(
                jsonl, os.path.join(folder, f"imp{next(k)}.ledger"), read_export, write_import
            ),
        },
    )
    n = len(rows)
    imp, raw = n / m["import"], n / m["raw"]
    return [
        (
            "`ledger import` / raw sqlite3 one-transaction insert",
            f"{imp:,.0f} / {raw:,.0f} events/s",
            f"{imp / raw:.0%} of raw (goal >= 30%)",
        )
    ]


def retract_rows(runs: int) -> list[Row]:
    """Section 5: benchmarks/retract.py's measurements on its own two generated campaigns."""
    import retract

    return retract.rows(runs)


def _import_once(
    jsonl: str, target: str, read_export: Callable[..., object], write_import: Callable[..., object]
) -> float:
    """Seconds for `ledger import`'s read_export + write_import into a fresh ledger (tables made before the clock)."""
    from ledger.application import Ledger

    led = Ledger(target)
    _ = led.store.recorder
    t0 = time.perf_counter()
    write_import(led.store, read_export(jsonl), target)
    dt = time.perf_counter() - t0
    led.close()
    return dt


def _t(fn: Callable[[str], object], db: str) -> float:
    t0 = time.perf_counter()
    fn(db)
    return time.perf_counter() - t0


def _events(db: str) -> int:
    import sqlite3

    con = sqlite3.connect(db)
    try:
        return int(con.execute("SELECT MAX(rowid) FROM stored_events").fetchone()[0])
    finally:
        con.close()


def main() -> None:
    """Build the ledgers, measure everything, print one table."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15, help="rounds of one-shot measurements (default 15)")
    ap.add_argument("--events", type=int, default=100_000, help="size of the generated campaign (default 100,000)")
    ap.add_argument(
        "--big", default=None, help="reuse a ledger made by benchmarks/campaign.py instead of generating one"
    )
    ap.add_argument(
        "--keep", action="store_true", help="keep the temporary folder (its big.ledger can be reused with --big)"
    )
    args = ap.parse_args()
    ledger = shutil.which("ledger") or sys.exit("install the project first: pip install -e .")
    folder = tempfile.mkdtemp(prefix="ledger-bench-all-")
    small, big = os.path.join(folder, "small.ledger"), os.path.join(folder, "big.ledger")
    rows: list[Row] = []
    try:
        campaign.small(small)
        if args.big:
            shutil.copy(args.big, big)
            events = _events(big)
        else:
            t0 = time.perf_counter()
            gen = campaign.big(big, args.events)
            events = int(gen["events"])
            rows.append(
                (
                    f"generate {events:,} events ({gen['rulings']:,.0f} rulings) through the Ledger API",
                    f"{time.perf_counter() - t0:.0f} s",
                    f"{gen['events'] / gen['append_s']:,.0f} events/s appended, one ruling per transaction",
                )
            )
        print(f"ledgers in {folder}: small {_events(small)} events, big {events:,} events", file=sys.stderr)
        rows += startup_and_growth(ledger, small, big, args.runs, events)
        rows += shell_rows(ledger, small, big, 10, events)
        rows += rebuild_rows(big, 3)
        rows += import_rows(big, folder, 3)
        rows += retract_rows(5)
    finally:
        if args.keep:
            print(f"kept {folder}", file=sys.stderr)
        else:
            shutil.rmtree(folder, ignore_errors=True)
    width = max(len(r[0]) for r in rows)
    vwidth = max(len(r[1]) for r in rows)
    print(f"{'measurement':<{width}}  {'result':<{vwidth}}  ratio / note")
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:<{vwidth}}  {note}")


if __name__ == "__main__":
    main()
