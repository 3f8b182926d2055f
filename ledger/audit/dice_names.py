"""Which roll names a recorded command takes, from its rule system's declarations (for `verify --dice`)."""

from __future__ import annotations

import re
from typing import Any

from ledger.errors import LedgerError
from ledger.model.dice import ROLLOFF_ROUNDS
from ledger.rules import get_rules

INITIATIVE = ("encounter start", "encounter join")  # each participant's initiative roll is named after them
TURNS = ("encounter ", "scene ")  # the other tracker commands: the turn hooks' rolls


def takes(system: str, command: str, intent: dict[str, Any], name: str) -> bool:
    """Whether `command` (as stored in a ruling, with its intent) can take a roll called `name`."""
    if command == "roll":
        return name == "roll"
    if command == "retract":
        # re-derivation's new rolls are recorded with the ruling they re-derive (OutcomeAmended), and checked
        # against that ruling's command (ledger/audit/dice_proof.py); a retraction rolls nothing of its own
        return False
    if command in INITIATIVE and _participant(intent, name):
        return True
    try:
        rules = get_rules(system)
        if command.startswith(TURNS):
            return _turn_roll(rules.turn_rolls, name)
        key = f"act {intent.get('action')}" if command == "act" else command
        owners = rules.roll_owners(key)
    except (LedgerError, KeyError):
        return True  # a system or action this version does not know: nothing to hold the name against
    prefix, dot, base = name.rpartition(".")
    if dot:  # a per-target roll (TARGET.dodge) is named after a target the ruling's intent names
        return _is_given(prefix.strip().casefold(), _names_in(intent)) and (
            base in owners or _turn_roll(rules.turn_rolls, base)
        )
    return name in owners or _turn_roll(rules.turn_rolls, name)


def _names_in(intent: Any) -> list[str]:
    """Every text an intent gives (its values, list items and mapping keys, at any depth): the names it names."""
    out: list[str] = []
    if isinstance(intent, str):
        out.append(intent)
    elif isinstance(intent, dict):
        for k, v in intent.items():
            out.append(str(k))
            out += _names_in(v)
    elif isinstance(intent, list):
        for v in intent:
            out += _names_in(v)
    return out


def _turn_roll(turn_rolls: tuple[str, ...], name: str) -> bool:
    """A roll a turn hook takes (hnh: `fortitude`, `ongoing-NAME`; a prefix ends in `-`)."""
    return any(name == t or (t.endswith("-") and name.startswith(t)) for t in turn_rolls)


def _participant(intent: dict[str, Any], name: str) -> bool:
    """An initiative roll named after a participant given (a `--copies` group's name stands for NAME 1 .. NAME N), or
    a tie's roll-off (`rolloff-NAME`, `rolloff-NAME-2`, ...: ledger/rulings/deciders/encounter.py)."""
    given = [str(n) for n in intent.get("names") or [intent.get("name") or ""] if n]
    key = name.strip().casefold()
    if _is_given(key, given):
        return True
    rest = key.removeprefix("rolloff-")
    if rest == key:
        return False
    if _is_given(rest, given):
        return True
    m = re.fullmatch(r"(.+)-(\d+)", rest)  # a later round's roll-off: rolloff-NAME-2 .. rolloff-NAME-ROLLOFF_ROUNDS
    return m is not None and 2 <= int(m[2]) <= ROLLOFF_ROUNDS and _is_given(m[1], given)


def _is_given(key: str, given: list[str]) -> bool:
    """`key` is a given name, or a member `NAME N` of a given group."""
    for n in given:
        base = n.strip().casefold()
        if key == base or (key.startswith(f"{base} ") and key[len(base) + 1 :].isdigit()):
            return True
    return False
