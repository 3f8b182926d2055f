"""Generate a long d20 campaign through the Ledger API in one process (for the growth benchmarks).

Run: python benchmarks/campaign.py DB [--events N]
Four characters with huge HP take turns at damage, rolls and conditions; every 250th ruling is an undo
and every 1,000th opens or closes a play session. The read side is caught up once at the end.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from ledger.application import Ledger

HUGE = str(10**9)
CAST = ("Ann", "Bob", "Cleo", "Dax")


def small(db: str, seed: int = 1) -> None:
    """A handful of events: init, Ann added, one damage ruling."""
    led = Ledger(db, actor="bench", seed=seed)
    try:
        led.init("d20", "Bench")
        led.add_character("Ann", {"hp": HUGE, "dex": "14"}, pc=True)
        led.damage("Ann", 1)
    finally:
        led.close()


def _step(led: Ledger, i: int) -> Any:
    """The i-th ruling of the generated campaign."""
    who = CAST[i % len(CAST)]
    if i % 1000 == 0:
        open_ = led.campaign().open_session is not None
        return led.end_session() if open_ else led.start_session(f"Session {i // 1000}")
    if i % 250 == 0:
        return led.undo()
    kind = i % 5
    if kind in (0, 1):
        return led.damage(who, 1)
    if kind == 2:
        return led.roll("1d20+2", for_name=who)
    cond = "prone"
    has = cond in led.sheet(who).conditions
    return led.condition(who, cond, add=not has)


def big(
    db: str, events: int = 100_000, seed: int = 1, progress: Callable[[int], None] | None = None
) -> dict[str, float]:
    """A campaign of at least `events` events; returns how long the appends and the catch-up took."""
    led = Ledger(db, actor="bench", seed=seed)
    try:
        led.init("d20", "Bench")
        for name in CAST:
            led.add_character(name, {"hp": HUGE, "dex": "14"}, pc=name == "Ann")
        recorder = led.store.recorder
        t0 = time.perf_counter()
        i, rulings = 1, 0
        while True:
            if i % 200 == 0:
                top = recorder.max_notification_id() or 0
                if progress:
                    progress(top)
                if top >= events:
                    break
            _step(led, i)
            i += 1
            rulings += 1
        append = time.perf_counter() - t0
        total = recorder.max_notification_id() or 0
    finally:
        led.close()
    from ledger.storage.target import parse_target
    from projections.db import ReadSide
    from projections.views import catch_up

    read = ReadSide(parse_target(db))
    t1 = time.perf_counter()
    catch_up(read)
    project = time.perf_counter() - t1
    read.close()
    return {"events": float(total), "rulings": float(rulings), "append_s": append, "project_s": project}


def main() -> None:
    """Command line: generate one campaign."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("db")
    ap.add_argument("--events", type=int, default=100_000)
    args = ap.parse_args()
    out = big(args.db, args.events, progress=lambda n: print(f"\r{n} events", end="", flush=True))
    print(
        f"\n{out['events']:.0f} events, {out['rulings']:.0f} rulings: append {out['append_s']:.1f} s, catch-up "
        f"{out['project_s']:.1f} s"
    )


if __name__ == "__main__":
    main()
