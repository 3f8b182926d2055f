"""How good the forecasts are: each ended encounter's forecast at its start, recomputed from the history (never
stored), against what happened; the Brier score and a reliability table."""

from __future__ import annotations

from typing import Any

from eventsourcing.application import AggregateNotFoundError

from ledger.encounter import ENCOUNTER_ID
from ledger.errors import LedgerError
from ledger.odds.engine import FOES, HEROES, is_out
from ledger.odds.forecast import forecast, pct
from ledger.odds.world import Reads, World

BINS = 10


def ended_encounters(ledger: Reads) -> list[tuple[int, int, int]]:
    """(number, the ruling that started it, the ruling that ended it) of every ended encounter of the live history."""
    campaign = ledger.campaign()
    dead = campaign.dead_set()
    try:
        events = list(ledger.store.events.get(ENCOUNTER_ID))
    except AggregateNotFoundError:
        return []
    starts: dict[int, int] = {}
    out: list[tuple[int, int, int]] = []
    e: Any
    for e in events:
        kind, ruling = type(e).__name__, getattr(e, "ruling", 0)
        if ruling in dead:
            continue
        if kind == "EncounterStarted":
            starts[e.number] = ruling
        elif kind == "EncounterEnded" and e.number in starts:
            out.append((e.number, starts[e.number], ruling))
    return out


def outcome(world: World, names: list[str], sides: dict[str, str]) -> str | None:
    """Which side won an encounter, read from the sheets as it ended (None: neither side was all out)."""
    down = {HEROES: True, FOES: True}
    for name in names:
        sheet = world.sheet(name)
        if sheet is not None and not is_out(world.rules, sheet):
            down[sides[name]] = False
    if down[FOES] and not down[HEROES]:
        return HEROES
    if down[HEROES] and not down[FOES]:
        return FOES
    return None


def calibrate(ledger: Reads, *, trials: int, seed: int, policy: str, max_rounds: int) -> dict[str, Any]:
    """`odds --calibrate`: `{"encounters", "brier", "reliability": [...], "rows": [...]}` (CLI.md)."""
    rows: list[dict[str, Any]] = []
    for number, started, ended in ended_encounters(ledger):
        try:
            start = World(ledger, at=started).running({})
        except LedgerError:
            continue  # a fight with no one on one side: nothing to forecast
        summary, _ = forecast(start, trials=trials, seed=seed, policy=policy, max_rounds=max_rounds)
        sides = {f.name: f.side for f in start.fighters}
        won = outcome(World(ledger, at=ended), list(sides), sides)
        p = summary["sides"][HEROES]["win"]
        rows.append({"encounter": number, "from": started, "to": ended, "heroes": p, "won": won})
    scored = [r for r in rows if r["won"] is not None]  # an encounter ended with neither side all out is left out
    brier = sum((r["heroes"] - (r["won"] == HEROES)) ** 2 for r in scored) / len(scored) if scored else None
    table = []
    for b in range(BINS):
        lo, hi = b / BINS, (b + 1) / BINS
        inside = [r for r in scored if lo <= r["heroes"] < hi or (b == BINS - 1 and r["heroes"] == 1.0)]
        if not inside:
            continue
        table.append(
            {
                "bin": f"{int(lo * 100)}-{int(hi * 100)}%",
                "n": len(inside),
                "forecast": pct(sum(r["heroes"] for r in inside) / len(inside)),
                "observed": pct(sum(1 for r in inside if r["won"] == HEROES) / len(inside)),
            }
        )
    return {
        "encounters": len(scored),
        "brier": pct(brier) if brier is not None else None,
        "reliability": table,
        "left_out": len(rows) - len(scored),
        "rows": rows,
        "trials": trials,
        "seed": seed,
        "policy": policy,
    }


def text(c: dict[str, Any]) -> str:
    """The calibration as the terminal, the Markdown export and the HTML report say it (plain lines)."""
    if not c["rows"]:
        return "calibration: no ended encounter to check the forecasts against"
    n = c["encounters"]
    head = f"calibration over {n} ended encounter{'s' if n != 1 else ''} won by a side"
    head += f" ({c['trials']:,} trials each, seed {c['seed']}, policy {c['policy']}): "
    head += (
        f"Brier score {c['brier']:.4f} (0 is perfect; always saying 50% scores 0.25)"
        if c["brier"] is not None
        else "no Brier score (no ended encounter left one side all out)"
    )
    lines = [head]
    for r in c["rows"]:
        won = {HEROES: "heroes won", FOES: "foes won"}.get(r["won"] or "", "no side was all out (left out)")
        lines.append(
            f"  encounter {r['encounter']} (rulings {r['from']}-{r['to']}): heroes {r['heroes'] * 100:.1f}%, {won}"
        )
    if c["reliability"]:
        lines.append("  reliability: forecast bin, encounters, mean forecast, heroes won")
    for t in c["reliability"]:
        lines.append(f"  {t['bin']:>8}  {t['n']:>3}  {t['forecast'] * 100:5.1f}%  {t['observed'] * 100:5.1f}%")
    return "\n".join(lines)
