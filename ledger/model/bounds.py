"""The declared range of every number and the shape of every text that may enter a ruling, checked at the boundary.

One table (`BOUNDS`) names each number a GM can give (options, arguments, dice notation) with the whole-number
range the ledger accepts; `whole` checks one value against it. `check_intent` applies the same table to a new
ruling's intent (and refuses control characters in what the GM typed), and `check_stored` refuses any ruling
whose events carry a number the read models can't hold (beyond STORED_MAX): nothing unprojectable is appended.
`safe` makes stored text harmless to print on a terminal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ledger.errors import BadInput
from ledger.model.names import clean

STORED_MAX = 2**53 - 1  # the largest whole number any stored value may hold (exact in JSON readers, fits BIGINT)

# name -> (lowest, highest): the ranges the rules texts leave room for, with generous headroom
BOUNDS: dict[str, tuple[int, int]] = {
    "count": (1, 10_000),  # minions in a group
    "copies": (1, 100),  # characters added at once (`character add --copies`)
    "rounds": (1, 1_000),  # a condition's duration in the bearer's turns
    "amount": (0, 1_000_000),  # direct HP / Health loss or healing
    "rank": (0, 1_000),  # hnh effect rank
    "bonus": (-1_000, 1_000),  # attack bonus or penalty
    "initiative": (-1_000, 1_000),  # an initiative total given by hand (a hazard's slot: `encounter join --init`)
    "dc": (-1_000, 1_000),  # difficulty class
    "hours": (0, 1_000_000),  # recovery time
    "n": (1, 1_000_000),  # spend / gain N
    "seed": (0, 2**63 - 1),  # --seed
    "ruling": (1, STORED_MAX),  # a ruling number (retract, show --at)
    "session": (1, STORED_MAX),  # a play session's number
    "number": (1, STORED_MAX),  # an encounter's or a session's number
    "dice": (1, 100),  # dice in one notation (NdM)
    "sides": (2, 1_000),  # sides of one die
    "modifier": (-1_000_000, 1_000_000),  # a notation's flat modifier (+K)
    "option": (-1_000_000, 1_000_000),  # any number given as -o KEY=VALUE
    "tail": (1, STORED_MAX),  # log -n N
    "port": (0, 65_535),  # serve --port
    "trials": (1, 1_000_000),  # odds --trials
    "max-rounds": (1, 1_000),  # odds --max-rounds
}
FROM_FILES = frozenset({"powers", "typed_traits"})  # read from a character file, not typed: free text may hold newlines
OPTION_NAMES = {
    "ruling": "the ruling number",
    "number": "the number",
    "n": "N",
    "dice": "the dice count",
    "sides": "the sides",
    "modifier": "the modifier",
    "option": "an option",
    "tail": "-n",
}

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAME = re.compile(r"^[^\s\-=,#][^=,#]{0,59}$")


_WHOLE = re.compile(r"[+-]?[0-9]+")


def ascii_int(value: Any) -> int:
    """A whole number written in ASCII digits with an optional sign, nothing else (no '٣', '５', '1_000', ' 3 '
    inside); ValueError otherwise, as int() raises. Python's int() alone takes every script's digits and underscores."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip()
    if len(text) > 40 or not _WHOLE.fullmatch(text):
        raise ValueError(f"not a whole number: {text[:40]!r}")
    return int(text)


def label(name: str) -> str:
    """How a GM typed the number's name: `--count`, `N`."""
    return OPTION_NAMES.get(name, f"--{name}")


def whole(name: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    """`value` as a whole number inside the range declared for `name` (or lo..hi); BadInput otherwise."""
    dlo, dhi = BOUNDS.get(name, (-STORED_MAX, STORED_MAX))
    lo, hi = dlo if lo is None else lo, dhi if hi is None else hi
    if isinstance(value, bool) or not isinstance(value, int):
        text = str(value).strip()
        if not re.fullmatch(r"[+-]?[0-9]{1,30}", text, re.ASCII):
            raise BadInput(f"{label(name)} must be a whole number, got '{clip(text)}'", f"from {lo} to {hi}")
        value = int(text)
    if not lo <= value <= hi:
        raise BadInput(f"{label(name)} must be from {lo} to {hi}, got {clip(str(value))}")
    return value


def check_intent(intent: Mapping[str, Any]) -> None:
    """Every declared number of a ruling's intent (top level and its options) inside its range; every text printable."""
    _texts({k: v for k, v in intent.items() if k not in FROM_FILES and k != "options"})
    _texts_allow_empty(intent.get("options"))
    found = intent.get("options")
    options: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    for source, fallback in ((intent, None), (options, "option")):
        for key, value in source.items():
            if isinstance(value, int) and not isinstance(value, bool) and (key in BOUNDS or fallback):
                whole(key if key in BOUNDS else "option", value)


def check_stored(value: Any, where: str = "this ruling") -> None:
    """Every number a ruling would store fits the read models (else nothing is appended)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, bool) or v is None:
            continue
        if isinstance(v, int):
            if not -STORED_MAX <= v <= STORED_MAX:
                raise BadInput(
                    f"{where} would record the number {clip(str(v))}, beyond what the ledger holds",
                    f"numbers run from {-STORED_MAX} to {STORED_MAX}",
                )
        elif isinstance(v, Mapping):
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)


def _texts(value: Any, key: str = "") -> None:
    """Refuse control characters anywhere in what the GM typed, and an empty text where one is given."""
    if isinstance(value, str):
        text(value, "an argument")
        if not value.strip():
            what = f"the {key.replace('_', ' ')}" if key else "an argument"
            raise BadInput(f"{what} is empty", "give a text, or leave it out where it is optional")
    elif isinstance(value, Mapping):
        for k, v in value.items():
            if isinstance(k, str):
                text(k, "an option name")
            _texts(v, str(k))
    elif isinstance(value, (list, tuple)):
        for v in value:
            _texts(v, key)


def _texts_allow_empty(value: Any) -> None:
    """Option values: printable (an option's empty value is the option's own business)."""
    if isinstance(value, str):
        text(value, "an option")
    elif isinstance(value, Mapping):
        for k, v in value.items():
            if isinstance(k, str):
                text(k, "an option name")
            _texts_allow_empty(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _texts_allow_empty(v)


def text(value: str, what: str) -> str:
    """A text without control characters (newlines, terminal escapes, bidi overrides) or invisible ones, NFC-normalised;
    BadInput otherwise."""
    m = _CONTROL.search(value)
    if m:
        raise BadInput(
            f"{what} contains the control character {m.group()!r}: '{safe(value)}'", "use printable characters only"
        )
    return clean(value, what)


def check_name(name: str) -> str:
    """A character's name: 1-60 printable characters, not starting with '-', no '=', ',' or '#'; returns it stripped."""
    name = text(name, "the name").strip()
    if not _NAME.match(name):
        raise BadInput(
            f"'{safe(name)}' can't be a character name", "1-60 characters, not starting with '-', no '=', ',' or '#'"
        )
    return name


def check_actor(actor: str) -> str:
    """Who records (--as / LEDGER_ACTOR): 1-80 printable characters."""
    actor = text(actor, "--as").strip()
    if not actor or len(actor) > 80:
        raise BadInput(f"--as must be 1-80 characters, got {len(actor)}", "for example --as Sam")
    return actor


def safe(value: str) -> str:
    """Stored text made safe for a terminal: control characters shown as escapes, never acted on."""
    if not _CONTROL.search(value):
        return value
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), value)


def safe_tree(value: Any) -> Any:
    """`safe` applied to every text inside a JSON-like value (for text output)."""
    if isinstance(value, str):
        return safe(value)
    if isinstance(value, Mapping):
        return {safe_tree(k): safe_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [safe_tree(v) for v in value]
    if isinstance(value, tuple):
        return tuple(safe_tree(v) for v in value)
    return value


def clip(s: str) -> str:
    """A long text shortened for a one-line message."""
    return s if len(s) <= 24 else s[:10] + "..." + s[-6:]
