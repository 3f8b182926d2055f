"""Dice: notation, the three mechanics, and where faces come from (rolled, seeded or entered).

A `Roll` keeps every face. Rules never roll: they ask a `Dice` provider for a named roll of a given
`DiceSpec` and get faces back. In play the provider is a `DiceBox` (entered faces first, otherwise the
ledger rolls); in replay it is ledger/history/rederive.py's `ReplayDice`, which hands back exactly what was recorded.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal, Protocol

from ledger.errors import BadInput, StoreError
from ledger.model.bounds import BOUNDS, ascii_int, clip
from ledger.model.bounds import STORED_MAX as STORED_MAX  # re-exported: the rules import numbers' bounds from here


def _notation() -> Any:
    """ledger/model/notation.py, loaded only for an expression (the d20 library and its grammar take ~0.4 s)."""
    # lazy: the d20 library and its grammar (~0.4 s); only for an expression
    from ledger.model import notation

    return notation


Kind = Literal["fudge", "d20", "pool", "sum", "expr"]
ROLLOFF_ROUNDS = 3  # rounds of roll-offs for an initiative tie (rolloff-NAME, rolloff-NAME-2, rolloff-NAME-3)
Source = Literal["rolled", "seeded", "entered", "player"]


@dataclass(frozen=True)
class DiceSpec:
    """What a roll needs: how many dice of which kind, and a flat modifier; or (kind `expr`) a dice expression."""

    kind: Kind
    count: int
    sides: int
    modifier: int = 0
    expr: str | None = None  # kind `expr`: the expression (ledger/model/notation.py); count is then its faces'

    @property
    def notation(self) -> str:
        """The ordinary notation: 3dF+2, 1d20+3, 5d6 pool, 2d6+1; an expression as written."""
        if self.expr is not None:
            return self.expr
        die = "dF" if self.kind == "fudge" else f"d{self.sides}"
        mod = f"{self.modifier:+d}" if self.modifier else ""
        pool = " pool" if self.kind == "pool" else ""
        return f"{self.count}{die}{mod}{pool}"

    def face_range(self) -> tuple[int, int]:
        """The smallest and largest face one die of this spec can show."""
        return (-1, 1) if self.kind == "fudge" else (1, self.sides)

    @property
    def rolls_dice(self) -> bool:
        """Whether this rolls at least one die (`0d6` and `1+1` roll none)."""
        return _notation().has_dice(self.expr) if self.expr is not None else self.count > 0

    def accepts(self, faces: tuple[int, ...]) -> bool:
        """Whether these faces are a whole roll of this spec (an expression's count depends on its faces)."""
        if self.expr is None:
            return len(faces) == self.count
        try:
            _notation().replay(self.expr, faces)
        except BadInput:
            return False
        return True

    def total(self, faces: tuple[int, ...]) -> int:
        """The roll's total: a sum plus modifier, an expression's value, or for a pool the number of successes."""
        if self.expr is not None:
            return _notation().replay(self.expr, faces)[0]
        if self.kind == "pool":
            return pool_successes(faces)
        return sum(faces) + self.modifier


D20 = DiceSpec("d20", 1, 20)


# fudge and d20 are cached by the modifier (typed: True is not 1): a DiceSpec is a frozen value, and the rules make
# one for every roll they ask for (a tenth of an H&H attack's time in ledger odds, where the rules are called
# hundreds of thousands of times).
@lru_cache(maxsize=256, typed=True)
def fudge(modifier: int = 0) -> DiceSpec:
    """3dF plus a bonus (Humans & Heroes)."""
    return DiceSpec("fudge", 3, 3, modifier)


@lru_cache(maxsize=256, typed=True)
def d20(modifier: int = 0) -> DiceSpec:
    """1d20 plus a bonus (d20 Supers)."""
    return DiceSpec("d20", 1, 20, modifier)


@lru_cache(maxsize=256, typed=True)  # as fudge and d20 (a refused size is raised again each time)
def pool(size: int) -> DiceSpec:
    """A pool of d6 (Prowlers & Paragons); a pool of 0 dice rolls nothing and scores 0."""
    if size < 0:
        raise BadInput(f"a dice pool can't have {size} dice")
    return DiceSpec("pool", size, 6)


def pool_successes(faces: tuple[int, ...]) -> int:
    """P&P: every 2 or 4 is one success, every 6 two successes."""
    return sum(1 if f in (2, 4) else 2 if f == 6 else 0 for f in faces)


_NOTATION = re.compile(
    r"^\s*(?P<count>\d*)\s*d\s*(?P<sides>\d+|[fF])\s*(?:(?P<sign>[+-])\s*(?P<mod>\d+))?\s*(?P<pool>pool)?\s*$",
    re.ASCII,  # \d is every script's digits otherwise: '1d６' and '٣d6' are not notation
)


_BARE_POOL = re.compile(r"^\s*(?P<count>\d+)\s*d\s*(?P<pool>pool)?\s*$")


# Cached by the text (a DiceSpec is a frozen value): a rule reads a weapon's dice from its notation on every call,
# and ledger odds calls it tens of thousands of times a forecast; an error is raised again each time (not cached).
@lru_cache(maxsize=1024)
def parse_notation(expr: str, *, pools: bool = False) -> DiceSpec:
    """Parse NdM+K, NdF+K, 'Nd6 pool' or any dice expression; with pools=True a bare Nd6 or Nd is a P&P pool."""
    m = _NOTATION.match(expr)
    if m and m["count"] and len(m["count"]) < 6 and int(m["count"]) == 0 and not m["pool"]:
        m = None  # no dice at all (`0d6`): the expression reader's, which totals 0
    if not m:
        bare = _BARE_POOL.match(expr)
        if bare and (pools or bare["pool"]):  # P&P writes a pool of four dice `4d`
            return pool(number_of_dice(expr, bare["count"]))
        if bare:
            raise BadInput(f"'{clip(expr)}' names no die", f"write {bare['count']}d6, or {bare['count']}d6 pool")
        return expression_spec(expr)
    sign = -1 if m["sign"] == "-" else 1

    def number(name: str, digits: str, what: str) -> int:
        lo, hi = BOUNDS[name]
        value = int(digits) * (sign if name == "modifier" else 1) if len(digits) <= 12 else None
        if value is None or not lo <= value <= hi:
            raise BadInput(f"'{clip(expr)}': {what} runs from {lo} to {hi}")
        return value

    count = number("dice", m["count"] or "1", "the number of dice")
    sides_s = m["sides"]
    mod = number("modifier", m["mod"] or "0", "the modifier")
    if sides_s in ("f", "F"):
        return DiceSpec("fudge", count, 3, mod)
    sides = number("sides", sides_s, "the number of sides")
    if m["pool"] or (pools and sides == 6 and not m["sign"]):
        if sides != 6 or m["sign"]:
            raise BadInput(f"'{expr}': a pool is plain d6, with no modifier")
        return DiceSpec("pool", count, 6)
    if sides == 20 and count == 1:
        return DiceSpec("d20", 1, 20, mod)
    return DiceSpec("sum", count, sides, mod)


def number_of_dice(expr: str, digits: str) -> int:
    """A count of dice within BOUNDS."""
    lo, hi = BOUNDS["dice"]
    if len(digits) > 12 or not lo <= int(digits) <= hi:
        raise BadInput(f"'{clip(expr)}': the number of dice runs from {lo} to {hi}")
    return int(digits)


def expression_spec(expr: str) -> DiceSpec:
    """A dice expression the library reads (keep/drop, explode, reroll, min/max, arithmetic); BadInput says where
    it fails."""
    text = " ".join(expr.split())
    _notation().parse(text)
    return DiceSpec("expr", 0, 0, 0, text)


_FUDGE_FACES = {"+": 1, "-": -1, "0": 0, "1": 1, "-1": -1, "+1": 1}


def parse_faces(name: str, text: str, spec: DiceSpec) -> tuple[int, ...]:
    """Validate faces the GM typed (`+,0,-` or `17` or `6,4,1`) against what the roll needs."""
    parts = [p.strip() for p in text.split(",")] if text.strip() else []
    faces: list[int] = []
    if spec.expr is not None:  # in the order the dice are rolled (rerolls and explosions where they happen)
        for p in parts:
            if p not in _FUDGE_FACES and not re.fullmatch(r"-?\d{1,7}", p):
                raise BadInput(f"roll '{name}': '{p}' is not a face", "faces are numbers, or +, - and 0 for Fudge dice")
            faces.append(_FUDGE_FACES.get(p, int(p) if p.lstrip("-").isdigit() else 0))
        try:
            _notation().replay(spec.expr, tuple(faces))
        except BadInput as e:
            raise BadInput(f"roll '{name}': {e.message}", e.hint) from None
        return tuple(faces)
    for p in parts:
        if spec.kind == "fudge":
            if p not in _FUDGE_FACES:
                raise BadInput(f"roll '{name}': '{p}' is not a Fudge face", "Fudge faces are +, - and 0")
            faces.append(_FUDGE_FACES[p])
        else:
            try:
                face = ascii_int(p)
            except ValueError:
                raise BadInput(f"roll '{name}': '{p}' is not a number") from None
            lo, hi = spec.face_range()
            if not lo <= face <= hi:
                raise BadInput(f"roll '{name}': {face} is not a face of a d{spec.sides}", f"faces run {lo} to {hi}")
            faces.append(face)
    if len(faces) != spec.count:
        raise BadInput(
            f"roll '{name}' needs {spec.count} {'die' if spec.count == 1 else 'dice'} ({spec.notation}), got "
            f"{len(faces)}"
        )
    return tuple(faces)


@dataclass(frozen=True)
class Roll:
    """One named roll: every face, its total, where it came from, and whether a rule used it."""

    name: str
    spec: DiceSpec
    faces: tuple[int, ...]
    source: Source
    used: bool = True
    commitment: str | None = None  # the session's dice commitment this roll derives from (ledger/model/dice_scheme.py)
    counter: int | None = None  # scheme 2: the session's count of committed rolls before this one
    player_seed: str | None = None  # a player's die: the hex seed their page made for it
    ask: int | None = None  # a player's die: the ruling that recorded its ask (the counter is the ask's)

    @property
    def total(self) -> int:
        """The total the rules read (sum plus modifier, or successes for a pool)."""
        return self.spec.total(self.faces)

    @property
    def natural(self) -> int:
        """The sum of the faces without the modifier (a d20's natural roll)."""
        return sum(self.faces)

    @property
    def all_plus(self) -> bool:
        """Every Fudge die came up +: a critical success in H&H."""
        return self.spec.kind == "fudge" and 0 < len(self.faces) == self.faces.count(1)

    @property
    def all_minus(self) -> bool:
        """Every Fudge die came up -: a critical failure in H&H."""
        return self.spec.kind == "fudge" and 0 < len(self.faces) == self.faces.count(-1)

    def to_data(self) -> dict[str, object]:
        """The payload of a DiceRolled event (with `commitment` only for a die derived from a committed secret;
        an expression's also names each face's die, `sizes`)."""
        data: dict[str, object] = {
            "name": self.name,
            "notation": self.spec.notation,
            "kind": self.spec.kind,
            "sides": self.spec.sides,
            "modifier": self.spec.modifier,
            "faces": list(self.faces),
            "total": self.total,
            "source": self.source,
            "used": self.used,
        }
        if self.spec.expr is not None:
            data["sizes"] = _notation().sizes(self.spec.expr, self.faces)
        if self.commitment:
            data["commitment"] = self.commitment
        if self.counter is not None:
            data["counter"] = self.counter
        if self.player_seed is not None:
            data["player_seed"] = self.player_seed
        if self.ask is not None:
            data["ask"] = self.ask
        return data

    @classmethod
    def from_data(cls, data: dict) -> Roll:
        """Rebuild a roll from a DiceRolled payload."""
        if data["kind"] == "expr":
            spec = DiceSpec("expr", len(data["faces"]), 0, 0, data["notation"])
        else:
            spec = DiceSpec(data["kind"], len(data["faces"]), data["sides"], data.get("modifier", 0))
        return cls(
            data["name"],
            spec,
            tuple(data["faces"]),
            data["source"],
            data.get("used", True),
            data.get("commitment"),
            data.get("counter"),
            data.get("player_seed"),
            data.get("ask"),
        )


class Dice(Protocol):
    """Where rules get faces from: by name, for a spec. Rules never roll."""

    def take(self, name: str, spec: DiceSpec) -> Roll:
        """Return the faces of the roll called `name`."""
        ...


def staged(dice: Dice, rule: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`rule(*args, **kwargs)`, the rest of a rule's work, whose outcome depends on its arguments and the dice alone
    (a sheet among them is read through its own fields). A dice box with a `stage` method may keep it so (the fight
    simulator decides it once for every attack that hands it the same arguments, ledger/odds/engine.py); every
    other box just runs it."""
    stage = getattr(dice, "stage", None)
    if stage is None:
        return rule(*args, **kwargs)
    return stage(rule, args, kwargs)


class NeedPlayerRoll(Exception):
    """A hero's roll in a player-dice session that their player has not answered yet (the ruling waits for it)."""

    def __init__(
        self,
        owner: str,
        name: str,
        spec: DiceSpec,
        also: list[str] | None = None,
        others: list[tuple[str, str]] | None = None,
    ) -> None:
        super().__init__(f"{owner}'s {name} roll")
        self.owner, self.name, self.spec = owner, name, spec
        self.also = list(also or [])  # the owner's other rolls the command may still take: asked on the same card
        self.others = list(others or [])  # (owner, roll) of other heroes' initiative rolls: asked at the same time


@dataclass
class DiceBox:
    """Faces for one ruling: entered faces first, else rolled (seeded per ruling and name, or system RNG).

    In a session that committed its dice, a rolled die is derived from the session's secret instead
    (ledger/model/dice_scheme.py: scheme 1 over the ruling number, scheme 2 over the session and its counter of
    committed rolls), seed or not; with player dice, a linked hero's roll mixes in the seed their page sent.
    """

    entered: dict[str, str] = field(default_factory=dict)
    seed: int | None = None
    salt: str = ""
    taken: dict[str, Roll] = field(default_factory=dict)
    commitment: str | None = None
    secret: bytes | None = None
    ruling: int = 0
    session: int = 0
    scheme: int = 1
    counter: int = 0  # scheme 2: the next committed roll's counter
    player_dice: bool = False
    players: bool = False  # the session's commitment was made for player dice (scheme 3 binds it)
    seeds: dict[str, dict[str, Any]] = field(default_factory=dict)  # roll name -> its player's answer to its ask
    owner_of: Callable[[str], str | None] | None = None  # whose a roll is (the draft's roll owners)
    owners: Mapping[str, str] | None = None  # every roll the ruling has declared so far, with whose it is
    asks: Callable[[str], bool] | None = None  # whether a character's rolls are asked of their player's page

    def rename_entered(self, given: str, name: str) -> None:
        """Faces the GM entered under another spelling (`bob.toughness`, or `Bob.toughness` for one target's
        `toughness`) become the roll `name`, before any roll is taken."""
        self.entered[name] = self.entered.pop(given)

    def take(self, name: str, spec: DiceSpec) -> Roll:
        """Consume the roll `name`: the GM's faces if entered, otherwise a fresh roll."""
        if name in self.taken:
            raise BadInput(f"roll '{name}' is needed twice in one ruling")
        if name in self.entered:
            ask = self.seeds.get(name, {}).get("ask")  # faces a player typed on their page answer an ask too
            faces = parse_faces(name, self.entered[name], spec)
            roll = Roll(name, spec, faces, "entered", ask=int(ask) if ask is not None else None)
        elif self.commitment is not None:
            roll = self._committed(name, spec)
        else:
            rng: random.Random
            if self.seed is not None:
                rng = random.Random(f"{self.seed}/{self.salt}/{name}")
                source: Source = "seeded"
            else:
                rng = random.SystemRandom()
                source = "rolled"
            if spec.expr is not None:
                roll = Roll(name, spec, _expression_faces(spec.expr, lambda _i, lo, hi: rng.randint(lo, hi)), source)
            else:
                lo, hi = spec.face_range()
                roll = Roll(name, spec, tuple(rng.randint(lo, hi) for _ in range(spec.count)), source)
        self.taken[name] = roll
        return roll

    def _committed(self, name: str, spec: DiceSpec) -> Roll:
        # lazy: committed dice only (hmac); kept out of a one-shot write
        from ledger.model.dice_scheme import (
            commit,
            derive,
            derive_faces,
            derive_faces_v2,
            derive_faces_v3,
            derive_v2,
            derive_v3,
        )

        hint = "enter physical dice with --roll NAME=FACES, or end the session: ledger session end"
        if self.secret is None:
            raise StoreError("this session committed its dice, but its secret is not in this ledger's database", hint)
        if commit(self.secret, self.scheme, self.players) != self.commitment:
            raise StoreError(
                "the dice secret in this ledger's database does not match the session's commitment: refused", hint
            )
        secret = self.secret
        if self.scheme < 2:
            if spec.expr is not None:
                faces = _expression_faces(spec.expr, lambda i, lo, hi: derive(secret, self.ruling, name, i, lo, hi))
                return Roll(name, spec, faces, "rolled", commitment=self.commitment)
            lo, hi = spec.face_range()
            faces = derive_faces(secret, self.ruling, name, spec.count, lo, hi)
            return Roll(name, spec, faces, "rolled", commitment=self.commitment)
        owner = self.owner_of(name) if self.owner_of else None
        seed, ask = None, None
        answer = self.seeds.get(name)
        if answer is not None and "seed" in answer:
            # the die was fixed at its ask: the ask's counter, whatever was rolled since (ledger/storage/wait.py)
            seed, ask, counter = str(answer["seed"]), int(answer["ask"]), int(answer["counter"])
        elif self.player_dice and owner and self.asks is not None and self.asks(owner):
            raise NeedPlayerRoll(owner, name, spec, *self._asked_with(owner, name))
        else:
            counter, self.counter = self.counter, self.counter + 1
        v3 = self.scheme >= 3
        if spec.expr is not None:  # an expression's dice, each from its own place in the roll

            def face(i: int, lo: int, hi: int) -> int:
                if v3:
                    return derive_v3(secret, counter, name, i, lo, hi, seed)
                return derive_v2(secret, self.session, counter, name, i, lo, hi, seed)

            faces = _expression_faces(spec.expr, face)
        else:
            lo, hi = spec.face_range()
            if v3:
                faces = derive_faces_v3(secret, counter, name, spec.count, lo, hi, seed)
            else:
                faces = derive_faces_v2(secret, self.session, counter, name, spec.count, lo, hi, seed)
        source: Source = "player" if seed is not None else "rolled"
        return Roll(name, spec, faces, source, commitment=self.commitment, counter=counter, player_seed=seed, ask=ask)

    def _asked_with(self, owner: str, name: str) -> tuple[list[str], list[tuple[str, str]]]:
        """What is asked together with `owner`'s roll `name`: the owner's other rolls this ruling has declared and not
        yet answered (one card, one tap: a d20 attack's confirm and damage with its attack), and the initiative rolls
        (named after their owners) of other heroes whose rolls go to their pages (every page asked at once)."""
        open_ = {n: o for n, o in (self.owners or {}).items() if n not in self.seeds and n not in self.entered}
        open_ = {n: o for n, o in open_.items() if n not in self.taken and n != name}
        also = [n for n, o in open_.items() if o.casefold() == owner.casefold()]
        others = [
            (o, n)
            for n, o in open_.items()
            if o.casefold() != owner.casefold() and n.casefold() == o.casefold() and self.asks and self.asks(o)
        ]
        return also, others

    def unused(
        self, specs: dict[str, DiceSpec], allowed: Callable[[str, str], DiceSpec | None] | None = None
    ) -> list[Roll]:
        """Entered rolls no rule asked for, validated and marked unused.

        `specs` names the command's rolls with their exact specs; `allowed` may answer for other roll names
        the command could have taken (a spec to validate against), or None for a name it never takes.
        """
        out = []
        for name, text in self.entered.items():
            if name in self.taken:
                continue
            spec = specs.get(name) or (allowed(name, text) if allowed else None)
            if spec is None:
                known = ", ".join(specs) or "see the command's --help"
                raise BadInput(f"this command takes no roll named '{name}'", f"rolls: {known}")
            out.append(Roll(name, spec, parse_faces(name, text, spec), "entered", used=False))
        return out


def _expression_faces(expr: str, face: Callable[[int, int, int], int]) -> tuple[int, ...]:
    """Roll an expression with `face(index, lo, hi)` for each die it asks for (a d% die as 0..9 tens)."""

    def draw(i: int, size: int | str) -> int:
        if size == "%":
            return face(i, 0, 9) * 10
        return face(i, *_notation().face_range(size))

    return tuple(_notation().evaluate(expr, draw)[1])


def show_faces(data: dict) -> str:
    """A DiceRolled payload's faces as a GM reads them: + 0 - for Fudge dice, numbers otherwise."""
    fs = data.get("faces") or []
    if data.get("kind") == "expr":
        return _notation().shown(str(data.get("notation", "")), fs)[0]
    if data.get("kind") == "fudge":
        return " ".join({1: "+", 0: "0", -1: "-"}.get(f, str(f)) for f in fs)
    return " ".join(str(f) for f in fs)


def parse_roll_options(values: tuple[str, ...] | list[str]) -> dict[str, str]:
    """Turn repeated `--roll NAME=FACES` into a dict; a malformed one is bad input."""
    out: dict[str, str] = {}
    for v in values:
        name, sep, faces = v.partition("=")
        name = name.strip()
        if not sep or not name:
            raise BadInput(f"--roll '{v}' is not NAME=FACES", "for example --roll attack=+,0,- or --roll attack=17")
        if name in out:
            raise BadInput(f"--roll '{name}' given twice")
        out[name] = faces
    return out
