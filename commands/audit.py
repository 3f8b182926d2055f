"""Contested rulings and audit: `retract` (re-derivation with a diff) and `why` (which rulings made a value)."""

from __future__ import annotations

import sys
from typing import Any

import click

from commands.context import AppContext, pass_app
from commands.params import number
from commands.registry import command
from ledger import catalog as C
from ledger.errors import BadInput
from ledger.model.dice import parse_roll_options, show_faces
from ledger.rulings.describe import event_line


def _name(plan: dict[str, Any], hex_id: str) -> str:
    st = plan["states"].get(hex_id)
    if st is None:
        return hex_id[:8]
    if st["kind"] == "Character":
        sheet = st["after"]["sheet"] or st["before"]["sheet"] or {}
        return str(sheet.get("name", hex_id[:8]))
    return st["kind"].lower()


def _record_line(r: dict[str, Any]) -> str:
    data = r["data"].get("data", r["data"]) if isinstance(r["data"], dict) else r["data"]
    return f"{r['type']}: {event_line({'type': r['type'], 'character': r.get('character'), 'data': data})}"


def _state_line(st: dict[str, Any]) -> str:
    if st["kind"] != "Character":
        return "changes"
    b, a = st["before"], st["after"]
    if not a["active"]:
        return "no longer in play"
    if not b["active"]:
        return "comes into play"
    bs, as_ = b["sheet"], a["sheet"]
    parts = []
    if bs["hp"] != as_["hp"]:
        parts.append(f"HP {bs['hp']} -> {as_['hp']}")
    gone = sorted(set(bs["conditions"]) - set(as_["conditions"]))
    new = sorted(set(as_["conditions"]) - set(bs["conditions"]))
    if gone or new:
        parts.append("conditions " + " ".join([*(f"-{c}" for c in gone), *(f"+{c}" for c in new)]))
    if bs.get("count") != as_.get("count"):
        parts.append(f"count {bs.get('count')} -> {as_.get('count')}")
    for k in sorted(set(bs["resources"]) | set(as_["resources"])):
        if bs["resources"].get(k) != as_["resources"].get(k):
            parts.append(f"{k} {bs['resources'].get(k)} -> {as_['resources'].get(k)}")
    for k in sorted(set(bs["counters"]) | set(as_["counters"])):
        if bs["counters"].get(k, 0) != as_["counters"].get(k, 0):
            parts.append(f"{k} {bs['counters'].get(k, 0)} -> {as_['counters'].get(k, 0)}")
    return ", ".join(parts) or "changes"


def diff_text(plan: dict[str, Any]) -> str:
    """The re-derived diff, as a GM reads it."""
    lines = [f"Retracting ruling {plan['target']} ({plan['command']}):"]
    if not plan["rederived"] and not plan["states"]:
        lines.append("  changes nothing else.")
    for c in plan["rederived"]:
        head = f"  ruling {c['ruling']} ({c['command']})"
        if c["refused"]:
            lines.append(f"{head}: would now be refused: {c['refused']}")
            continue
        lines.append(f"{head} re-derived:")
        before = {_record_line(r) for r in c["before"]}
        after = {_record_line(r) for r in c["after"]}
        lines += [f"    - {line}" for line in (_record_line(r) for r in c["before"]) if line not in after]
        lines += [f"    + {line}" for line in (_record_line(r) for r in c["after"]) if line not in before]
    for r in plan["new_rolls"]:
        lines.append(
            f"  ruling {r['ruling']} needs a roll never made: {r['name']} {r['notation']} [{show_faces(r)}] = "
            f"{r['total']} ({r['source']})"
        )
    if plan["states"]:
        lines.append("Then:")
        for hex_id, st in plan["states"].items():
            lines.append(f"  {_name(plan, hex_id)}: {_state_line(st)}")
    return "\n".join(lines)


@command(C.RETRACT)
@click.argument("ruling", type=number("ruling"))
@click.option("--yes", is_flag=True, help="Append without asking.")
@click.option("--dry-run", is_flag=True, help="Show what would change; append nothing.")
@click.option(
    "--roll",
    "rolls",
    multiple=True,
    metavar="N.NAME=FACES",
    help="Faces for a roll re-derivation needs that was never made (e.g. 7.damage=5); otherwise the ledger rolls it "
    "and says so.",
)
@pass_app
def retract(app: AppContext, ruling: int, yes: bool, dry_run: bool, rolls: tuple[str, ...]) -> None:
    """Retract a contested ruling: later rulings are re-derived from their recorded intent and dice.

    Shows what changes (HP, conditions, deaths, defeated minions, resources, refused rulings) and, on
    confirmation or with --yes, appends the retraction and the amended outcomes. Nothing is deleted.
    `undo` right after a retraction undoes it; retracting a retraction reinstates the ruling.

    \b
    Examples:
      ledger retract 12 --dry-run
      ledger retract 12 --yes --roll 15.damage=4
    """
    entered = parse_roll_options(rolls)
    plan = app.ledger.plan_retraction(ruling, rolls=entered)
    shown = plan.summary()
    if dry_run:
        app.emit(shown, diff_text)
        return
    if not yes:
        if not sys.stdin.isatty():
            click.echo(diff_text(shown), err=True)
            raise BadInput("retract needs confirmation", "add --yes (or --dry-run to only look)")
        click.echo(diff_text(shown))
        if not click.confirm("Append this retraction?", default=False):
            raise BadInput("not confirmed: nothing appended")
    fixed = {r.name: r for r in plan.rolled}
    result = app.ledger.retract(ruling, rolls=entered, fixed=fixed)
    app.wrote(result, lambda r: diff_text(r).replace("Retracting", "retracted", 1))


@command(C.WHY)
@click.argument("name")
@click.argument("field", required=False)
@pass_app
def why(app: AppContext, name: str, field: str | None) -> None:
    """Explain a value on NAME's sheet by the rulings that made it (hp, a condition, a resource, a counter).

    \b
    Examples:
      ledger why Ann hp
      ledger why Ann dying
      ledger why Ann
    """
    doc = app.ledger.why(name, field)
    app.emit(doc, _why_text)


def _why_text(doc: dict[str, Any]) -> str:
    lines = [f"{doc['name']} {doc['field']} = {doc['value']}"]
    for step in doc["because"]:
        sess = f" session {step['session']}" if step.get("session") else ""
        lines.append(f"  ruling {step['ruling']}{sess} ({step['command']}, {step['actor']}): {step['change']}")
    for note in doc.get("notes", []):
        lines.append(f"  note: {note}")
    return "\n".join(lines)
