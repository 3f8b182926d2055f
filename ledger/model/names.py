"""Names and texts as they print: NFC-normalised, without invisible or bidi-control characters, and a name that
looks like another (Unicode TR39's confusable skeleton, from the confusables data of `confusable_homoglyphs`)
told apart from a new one."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from ledger.errors import BadInput

# zero-width and invisible format characters, bidi marks, overrides and isolates, the byte-order mark, tag characters
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e0fff]"
)


def invisible(value: str) -> str | None:
    """The first invisible or bidi-control character of a text, or None."""
    m = _INVISIBLE.search(value)
    if m:
        return m.group()
    for c in value:  # any other format character (Unicode category Cf) prints as nothing too
        if unicodedata.category(c) == "Cf":
            return c
    return None


def clean(value: str, what: str) -> str:
    """A typed text NFC-normalised ('e' + combining accent is 'é'); BadInput naming an invisible character."""
    found = invisible(value)
    if found is not None:
        raise BadInput(
            f"{what} contains the invisible character U+{ord(found):04X} ({unicodedata.name(found, 'unnamed')})",
            "type it again without invisible or direction-control characters",
        )
    return unicodedata.normalize("NFC", value)


def normalised(value: Any) -> Any:
    """Every text inside a JSON-like intent NFC-normalised (keys too)."""
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    if isinstance(value, Mapping):
        return {normalised(k): normalised(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalised(v) for v in value]
    if isinstance(value, tuple):
        return tuple(normalised(v) for v in value)
    return value


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character mapped to one prototype of its group (an ASCII one where the group has one)."""
    # lazy: confusable_homoglyphs' tables (~40 ms); kept out of a one-shot write
    from confusable_homoglyphs import confusables  # type: ignore[import-untyped]

    out: dict[str, str] = {}
    for char, entries in confusables.confusables_data.items():
        group = [char, *(e["c"] for e in entries)]
        out[char] = min(group, key=lambda c: (not c.isascii(), len(c), c))
    return out


def skeleton(name: str) -> str:
    """TR39's skeleton, case-blind as names are matched: NFKC case-folded, decomposed, each character mapped to its
    confusable prototype, decomposed again."""
    table = _prototypes()
    text = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name.strip()).casefold())
    mapped = "".join(table.get(c, c) for c in text)
    return unicodedata.normalize("NFD", unicodedata.normalize("NFKC", mapped).casefold())


def lookalike(name: str, existing: Iterable[str]) -> str | None:
    """An existing name that prints like `name` but is spelled with other characters, or None."""
    key, sk = name.strip().casefold(), skeleton(name)
    for other in existing:
        if other.strip().casefold() != key and skeleton(other) == sk:
            return other
    return None
