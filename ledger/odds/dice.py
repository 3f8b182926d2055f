"""The simulator's dice: a counter-based stream, and each roll's faces grouped into the classes the rules tell apart.

Every uniform number is a pure function of (seed, trial, actor, round, purpose): two branches of a what-if (or two
policies) that make the same roll for the same purpose in the same trial get the same number, so the same dice
(common random numbers), and a run is the same on any number of processes.

A roll's faces are drawn by inverse CDF over its classes: faces the rules read alike (the same total, the same natural
sum for a d20, all plus or all minus for Fudge dice) form one class, and the rules are asked with one face list of
the class (its representative). Which faces a rule reads is in docs/odds.md; tests/unit/test_odds_exact.py checks the
classes against every face list through the rules.
"""

from __future__ import annotations

import math
import zlib
from bisect import bisect_right
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

from ledger.model.dice import DiceSpec, pool_successes

MASK = (1 << 64) - 1
TO_UNIT = 1.0 / (1 << 53)
SPREAD = 0x9E3779B97F4A7C15  # the golden-ratio multiplier (odd), the one step of a roll's draw


def mix(x: int) -> int:
    """SplitMix64's finaliser: a 64-bit integer to a well-spread 64-bit integer."""
    x = (x + 0x9E3779B97F4A7C15) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


_PURPOSES: dict[str, int] = {}


def purpose(name: str) -> int:
    """A roll purpose's stable number, well spread over 64 bits (the same in every process; Python's own str hash is
    salted)."""
    found = _PURPOSES.get(name)
    if found is None:
        found = _PURPOSES[name] = mix(zlib.crc32(name.encode()) | (len(name) << 32))
    return found


def trial_key(seed: int, trial: int) -> int:
    """The stream's key for one trial."""
    return mix(mix(seed & MASK) ^ (trial * 0xD1342543DE82EF95 & MASK))


def turn_key(trial: int, actor: int, rnd: int) -> int:
    """The stream's key for one actor's turn in one round of a trial (`trial` is trial_key's)."""
    return mix(trial ^ ((actor + 1) * 0x9E3779B97F4A7C15 & MASK) ^ ((rnd + 1) * 0xC2B2AE3D27D4EB4F & MASK))


def draw(turn: int, pid: int) -> int:
    """The uniform whole number in [0, 2**53) of one roll purpose (its number, `purpose`) in one turn.

    The turn's key is already a full SplitMix64 output (`turn_key`), so one step spreads it per purpose: the key
    XORed with the purpose's number, times an odd constant, the top 53 bits of the low 64. For a uniform key each
    purpose's number is uniform (an odd multiplier is a bijection mod 2**64); the XOR before it keeps the numbers of
    the purposes of one turn off a lattice (the key times each purpose's own multiplier would put them on one, the
    coarser the more purposes a turn draws). A walk of the simulator reads this inline (engine.py);
    tests/unit/test_odds_engine.py checks each purpose's number is uniform and those of one turn independent."""
    return ((turn ^ pid) * SPREAD & MASK) >> 11


def uniform(turn: int, name: str) -> float:
    """The uniform number in [0, 1) of one roll purpose in one turn."""
    return draw(turn, purpose(name)) * TO_UNIT


@dataclass(frozen=True)
class Classes:
    """A roll's classes: exact probabilities, a representative face list each, and where each class ends among the
    uniform whole numbers of `draw`."""

    exact: tuple[Fraction, ...]
    faces: tuple[tuple[int, ...], ...]
    # the cumulative probabilities as whole numbers of 2**-53, rounded up: a number n of `draw` (n * 2**-53 as a
    # uniform number) is at or past a class's end c exactly when n >= ceil(c * 2**53); the last is 2**53, above every
    # number, so the class found is always one of the table's
    thresholds: tuple[int, ...]

    def pick(self, n: int) -> int:
        """The class a uniform whole number in [0, 2**53) (`draw`) falls in."""
        return bisect_right(self.thresholds, n)


def class_of(spec: DiceSpec, faces: tuple[int, ...]) -> tuple[int, ...]:
    """What the rules read of a roll's faces (docs/odds.md): a Fudge roll's sum and whether every die is + or -, a
    pool's successes, a d20's natural face, a sum's total. Two face lists of one class are decided alike."""
    if spec.kind == "fudge":
        s = sum(faces)
        return (s, int(all(f == 1 for f in faces)), int(all(f == -1 for f in faces)))
    if spec.kind == "pool":
        return (pool_successes(faces),)
    return (sum(faces),)


_TABLES: dict[tuple[str, int, int], Classes] = {}


def classes(spec: DiceSpec) -> Classes:
    """The classes of a roll of this spec (kinds fudge, d20, pool and sum; the modifier does not change them)."""
    key = (spec.kind, spec.count, spec.sides)
    found = _TABLES.get(key)
    if found is None:
        found = _TABLES[key] = _build(spec)
    return found


def _build(spec: DiceSpec) -> Classes:
    if spec.expr is not None:
        raise ValueError("a dice expression has no classes")
    lo, hi = spec.face_range()
    one = {(f,): Fraction(1, hi - lo + 1) for f in range(lo, hi + 1)}
    # dynamic programming over the dice, one at a time: class -> (probability, representative faces)
    dist: dict[tuple[int, ...], tuple[Fraction, tuple[int, ...]]] = {(): (Fraction(1), ())}
    for _ in range(spec.count):
        nxt: dict[tuple[int, ...], tuple[Fraction, tuple[int, ...]]] = {}
        for (_, (p, faces)), ((face,), q) in product(dist.items(), one.items()):
            more = tuple(sorted((*faces, face)))
            key = class_of(spec, more)
            old = nxt.get(key)
            nxt[key] = (p * q, more) if old is None else (old[0] + p * q, min(old[1], more))
        dist = nxt
    items = sorted(dist.items())
    exact = tuple(p for _, (p, _) in items)
    ends, total = [], Fraction(0)
    for p in exact[:-1]:
        total += p
        ends.append(math.ceil(float(total) * 2.0**53))
    return Classes(exact, tuple(f for _, (_, f) in items), (*ends, 1 << 53))
