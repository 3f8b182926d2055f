"""What a GM asked for, in words: a ruling's command and intent as a reader says it (`Ann attacks Thugs`), never as
stored (`attack attacker=Ann target=Thugs`). Readers use it where a ruling's events say nothing of their own (a free
roll, a turn that only passed); `-v` and `log --all` keep the intent as stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Keys of an intent that are the ledger's own bookkeeping, never said: the tracker's version, how the turn passes,
# what a retraction re-derives from, the dice scheme and a session's commitment.
UNSAID = frozenset(
    {"tracker", "pass_over", "entered", "scheme", "commitment", "reveal", "typed_traits", "powers", "sheet"}
)


def asked(command: str, intent: Mapping[str, Any] | None) -> str:
    """`attack` with `{attacker: Ann, target: Thugs}` -> `Ann attacks Thugs`; a command no phrase knows: its words and
    the names and values it was given (`hazard Ann falling`), never `key=value`."""
    i = dict(intent or {})
    s = {k: _said(v) for k, v in i.items()}
    phrase = {
        "roll": lambda: f"{s.get('for') or 'the GM'} rolls {s.get('expr')}",
        "attack": lambda: f"{s.get('attacker')} attacks {_names([i.get('target'), *(i.get('also') or [])])}",
        "check": lambda: (
            f"{s.get('name')} checks {s.get('trait')}" + (f" against DC {s['dc']}" if i.get("dc") is not None else "")
        ),
        "damage": lambda: (
            f"{s.get('target')} takes "
            + (f"{s['amount']} damage" if i.get("amount") is not None else f"a rank {s.get('rank')} effect")
        ),
        "condition add": lambda: f"{s.get('target')} becomes {s.get('condition')}",
        "condition remove": lambda: f"{s.get('target')} is no longer {s.get('condition')}",
        "recover": lambda: f"{s.get('target')} rests {s.get('hours')} hour{'' if i.get('hours') == 1 else 's'}",
        "spend": lambda: f"{s.get('name')} spends {s.get('n')} {s.get('resource')}",
        "gain": lambda: f"{s.get('name')} gains {s.get('n')} {s.get('resource')}",
        "hazard": lambda: f"{s.get('target')} faces {s.get('kind')}",
        "revive": lambda: f"{s.get('target')} is revived by {s.get('means')}",
        "act": lambda: f"{s.get('name')}: {s.get('action')}" + (f" against {s['against']}" if i.get("against") else ""),
        "encounter start": lambda: f"an encounter begins: {_names(i.get('names') or [])}",
        "encounter next": lambda: "the turn passes",
        "encounter delay": lambda: "the one who is up delays",
        "encounter act": lambda: f"{s.get('name')} acts now",
        "encounter join": lambda: (
            f"{_names(i.get('names') or [i.get('name')])} "
            + ("join" if len(i.get("names") or []) > 1 else "joins")
            + " the encounter"
        ),
        "encounter remove": lambda: f"{s.get('name')} leaves the encounter",
        "encounter end": lambda: "the encounter ends",
        "scene end": lambda: "the scene ends",
        "character add": lambda: (
            f"{s.get('name')} x{s['count']} join the campaign"
            if i.get("minion") and int(i.get("count") or 1) > 1
            else f"{s.get('name')} joins the campaign"
        ),
        "character copy": lambda: f"{s.get('new')} is copied from {s.get('name')}",
        "character set": lambda: f"{s.get('name')}'s traits change",
        "character retire": lambda: f"{s.get('name')} retires",
        "session start": lambda: "a session starts" + (f": {s['title']}" if i.get("title") else ""),
        "session end": lambda: "the session ends",
        "undo": lambda: "undo",
        "redo": lambda: "redo",
        "retract": lambda: f"ruling {s.get('target')} is retracted",
        "init": lambda: f"campaign {s.get('name')} begins",
    }.get(command)
    if phrase is not None:
        return phrase()
    words = [str(v) for k, v in s.items() if k not in UNSAID and k not in ("note", "reason", "options") and v]
    return " ".join([command, *words]).strip()


def _said(v: Any) -> str:
    """A value as a reader says it: a list as names, a yes/no as nothing (the phrase says it), nothing as ''."""
    if isinstance(v, bool) or v is None:
        return ""
    if isinstance(v, (list, tuple)):
        return _names(list(v))
    if isinstance(v, dict):
        return ""
    return str(v)


def _names(names: list[Any]) -> str:
    """`Ann`, `Ann and Bob`, `Ann, Bob and Cy`."""
    said = [str(n) for n in names if n]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + f" and {said[-1]}" if said else "no one"
