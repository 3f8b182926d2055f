"""Which roll names a recorded command takes, from its rule system's declarations (for `verify --dice`)."""

from __future__ import annotations

from typing import Any

from ledger.errors import LedgerError
from ledger.rules import get_rules

FREE = ("encounter ", "scene ")  # commands whose rolls are named after participants or turn hooks: any name


def takes(system: str, command: str, intent: dict[str, Any], name: str) -> bool:
    """Whether `command` (as stored in a ruling, with its intent) can take a roll called `name`."""
    if command == "roll":
        return name == "roll"
    if command.startswith(FREE) or command == "retract":
        return True
    try:
        rules = get_rules(system)
        key = f"act {intent.get('action')}" if command == "act" else command
        owners = rules.roll_owners(key)
    except (LedgerError, KeyError):
        return True  # a system or action this version does not know: nothing to hold the name against
    base = name.rsplit(".", 1)[-1]  # a per-target roll (TARGET.dodge) is named after its target
    return any(
        n in owners or any(n == t or (t.endswith("-") and n.startswith(t)) for t in rules.turn_rolls)
        for n in (name, base)
    )
