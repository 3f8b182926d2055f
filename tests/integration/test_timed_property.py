"""One owner per timed effect: random sequences of the operations that start and end timed effects -- the GM's
durations (`condition add --rounds|--until`), the rules' own timed effects (a charge, a run, an aim, a defend, extra
effort's Strength, a stun's pages), the turns that count them, `character set`, recovery, a victory point's Recover,
`encounter end`, leaving the fight -- never leave a counter, mark or modifier behind the effect it belongs to.

Texts: hnh-site/gameplay.txt (Starting Your Turn, Ending Your Turn: "End effects that last ..."), d20-supers.txt
(Charge: "+2 to Attack rolls and lose -2 to DR"), prowlers-and-paragons.txt (Attacks: "last 1 page for every 2 net
successes"); ledger/rules/durations.py counts them, RuleSystem.let_go owns what each takes along.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.application import Ledger
from ledger.errors import LedgerError
from ledger.model.sheet import Sheet
from ledger.rules import get_rules
from ledger.rules.durations import parse

NAMES = ["Ann", "Bob", "Cy"]
TRAITS = {
    "hnh": {"fighting": "4", "parry": "3", "dodge": "3", "toughness": "2", "strength": "2", "stamina": "1"},
    "d20": {"hp": "9", "dex": "12", "str": "13", "attack": "2"},
    "pnp": {"toughness": "3", "might": "3", "willpower": "2", "agility": "3", "perception": "2"},
}
CONDITIONS = {
    "hnh": ["dazed", "vulnerable", "prone", "stunned", "hindered"],
    "d20": ["prone", "flat-footed", "running", "charging", "unconscious"],
    "pnp": ["stunned", "prone"],
}
SET = {"hnh": ("stamina", ["0", "1", "3"]), "d20": ("hp", ["1", "4", "9", "20"]), "pnp": ("toughness", ["1", "2", "4"])}
MARKS = {
    "d20": {"charge-dr": "charging", "knocked-out": "unconscious"},
    "hnh": {},
    "pnp": {"scene:defeated": "defeated"},
}

who = st.sampled_from(NAMES)
op = st.one_of(
    st.tuples(st.just("impose"), who, st.integers(0, 4), st.sampled_from(["plain", "rounds", "start", "end"]), who),
    st.tuples(st.just("remove"), who, st.integers(0, 4)),
    st.tuples(st.just("next")),
    st.tuples(st.just("next")),
    st.tuples(st.just("next")),
    st.tuples(st.just("own"), who, who),
    st.tuples(st.just("own"), who, who),
    st.tuples(st.just("set"), who, st.integers(0, 3)),
    st.tuples(st.just("recover"), who),
    st.tuples(st.just("damage"), who, st.integers(1, 4)),
    st.tuples(st.just("end")),
    st.tuples(st.just("start")),
    st.tuples(st.just("leave"), who),
    st.tuples(st.just("join"), who),
)


def own(led: Ledger, system: str, actor: str, target: str, n: int) -> None:
    """One of the rules' own timed effects, by system."""
    if system == "d20":
        led.act(actor, ("charge", "run")[n % 2], {})
    elif system == "pnp":
        if actor != target:
            led.attack(actor, target, {"with": "might", "effect": "stun"})
    else:
        pick = n % 4
        if pick == 0:
            led.act(actor, "aim", {}, other=target if target != actor else None)
        elif pick == 1:
            led.act(actor, "defend", {"defense": "dodge"})
        elif pick == 2:
            led.act(actor, "extra-effort", {"benefit": "strength"})
        else:
            led.spend(actor, "victory-points", 1, purpose="recover:dazed")


def run(led: Ledger, system: str, o: tuple[Any, ...], step: int) -> None:
    kind = o[0]
    if kind == "impose":
        cond = CONDITIONS[system][o[2] % len(CONDITIONS[system])]
        how = o[3]
        if how == "rounds":
            led.condition(o[1], cond, add=True, rounds=1 + step % 3)
        elif how in ("start", "end"):
            led.condition(o[1], cond, add=True, until=how, of=o[4])
        else:
            led.condition(o[1], cond, add=True)
    elif kind == "remove":
        led.condition(o[1], CONDITIONS[system][o[2] % len(CONDITIONS[system])], add=False)
    elif kind == "next":
        led.next_turn()
    elif kind == "own":
        own(led, system, o[1], o[2], step)
    elif kind == "set":
        key, values = SET[system]
        led.set_traits(o[1], {key: values[o[2] % len(values)]})
    elif kind == "recover":
        if system == "hnh":
            led.recover(o[1], hours=1)
        elif system == "d20":
            led.recover(o[1], amount=2, cause="medical")
        else:
            led.recover(o[1], amount=1)
    elif kind == "damage":
        led.damage(o[1], o[2])
    elif kind == "end":
        led.end_encounter()
    elif kind == "start":
        led.start_encounter(NAMES, init={"Ann": 9, "Bob": 6, "Cy": 3} if system != "pnp" else None)
    elif kind == "leave":
        led.remove_from_encounter(o[1])
    else:
        led.join_encounter(o[1])


def left_behind(led: Ledger, system: str) -> list[str]:
    """Every counter, mark or modifier that outlived its effect, named."""
    rules = get_rules(system)
    try:
        enc = led.encounter()
        order = {e["name"] for e in enc["order"]}
        fighting = True
    except LedgerError:
        order, fighting = set(), False
    out: list[str] = []
    for name in NAMES:
        sheet: Sheet = led.sheet(name)
        held = rules.held_effects(sheet)
        for key in sheet.counters:
            p = parse(key)
            if p is None:
                continue
            kind, by, cond = p
            if kind not in ("rounds-held", "rounds-total") and not sheet.has(cond) and cond not in held:
                out.append(f"{name}: {key} outlived {cond}")
            if kind != "scene" and not fighting:
                out.append(f"{name}: {key} outlived the encounter")
            if fighting and kind.startswith("until-") and by not in order:
                out.append(f"{name}: {key} counted by {by}, who left the fight")
            if fighting and kind.startswith("rounds") and name not in order:
                out.append(f"{name}: {key} counted by the turns of {name}, who left the fight")
        for mark, cond in MARKS[system].items():
            if mark in sheet.counters and not sheet.has(cond):
                out.append(f"{name}: {mark} outlived {cond}")
        if system == "hnh":
            raised = sheet.counter("extra-strength")
            if sheet.traits.get("strength") not in (2 + raised, None) and not sheet.has("dead"):
                out.append(f"{name}: strength {sheet.traits.get('strength')} with extra-strength {raised}")
            if (sheet.counter("aim-vulnerable") or any(k.startswith("aim-at:") for k in sheet.counters)) and not (
                sheet.counter("aim")
            ):
                out.append(f"{name}: the aim's marks outlived the aim")
        if system == "pnp":
            for key, value in sheet.counters.items():
                if (
                    key.startswith("effect:")
                    and value == -2
                    and not any((q := parse(k)) is not None and q[0] in ("rounds", "scene") for k in sheet.counters)
                ):
                    out.append(f"{name}: {key} outlived the duration that counted its pages")
    return out


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(system=st.sampled_from(["hnh", "d20", "pnp"]), ops=st.lists(op, min_size=6, max_size=16), seed=st.integers(0, 9))
def test_no_counter_mark_or_modifier_outlives_its_effect(system: str, ops: list[tuple[Any, ...]], seed: int) -> None:
    """The module's passages: after every operation, each duration counts an effect the sheet still has, in a fight
    that still counts it (its turns' owner still in it), each mark (d20's -2 DR of a charge, the GM's knock-out; an
    aim's marks; P&P's defeat for the rest of the scene) goes with its condition, and extra effort's +1 Strength is
    on the sheet exactly while its effect is."""
    with tempfile.TemporaryDirectory() as tmp:
        led = Ledger(str(Path(tmp) / "t.ledger"), actor="gm", seed=seed)
        led.init(system)
        for name in NAMES:
            led.add_character(name, TRAITS[system], pc=name == "Ann")
        led.start_encounter(NAMES, init={"Ann": 9, "Bob": 6, "Cy": 3} if system != "pnp" else None)
        for step, o in enumerate(ops):
            try:
                run(led, system, o, step)
            except LedgerError:
                continue
            assert left_behind(led, system) == [], (o, step)
