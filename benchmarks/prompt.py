"""The interactive shell's own costs: completion per keystroke and the toolbar's refresh, beside a table command.

Run: python benchmarks/prompt.py [--runs N] [--characters N]
In one process, on one ledger (an encounter with N participants), alternately: a table command run through
the shell (`damage X --amount 0` then `undo`: the baseline), the completions the prompt computes for typical
lines (each a keystroke's work), and the toolbar refresh after a command (the read side caught up, the turns
read). Prints the medians and each against the table command. The prompt asks for completions on every
keystroke, so they should stay well under a table command; the toolbar is read once per command.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from commands.complete import Completer, rank, split_word  # noqa: E402
from commands.context import AppContext  # noqa: E402
from commands.main import cli  # noqa: E402
from commands.shell import Session  # noqa: E402

LINES = [
    "",
    "enc",
    "encounter n",
    "attack ",
    "attack Hero1 Hero",
    "attack Hero1 Hero2 --r",
    "attack Hero1 Hero2 --range ",
    "attack Hero1 Hero2 -o ",
    "condition add Hero3 daz",
    "check Hero1 ag",
    "damage Her --amount 1 --roll ",
]


def median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=51)
    ap.add_argument("--characters", type=int, default=12)
    args = ap.parse_args()
    db = os.path.join(tempfile.mkdtemp(prefix="ledger-bench-"), "prompt.ledger")
    app = AppContext(db=db, seed=1, actor="bench", as_json=False)
    cli.load_all()
    session = Session(app, cli, keep_going=True)
    names = [f"Hero{i}" for i in range(1, args.characters + 1)]
    devnull = open(os.devnull, "w")
    real = sys.stdout
    with app.hosting():
        sys.stdout = devnull
        try:
            session.run("init --system hnh", 1, script=True)
            for n in names:
                session.run(f"character add {n} --trait agility=2 --trait fighting=4", 1, script=True)
            session.run("encounter start " + " ".join(names), 1, script=True)
            completer = Completer(
                cli, session.character_names, session.condition_names, system=session.system, sheet=session.sheet
            )

            def command() -> None:
                session.run("damage Hero2 --amount 0", 1, script=True)
                session.run("undo", 1, script=True)

            def keystrokes() -> None:
                for line in LINES:
                    before, text = split_word(line)
                    rank(completer.every(before, text), text)

            def toolbar() -> None:
                session.forget()
                session.toolbar()

            session.toolbar()
            cmd = median_ms(command, args.runs) / 2
            keys = median_ms(keystrokes, args.runs) / len(LINES)
            bar = median_ms(toolbar, args.runs)
        finally:
            sys.stdout = real
    print(f"{args.characters} participants, median of {args.runs} runs")
    print(f"table command through the shell : {cmd:7.2f} ms")
    print(f"completion, per keystroke       : {keys:7.2f} ms = {keys / cmd:.2f}x a table command")
    print(f"toolbar refresh, per command    : {bar:7.2f} ms = {bar / cmd:.2f}x a table command")
    app.close()


if __name__ == "__main__":
    main()
