"""`ledger verify --dice` and `ledger verify --file EXPORT.jsonl`: committed dice recomputed, from the ledger or an export."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from ledger.commitment import DiceCheck, check
from ledger.verify import Problem


def decoded(events: Iterable[Any]) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(position, topic, decoded state) of stored events; an undecodable state reads as empty (the walk reports it)."""
    for e in events:
        try:
            state = orjson.loads(e.state)
        except orjson.JSONDecodeError:
            state = {}
        yield e.id, e.topic, state if isinstance(state, dict) else {}


def dice_problems(events: Iterable[Any]) -> tuple[list[Problem], dict[str, int]]:
    """Every committed die of revealed sessions recomputed: problems, and the counts verify reports."""
    found: DiceCheck = check(decoded(events))
    problems = [Problem(p.seq, p.ruling, p.message) for p in found.problems]
    counts = {"dice_checked": found.dice_checked, "sessions_revealed": found.sessions_revealed, "dice_unrevealed": found.dice_unrevealed}
    return problems, counts


def dice_summary(counts: dict[str, int]) -> str:
    """The dice part of verify's summary line."""
    n, s = counts["dice_checked"], counts["sessions_revealed"]
    out = f"{n} {'die' if n == 1 else 'dice'} checked in {s} revealed session{'' if s == 1 else 's'}"
    if counts["dice_unrevealed"]:
        out += f" ({counts['dice_unrevealed']} waiting for their session's end)"
    return out


def read_file(path: str) -> list[Any]:
    """An export file's stored events, parsed but not yet judged (verify reports problems; import refuses them)."""
    from ledger.exchange import _header, _parse

    from ledger.errors import BadInput

    try:
        f = open(path, "rb")
    except OSError as e:
        raise BadInput(f"can't read {path}: {e.strerror or e}", "give the path of a file written by: ledger export --format jsonl") from None
    with f:
        header = _header(path, f.readline())
        return _parse(path, f, header, None)
