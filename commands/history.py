"""History: `log`, `timeline`, `undo`, `redo`, `verify`, `rebuild`."""

from __future__ import annotations

import copy
import os
import sys
from collections.abc import Collection, Mapping
from typing import Any

import click

from commands.context import AppContext, _immutable, _require_campaign, pass_app
from commands.params import number
from commands.registry import command
from ledger import catalog as C
from ledger.errors import BadInput, LedgerError, NotInitialised, StoreError
from ledger.model.event_names import CAMPAIGN_CREATED, OPENED, RULING_RECORDED, STATE_RESTORED
from ledger.rules import health_word
from ledger.words.describe import HpFold, raw_line, ruling_lines

SESSION_HELP = "Only play session N; `current` for the open one."


@command(C.LOG)
@click.option("--session", default=None, metavar="N|current", help=SESSION_HELP)
@click.option("--character", "character_name", default=None, metavar="NAME", help="Only events about NAME.")
@click.option("--all", "everything", is_flag=True, help="Also the ledger's own bookkeeping events (chain links).")
@click.option("-n", "--tail", type=number("tail"), default=None, metavar="N", help="Only the last N rulings.")
@pass_app
def log(app: AppContext, session: str | None, character_name: str | None, everything: bool, tail: int | None) -> None:
    """Every ruling in order as its sentence and die lines (-v: every event as stored); retracted rulings are marked
    with who retracted them and when.

    At a terminal a long log opens in the pager ($PAGER, else less). Example: ledger log --character Ann -n 5
    """
    # lazy: the read side (SQLAlchemy); kept out of a one-shot write
    from projections import queries

    which = queries.session_number(app.read, session)
    rows = queries.events(app.read, session=which, character_name=character_name, everything=everything, tail=tail)
    if tail is not None:
        keep = set(sorted({r["ruling"] for r in rows})[-tail:])
        rows = [r for r in rows if r["ruling"] in keep]
    system = app.log.campaign().system  # its words for health and round, whatever part of the log is shown
    if not app.verbose and not app.as_json:  # a re-derived ruling says its amended outcome, as `encounter log` does
        rows = queries.amended_log(app.read, rows, character_name)
    groups = queries.groups(app.read)  # a tail or a session starts after the groups were added
    app.emit(rows, raw_log_lines if app.verbose else lambda r: log_lines(r, system, groups), page=True)


def _taken_out(r: dict[str, Any]) -> str:
    """How a ruling was taken out of the history: UNDONE (`undo`) or RETRACTED (`retract`)."""
    return "UNDONE" if r.get("how") == "undone" else "RETRACTED"


def _heading(e: dict[str, Any]) -> str:
    mark = ""
    if e["retracted"]:
        r = e["retracted"]
        mark = f"  [{_taken_out(r)} by ruling {r['by']}, {r['actor']}, {r['at']}]"
    elif e.get("amended_by"):
        mark = f"  [re-derived by ruling {e['amended_by']}]"
    sess = f" session {e['session']}" if e["session"] else ""
    return f"#{e['ruling']}{sess} {e['actor']} {e['at']}{mark}"


def log_lines(events: list[dict[str, Any]], system: str = "", groups: Collection[str] = ()) -> str:
    """The log: each ruling's heading and what was asked, then its sentence and its die lines (in the words of
    `system`, else of the campaign the events create)."""
    fold = HpFold(groups)
    system = system or next((str(e["data"].get("system")) for e in events if e["type"] == CAMPAIGN_CREATED), "")
    by_ruling: dict[int, list[dict[str, Any]]] = {}
    for e in events:
        by_ruling.setdefault(e["ruling"], []).append(e)
    out: list[str] = []
    for evs in by_ruling.values():
        asked = next((e["data"] for e in evs if e["type"] == RULING_RECORDED), None)
        by = next((e["amended_by"] for e in evs if e.get("amended_by")), None)
        # a retracted ruling says what it did, on a copy of the fold: the live history after it goes on without it
        on = copy.deepcopy(fold) if evs[0].get("retracted") else fold
        lines = ruling_lines([e for e in evs if e["type"] != RULING_RECORDED], fold=on, system=system)
        said = _asked(asked) if asked and not (lines and not lines[0].startswith("  ")) else ""
        out.append(_heading({**evs[0], "amended_by": by}) + said + _noted(asked))
        out += [f"    {line}" for line in lines] or ([] if said else ["    (bookkeeping only: ledger log -v shows it)"])
    return "\n".join(out) if out else "(no events)"


def _asked(recorded: Mapping[str, Any]) -> str:
    """`: Ann rolls 1d20`: what was asked, for a ruling whose events say nothing of their own."""
    # lazy: the log's words (ledger.words.asked); kept out of `ledger verify`
    from ledger.words.asked import asked

    return f": {asked(str(recorded.get('command', '')), recorded.get('intent') or {})}"


def _noted(recorded: Mapping[str, Any] | None) -> str:
    """` (note: the flash)`: the GM's own words given with a ruling, as typed."""
    intent = (recorded or {}).get("intent") or {}
    said = [f"{k}: {intent[k]}" for k in ("note", "reason") if intent.get(k)]
    return f" ({'; '.join(said)})" if said else ""


def raw_log_lines(events: list[dict[str, Any]]) -> str:
    """`log -v`: each ruling's heading, then every event as stored, one a line."""
    out: list[str] = []
    last = None
    for e in events:
        if e["ruling"] != last:
            last = e["ruling"]
            out.append(_heading(e))
        out.append(f"  {e['seq']:>5} {raw_line(e)}")
    return "\n".join(out) if out else "(no events)"


@command(C.TIMELINE)
@click.argument("name")
@pass_app
def timeline(app: AppContext, name: str) -> None:
    """A character's HP over time: every change with its ruling, session and time, then a small chart.

    Undone rulings are left out (the history as it stands). Example: ledger timeline Ann
    """
    # lazy: the read side (SQLAlchemy); kept out of a one-shot write
    from projections import queries

    points = queries.timeline(app.read, name)
    if points and "adversity" in points[0]:
        app.emit(points, pool_timeline_text)
        return
    system = str(queries.character(app.read, name).get("system") or "") if points else ""
    app.emit(points, lambda p: timeline_text(p, system))


def pool_timeline_text(points: list[dict[str, Any]]) -> str:
    """The GM's Adversity over time, one change a line."""
    lines = [f"the GM's Adversity pool ({points[-1]['adversity']} now):"]
    for p in points:
        why = f"  ({p['purpose']})" if p.get("purpose") else ""
        lines.append(f"  ruling {p['ruling']:>4}  {p['at']}  Adversity {p['adversity']}{why}")
    return "\n".join(lines)


INTERNAL = frozenset({OPENED})  # an aggregate's creation that says nothing to a reader
CHART_HEIGHT = 8
CHART_WIDTH = 60


def timeline_text(points: list[dict[str, Any]], system: str = "") -> str:
    """The points, one line each, and a chart of HP (rows) against the points in order (columns); in the system's
    word for health (P&P: Health)."""
    word = health_word(system) if system else "HP"
    if not points:
        return f"(no {word} changes)"
    lines = []
    for p in points:
        sess = f"session {p['session']}" if p.get("session") else "no session"
        lines.append(
            f"ruling {p['ruling']:>5}  {p['at']}  {sess:<11}  {word} {p['hp']:>3}/{p['max_hp']:<3} "
            f"{p.get('command') or ''}".rstrip()
        )
    return "\n".join([*lines, "", *chart([p["hp"] for p in points], max(p["max_hp"] for p in points))])


_timeline_text = timeline_text  # the name commands/demo.py imports


def chart(values: list[int], top: int) -> list[str]:
    """A terminal chart: one column per point (the latest CHART_WIDTH), HP levels scaled to CHART_HEIGHT rows."""
    values = values[-CHART_WIDTH:]
    hi, lo = max(top, *values), min(0, *values)
    span = max(hi - lo, 1)
    rows = min(CHART_HEIGHT, span + 1)
    level = [round((v - lo) * (rows - 1) / span) for v in values]
    zero = round((0 - lo) * (rows - 1) / span)
    out = []
    for r in range(rows - 1, -1, -1):
        label = hi if r == rows - 1 else lo if r == 0 else (0 if r == zero else None)
        cells = "".join(
            "*" if lv == r else ("|" if min(lv, zero) < r < max(lv, zero) else ("-" if r == zero else " "))
            for lv in level
        )
        out.append(f"{'' if label is None else label:>4} {cells}")
    return out


@command(C.SESSION_SHOW)
@click.argument("number", default="current", metavar="[NUMBER|current]")
@pass_app
def session_show(app: AppContext, number: str) -> None:
    """Every ruling of play session NUMBER (default: the open one): what was asked, what happened, the dice.

    Retracted rulings are marked. At a terminal a long session opens in the pager. Example: ledger session show 2
    """
    # lazy: the read side (SQLAlchemy); kept out of a one-shot write
    from projections import queries

    found = queries.session_number(app.read, number)
    assert found is not None
    system = app.log.campaign().system  # its words for health and round
    groups = queries.groups(app.read)
    app.emit(queries.session_history(app.read, found), lambda doc: session_text(doc, system, groups), page=True)


def session_text(doc: dict[str, Any], system: str = "", groups: Collection[str] = ()) -> str:
    """A session's history as a page to read."""
    # lazy: the log's sentences (ledger.words.describe); kept out of `ledger verify`
    from ledger.words.describe import HpFold, ruling_lines

    fold = HpFold(groups)
    end = f" to {doc['ended']}" if doc["ended"] else " (open)"
    lines = [f"session {doc['session']}: {doc['title']}, {doc['started']}{end}"]
    for r in doc["rulings"]:
        # a retracted ruling is shown as it was, and the HP the later ones start from is the history without it
        shown_fold = copy.deepcopy(fold) if r["retracted"] else fold
        mark = ""
        if r["retracted"]:
            mark = f"  [{_taken_out(r['retracted'])} by ruling {r['retracted']['by']}, {r['retracted']['actor']}]"
        said = ruling_lines([e for e in r["events"] if e["type"] not in INTERNAL], fold=shown_fold, system=system)
        recorded = {"command": r["command"], "intent": r["intent"]}
        asked = _asked(recorded) if not (said and not said[0].startswith("  ")) else ""
        lines.append(f"#{r['ruling']} {r['at']} {r['actor']}{asked}{_noted(recorded)}" + mark)
        lines += [f"    {line}" for line in said]
    if not doc["rulings"]:
        lines.append("(no rulings)")
    return "\n".join(lines)


@command(C.UNDO)
@pass_app
def undo(app: AppContext) -> None:
    """Retract the latest live ruling: the state becomes that of the history without it."""
    app.wrote(app.ledger.undo(), lambda r: restored(f"Undid ruling {r['target']} ({r['command']})", r))


@command(C.REDO)
@pass_app
def redo(app: AppContext) -> None:
    """Restore the latest undone ruling (only until a new ruling is made)."""
    app.wrote(app.ledger.redo(), lambda r: restored(f"Redid ruling {r['target']} ({r['command']})", r))


def restored(lead: str, r: Mapping[str, Any]) -> str:
    """`Undid ruling 8 (damage); Bob restored to HP 6.`: the lead, then every state it brought back."""
    # lazy: the log's sentences (ledger.words.describe); kept out of `ledger verify`
    from ledger.words.describe import clause

    states = [clause(e)[1] for e in r.get("events", []) if e["type"] == STATE_RESTORED]
    return "; ".join([lead, *states]) + "."


@command(C.VERIFY)
@click.option(
    "--expect",
    default=None,
    metavar="HASH",
    help="Fail unless the chain still holds the ruling with this hash (a head noted earlier).",
)
@click.option(
    "--dice",
    is_flag=True,
    help="Also recompute every ledger-rolled die of sessions that committed their dice and revealed the secret.",
)
@click.option(
    "--file",
    "path",
    metavar="EXPORT.jsonl",
    help="Check an export file instead of the ledger (anyone with the file can).",
)
@pass_app
def verify(app: AppContext, expect: str | None, dice: bool, path: str | None) -> None:
    """Check everything the ledger later trusts; exit 1 on any problem, and print the head hash.

    The hash chain (every stored byte of every ruling), each aggregate's version sequence, SQLite's own
    integrity check, every snapshot against a fresh fold of its events, and the read models against a fresh
    fold of the log (`ledger rebuild` repairs those). Note the head hash: `verify --expect HASH` later fails
    if that ruling is no longer in the chain. --dice also recomputes the committed dice (session start
    --commit-dice) from each revealed secret.

    Example: ledger verify --dice && echo intact; ledger verify --dice --file session.jsonl
    """
    if expect is not None and not (
        len(expect.strip()) == 64 and all(c in "0123456789abcdef" for c in expect.strip().lower())
    ):
        raise BadInput("--expect takes a ruling hash: 64 hex digits", "the head hash `ledger verify` prints")
    wanted = expect.strip().lower() if expect else None
    app.check_views = False  # verify compares the read models with the log itself, row by row
    if path is not None:
        _verify_file(app, path, dice, wanted)
        return
    report = app.ledger.verify(expect=wanted, dice=dice)
    _report(app, report.problems + _view_problems(app), report.counts, report.head)


def _verify_file(app: AppContext, path: str, dice: bool, expect: str | None) -> None:
    """verify on an export file: the chain walk (and the dice), no database needed."""
    # lazy: the chain walk, for verify; export and import; kept out of a one-shot write
    from ledger.audit.chain import Problem, walk_events
    from ledger.audit.verify import dice_problems
    from ledger.history.exchange import check_snapshot_lines, export_lines

    lines, snapshot_lines = export_lines(path)
    walk = walk_events(lines, expect)
    problems, counts = walk.problems, walk.counts()
    problems += [
        Problem(number, None, message) for number, message in check_snapshot_lines(snapshot_lines, walk.vouched)[1]
    ]
    if expect is not None and not walk.expected_found:
        problems.append(Problem(0, None, f"the expected ruling hash {expect[:16]}... is not in the file's chain"))
    if not problems:  # everything `import` refuses fails verify too: header, counts, event types, final hash
        # lazy: export and import; kept out of a one-shot write
        from ledger.history.exchange import read_export

        try:
            read_export(path)
        except BadInput as e:
            problems.append(Problem(0, None, e.message))
    if dice:
        found, dice_counts = dice_problems(lines)
        problems += found
        counts.update(dice_counts)
    _report(app, problems, counts, walk.last_hash)


def _report(app: AppContext, problems: list[Any], counts: dict[str, int], head: str) -> None:
    """verify's output: one line per problem, a summary and the head hash (or one JSON document); exit 1 on any
    problem."""
    if app.as_json:
        app.emit({"ok": not problems, "problems": [p.__dict__ for p in problems], **counts, "head": head})
    else:
        for p in problems:
            click.echo(p.line())
        summary = f"{counts['rulings']} rulings, {counts['events']} events, {counts['aggregates']} aggregates"
        if "snapshots" in counts:
            summary += f", {counts['snapshots']} snapshots"
        if "dice_checked" in counts:
            summary += f"; {dice_summary(counts)}"
        click.echo(f"ok: {summary}" if not problems else f"{len(problems)} problem(s) in {summary}")
        click.echo(f"head: {head}")
    if problems:
        raise SystemExit(1)


def _view_problems(app: AppContext) -> list[Any]:
    """The read models against a fresh fold of the log (a truncated log, an edited row, a dropped table)."""
    # lazy: the chain walk, for verify; kept out of a one-shot write
    from ledger.audit.chain import Problem

    # lazy: the read side (SQLAlchemy); kept out of a one-shot write
    from projections.check import differences

    found = []
    try:
        read = app.read
    except LedgerError as e:  # the views can't fold a damaged log: the walk above has said where
        found.append(Problem(0, None, f"the read models can't catch up: {e.message}"))
        read = _raw_read(app)
    try:
        return found + [Problem(0, None, line) for line in differences(read)]
    except Exception as e:  # noqa: BLE001 - a log too damaged to fold is reported by the walk; say so here too
        return found + [
            Problem(
                0, None, f"the read models can't be compared with the log ({type(e).__name__}); run: ledger rebuild"
            )
        ]
    finally:
        if read is not app._read:
            read.close()


def _raw_read(app: AppContext) -> Any:
    """The read side as it stands, without catching up first (rebuild and verify must work when catching up can't)."""
    # lazy: the read side (SQLAlchemy); kept out of `ledger --help`
    from projections.db import ReadSide

    return ReadSide(app.target())


@command(C.REBUILD)
@pass_app
def rebuild(app: AppContext) -> None:
    """Rebuild every read model from the event log (with a progress bar)."""
    # lazy: the read side (SQLAlchemy); kept out of `ledger --help`
    from projections.views import rebuild as run

    target = app.target()
    if target.kind == "sqlite" and not os.path.exists(target.path):
        raise NotInitialised(f"no campaign in {target.describe()}", "start one: ledger init --system hnh")
    read = _raw_read(app)
    try:
        _require_campaign(read)
        with read.engine.connect() as conn:
            total = read.max_seq(conn)
        if app.as_json or not sys.stderr.isatty():  # the bar is for a person at a terminal; pipes get the result only
            n = run(read)
        else:
            with click.progressbar(length=total, label="rebuilding", file=sys.stderr) as bar:
                n = run(read, lambda done, step: bar.update(step))
    except Exception as e:
        # lazy: the store (eventsourcing); kept out of `ledger --help`
        from ledger.storage.store import write_error

        refused = write_error(getattr(e, "orig", None) or e, target.path if target.kind == "sqlite" else None)
        if not _immutable(e) or refused is None:
            raise
        raise StoreError(
            refused.message.replace("nothing was appended", "the read models can't be rebuilt here"),
            refused.hint,
        ) from None
    finally:
        read.close()
    app.emit({"events": n}, f"rebuilt the views from {n} events")


def dice_summary(counts: dict[str, Any]) -> str:
    """The dice part of verify's summary line."""
    n, s = counts["dice_checked"], counts["sessions_revealed"]
    out = f"{n} {'die' if n == 1 else 'dice'} checked in {s} revealed session{'' if s == 1 else 's'}"
    if counts["dice_unrevealed"]:
        out += f" ({counts['dice_unrevealed']} waiting for their session's end)"
    asks = counts.get("asks") or {}
    if asks:  # every ask of a player's page and its fate: a veto or a re-ask shows here
        out += "; players' asks: " + ", ".join(f"{n} {fate}" for fate, n in asks.items())
    return out
