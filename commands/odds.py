"""`ledger odds`: the rest of a fight played out many times through the campaign's rules (docs/odds.md).

Nothing is appended: the forecast reads the write side's aggregates (ledger/odds/world.py); a what-if is decided by
the real deciders on a copy of the ledger (a temporary SQLite file made by the lossless export and import), which
is thrown away.
"""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import shlex
import tempfile
from collections.abc import Iterator, Sequence
from typing import Any

import click

from commands.context import AppContext, pass_app
from commands.params import number
from commands.registry import command
from ledger import catalog as C
from ledger.errors import BadInput, LedgerError

TRIALS = 10_000
QUICK = 2_000  # `encounter show --odds`, the players' screen
SIDE_VALUES = ("heroes", "foes")


class OddsCommand(click.Command):
    """`ledger odds A B --vs C D`: every name after `--vs` (up to the next option) is a foe."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """`--vs C D` becomes `--vs C --vs D` before click reads it."""
        out: list[str] = []
        taking = False
        for a in args:
            if a == "--vs":
                taking = True
                continue
            if taking and not a.startswith("-"):
                out += ["--vs", a]
                continue
            taking = False
            out.append(a)
        return super().parse_args(ctx, out)


@command(C.ODDS, cls=OddsCommand)
@click.argument("names", nargs=-1)
@click.option("--vs", "foes", multiple=True, metavar="NAME...", help="A planned fight: the names after --vs are foes.")
@click.option("--trials", type=number("trials"), default=TRIALS, show_default=True, help="How many times to play it.")
@click.option(
    "--seed",
    "odds_seed",
    type=number("seed"),
    default=None,
    help="The trials' dice (drawn and printed when not given).",
)
@click.option(
    "--policy",
    type=click.Choice(["focus-weakest", "focus-dangerous", "spread", "all"]),
    default="focus-weakest",
    show_default=True,
    help="Whom each combatant attacks; `all` plays each and reports the band between them.",
)
@click.option(
    "--max-rounds",
    type=number("max-rounds"),
    default=20,
    show_default=True,
    help="A trial longer than this is unresolved.",
)
@click.option("--side", "sides", multiple=True, metavar="NAME=heroes|foes", help="Put a character on a side.")
@click.option(
    "--what-if",
    "what_ifs",
    multiple=True,
    metavar='"COMMAND"',
    help="A ruling command as typed, decided on a copy; repeatable.",
)
@click.option(
    "--at",
    "at",
    type=number("ruling"),
    default=None,
    metavar="RULING",
    help="From the state right after ruling RULING.",
)
@click.option(
    "--spend-points", "spend", is_flag=True, help="Heroes spend victory points / Resolve by docs/odds.md's stated rule."
)
@click.option("--calibrate", is_flag=True, help="Every ended encounter's forecast at its start against what happened.")
@pass_app
def odds(
    app: AppContext,
    names: tuple[str, ...],
    foes: tuple[str, ...],
    trials: int,
    odds_seed: int | None,
    policy: str,
    max_rounds: int,
    sides: tuple[str, ...],
    what_ifs: tuple[str, ...],
    at: int | None,
    spend: bool,
    calibrate: bool,
) -> None:
    """Each side's chance to win the fight, played out TRIALS times by the campaign's own rules; appends nothing.

    From the running encounter (who is up, HP, conditions and what is left of them, who has acted), or --at N, or a
    planned fight `ledger odds A B --vs C D`. Each combatant attacks once a turn with its best attack (docs/odds.md).

    Example: ledger odds --trials 2000 --what-if "condition add Boss stunned --rounds 1"
    """
    side_map = parse_sides(sides)
    seed = odds_seed if odds_seed is not None else app.seed if app.seed is not None else secrets.randbelow(2**31)
    ledger = app.ledger
    if calibrate:
        if names or foes or what_ifs or at is not None:
            raise BadInput("--calibrate checks every ended encounter", "leave out names, --at and --what-if")
        from ledger.odds import calibrate as cal  # lazy: the simulator, for this command only

        chosen = "focus-weakest" if policy == "all" else policy
        result = cal.calibrate(ledger, trials=trials, seed=seed, policy=chosen, max_rounds=max_rounds)
        app.emit(result, cal.text)
        return
    if names and not foes:
        raise BadInput("a planned fight names both sides", "ledger odds A B --vs C D")
    if foes and not names:
        raise BadInput("name the heroes before --vs", "ledger odds A B --vs C D")
    if what_ifs and at is not None:
        raise BadInput("a what-if is decided on the ledger as it stands", "leave out --at")
    result = forecast_of(ledger, names, foes, side_map, at, trials, seed, policy, max_rounds, what_ifs, spend)
    app.emit(result, text)


def parse_sides(given: Sequence[str]) -> dict[str, str]:
    """`--side NAME=heroes|foes` as a map."""
    out: dict[str, str] = {}
    for g in given:
        name, eq, side = g.partition("=")
        side = side.strip().lower()
        if not eq or not name.strip() or side not in SIDE_VALUES:
            raise BadInput(f"--side {g}: give NAME=heroes or NAME=foes")
        out[name.strip()] = side
    return out


def start_of(ledger: Any, names: Sequence[str], foes: Sequence[str], sides: dict[str, str], at: int | None) -> Any:
    """Where the forecast starts (ledger/odds/world.py)."""
    from ledger.odds.world import World  # lazy: the simulator, for this command only

    world = World(ledger, at)
    if names:
        return world.planned(names, foes, sides)
    return world.running(sides)


def forecast_of(
    ledger: Any,
    names: Sequence[str],
    foes: Sequence[str],
    sides: dict[str, str],
    at: int | None,
    trials: int,
    seed: int,
    policy: str,
    max_rounds: int,
    what_ifs: Sequence[str] = (),
    spend: bool = False,
) -> dict[str, Any]:
    """The `odds --json` document (CLI.md)."""
    from ledger.odds.forecast import diff_interval, forecast, pct, policies  # lazy: the simulator

    start = start_of(ledger, names, foes, sides, at)
    chosen = policies() if policy == "all" else (policy,)
    results: dict[str, Any] = {}
    trials_of: dict[str, Any] = {}
    for p in chosen:
        results[p], trials_of[p] = forecast(
            start, trials=trials, seed=seed, policy=p, max_rounds=max_rounds, spend=spend
        )
    main = dict(results[chosen[0]])
    main["policy"] = policy
    if policy == "all":
        main["policies"] = {
            p: {"heroes": r["sides"]["heroes"]["win"], "foes": r["sides"]["foes"]["win"]} for p, r in results.items()
        }
        wins = [r["sides"]["heroes"]["win"] for r in results.values()]
        main["band"] = {"heroes": [min(wins), max(wins)]}
    if what_ifs:
        base = [o.winner == "heroes" for o in trials_of[chosen[0]]]
        main["what_if"] = []
        for line in what_ifs:
            branch = what_if_start(ledger, line, names, foes, sides)
            summary, outcomes = forecast(
                start=branch, trials=trials, seed=seed, policy=chosen[0], max_rounds=max_rounds
            )
            mean, lo, hi = diff_interval(base, [o.winner == "heroes" for o in outcomes])
            main["what_if"].append(
                {"command": line, "sides": summary["sides"], "unresolved": summary["unresolved"],
                 "delta": {"heroes": pct(mean), "ci": [pct(lo), pct(hi)]}}
            )  # fmt: skip
    return main


RULING_WORDS = {c.name for c in C.COMMANDS if c.stored is not None and c.kind == "play"}


def ruling_command(line: str) -> list[str]:
    """A what-if's words: a ruling command as typed (with or without the word `ledger`), else BadInput."""
    try:
        words = shlex.split(line)
    except ValueError as e:
        raise BadInput(f"--what-if {line!r}: {e}") from None
    if words and words[0] == "ledger":
        words = words[1:]
    head = " ".join(words[:2]) if " ".join(words[:2]) in RULING_WORDS else words[0] if words else ""
    if head not in RULING_WORDS or head in ("init", "session start", "session end"):
        raise BadInput(
            f"--what-if {line!r}: not a ruling command of the fight",
            'give one as typed, e.g. "condition add Boss stunned --rounds 1" or "act Ann aim --against Boss"',
        )
    return words


@contextlib.contextmanager
def copy_of(ledger: Any) -> Iterator[str]:
    """A throw-away SQLite copy of the ledger (the lossless export, imported): its path."""
    from ledger.application import Ledger  # lazy: the write side's import, for a what-if only

    with tempfile.TemporaryDirectory(prefix="ledger-odds-") as tmp:
        dump = os.path.join(tmp, "ledger.jsonl")
        with open(dump, "wb") as f:
            ledger.export_jsonl(f)
        path = os.path.join(tmp, "copy.ledger")
        twin = Ledger(path, actor="odds", seed=0)
        try:
            twin.write_import(twin.check_import(dump))
        finally:
            twin.close()
        yield path


def what_if_start(ledger: Any, line: str, names: Sequence[str], foes: Sequence[str], sides: dict[str, str]) -> Any:
    """The forecast's start after one ruling command as typed, decided by the real deciders on a copy."""
    from commands.main import cli  # lazy: the CLI group, to decide the command as typed
    from ledger.application import Ledger  # lazy: the write side on the copy

    words = ruling_command(line)
    with copy_of(ledger) as path:
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            try:
                cli.main(["--db", path, "--seed", "0", *words], prog_name="ledger", standalone_mode=False)
            except click.ClickException as e:
                raise BadInput(f"--what-if {line!r}: {e.format_message()}") from None
            except LedgerError as e:
                raise BadInput(f"--what-if {line!r}: {e.message}", e.hint) from None
            except SystemExit as e:
                if e.code:
                    raise BadInput(f"--what-if {line!r}: {err.getvalue().strip() or 'refused'}") from None
        twin = Ledger(path, actor="odds", seed=0)
        try:
            return start_of(twin, names, foes, sides, None)
        finally:
            twin.close()


def text(r: dict[str, Any]) -> str:
    """The forecast for the table."""
    f = r["from"]
    where = f"from ruling {f['ruling']}" + (f", round {f['round']}, {f['up']} up" if f["up"] else ", a planned fight")
    points = ", points spent" if r.get("spend_points") else ""
    lines = [f"forecast {where} ({r['trials']:,} trials, seed {r['seed']}, policy {r['policy']}{points}):"]
    for side in ("heroes", "foes"):
        s = r["sides"][side]
        lo, hi = s["ci"]
        lines.append(
            f"  {side} ({', '.join(s['members'])}) win {s['win'] * 100:.1f}%  (95% {lo * 100:.1f}-{hi * 100:.1f}%)"
        )
    lines.append(f"  unresolved after {r['max_rounds']} rounds: {r['unresolved'] * 100:.1f}%")
    rd = r["rounds"]
    if rd["median"] is not None:
        lines.append(f"  rounds to the end: median {rd['median']}, 10-90% {rd['p10']}-{rd['p90']}")
        lines.append("  " + "  ".join(f"round {k}: {v * 100:.1f}%" for k, v in rd["distribution"].items()))
    lines.append("  out at the end:")
    width = max(len(n) for n in r["characters"])
    for name, c in r["characters"].items():
        lo, hi = c["ci"]
        lines.append(
            f"    {name:<{width}}  {c['side']:<6} {c['out'] * 100:5.1f}%  (95% {lo * 100:.1f}-{hi * 100:.1f}%)"
        )
    if "policies" in r:
        band = r["band"]["heroes"]
        each = ", ".join(f"{p} {v['heroes'] * 100:.1f}%" for p, v in r["policies"].items())
        lines.append(f"  heroes by policy: {each} (band {band[0] * 100:.1f}-{band[1] * 100:.1f}%)")
    for w in r.get("what_if", []):
        d = w["delta"]
        lines.append(
            f"  what if {w['command']}: heroes win {w['sides']['heroes']['win'] * 100:.1f}% "
            f"({d['heroes'] * 100:+.1f} points, 95% {d['ci'][0] * 100:+.1f} to {d['ci'][1] * 100:+.1f}; same dice)"
        )
    return "\n".join(lines)


def quick_odds(ledger: Any) -> dict[str, Any] | None:
    """The quick estimate (`encounter show --odds`, the GM's odds on the players' screen): 2,000 trials seeded by the
    log's length, so the same ledger shows the same figures; None when no fight can be forecast."""
    seed = int(ledger.campaign().rulings)
    try:
        r = forecast_of(ledger, (), (), {}, None, QUICK, seed, "focus-weakest", 20)
    except LedgerError:
        return None
    return {
        "trials": r["trials"],
        "seed": seed,
        "heroes": r["sides"]["heroes"]["win"],
        "foes": r["sides"]["foes"]["win"],
        "unresolved": r["unresolved"],
    }


def odds_line(o: dict[str, Any] | None) -> str:
    """The quick estimate as one line of percentages."""
    if o is None:
        return "odds: no fight to forecast (someone is needed on each side)"
    return (
        f"odds ({o['trials']:,} trials, seed {o['seed']}): heroes {o['heroes'] * 100:.0f}%, "
        f"foes {o['foes'] * 100:.0f}%, unresolved {o['unresolved'] * 100:.0f}%"
    )
