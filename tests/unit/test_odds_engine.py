"""The simulator's bookkeeping: trials independent of how they are split, common dice across branches, policies.

docs/odds.md, What the dice are and What a simulated combatant does.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import orjson
import pytest

from ledger.errors import LedgerError
from ledger.model.dice import DiceSpec, Roll
from ledger.model.sheet import SHEET_EFFECTS, apply_all
from ledger.odds.dice import MASK, draw, purpose, trial_key, turn_key, uniform
from ledger.odds.engine import FOES, HEROES, POLICIES, Outcome, Simulator, Start
from ledger.odds.forecast import forecast, play, wilson
from ledger.odds.world import fighter
from ledger.rules import get_rules


def fight(system: str = "hnh") -> Start:
    """Two heroes against three foes, a planned fight."""
    rules = get_rules(system)
    hero = {"hnh": {"fighting": 6, "strength": 4, "parry": 5, "toughness": 4}, "pnp": {"might": 4, "agility": 3}}
    foe = {"hnh": {"fighting": 4, "strength": 3, "parry": 4, "toughness": 3}, "pnp": {"might": 3, "agility": 2}}
    fs = [
        fighter(rules, rules.new_sheet(f"H{i}", hero[system], minion=False, count=1, pc=True), HEROES) for i in (1, 2)
    ]
    fs += [
        fighter(rules, rules.new_sheet(f"F{i}", foe[system], minion=False, count=1, pc=False), FOES) for i in (1, 2, 3)
    ]
    return Start(system, tuple(fs), planned=True)


def test_two_processes_play_exactly_the_trials_one_plays() -> None:
    """docs/odds.md, What the dice are: each trial's dice depend on its number alone, so the forecast is the same
    document on one process or two."""
    start = fight("pnp")
    one = [(o.winner, o.rounds, o.out) for o in play(Simulator(start, seed=5), 400, workers=1)]
    two = [(o.winner, o.rounds, o.out) for o in play(Simulator(start, seed=5), 400, workers=2)]
    assert one == two
    a, _ = forecast(start, trials=400, seed=5, policy="spread", max_rounds=20, workers=1)
    b, _ = forecast(start, trials=400, seed=5, policy="spread", max_rounds=20, workers=2)
    assert a == b


def test_the_stream_keys_each_roll_by_seed_trial_actor_round_and_purpose() -> None:
    """docs/odds.md, What the dice are: one uniform number per (seed, trial, actor, round, roll name); changing any
    part changes it, repeating them repeats it."""
    base = uniform(turn_key(trial_key(1, 2), 3, 4), "attack")
    assert base == uniform(turn_key(trial_key(1, 2), 3, 4), "attack")
    others = [
        uniform(turn_key(trial_key(9, 2), 3, 4), "attack"),
        uniform(turn_key(trial_key(1, 9), 3, 4), "attack"),
        uniform(turn_key(trial_key(1, 2), 9, 4), "attack"),
        uniform(turn_key(trial_key(1, 2), 3, 9), "attack"),
        uniform(turn_key(trial_key(1, 2), 3, 4), "defense"),
    ]
    assert base not in others and all(0.0 <= u < 1.0 for u in others)


def _chi_square(counts: dict[tuple[int, ...], int], cells: int, n: int) -> float:
    """Pearson's chi-square of counts over `cells` equally likely cells (a cell never met adds its expectation)."""
    expected = n / cells
    met = sum((c - expected) ** 2 / expected for c in counts.values())
    return met + (cells - len(counts)) * expected


def _joint(turns: list[int], pids: list[int], bins: int, one: Callable[[int, int], int]) -> float:
    """Pearson's chi-square of the joint bins of one number per purpose over the turns, against independent uniform
    numbers (bins ** len(pids) equally likely cells)."""
    counts: dict[tuple[int, ...], int] = {}
    for turn in turns:
        cell = tuple(one(turn, pid) * bins >> 53 for pid in pids)
        counts[cell] = counts.get(cell, 0) + 1
    return _chi_square(counts, bins ** len(pids), len(turns))


def test_the_numbers_of_the_rolls_of_one_turn_are_uniform_and_independent() -> None:
    """docs/odds.md, What the dice are: each roll purpose in a turn gets its own uniform number, and the numbers of
    the purposes an H&H attack draws in one turn (attack, defense, power, toughness) are independent: Pearson's
    chi-square of their joint bins stays under the 99.9% point. The test has the power to see a bad draw: the turn's
    key XORed with the purpose's number alone, without the multiplier, fails it."""
    turns = [turn_key(trial_key(7, t), a, r) for t in range(1500) for a in range(4) for r in range(1, 6)]
    pids = [purpose(n) for n in ("attack", "defense", "power", "toughness")]
    # one purpose, 64 bins (63 degrees of freedom: 99.9% point 103.4)
    for pid in pids:
        assert _joint(turns, [pid], 64, draw) < 103.4
    # two purposes of one turn, 8 x 8 bins (63 degrees of freedom), every pair
    for k, p in enumerate(pids):
        for q in pids[k + 1 :]:
            assert _joint(turns, [p, q], 8, draw) < 103.4
    # three, 4 x 4 x 4 bins (63 degrees of freedom)
    assert _joint(turns, pids[:3], 4, draw) < 103.4
    assert _joint(turns, pids[1:], 4, draw) < 103.4
    bad = lambda turn, pid: ((turn ^ pid) & MASK) >> 11  # noqa: E731
    assert _joint(turns, pids[:2], 8, bad) > 1000


def test_each_policy_plays_and_the_same_seed_repeats_it() -> None:
    """docs/odds.md, What a simulated combatant does: focus-weakest, focus-dangerous and spread each play the fight; the
    same seed plays the same trials."""
    start = fight()
    for policy in POLICIES:
        first = [Simulator(start, policy, seed=3).trial(t) for t in range(40)]
        again = [Simulator(start, policy, seed=3).trial(t) for t in range(40)]
        assert first == again
        assert all(o.winner in (HEROES, FOES, None, "draw") for o in first)


def test_a_trial_past_max_rounds_is_unresolved() -> None:
    """docs/odds.md, Where a forecast starts: a trial that passes --max-rounds is unresolved."""
    out = Simulator(fight(), max_rounds=1, seed=2).trial(0)
    assert out.rounds == 1
    longer = [Simulator(fight(), max_rounds=50, seed=2).trial(t) for t in range(20)]
    assert any(o.winner is not None for o in longer)


def test_the_wilson_interval_holds_the_estimate_and_narrows_with_more_trials() -> None:
    """docs/odds.md, The output: a 95% Wilson score interval (Wilson 1927)."""
    lo, hi = wilson(30, 100)
    assert lo < 0.3 < hi
    lo2, hi2 = wilson(300, 1000)
    assert hi2 - lo2 < hi - lo
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)


def mixed_fight(system: str) -> Start:
    """Two heroes (one already hurt) against three identical foes and a minion group (H&H, P&P), a planned fight."""
    rules = get_rules(system)
    hero = {
        "hnh": {"fighting": 6, "strength": 4, "parry": 5, "dodge": 4, "toughness": 4},
        "d20": {"str": 14, "dex": 12, "attack": 3, "hp": 20},
        "pnp": {"might": 4, "agility": 3, "toughness": 3},
    }[system]
    foe = {
        "hnh": {"fighting": 4, "strength": 3, "parry": 4, "dodge": 3, "toughness": 3},
        "d20": {"str": 12, "dex": 12, "attack": 2, "hp": 12},
        "pnp": {"might": 3, "agility": 2, "toughness": 2},
    }[system]
    heroes = [rules.new_sheet(f"Hero {i}", hero, minion=False, count=1, pc=True) for i in (1, 2)]
    hurt = {"hnh": {"bruises": 2}, "d20": {"subdual": 3}, "pnp": {}}[system]
    heroes[1] = replace(heroes[1], hp=heroes[1].hp - 2, counters={**heroes[1].counters, **hurt})
    foes = [rules.new_sheet(f"Foe {i}", foe, minion=False, count=1, pc=False) for i in (1, 2, 3)]
    if system != "d20":  # d20 Supers has no minion groups
        foes.append(rules.new_sheet("Goons", foe, minion=True, count=3, pc=False))
    fs = [fighter(rules, s, HEROES) for s in heroes] + [fighter(rules, s, FOES) for s in foes]
    return Start(system, tuple(fs), planned=True)


@pytest.mark.parametrize("spend", [False, True])
@pytest.mark.parametrize("system", ["hnh", "d20", "pnp"])
def test_attacks_shared_across_names_and_unread_values_play_every_trial_as_their_own_sheets_do(
    system: str, spend: bool
) -> None:
    """docs/odds.md, How fast: an attack is decided once for every pair of sheets that differ only in their names and
    in values the rules did not read (the HP, counters and resources noted as read); every trial plays exactly what
    deciding each attack for its own two sheets plays (the same dice, the same outcome), with fewer rules calls."""
    start = mixed_fight(system)
    shared = Simulator(start, seed=11, spend=spend)
    own = Simulator(start, seed=11, spend=spend, sharing=False)
    assert [shared.trial(t) for t in range(150)] == [own.trial(t) for t in range(150)]
    assert not own.shared and shared.shared
    assert shared.calls < own.calls
    if system == "hnh":  # an H&H attack hands its damage to a staged part (ledger.model.dice.staged)
        assert shared.stages


def test_a_watched_sheet_notes_the_values_the_rules_read_and_not_the_keys() -> None:
    """docs/odds.md, How fast: a view keeps a sheet's counter and resource keys and leaves out their values and the
    HP; reading a value (or everything, as to_dict does) is noted with the number of rolls asked by then, a key the
    sheet lacks or the keys themselves are not."""
    from ledger.odds.engine import Recorder, Watch, watched

    plain = get_rules("hnh").new_sheet("A", {"toughness": 3}, minion=False, count=1, pc=True).to_dict()
    sheet = watched({**plain, "counters": {"bruises": 2}})
    watch = Watch(Recorder({}, 0, str))
    sheet.watch(watch, 1)
    assert list(sheet.counters) == ["bruises"] and "bruises" in sheet.counters
    assert sheet.counter("aid-attack:B") == 0
    assert watch.reads == []
    assert sheet.counter("bruises") == 2
    assert watch.reads == [(0, 1, "counters", "bruises", 2)]
    sheet.to_dict()
    assert [(r[2], r[3]) for r in watch.reads] == [("counters", "bruises"), ("hp", None)] + [
        ("resources", k) for k in sheet.__dict__["resources"]
    ]
    sheet.watch(None, 1)
    before = list(watch.reads)
    assert sheet.hp == sheet.__dict__["hp"] and watch.reads == before


def test_a_sheet_that_names_a_combatant_is_decided_with_its_own_pair() -> None:
    """docs/odds.md, How fast: a sheet whose data names a combatant (an aid or a hold on someone) has no view, so its
    attacks are keyed by the sheets themselves, not shared."""
    start = fight()
    sim = Simulator(start, seed=1)
    named = replace(start.fighters[0].sheet, counters={"aid-attack:F1": 1})
    assert sim.view[sim.intern(named)] == -1
    assert sim.view[sim.intern(start.fighters[1].sheet)] >= 0


class Counted(Simulator):
    """A simulator that notes which trials this process played (a forked child's notes stay in the child), and fails
    in any other process when told to."""

    def __init__(self, start: Start, fail_elsewhere: bool = False) -> None:
        super().__init__(start, seed=5)
        self.here = os.getpid()
        self.fail_elsewhere = fail_elsewhere
        self.played: list[int] = []

    def trial(self, t: int) -> Outcome:
        if self.fail_elsewhere and os.getpid() != self.here:
            raise MemoryError("a child that runs out of memory")
        self.played.append(t)
        return super().trial(t)


def _in_a_fresh_process(body: str) -> Any:
    """What `body` (Python that sets `result`) leaves in `result`, run in a new interpreter: `play` forks only in a
    process without threads, and a test process may hold some that earlier tests left (a pool, a server)."""
    code = (
        "import orjson\n"
        "from ledger.odds.engine import Simulator\n"
        "from ledger.odds.forecast import play\n"
        "from tests.unit.test_odds_engine import Counted, fight\n"
        f"{body}\n"
        "print(orjson.dumps(result).decode())\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True).stdout
    return orjson.loads(out.strip().splitlines()[-1])


def test_a_long_forecast_shares_its_first_trials_then_plays_half_the_rest_in_a_child() -> None:
    """docs/odds.md, How fast: on two cores this process plays the first trials, then a forked child plays the last
    half of the rest; the outcomes are those of one process, in trial order."""
    same, played = _in_a_fresh_process(
        "start = fight('pnp')\n"
        "one = play(Simulator(start, seed=5), 400, workers=1)\n"
        "sim = Counted(start)\n"
        "result = [play(sim, 400, workers=2) == one, sim.played]"
    )
    assert same
    assert played == list(range(len(played))) and 0 < len(played) < 400


def test_a_failed_child_s_trials_are_played_here() -> None:
    """docs/odds.md, How fast: a child that fails (out of memory, killed) costs time, not the forecast: its trials
    are played in this process and the outcomes are the same."""
    same, played = _in_a_fresh_process(
        "start = fight('pnp')\n"
        "one = play(Simulator(start, seed=5), 300, workers=1)\n"
        "sim = Counted(start, fail_elsewhere=True)\n"
        "result = [play(sim, 300, workers=2) == one, sim.played]"
    )
    assert same
    assert sorted(played) == list(range(300))


def test_a_process_with_threads_plays_every_trial_itself() -> None:
    """docs/odds.md, How fast: a process running threads (`ledger serve`) never forks; it plays every trial."""
    start = fight("pnp")
    stop = threading.Event()
    waiter = threading.Thread(target=stop.wait)
    waiter.start()
    try:
        sim = Counted(start)
        outcomes = play(sim, 200, workers=2)
    finally:
        stop.set()
        waiter.join()
    assert sim.played == list(range(200))
    assert outcomes == play(Simulator(start, seed=5), 200, workers=1)


class RandomFaces:
    """Random faces for whatever the rules ask (a seeded stand-in for the table's dice)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def take(self, name: str, spec: DiceSpec) -> Roll:
        lo, hi = spec.face_range()
        return Roll(name, spec, tuple(self.rng.randint(lo, hi) for _ in range(spec.count)), "entered")


@pytest.mark.parametrize("system", ["hnh", "d20", "pnp"])
def test_what_settles_a_step_reads_only_its_sheet_effects(system: str) -> None:
    """docs/odds.md, How fast: a stage's outcomes are settled once for every attack whose effects before it change the
    sheets alike, because `RuleSystem.own_timed` and `aftermath` read only the effects that change sheets: over many
    attacks with random faces, sheets hurt or fresh, leaving out the ruling effects changes neither."""
    rules = get_rules(system)
    start = mixed_fight(system)
    rng = random.Random(f"settle-{system}")
    sheets = {f.name: f.sheet for f in start.fighters}
    checked = 0
    for _ in range(400):
        f, g = rng.sample(start.fighters, 2)
        me, them = sheets[f.name], sheets[g.name]
        try:
            effects = rules.attack(me, them, f.attack, RandomFaces(rng))
        except LedgerError:
            sheets = {f.name: f.sheet for f in start.fighters}  # someone is down: a fresh fight
            continue
        only = [e for e in effects if e.event in SHEET_EFFECTS]
        timed = rules.own_timed(effects, f.name, start.version)
        assert [e for e in timed if e.event in SHEET_EFFECTS] == rules.own_timed(only, f.name, start.version)
        after = {n: apply_all(s, timed) for n, s in sheets.items()}
        assert rules.aftermath(timed, after.__getitem__) == rules.aftermath(
            [e for e in timed if e.event in SHEET_EFFECTS], after.__getitem__
        )
        sheets = after
        checked += 1
    assert checked > 100
