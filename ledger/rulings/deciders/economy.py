"""The action economy of an encounter's round: each action a character takes, tallied on the Encounter aggregate.

The tally lives on the Encounter (event `ActionTaken`, carrying the round's whole tally as an absolute value), so
undo, redo and retraction restore it exactly, like the order and the round: by refolding live events. The rules
say what kind of action a command is and whether the round allows it (RuleSystem.action_cost, take_action); the
campaign's `action-economy` setting says whether a problem refuses the ruling (default), warns or is not tracked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from eventsourcing.application import AggregateNotFoundError

from ledger.errors import ImpossibleAction
from ledger.model.event_names import NOTE_RECORDED
from ledger.model.sheet import Effect, Sheet
from ledger.rules.contract import RuleSystem
from ledger.rulings.draft import Draft

if TYPE_CHECKING:
    from ledger.encounter import Encounter


def mode(d: Draft) -> str:
    """The campaign's `action-economy` setting: refuse, warn or off."""
    return mode_of(d.campaign.domain.get("settings", {}))


def mode_of(settings: Mapping[str, Any]) -> str:
    """The `action-economy` setting among a campaign's settings (`init -o`): refuse (unless set), warn or off."""
    return str(settings.get("action-economy", "refuse"))


def acted(tally: Mapping[str, Any]) -> bool:
    """Whether a character's tally this round holds an action taken (a count above 0, or a flag such as d20's
    charge attack): H&H's Delay is refused once it does (`RuleSystem.delay_refused`)."""
    return any(isinstance(v, int) and v > 0 for v in tally.values())


def running(d: Draft) -> Encounter | None:
    """The running encounter, without creating one or marking it touched."""
    # lazy: the encounter, only while one runs; kept out of a one-shot write
    from ledger.encounter import ENCOUNTER_ID  # encounters only: other rulings never load the module

    try:
        enc: Encounter = d.load(ENCOUNTER_ID)
    except AggregateNotFoundError:
        return None
    return enc if enc.active else None


def carried(d: Draft, rules: RuleSystem, held: Mapping[str, Any], now: Mapping[str, Any]) -> dict[str, Any]:
    """A new round's tally: nothing, but (from the tracker's version 5) the once-a-round uses that are ready again only
    at their bearer's own turn (`RuleSystem.own_turn_uses`: d20's Attack of Opportunity) stay used until it comes."""
    # lazy: the tracker's version, only while an encounter runs
    from ledger.rulings.deciders.durations import NATURAL, version

    if version(d) < NATURAL or not rules.own_turn_uses or held.get("encounter") != now["encounter"]:
        return {}
    out: dict[str, Any] = {}
    for name, t in (held.get("by") or {}).items():
        kept = {k: t[k] for k in rules.own_turn_uses if t.get(k)}
        if kept:
            out[name] = kept
    return out


def refresh(d: Draft, rules: RuleSystem, name: str) -> None:
    """At the start of `name`'s own turn, their once-a-round uses are ready again (`RuleSystem.own_turn_uses`),
    recorded as the round's tally without them (from the tracker's version 5)."""
    # lazy: the encounter and the tracker's version, only while one runs
    from ledger.encounter import ENCOUNTER_ID, Encounter
    from ledger.rulings.deciders.durations import NATURAL, version

    if version(d) < NATURAL or not rules.own_turn_uses:
        return
    # the encounter this ruling is changing already (a turn passing), else as stored
    enc = next((a for a in d.extra_aggregates if isinstance(a, Encounter)), None) or running(d)
    if enc is None or not enc.active:
        return
    held = enc.state.get("actions") or {}
    mine = (held.get("by") or {}).get(name) or {}
    if held.get("encounter") != enc.state["number"] or not any(mine.get(k) for k in rules.own_turn_uses):
        return
    fresh = {k: v for k, v in mine.items() if k not in rules.own_turn_uses}
    d.touch(ENCOUNTER_ID)
    d.save_also(enc)
    d.trigger(enc, Encounter.ActionTaken, name=name, kind="ready", actions={**held, "by": {**held["by"], name: fresh}})


def tally(
    d: Draft, rules: RuleSystem, actor: Sheet, command: str, options: Mapping[str, Any], target: str | None = None
) -> str | None:
    """Count one action of `actor` in the running encounter's round; refuse or warn as the campaign says. The warning,
    if any."""
    # lazy: the encounter, only while one runs; kept out of a one-shot write
    from ledger.aggregates import name_key
    from ledger.encounter import ENCOUNTER_ID, Encounter, find, round_tallies

    kind = rules.action_cost_after(command, actor, d.sheet(actor.name), options)
    setting = mode(d)
    if kind is None or setting == "off":
        return None
    enc = running(d)
    if enc is None or find(enc.state["order"], actor.name) is None:
        return None  # outside an encounter, or not one of its participants: no round to count in
    st = enc.state
    if rules.actions_per_turn and st["order"] and name_key(enc.current["name"]) != name_key(actor.name):
        d.apply(rules.reacted(d.sheet(actor.name)))  # what an action out of turn spends (H&H: a readied action)
        return None  # a budget per own turn: out of it, a reaction or a readied action, not counted
    now = {"encounter": st["number"], "round": st["round"]}
    held = st.get("actions") or {}
    this_round = round_tallies(st)
    by = this_round if this_round is not None else carried(d, rules, held, now)
    mine, problem = rules.take_action(by.get(actor.name, {}), kind, actor.name, target)
    if problem and setting == "refuse":
        per = (
            "turn: it starts again at their next turn"
            if rules.actions_per_turn
            else "round: it starts again next round"
        )
        raise ImpossibleAction(
            problem, f"the count is per {per} (a campaign set up with -o action-economy=warn only warns)"
        )
    if problem:
        d.apply([Effect(NOTE_RECORDED, actor.name, {"kind": "warning", "text": problem})])
    d.touch(ENCOUNTER_ID)
    d.save_also(enc)
    d.trigger(enc, Encounter.ActionTaken, name=actor.name, kind=kind, actions={**now, "by": {**by, actor.name: mine}})
    return problem
