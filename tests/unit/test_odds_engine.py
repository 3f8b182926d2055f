"""The simulator's bookkeeping: trials independent of how they are split, common dice across branches, policies.

docs/odds.md, What the dice are and What a simulated combatant does.
"""

from __future__ import annotations

import pytest

from ledger.odds.dice import trial_key, turn_key, uniform
from ledger.odds.engine import FOES, HEROES, POLICIES, Simulator, Start
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
