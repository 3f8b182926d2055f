"""The forecast's attack is the ruling `ledger attack NAME TARGET [--with POWER]` records, for the same faces.

For each system a fight is recorded attack by attack through the real CLI, each attack's dice entered; before each,
the simulator decides the same attack from the same sheets with the same faces, and the sheets it leaves must equal
the ones the ruling recorded (hnh gameplay.txt Attack Check and Damage; d20-supers.txt To Attack and Damage; P&P
Attacks). Then the classes the trials draw from: any faces decide as their class's representative does
(docs/odds.md, What the dice are).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from ledger.application import Ledger
from ledger.model.dice import DiceSpec, Roll
from ledger.odds.dice import class_of, classes
from ledger.odds.engine import Simulator
from ledger.odds.world import World
from tests.conftest import Cli

SETUPS: dict[str, list[list[str]]] = {
    "hnh": [
        ["init", "--system", "hnh", "--name", "T", "-o", "action-economy=off"],
        ["character", "add", "Ann", "--trait", "fighting=6", "--trait", "strength=4", "--trait", "parry=5",
         "--trait", "toughness=4", "--trait", "dodge=4", "--pc"],
        ["character", "add", "Bob", "--trait", "fighting=5", "--trait", "strength=3", "--trait", "parry=4",
         "--trait", "toughness=3", "--trait", "dodge=3"],
        ["character", "add", "Thugs", "--minion", "--count", "3", "--trait", "parry=1", "--trait", "toughness=1",
         "--trait", "fighting=2", "--trait", "strength=2"],
        ["encounter", "start", "Ann", "Bob", "Thugs", "--init", "Ann=9", "--init", "Bob=5", "--init", "Thugs=2"],
    ],
    "d20": [
        ["init", "--system", "d20", "--name", "T", "-o", "action-economy=off"],
        ["character", "add", "Ann", "--trait", "str=14", "--trait", "dex=12", "--trait", "attack=3", "--trait",
         "hp=14", "--pc"],
        ["character", "add", "Bob", "--trait", "str=12", "--trait", "dex=10", "--trait", "attack=2", "--trait", "hp=9"],
        ["encounter", "start", "Ann", "Bob", "--init", "Ann=15", "--init", "Bob=5"],
    ],
    "pnp": [
        ["init", "--system", "pnp", "--name", "T"],
        ["character", "add", "Ann", "--trait", "might=3", "--trait", "agility=3", "--trait", "toughness=6", "--pc"],
        ["character", "add", "Bob", "--trait", "might=3", "--trait", "agility=3", "--trait", "toughness=6"],
        ["character", "add", "Goons", "--minion", "--count", "6", "--trait", "threat=2"],
        ["encounter", "start", "Ann", "Bob", "Goons"],
    ],
}  # fmt: skip


class Faces:
    """Random faces for whatever the rules ask, kept by name (what the ruling is then given with --roll)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.taken: dict[str, Roll] = {}

    def take(self, name: str, spec: DiceSpec) -> Roll:
        lo, hi = spec.face_range()
        roll = Roll(name, spec, tuple(self.rng.randint(lo, hi) for _ in range(spec.count)), "entered")
        self.taken[name] = roll
        return roll


def entered(roll: Roll) -> str:
    return ",".join(str(f) for f in roll.faces)


@pytest.mark.parametrize("system", sorted(SETUPS))
def test_the_simulators_attack_records_what_the_attack_ruling_records(system: str, db: str) -> None:
    """Each plain attack the simulator decides leaves the sheets the ruling `ledger attack A T [--with P]` with the
    same faces records, in a fight played until one side is down (each system's attack rules)."""
    cli = Cli(db)
    for args in SETUPS[system]:
        cli.ok(*args)
    rng = random.Random(f"equivalence-{system}")
    checked = 0
    for _ in range(40):
        ledger = Ledger(db, actor="tester")
        try:
            start = World(ledger).running({})
            sim = Simulator(start)
            alive = [i for i, s in enumerate(sim.initial) if not sim.out[s]]
            heroes = [i for i in alive if start.fighters[i].side == "heroes"]
            foes = [i for i in alive if start.fighters[i].side == "foes"]
            if not heroes or not foes:
                break
            i, j = (heroes[0], foes[0]) if checked % 2 == 0 else (foes[0], heroes[0])
            dice = Faces(rng)
            leaf = sim.attack_with(i, j, dice)
        finally:
            ledger.close()
        a, t = start.fighters[i], start.fighters[j]
        args = ["attack", a.name, t.name]
        if "with" in a.attack:
            args += ["--with", str(a.attack["with"])]
        for name, roll in dice.taken.items():
            args += ["--roll", f"{name}={entered(roll)}"]
        cli.ok(*args)
        after = Ledger(db, actor="tester")
        try:
            for k in (i, j):
                want = after.sheet(start.fighters[k].name).to_dict()
                got = sim.sheets[dict(leaf.changes).get(k, sim.initial[k])].to_dict()
                assert got == want, (args, k)
        finally:
            after.close()
        checked += 1
    assert checked >= 6


def _decide(sim: Simulator, i: int, j: int, faces: dict[str, tuple[int, ...]]) -> Any:
    class Given:
        def take(self, name: str, spec: DiceSpec) -> Roll:
            return Roll(name, spec, faces[name], "seeded")

    leaf = sim.attack_with(i, j, Given())
    return tuple((k, sim.sheets[s].to_dict()) for k, s in leaf.changes), leaf.hit, leaf.critical


@pytest.mark.parametrize("system", sorted(SETUPS))
def test_any_faces_decide_as_their_class_does(system: str, tmp_path: Any) -> None:
    """docs/odds.md, What the dice are: faces with the same class (a 3dF sum with its criticals, a pool's successes, a
    d20's face, a sum's total) are decided alike by the rules: 300 random face lists against their class's
    representative."""
    db = str(tmp_path / "t.ledger")
    cli = Cli(db)
    for args in SETUPS[system]:
        cli.ok(*args)
    ledger = Ledger(db, actor="tester")
    try:
        sim = Simulator(World(ledger).running({}))
    finally:
        ledger.close()
    rng = random.Random(f"classes-{system}")
    n = len(sim.fighters)
    for k in range(300):
        i, j = k % n, (k + 1) % n
        if sim.fighters[i].side == sim.fighters[j].side:
            j = next(x for x in range(n) if sim.fighters[x].side != sim.fighters[i].side)
        dice = Faces(rng)
        try:
            sim.attack_with(i, j, dice)
        except Exception:  # noqa: BLE001 - a refused attack is refused whatever the faces
            continue
        faces = {name: r.faces for name, r in dice.taken.items()}
        reps = {}
        for name, r in dice.taken.items():
            table = classes(r.spec)
            want = class_of(r.spec, r.faces)
            reps[name] = next(f for f in table.faces if class_of(r.spec, f) == want)
        assert _decide(sim, i, j, faces) == _decide(sim, i, j, reps)
