"""Text renderings of sheets, rosters and logs (the --json shapes come straight from the queries)."""

from __future__ import annotations

from typing import Any

from ledger.dice import show_faces


def sheet_line(c: dict[str, Any]) -> str:
    """One line per character: name, HP, conditions."""
    hp = f"{c['hp']}/{c['max_hp']}"
    count = f" x{c['count']}" if c.get("minion") and "count" in c else ""
    conds = ", ".join(c["conditions"]) or "-"
    return f"{c['name']}{count}  HP {hp}  [{conds}]"


def sheet(c: dict[str, Any]) -> str:
    """A readable character sheet."""
    lines = [f"{c['name']} ({c['system']}{', minion' if c.get('minion') else ''}{', PC' if c.get('pc') else ''})"]
    from ledger.rules import get_rules

    label = get_rules(c["system"]).health_word
    lines.append(f"  {label}: {c['hp']}/{c['max_hp']}" + (f"   count: {c['count']}" if "count" in c else ""))
    lines.append(f"  conditions: {', '.join(c['conditions']) or 'none'}")
    if c.get("implied"):
        lines.append(f"  implied: {', '.join(c['implied'])}")
    if c["traits"]:
        lines.append("  traits: " + ", ".join(f"{k} {v}" for k, v in sorted(c["traits"].items())))
    if c.get("powers"):
        lines.append("  powers: " + ", ".join(f"{k} ({p.get('effect', '?')} {p.get('rank', '')})".strip() for k, p in c["powers"].items()))
    if c["resources"]:
        lines.append("  resources: " + ", ".join(f"{k} {v}" for k, v in sorted(c["resources"].items())))
    shown = {k: v for k, v in c.get("counters", {}).items() if v}
    if shown:
        lines.append("  counters: " + ", ".join(f"{k} {v}" for k, v in sorted(shown.items())))
    for key in ("dr", "edge", "toughness", "modifiers"):
        if key in c:
            v = c[key]
            v = ", ".join(f"{k} {m:+d}" for k, m in v.items()) if isinstance(v, dict) else v
            lines.append(f"  {key}: {v}")
    return "\n".join(lines)


faces = show_faces  # one rendering of dice faces (ledger/dice.py)


def event_summary(e: dict[str, Any]) -> str:
    """A short human description of an event's data."""
    d = e["data"] or {}
    t = e["type"]
    if t == "DiceRolled":
        unused = "" if d.get("used", True) else " (unused)"
        return f"{d.get('name')}: {d.get('notation')} [{faces(d)}] = {d.get('total')} ({d.get('source')}){unused}"
    if t == "RulingRecorded":
        return f"{d.get('command')} {_intent(d.get('intent', {}))}".strip()
    if t in ("DamageApplied", "HealthRecovered"):
        return f"{d.get('amount')} -> HP {d.get('hp')}"
    if t in ("ConditionImposed", "ConditionRemoved"):
        return str(d.get("condition"))
    if t == "CharacterAdded":
        s = d.get("sheet", {})
        return f"HP {s.get('hp')}/{s.get('max_hp')}"
    if t == "StateRestored":
        s = d.get("sheet") or {}
        return f"restored: HP {s.get('hp')}" if d.get("active") else "restored: not in play"
    skip = {"character", "for"}
    return ", ".join(f"{k}={v}" for k, v in d.items() if k not in skip and not isinstance(v, (dict, list)))


def _intent(intent: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in intent.items() if v not in (None, False, {}, [], ""))


def log_lines(events: list[dict[str, Any]]) -> str:
    """The log: one line per event, grouped under its ruling."""
    out: list[str] = []
    last = None
    for e in events:
        if e["ruling"] != last:
            last = e["ruling"]
            mark = ""
            if e["retracted"]:
                r = e["retracted"]
                mark = f"  [RETRACTED by ruling {r['by']}, {r['actor']}, {r['at']}]"
            sess = f" session {e['session']}" if e["session"] else ""
            out.append(f"#{e['ruling']}{sess} {e['actor']} {e['at']}{mark}")
        who = f" {e['character']}" if e["character"] else ""
        out.append(f"  {e['seq']:>5} {e['type']}{who}: {event_summary(e)}")
    return "\n".join(out) if out else "(no events)"
