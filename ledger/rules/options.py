"""Typed option declarations: what each command understands in each rule system, declared once as data.

A rule system declares, per command, the options its rules read (`Opt`): name, kind, allowed values, default,
help and the rules passage. Everything else comes from these declarations: the named click options and
`-o KEY=VALUE`, validation before anything is decided (an unknown key or value is refused with a
did-you-mean), the typed values stored in a ruling's intent, `--help`, completion and docs/cli.md.

Values are kept as given: `no`, `off`, `0` and an empty list are values, never "not given".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ledger.errors import BadInput, close_match
from ledger.model.dice import ascii_int, parse_notation

Kind = Literal["flag", "int", "choice", "names", "ints", "text", "dice"]
Options = Mapping[str, Any]  # a command's typed option values (`-o KEY=VALUE`), as parse_options returns them
Role = Literal["actor", "other", "-"]  # whose a named roll is: the acting character, the other one, or no one's
WHOLE = 1_000_000  # the default bound of a whole-number option: far beyond any rank, bonus or count at a table
TRUE = frozenset({"yes", "true", "on", "y", "1"})
FALSE = frozenset({"no", "false", "off", "n", "0"})
METAVARS: dict[str, str] = {"flag": "yes|no", "int": "N", "names": "A,B", "ints": "N,N", "text": "TEXT", "dice": "EXPR"}


@dataclass(frozen=True)
class Opt:
    """One option a command understands in one rule system."""

    name: str
    kind: Kind
    help: str
    source: str = ""  # the rules passage it comes from: "file, heading"
    choices: tuple[str, ...] = ()  # allowed values of a choice, or of each item of a names list (empty: any name)
    default: str = ""  # what the rules assume when it is not given, for help only (the rules apply it)
    lo: int = -WHOLE
    hi: int = WHOLE
    named: bool = False  # also a named option (`--rank 6`) besides `-o rank=6`
    per_target: bool = False  # a choice that may also be given per target: `Bob=total,Cy=partial`

    @property
    def metavar(self) -> str:
        """How the value is written, for help."""
        if self.kind == "choice":
            return "|".join(self.choices)
        return METAVARS[self.kind]

    def parse(self, raw: Any, *, where: str) -> Any:
        """The typed value of a raw one (text from the command line, or already typed); BadInput if not allowed."""
        if self.kind == "flag":
            return self._flag(raw, where)
        if self.kind == "int":
            return self._int(raw, where)
        if self.kind == "ints":
            return [self._int(x, where) for x in _items(raw)]
        if self.kind == "choice" and self.per_target and "=" in str(raw):
            return ",".join(f"{n}={v}" for n, v in self._pairs(raw, where).items())
        if self.kind == "choice":
            return self._choice(_text(raw), where)
        if self.kind == "names" and self.per_target:  # `attack`, `Bob.toughness`: a choice, or a target's own
            return [self._dotted(x, where) for x in _items_as_given(raw)]
        if self.kind == "names":
            return [self._choice(x, where) if self.choices else _name(x, self.name, where) for x in _items(raw)]
        if self.kind == "dice":
            text = _text(raw)
            parse_notation(text)  # BadInput on bad notation
            return text
        text = str(raw).strip()
        if not text or not text.isprintable():
            raise BadInput(f"{where}: option '{self.name}' needs printable text, got {raw!r}")
        return text

    def _flag(self, raw: Any, where: str) -> bool:
        if isinstance(raw, bool):
            return raw
        s = _text(raw)
        if s in TRUE:
            return True
        if s in FALSE:
            return False
        raise BadInput(f"{where}: option '{self.name}' is yes or no, not '{raw}'")

    def _int(self, raw: Any, where: str) -> int:
        if isinstance(raw, bool):
            raise BadInput(f"{where}: option '{self.name}' needs a whole number, got '{raw}'")
        try:
            n = ascii_int(raw)
        except ValueError:
            raise BadInput(f"{where}: option '{self.name}' needs a whole number, got '{raw}'") from None
        if not self.lo <= n <= self.hi:
            raise BadInput(f"{where}: option '{self.name}' must be from {self.lo} to {self.hi}, got {n}")
        return n

    def _dotted(self, value: Any, where: str) -> str:
        """A choice (`toughness`), or a target's own roll of a choice (`Bob.toughness`, the name as given)."""
        head, dot, tail = str(value).strip().rpartition(".")
        if dot and head.strip():
            return f"{_name(head, self.name, where)}.{self._choice(tail.strip().lower(), where)}"
        return self._choice(_text(value), where)

    def _pairs(self, raw: Any, where: str) -> dict[str, str]:
        """`NAME=VALUE` items, each value one of the choices (names as given, trimmed)."""
        out: dict[str, str] = {}
        for item in str(raw).split(","):
            name, sep, value = item.partition("=")
            if not sep or not name.strip():
                raise BadInput(f"{where}: option '{self.name}' item '{item.strip()}' is not NAME=VALUE")
            out[_name(name, self.name, where)] = self._choice(_text(value), where)
        return out

    def _choice(self, value: str, where: str) -> str:
        if value in self.choices:
            return value
        raise BadInput(f"{where}: option '{self.name}' can't be '{value}'", suggest(value, self.choices))


def _text(raw: Any) -> str:
    return str(raw).strip().lower()


def _items(raw: Any) -> list[Any]:
    """A list value: a list as given, or comma-separated text (an empty text is an empty list)."""
    if isinstance(raw, (list, tuple)):
        return [x.strip().lower() if isinstance(x, str) else x for x in raw]
    return [p.strip().lower() for p in str(raw).split(",") if p.strip()]


def _items_as_given(raw: Any) -> list[Any]:
    """A list value with its items' case kept (names in it)."""
    if isinstance(raw, (list, tuple)):
        return [x.strip() if isinstance(x, str) else x for x in raw]
    return [p.strip() for p in str(raw).split(",") if p.strip()]


def _name(value: Any, option: str, where: str) -> str:
    text = str(value).strip()
    if not text or not text.isprintable():
        raise BadInput(f"{where}: option '{option}' has an empty or unprintable item")
    return text


def norm_key(key: str) -> str:
    """Option keys are lower-case with hyphens (`two_weapon` and `Two-Weapon` are `two-weapon`)."""
    return key.strip().lower().replace("_", "-").replace(" ", "-")


def suggest(value: str, known: Iterable[str]) -> str:
    """A did-you-mean hint, or the list of what is known."""
    choices = sorted(set(known))
    close = close_match(value, choices)
    if close:
        return f"did you mean '{close}'?"
    return f"choose from: {', '.join(choices)}" if choices else "this command takes no options here"


def parse_options(decls: Sequence[Opt], given: Options, *, where: str) -> dict[str, Any]:
    """Validate and type the options given (in the order given); an unknown key or value is BadInput."""
    by_name = {o.name: o for o in decls}
    out: dict[str, Any] = {}
    for raw_key, raw in given.items():
        key = norm_key(raw_key)
        opt = by_name.get(key)
        if opt is None:
            raise BadInput(f"{where} has no option '{key}'", suggest(key, by_name))
        out[key] = opt.parse(raw, where=where)
    return out


def split_pairs(pairs: Iterable[str]) -> dict[str, str]:
    """`-o KEY=VALUE` pairs as given (a key given twice: the last one counts)."""
    out: dict[str, str] = {}
    for item in pairs:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise BadInput(f"option '{item}' is not KEY=VALUE", "for example -o cover=1/2 or -o flanking=yes")
        out[norm_key(key)] = raw.strip()
    return out


def for_target(value: Any, target: str, default: str = "none") -> str:
    """A per-target choice's value for one target (`Bob=total,Cy=partial` -> `total` for bob), or the value itself
    when it was given for every target; `default` for a target not named."""
    text = str(value or "")
    if "=" not in text:
        return text or default
    for item in text.split(","):
        name, _, v = item.partition("=")
        if name.strip().casefold() == target.strip().casefold():
            return v.strip()
    return default


PASS_OVER = "no-action"  # `-o pass-over` unless set


def passes_over(settings: Mapping[str, Any]) -> bool:
    """Whether a campaign's settings (`init -o`) pass over a turn the rules leave nothing to do in: unless
    `pass-over=never`."""
    return str(settings.get("pass-over", PASS_OVER)) != "never"


def pass_over(source: str) -> Opt:
    """`init -o pass-over=no-action|never`: whether `encounter next` passes over a turn in which the rules leave the
    character nothing to do (RuleSystem.nothing_to_do), its durations still ticking; the dead and the defeated are
    passed over either way."""
    return Opt(
        "pass-over",
        "choice",
        "in an encounter, pass over a turn in which the rules leave the character nothing to do (its durations and "
        "turn effects still run, the passing said in one line), or never",
        source,
        choices=("no-action", "never"),
        default=PASS_OVER,
    )
