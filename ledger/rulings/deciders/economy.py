"""The action economy of an encounter's round: each action a character takes, tallied on the Encounter aggregate.

The tally lives on the Encounter (event `ActionTaken`, carrying the round's whole tally as an absolute value), so
undo, redo and retraction restore it exactly, like the order and the round: by refolding live events. The rules
say what kind of action a command is and whether the round allows it (RuleSystem.action_cost, take_action); the
campaign's `action-economy` setting says whether a problem refuses the ruling (default), warns or is not tracked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ledger.errors import ImpossibleAction
from ledger.model.event_names import NOTE_RECORDED
from ledger.model.sheet import Effect, Sheet
from ledger.rules.contract import RuleSystem
from ledger.rulings.draft import Draft

if TYPE_CHECKING:
    from ledger.encounter import Encounter


def mode(d: Draft) -> str:
    """The campaign's `action-economy` setting: refuse, warn or off."""
    return str(d.campaign.domain.get("settings", {}).get("action-economy", "refuse"))


def running(d: Draft) -> Encounter | None:
    """The running encounter, without creating one or marking it touched."""
    from eventsourcing.application import AggregateNotFoundError

    from ledger.encounter import ENCOUNTER_ID  # encounters only: other rulings never load the module

    try:
        enc: Encounter = d.load(ENCOUNTER_ID)
    except AggregateNotFoundError:
        return None
    return enc if enc.active else None


def tally(
    d: Draft, rules: RuleSystem, actor: Sheet, command: str, options: Mapping[str, Any], target: str | None = None
) -> str | None:
    """Count one action of `actor` in the running encounter's round; refuse or warn as the campaign says. The warning, if any."""
    from ledger.encounter import ENCOUNTER_ID, Encounter, find

    kind = rules.action_cost(command, actor, options)
    setting = mode(d)
    if kind is None or setting == "off":
        return None
    enc = running(d)
    if enc is None or find(enc.state["order"], actor.name) is None:
        return None  # outside an encounter, or not one of its participants: no round to count in
    st = enc.state
    now = {"encounter": st["number"], "round": st["round"]}
    held = st.get("actions") or {}
    by = dict(held.get("by", {})) if all(held.get(k) == v for k, v in now.items()) else {}
    mine, problem = rules.take_action(by.get(actor.name, {}), kind, actor.name, target)
    if problem and setting == "refuse":
        raise ImpossibleAction(
            problem, "pass the turn first: ledger encounter next (or: ledger init ... -o action-economy=warn)"
        )
    if problem:
        d.apply([Effect(NOTE_RECORDED, actor.name, {"kind": "warning", "text": problem})])
    d.touch(ENCOUNTER_ID)
    d.save_also(enc)
    d.trigger(enc, Encounter.ActionTaken, name=actor.name, kind=kind, actions={**now, "by": {**by, actor.name: mine}})
    return problem
