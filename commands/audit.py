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
from ledger.history.rediff import said
from ledger.model.dice import parse_roll_options, show_faces
from ledger.rules import health_word


def _name(plan: dict[str, Any], hex_id: str) -> str:
    st = plan["states"].get(hex_id)
    if st is None:
        return hex_id[:8]
    if st["kind"] == "Character":
        sheet = st["after"]["sheet"] or st["before"]["sheet"] or {}
        return str(sheet.get("name", hex_id[:8]))
    return st["kind"].lower()


def _state_line(st: dict[str, Any]) -> str:
    """What a retraction changes on a character's sheet, in words ('' when nothing a reader is told)."""
    if st["kind"] != "Character":
        return ""
    b, a = st["before"], st["after"]
    if not a["active"]:
        return "no longer in play"
    if not b["active"]:
        return "comes into play"
    bs, as_ = b["sheet"], a["sheet"]
    parts = []
    if bs["hp"] != as_["hp"]:
        parts.append(f"{health_word(str(as_.get('system') or 'hnh'))} {bs['hp']} -> {as_['hp']}")  # P&P: Health
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
        if ":" in k or "-at" in k:  # the rules' bookkeeping of timed effects (`aim-at:Bob`): their conditions say it
            continue
        if bs["counters"].get(k, 0) != as_["counters"].get(k, 0):
            parts.append(f"{k.replace('-', ' ')} {bs['counters'].get(k, 0)} -> {as_['counters'].get(k, 0)}")
    return ", ".join(parts)


def _sentence(plan: dict[str, Any], c: dict[str, Any], side: str) -> str:
    """One side of a re-derived ruling as the describer's sentence (ledger/words/describe.py)."""
    return said(plan, c, side, plan.get("groups", ())) or ("" if side == "retracted" else "nothing happens.")


def _ruling_lines(plan: dict[str, Any], c: dict[str, Any]) -> list[str]:
    head = f"  ruling {c['ruling']} ({c['command']})"
    now = f"now refused: {c['refused']}" if c["refused"] else _sentence(plan, c, "after")
    return [f"{head}:", f"    was: {_sentence(plan, c, 'before')}", f"    now: {now}"]


def _shift_line(s: dict[str, Any], system: str = "") -> str:
    """`Bob: HP +1 from ruling 12 on (2 rulings; final HP 3 -> 4)`."""
    hp = health_word(system) if system else "HP"  # P&P: Health
    n = len(s["rulings"])
    low, high = s["hp"]
    moved = f"{hp} {low:+d}" if low == high else f"{hp} {low:+d} to {high:+d}"
    final = f"; final {hp} {s['final_hp'][0]} -> {s['final_hp'][1]}" if s.get("final_hp") else ""
    return f"  {s['name']}: {moved} from ruling {min(s['rulings'])} on ({n:,} ruling{'s' if n != 1 else ''}{final})"


def diff_text(plan: dict[str, Any], full: bool = False) -> str:
    """The re-derived diff as a GM reads it: changed outcomes (each as its sentence before and after), then one
    line per character whose values only shift, then the rolls never made, then the final states; `full` tells
    every re-derived ruling as its two sentences."""
    was = _sentence(plan, {"retracted": plan.get("retracted", [])}, "retracted") if plan.get("retracted") else ""
    lines = [f"Retracting ruling {plan['target']} ({plan['command']})" + (f": {was}" if was else ".")]
    if not plan["rederived"] and not plan["states"]:
        lines.append("  changes nothing else.")
    outcomes = set(plan.get("outcomes", [c["ruling"] for c in plan["rederived"]]))
    shown = [c for c in plan["rederived"] if full or c["ruling"] in outcomes]
    if shown:
        lines.append("Every re-derived ruling:" if full else "Outcomes that change:")
        for c in shown:
            lines += _ruling_lines(plan, c)
    elif plan["rederived"]:
        lines.append("No outcome changes.")
    if plan.get("shifts"):
        lines.append("Values that only shift:")
        lines += [_shift_line(s, str(plan.get("system") or "")) for s in plan["shifts"]]
    for r in plan["new_rolls"]:
        lines.append(
            f"  ruling {r['ruling']} needs a roll never made: {r['name']} {r['notation']} [{show_faces(r)}] = "
            f"{r['total']} ({r['source']})"
        )
    if any(_state_line(st) for st in plan["states"].values()):
        lines.append("Final states:")
        for hex_id, st in plan["states"].items():
            if _state_line(st):
                lines.append(f"  {_name(plan, hex_id)}: {_state_line(st)}")
    return "\n".join(lines)


@command(C.RETRACT)
@click.argument("ruling", type=number("ruling"))
@click.option("--yes", is_flag=True, help="Append without asking.")
@click.option("--dry-run", is_flag=True, help="Show what would change; append nothing.")
@click.option("--full", is_flag=True, help="Tell every re-derived ruling, not only those whose outcome changes.")
@click.option(
    "--roll",
    "rolls",
    multiple=True,
    metavar="N.NAME=FACES",
    help="Faces for a roll re-derivation needs that was never made (e.g. 7.damage=5); otherwise the ledger rolls it "
    "and says so.",
)
@click.option("--reason", default=None, metavar="TEXT", help="Why it is retracted (kept in the ruling, shown in log).")
@pass_app
def retract(
    app: AppContext, ruling: int, yes: bool, dry_run: bool, full: bool, rolls: tuple[str, ...], reason: str | None
) -> None:
    """Retract a contested ruling: later rulings are re-derived from their recorded intent and dice.

    Shows first the outcomes that change (a hit that now misses, a death undone, a condition gained or lost, a
    refusal), each as its sentence before and after; then one line per character whose values only shift; then
    the final states (--full tells every re-derived ruling; --json has every detail). On confirmation or with
    --yes, appends the retraction and the amended outcomes. Nothing is deleted.
    `undo` right after a retraction undoes it; retracting a retraction reinstates the ruling.

    \b
    Examples:
      ledger retract 12 --dry-run
      ledger retract 12 --dry-run --full
      ledger retract 12 --yes --roll 15.damage=4
      ledger retract 12 --yes --reason "the thug was behind cover"
    """
    entered = parse_roll_options(rolls)
    if reason is not None:
        # lazy: the ruling loop's text check, for --reason
        from ledger.app.core import check_text

        reason = check_text("reason", reason)  # an empty or control-character reason: refused before anything
    plan = app.ledger.plan_retraction(ruling, rolls=entered)
    text = lambda p: diff_text(p, full)  # noqa: E731
    if dry_run:
        app.emit(plan.summary(), text)
        return
    if not yes:
        shown = plan.summary()  # with --yes, only the committed result's own summary is shown
        if not sys.stdin.isatty():
            click.echo(text(shown), err=True)
            raise BadInput("retract needs confirmation", "add --yes (or --dry-run to only look)")
        click.echo(text(shown))
        if not click.confirm("Append this retraction?", default=False):
            raise BadInput("not confirmed: nothing appended")
    # the plan shown is the plan committed: Ledger.retract re-checks the log head under the writer lock and plans
    # again only if another writer moved it meanwhile (and then says so)
    result = app.ledger.retract(ruling, rolls=entered, plan=plan, reason=reason)
    if result.get("replanned") and not app.as_json:
        click.echo("note: another writer added to the log after the plan was shown; planned again", err=True)
    app.wrote(result, lambda r: _echoed(text(r).replace("Retracting", "retracted", 1), reason))


def _echoed(text: str, reason: str | None) -> str:
    """The diff with the GM's reason, as typed, under its first line."""
    if not reason:
        return text
    first, _, rest = text.partition("\n")
    return "\n".join([first, f"  reason: {reason}", *([rest] if rest else [])])


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
        note = f" (note: {step['note']})" if step.get("note") else ""
        lines.append(f"  ruling {step['ruling']}{sess} ({step['command']}, {step['actor']}): {step['change']}{note}")
    for note in doc.get("notes", []):
        lines.append(f"  note: {note}")
    return "\n".join(lines)
