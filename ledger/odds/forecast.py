"""A forecast: trials played out (on both cores when there are many), summed up as CLI.md's `odds --json` shape.

Every figure is a count over the trials divided by their number, with a 95% Wilson interval; the same start, seed
and options give the same document, byte for byte, however many processes played the trials (each trial's dice
depend on its number alone: ledger/odds/dice.py).
"""

from __future__ import annotations

import gc
import math
import os
import threading
from collections.abc import Sequence
from typing import Any

import orjson

from ledger.odds.engine import DRAW, FOES, HEROES, POLICIES, Outcome, Simulator, Start

Z95 = 1.959963984540054
PARALLEL_FROM = 4000  # fewer trials than this are played in this process (a second one costs more than it saves)
WARM = 5  # the percentage of a forecast's trials played before the fork, so both processes start from their trees


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of k successes in n trials."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, mid - half), min(1.0, mid + half))


def diff_interval(a: Sequence[bool], b: Sequence[bool], z: float = Z95) -> tuple[float, float, float]:
    """The difference of two paired proportions (the same trials, common dice) with its 95% normal interval."""
    n = len(a)
    d = [int(y) - int(x) for x, y in zip(a, b, strict=True)]
    mean = sum(d) / n if n else 0.0
    var = sum((v - mean) ** 2 for v in d) / (n - 1) if n > 1 else 0.0
    half = z * math.sqrt(var / n) if n else 0.0
    return mean, mean - half, mean + half


def play(sim: Simulator, trials: int, workers: int | None = None) -> list[Outcome]:
    """Every trial's outcome, in trial order; on two processes when there are many trials and two cores.

    The two share the first trials: this process plays them (the trees of steps it grows are the slow part of a
    forecast), then forks one child (os.fork: the trees are shared as they stand), which plays the last half of the
    rest while this process plays the first half, and hands its outcomes back through a pipe. A trial's outcome
    depends on its number alone, so the document is the same on any number of processes; a child that fails is
    made up for by playing its trials here."""
    if workers is None:
        workers = 2 if (os.cpu_count() or 1) >= 2 and trials >= PARALLEL_FROM else 1
    if workers < 2 or trials < 2 or not hasattr(os, "fork") or threading.active_count() > 1:
        return [sim.trial(t) for t in range(trials)]  # (a process with threads, as `ledger serve`, never forks)
    warm = min(trials // 2, trials * WARM // 100)
    first = [sim.trial(t) for t in range(warm)]
    half = warm + (trials - warm) // 2
    read, write = os.pipe()
    gc.freeze()  # what exists now is left out of the collector's passes, so the child does not copy it (CPython's gc)
    pid = os.fork()
    if pid == 0:  # the child: the trials from `half` on, as orjson through the pipe, then out without clean-up
        code = 1
        try:
            os.close(read)
            data = orjson.dumps([(o.winner, o.rounds, o.out) for o in (sim.trial(t) for t in range(half, trials))])
            with os.fdopen(write, "wb") as out:
                out.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    pipe = os.fdopen(read, "rb")
    try:
        mine = [sim.trial(t) for t in range(warm, half)]
        data = pipe.read()
    finally:  # (on an error or Ctrl-C here the closed pipe ends the child's write, so the wait cannot hang)
        pipe.close()
        _, status = os.waitpid(pid, 0)
        gc.unfreeze()
    if os.waitstatus_to_exitcode(status) == 0:
        theirs = [Outcome(w, r, tuple(o)) for w, r, o in orjson.loads(data)]
    else:  # the child failed (out of memory, killed): its trials are played here
        theirs = [sim.trial(t) for t in range(half, trials)]
    return first + mine + theirs


def pct(x: float) -> float:
    """A fraction kept to 4 decimals (the document is the same on every machine)."""
    return round(x, 4)


def summary(start: Start, sim: Simulator, outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """The forecast as `odds --json` shows it (CLI.md)."""
    n = len(outcomes)
    wins = {HEROES: 0, FOES: 0}
    rounds: dict[int, int] = {}
    resolved: list[int] = []
    out_counts = [0] * len(sim.fighters)
    for o in outcomes:
        if o.winner in wins:
            wins[o.winner] += 1
        if o.winner is not None:
            rounds[o.rounds] = rounds.get(o.rounds, 0) + 1
            resolved.append(o.rounds)
        for i, gone in enumerate(o.out):
            out_counts[i] += gone
    resolved.sort()
    sides: dict[str, Any] = {}
    for side in (HEROES, FOES):
        lo, hi = wilson(wins[side], n)
        sides[side] = {
            "members": [f.name for f in sim.fighters if f.side == side],
            "win": pct(wins[side] / n if n else 0.0),
            "ci": [pct(lo), pct(hi)],
        }
    characters = {}
    for i, f in enumerate(sim.fighters):
        lo, hi = wilson(out_counts[i], n)
        characters[f.name] = {"side": f.side, "out": pct(out_counts[i] / n if n else 0.0), "ci": [pct(lo), pct(hi)]}
    return {
        "trials": n,
        "seed": sim.seed,
        "policy": sim.policy,
        "from": {"ruling": start.ruling, "round": start.round, "up": start.up},
        "sides": sides,
        "unresolved": max(0.0, pct(1 - pct(wins[HEROES] / n) - pct(wins[FOES] / n))) if n else 1.0,
        "draws": pct(sum(1 for o in outcomes if o.winner == DRAW) / n if n else 0.0),
        "rounds": {
            "distribution": {str(r): pct(c / n) for r, c in sorted(rounds.items())},
            "median": _quantile(resolved, 0.5),
            "p10": _quantile(resolved, 0.1),
            "p90": _quantile(resolved, 0.9),
        },
        "characters": characters,
        "max_rounds": sim.max_rounds,
    }


def _quantile(values: Sequence[int], q: float) -> int | None:
    """The smallest value with at least a fraction q of the values at or below it (None: no resolved trial)."""
    if not values:
        return None
    k = max(0, math.ceil(q * len(values)) - 1)
    return values[k]


def forecast(
    start: Start,
    *,
    trials: int,
    seed: int,
    policy: str,
    max_rounds: int,
    spend: bool = False,
    workers: int | None = None,
) -> tuple[dict[str, Any], list[Outcome]]:
    """One policy's forecast and its trials' outcomes (for a what-if's paired difference)."""
    sim = Simulator(start, policy, max_rounds, seed, spend)
    outcomes = play(sim, trials, workers)
    doc = summary(start, sim, outcomes)
    doc["spend_points"] = spend
    return doc, outcomes


def policies() -> tuple[str, ...]:
    """The policies `--policy all` plays, in the order it reports them."""
    return POLICIES
