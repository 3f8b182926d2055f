"""Dice expressions beyond NdM+K, read and evaluated by avrae's `d20` library, with every face from our own source.

The library parses and evaluates (keep/drop, explode, reroll, min/max, arithmetic, parentheses, sets); we add
Fudge dice (`dF`) and hand it the faces: drawn from a seeded or system generator, derived from a committed
secret, typed by the GM, or read back from a recorded event. Faces are taken in the order the library asks for
them, so the same faces always give the same total and replay never rolls.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import d20
from d20 import diceast, expression

from ledger.errors import BadInput
from ledger.model.bounds import BOUNDS, clip

FUDGE = 1_000_003  # the size a `dF` die is handed to the library as (beyond any size a GM may type)
MAX_ROLLS = 1000  # dice one expression may roll, rerolls and explosions included (the library's default)
_FUDGE_DIE = re.compile(r"(?<![A-Za-z])(\d*)\s*d\s*[fF]")

Draw = Callable[[int, int | str], int]  # (index of the die in the roll, die size or '%') -> face


def face_range(size: int | str) -> tuple[int, int]:
    """The faces one die of this size shows: -1..1 for Fudge, 0..90 (in tens) for d%, else 1..size."""
    if size == FUDGE:
        return (-1, 1)
    if size == "%":
        return (0, 90)
    return (1, int(size))


def _fits(size: int | str, face: int) -> bool:
    lo, hi = face_range(size)
    return lo <= face <= hi and (size != "%" or face % 10 == 0)


class _Context(d20.RollContext):
    """The library's roll counter, carrying where faces come from and every face handed out."""

    def __init__(self, draw: Draw) -> None:
        super().__init__(MAX_ROLLS)
        self.draw = draw
        self.faces: list[int] = []
        self.sizes: list[int | str] = []

    def face(self, size: int | str) -> int:
        """The next face, for a die of `size`."""
        value = self.draw(len(self.faces), size)
        self.faces.append(value)
        self.sizes.append(size)
        return value


class _Die(expression.Die):
    """A die whose faces come from the context's source rather than the `random` module."""

    __slots__ = ()

    @classmethod
    def new(cls, size: Any, context: Any = None) -> _Die:
        inst = cls(size, [], context=context)
        inst._add_roll()
        return inst

    def _add_roll(self) -> None:
        if self.size != "%" and self.size < 1:
            raise d20.RollValueError("Cannot roll a 0-sided die.")
        self._context.count_roll()
        self.values.append(expression.Literal(self._context.face(self.size)))


class _Dice(expression.Dice):
    """A set of our dice (explosions add one of ours too)."""

    __slots__ = ()

    @classmethod
    def new(cls, num: Any, size: Any, context: Any = None) -> _Dice:
        return cls(num, size, [_Die.new(size, context=context) for _ in range(num)], context=context)

    def roll_another(self) -> None:
        self.values.append(_Die.new(self.size, context=self._context))


class _Roller(d20.Roller):
    """The library's roller, making our dice."""

    def _eval_dice(self, node: diceast.Dice) -> expression.Dice:
        return _Dice.new(node.num, node.size, context=self.context)


def _prepared(expr: str) -> str:
    return _FUDGE_DIE.sub(lambda m: f"{m[1]}d{FUDGE}", expr)


def parse(expr: str) -> diceast.Expression:
    """The expression's syntax tree; bad syntax or out-of-bounds dice are bad input saying where."""
    text = _prepared(expr)
    try:
        tree = _Roller().parse(text)
    except d20.RollSyntaxError as e:
        col = int(e.col)
        got = str(e.got) if str(e.got).strip() else "the end"
        raise BadInput(
            f"'{clip(expr)}' is not dice notation: at character {col}, unexpected {got!r}",
            "for example 4d6kh3, 2d20kl1, 1d6e6, 1d20rr1, 10d6mi2, (1d8+2)*2, 3dF+1 or 5d6 pool",
        ) from None
    for node in _dice_nodes(tree):
        lo, hi = BOUNDS["dice"]
        if not 0 <= node.num <= hi:
            raise BadInput(f"'{clip(expr)}': the number of dice runs from {lo} to {hi}")
        if node.size != "%" and node.size != FUDGE and node.size > BOUNDS["sides"][1]:
            raise BadInput(f"'{clip(expr)}': the number of sides runs up to {BOUNDS['sides'][1]}")
    return tree


def has_dice(expr: str) -> bool:
    """Whether the expression rolls at least one die."""
    return any(node.num > 0 for node in _dice_nodes(parse(expr)))


def _dice_nodes(node: Any) -> Iterator[diceast.Dice]:
    if isinstance(node, diceast.Dice):
        yield node
    for child in getattr(node, "children", ()) or ():
        yield from _dice_nodes(child)


def evaluate(expr: str, draw: Draw) -> tuple[int, list[int], list[int | str], expression.Expression]:
    """Roll `expr` with faces from `draw`: the total, every face in order, each face's die size, the result tree."""
    tree = parse(expr)
    context = _Context(draw)
    try:
        result = _Roller(context).roll(tree)
        total = int(result.total)
    except d20.TooManyRolls:
        raise BadInput(
            f"'{clip(expr)}' rolls more than {MAX_ROLLS} dice", "a reroll or explosion that can never stop?"
        ) from None
    except d20.RollValueError as e:
        raise BadInput(f"'{clip(expr)}' can't be rolled: {str(e).rstrip('.').lower()}") from None
    return total, context.faces, context.sizes, result.expr


def replay(expr: str, faces: Sequence[int]) -> tuple[int, expression.Expression]:
    """The total and result tree of `expr` given exactly these faces (recorded or entered); BadInput if they don't
    fit."""

    def draw(i: int, size: int | str) -> int:
        if i >= len(faces):
            raise BadInput(
                f"'{clip(expr)}' needs more dice than the {len(faces)} faces given",
                f"die {i + 1} is a {_die_name(size)}",
            )
        if not _fits(size, faces[i]):
            lo, hi = face_range(size)
            raise BadInput(f"{faces[i]} is not a face of a {_die_name(size)}", f"die {i + 1}: faces run {lo} to {hi}")
        return faces[i]

    total, used, _, tree = evaluate(expr, draw)
    if len(used) != len(faces):
        raise BadInput(f"'{clip(expr)}' rolls {len(used)} dice with these faces, but {len(faces)} faces were given")
    return total, tree


def _die_name(size: int | str) -> str:
    return "Fudge die" if size == FUDGE else f"d{size}"


def sizes(expr: str, faces: Sequence[int]) -> list[int | str]:
    """The die size behind each recorded face."""
    out: list[int | str] = []

    def draw(i: int, size: int | str) -> int:
        out.append(size)
        return faces[i] if i < len(faces) else face_range(size)[0]

    evaluate(expr, draw)
    return out


class _Shown(d20.SimpleStringifier):
    """The result as a GM reads it: Fudge faces as + 0 -, dropped dice struck out, `dF` for Fudge dice."""

    def __init__(self) -> None:
        super().__init__()
        self._nodes[_Dice] = self._str_dice
        self._nodes[_Die] = self._str_die

    def _stringify(self, node: Any) -> str:
        inside = super()._stringify(node)
        return inside if node.kept else f"~{inside}~"

    def _str_literal(self, node: Any) -> str:
        text = " -> ".join(str(v) for v in node.values)
        return f"{text}!" if node.exploded else text

    def _str_dice(self, node: Any) -> str:
        faces = [self._stringify(die) for die in node.values]
        if node.size == FUDGE:
            faces = [f.replace("-1", "-").replace("1", "+") for f in faces]
        size = "F" if node.size == FUDGE else node.size
        return f"{node.num}d{size}{self._str_ops(node.operations)} ({', '.join(faces)})"


def shown(expr: str, faces: Sequence[int]) -> tuple[str, bool]:
    """The faces in place, and whether the expression is one set of dice: (`6, 4, ~2~, 1`, True) for 4d6kh3,
    (`1d20 (14) + 5`, False) for 1d20+5."""
    try:
        _, tree = replay(expr, faces)
    except BadInput:
        return " ".join(map(str, faces)), True
    if isinstance(tree.roll, expression.Dice) and not tree.roll.annotation:
        text = _Shown()._str_dice(tree.roll)
        return text[text.index("(") + 1 : -1].replace(", ", " "), True
    return _Shown().stringify(tree).rsplit(" = ", 1)[0], False
