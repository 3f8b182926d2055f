"""Text renderings of sheets and rosters (events and intents are described by ledger/words/describe.py)."""

from __future__ import annotations

from typing import Any

from ledger.rules import health_word


def sheet_line(c: dict[str, Any]) -> str:
    """One line per character: name, HP (Health in P&P), conditions."""
    hp = f"{c['hp']}/{c['max_hp']}"
    count = f" x{c['count']}" if c.get("minion") and "count" in c else ""
    conds = ", ".join(c["conditions"]) or "-"
    word = health_word(str(c["system"])) if c.get("system") else "HP"
    return f"{c['name']}{count}  {word} {hp}  [{conds}]"


def sheet(c: dict[str, Any]) -> str:
    """A readable character sheet."""
    lines = [f"{c['name']} ({c['system']}{', minion' if c.get('minion') else ''}{', PC' if c.get('pc') else ''})"]
    label = health_word(c["system"])
    lines.append(f"  {label}: {c['hp']}/{c['max_hp']}" + (f"   count: {c['count']}" if "count" in c else ""))
    lines.append(f"  conditions: {', '.join(c['conditions']) or 'none'}")
    if c.get("implied"):
        lines.append(f"  implied: {', '.join(c['implied'])}")
    if c["traits"]:
        lines.append("  traits: " + ", ".join(f"{k} {v}" for k, v in sorted(c["traits"].items())))
    if c.get("powers"):
        lines.append(
            "  powers: "
            + ", ".join(f"{k} ({p.get('effect', '?')} {p.get('rank', '')})".strip() for k, p in c["powers"].items())
        )
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
