"""The forecast's dice and attacks against exact answers computed apart from the simulator.

Each per-roll table (3dF sums and the degrees of a check, d20 faces, P&P pool successes) equals icepool 2.1.3's. For
each system, 20 one-against-one fixtures: the chance that one plain attack hits (and is a critical hit, and in d20
kills outright) is computed by icepool from the rules texts, and equals exactly the simulator's, which enumerates
every class of every roll through the rules (`Simulator.enumerate_attack`); a few fixtures are also sampled at
100,000 trials through the simulator's own dice stream and fall within 4 standard errors. Texts: hnh
the-basics.txt (Checks, Critical Success, Graded Checks), gameplay.txt (Attack Check); d20-supers.txt (To Attack,
Critical Hits, Instant Death); prowlers-paragons (Challenge Rolls: 2 and 4 one success, 6 two; Attacks).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import icepool
import pytest

from ledger.model.dice import DiceSpec, Roll, fudge, pool
from ledger.odds.dice import classes
from ledger.odds.engine import Fighter, Simulator, Start
from ledger.odds.world import fighter
from ledger.rules import get_rules
from ledger.rules.hnh.checks import roll_check, versus_dc

F = icepool.Die([-1, 0, 1])
FUDGE3 = icepool.map(lambda a, b, c: (a + b + c, a == b == c == 1, a == b == c == -1), F, F, F)
D20 = icepool.d20
SUCCESSES = icepool.Die({0: 3, 1: 2, 2: 1})  # 1, 3, 5: none; 2, 4: one; 6: two


def by_total(spec: DiceSpec) -> dict[int, Fraction]:
    """The simulator's classes of a roll summed by the total the rules read."""
    t = classes(spec)
    out: dict[int, Fraction] = {}
    for faces, p in zip(t.faces, t.exact, strict=True):
        total = spec.total(faces)
        out[total] = out.get(total, Fraction(0)) + p
    return out


def icepool_table(die: Any) -> dict[int, Fraction]:
    return {int(k): Fraction(die.probability(k)) for k in die.outcomes()}


# -- per-roll tables --------------------------------------------------------------------------------------------


def test_3dF_classes_equal_icepools_3dF_with_their_criticals() -> None:
    """the-basics.txt, Checks: 3dF, each die -1, 0 or +1; all three + or all three - are the criticals. The classes
    (sum, all +, all -) carry exactly icepool's probabilities."""
    t = classes(fudge())
    mine = {(sum(f), all(x == 1 for x in f), all(x == -1 for x in f)): p for f, p in zip(t.faces, t.exact, strict=True)}
    exact = {k: Fraction(FUDGE3.probability(k)) for k in FUDGE3.outcomes()}
    assert mine == exact
    assert by_total(fudge()) == icepool_table(3 @ F)


@pytest.mark.parametrize("bonus,dc", [(0, 0), (2, 5), (5, 3), (0, 4), (8, 2), (-1, 1)])
def test_3dF_degrees_table_through_the_rules_equals_icepools(bonus: int, dc: int) -> None:
    """the-basics.txt, Graded Checks: degrees are the difference over 3, rounded up (0 is one degree); Critical
    Success adds 1 to the total, a Critical Failure of an ability check always fails. The degrees of a check against a
    DC, every class through the rules' roll_check and versus_dc, equal icepool's from the text."""
    t = classes(fudge(bonus))
    mine: dict[tuple[bool, int], Fraction] = {}
    for faces, p in zip(t.faces, t.exact, strict=True):

        class One:
            def take(self, name: str, spec: DiceSpec, faces: tuple[int, ...] = faces) -> Roll:
                return Roll(name, spec, faces, "seeded")

        key = versus_dc(roll_check(One(), "check", bonus, "ability"), dc)
        mine[key] = mine.get(key, Fraction(0)) + p

    def text(r: tuple[int, bool, bool]) -> tuple[bool, int]:
        s, plus, minus = r
        total = s + bonus + (1 if plus else 0)
        deg = max(1, -(-abs(total - dc) // 3))
        if minus:
            return (False, deg if total < dc else 1)
        return (total >= dc, deg)

    exact_die = FUDGE3.map(text)
    exact = {k: Fraction(exact_die.probability(k)) for k in exact_die.outcomes()}
    assert mine == exact


def test_d20_faces_equal_icepools_d20() -> None:
    """d20-supers.txt, To Attack: one d20; every face 1/20."""
    assert by_total(DiceSpec("d20", 1, 20)) == icepool_table(D20)


@pytest.mark.parametrize("n", range(1, 13))
def test_pool_successes_equal_icepools(n: int) -> None:
    """Prowlers & Paragons, Challenge Rolls: every 2 or 4 is one success, every 6 two."""
    assert by_total(pool(n)) == icepool_table(n @ SUCCESSES)


# -- one-against-one fixtures -----------------------------------------------------------------------------------


def duel(system: str, a: dict[str, Any], t: dict[str, Any], attack: dict[str, Any] | None = None) -> Simulator:
    rules = get_rules(system)
    me = rules.new_sheet("A", a, minion=False, count=1, pc=True)
    them = rules.new_sheet("T", t, minion=False, count=1, pc=False)
    fa = fighter(rules, me, "heroes")
    if attack is not None:
        fa = Fighter("A", "heroes", me, rules.parse_options("attack", attack), 0)
    return Simulator(Start(system, (fa, fighter(rules, them, "foes")), planned=True), seed=7)


def enumerated(sim: Simulator) -> dict[str, Fraction]:
    out = {"hit": Fraction(0), "critical": Fraction(0), "dead": Fraction(0)}
    for p, leaf in sim.enumerate_attack(0, 1):
        out["hit"] += p * leaf.hit
        out["critical"] += p * leaf.critical
        after = dict(leaf.changes).get(1)
        out["dead"] += p * bool(after is not None and sim.sheets[after].has("dead"))
    return out


SAMPLES = 100_000


def sampled(sim: Simulator, want: dict[str, Fraction]) -> None:
    """The simulator's own dice (the stream of seed, trial, actor, round and roll) at 100,000 trials: each chance in
    `want` (hit, critical, dead) within 4 standard errors of the exact one."""
    counts = dict.fromkeys(want, 0)
    for k in range(SAMPLES):
        leaf, state = sim.attack_once(k, 0, 1)
        counts["hit"] += leaf.hit
        if "critical" in counts:
            counts["critical"] += leaf.critical
        if "dead" in counts:
            counts["dead"] += sim.sheets[state[1]].has("dead")
    for what, exact in want.items():
        p = float(exact)
        se = math.sqrt(p * (1 - p) / SAMPLES)
        assert abs(counts[what] / SAMPLES - p) <= 4 * se, (what, counts[what] / SAMPLES, p)


HNH = [(f, s, p, tough) for f, s, p, tough in
       [(6, 4, 5, 4), (2, 2, 6, 2), (8, 6, 2, 3), (4, 4, 4, 4), (0, 1, 9, 1), (10, 3, 1, 6), (5, 8, 5, 8),
        (3, 3, 3, 0), (7, 2, 7, 2), (1, 5, 0, 5), (9, 9, 4, 4), (4, 0, 8, 1), (6, 6, 6, 6), (2, 7, 1, 9),
        (5, 5, 10, 3), (12, 4, 4, 12), (3, 1, 5, 2), (8, 8, 8, 1), (0, 0, 0, 0), (11, 2, 9, 4)]]  # fmt: skip


def hnh_exact(bonus: int, parry: int) -> dict[str, Fraction]:
    """gameplay.txt, Attack Check: 3dF + attack bonus against the target's Parry check (close); all + hits and
    threatens a critical hit (a critical hit if the total also meets the defense); all - always misses; a defense
    check of all - fails (the attack hits); a defense of all + adds 1 (the-basics.txt, Critical Success)."""

    def hit(atk: tuple[int, bool, bool], dfn: tuple[int, bool, bool]) -> tuple[bool, bool]:
        total = atk[0] + bonus
        defense = dfn[0] + parry + (1 if dfn[1] else 0)
        if atk[2]:
            return (False, False)
        if atk[1]:
            return (True, total >= defense)
        return (total >= defense or dfn[2], False)

    die = icepool.map(hit, FUDGE3, FUDGE3)
    p = {k: Fraction(die.probability(k)) for k in die.outcomes()}
    return {
        "hit": sum((v for k, v in p.items() if k[0]), Fraction(0)),
        "critical": sum((v for k, v in p.items() if k[1]), Fraction(0)),
    }


@pytest.mark.parametrize("fighting,strength,parry,toughness", HNH)
def test_hnh_one_attack_hits_and_crits_exactly_as_icepool_says(
    fighting: int, strength: int, parry: int, toughness: int
) -> None:
    """gameplay.txt, Attack Check and Critical Hits: the simulator's unarmed attack (Fighting against Parry), every
    class of every roll through the rules, hits and crits with icepool's exact probabilities; its own dice at 100,000
    trials within 4 standard errors of them."""
    sim = duel("hnh", {"fighting": fighting, "strength": strength}, {"parry": parry, "toughness": toughness})
    got = enumerated(sim)
    want = hnh_exact(fighting, parry)
    assert (got["hit"], got["critical"]) == (want["hit"], want["critical"])
    sampled(sim, want)


D20_CASES = [(att, s, dex, armor, dmg) for att, s, dex, armor, dmg in
             [(3, 14, 12, 0, None), (0, 10, 10, 0, None), (8, 18, 14, 2, "1d8"), (1, 12, 16, 4, "2d6"),
              (5, 10, 10, 0, "1d8"), (10, 20, 10, 0, None), (2, 8, 18, 5, "1d6"), (4, 16, 12, 1, "1d10"),
              (-2, 6, 10, 0, None), (6, 14, 20, 6, "1d8"), (0, 10, 10, 10, "1d4"), (12, 12, 12, 0, "1d12"),
              (3, 13, 11, 3, None), (7, 15, 9, 1, "2d4"), (1, 10, 14, 0, "1d8"), (9, 11, 13, 2, None),
              (5, 17, 15, 5, "3d6"), (2, 10, 10, 0, "1d3"), (15, 10, 10, 0, "1d8"), (0, 3, 10, 8, None)]]  # fmt: skip


def d20_exact(bonus: int, dr: int, subdual: bool) -> dict[str, Fraction]:
    """d20-supers.txt, To Attack: d20 + attack bonus + Str modifier breaks the DR; a natural 20 always does, a natural
    1 never. Critical Hits: after a natural 20 a second roll that breaks the DR confirms it. Instant Death: after a
    critical hit of lethal damage, a third roll that breaks the DR kills."""

    def breaks(n: int) -> bool:
        return n == 20 or (n != 1 and n + bonus >= dr)

    hit = Fraction(D20.map(breaks).probability(True))
    crit = Fraction(1, 20) * hit
    dead = Fraction(0) if subdual else crit * hit
    return {"hit": hit, "critical": crit, "dead": dead}


def ability_mod(score: int) -> int:
    return (score - 10) // 2


@pytest.mark.parametrize("attack,strength,dex,armor,damage", D20_CASES)
def test_d20_one_attack_hits_crits_and_kills_exactly_as_icepool_says(
    attack: int, strength: int, dex: int, armor: int, damage: str | None
) -> None:
    """d20-supers.txt, To Attack, Critical Hits, Instant Death (fists are subdual and never kill outright): the
    simulator's attack, every class through the rules, equals icepool's critical chain; its own dice at 100,000
    trials fall within 4 standard errors of it."""
    hp = 10_000  # no damage roll decides who dies: only Instant Death does
    sim = duel(
        "d20",
        {"attack": attack, "str": strength, "hp": 20},
        {"dex": dex, "armor": armor, "hp": hp},
        {"damage": damage} if damage else {},
    )
    got = enumerated(sim)
    dr = 10 + ability_mod(dex) + armor
    want = d20_exact(attack + ability_mod(strength), dr, subdual=damage is None)
    assert got == want
    sampled(sim, want)


PNP_CASES = [(a, d) for a in (1, 2, 3, 4, 5) for d in (1, 2, 3, 5)]


def pnp_exact(attack: int, defense: int) -> Fraction:
    """Prowlers & Paragons, Attacks: the attack pool's successes against the defense pool's; more hits."""
    return Fraction(((attack @ SUCCESSES) - (defense @ SUCCESSES)).map(lambda x: x > 0).probability(True))


@pytest.mark.parametrize("attack,defense", PNP_CASES)
def test_pnp_one_attack_hits_exactly_as_icepool_says(attack: int, defense: int) -> None:
    """Prowlers & Paragons, Attacks: the simulator's attack with Might against the target's Agility (its best defense),
    every class of both pools through the rules, hits with icepool's exact probability; its own dice at 100,000 trials
    within 4 standard errors of it."""
    sim = duel("pnp", {"might": attack}, {"agility": defense, "might": 1})
    assert enumerated(sim)["hit"] == pnp_exact(attack, defense)
    sampled(sim, {"hit": pnp_exact(attack, defense)})
