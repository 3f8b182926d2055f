"""Retracting a contested ruling: re-derive every later live ruling against the history without it.

Each later play ruling is decided again from its recorded command, intent and dice, in a world built by
refolding the history before the retracted ruling. A roll that was never made (an attack that now hits
needs its damage roll) is taken from `--roll N.NAME=FACES` or rolled, and the plan says which. The plan
lists every ruling whose outcome changes and every aggregate whose state changes; committing it appends
the retraction, the amended outcomes and the restored states as new events. Nothing is edited.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, cast
from uuid import UUID

from ledger.aggregates import CAMPAIGN_ID, Campaign, Character, Ruling, folds, live_records, payload, ruling_id
from ledger.errors import Conflict, LedgerError, NotFound
from ledger.model.dice import DiceBox, DiceSpec, Roll
from ledger.model.event_names import DICE_ROLLED, RULING_RECORDED
from ledger.rulings.deciders.table import decider_of
from ledger.rulings.draft import Draft

if TYPE_CHECKING:
    from ledger.rulings.intents import Intent
    from ledger.storage.store import EventStore

META = ("undo", "redo")
Records = list[dict[str, Any]]


@dataclass
class Change:
    """A later ruling whose outcome differs without the retracted one."""

    ruling: int
    command: str
    before: Records
    after: Records
    refused: str | None
    dice: list[dict[str, Any]]


@dataclass
class Plan:
    """What retracting `target` changes: re-derived rulings and the aggregates' states before and after."""

    target: int
    command: str
    number: int
    changes: list[Change] = field(default_factory=list)
    states: dict[str, tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    created: list[str] = field(default_factory=list)  # aggregates the re-derived history makes that the log has not
    rolled: list[Roll] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """Plain data for --json and the text diff."""
        return {
            "target": self.target,
            "command": self.command,
            "rederived": [
                {
                    "ruling": c.ruling,
                    "command": c.command,
                    "refused": c.refused,
                    "before": c.before,
                    "after": c.after,
                    "new_dice": c.dice,
                }
                for c in self.changes
            ],
            "states": {k: {"kind": self.kinds[k], "before": b, "after": a} for k, (b, a) in self.states.items()},
            "new_rolls": [
                {"ruling": int(r.name.split(".")[0]), **r.to_data(), "name": r.name.split(".", 1)[1]}
                for r in self.rolled
            ],
        }


class ReplayDice:
    """Recorded faces first; a roll never made comes from the GM's `N.NAME` entry, a fixed earlier roll, or the box."""

    def __init__(self, number: int, recorded: dict[str, Roll], box: DiceBox, fixed: dict[str, Roll]) -> None:
        self.number = number
        self.recorded = recorded
        self.box = box
        self.fixed = fixed
        self.taken: dict[str, Roll] = {}
        self.new: list[Roll] = []

    def take(self, name: str, spec: DiceSpec) -> Roll:
        """Hand back the recorded roll; otherwise supply a new one and remember it."""
        rec = self.recorded.get(name)
        if rec is not None and len(rec.faces) == spec.count:
            roll = Roll(name, spec, rec.faces, rec.source)
        else:
            key = f"{self.number}.{name}"
            old = self.fixed.get(key)
            roll = replace(old, spec=spec) if old and len(old.faces) == spec.count else self.box.take(key, spec)
            roll = replace(roll, name=name, spec=spec, used=True)  # keeps a committed die's commitment
            self.new.append(replace(roll, name=key))
        self.taken[name] = roll
        return roll

    def unused(self, *_: Any) -> list[Roll]:
        """Replay keeps no unused rolls of its own."""
        return []

    @property
    def entered(self) -> dict[str, str]:
        """The recorded rolls' names, as a live box's entered rolls (initiative rolls are named after participants)."""
        return dict.fromkeys(self.recorded, "")


def current_fields(aggregate: Any) -> dict[str, Any]:
    """An aggregate's restorable state, in the shape its restoration event carries."""
    return aggregate.restorable()


class Rederiver:
    """Plans (and lets the caller commit) the retraction of one ruling."""

    def __init__(
        self,
        store: EventStore,
        seed: int | None,
        campaign: Campaign,
        target: int,
        entered: dict[str, str],
        fixed: dict[str, Roll],
        committed: Mapping[str, Any] | None = None,
    ) -> None:
        self.store = store
        self.campaign = campaign
        self.target = target
        self.number = campaign.rulings + 1
        # `committed`: the open session's dice commitment and secret (ledger/storage/secrets.py session_dice), if any
        self.box = DiceBox(
            entered=entered, seed=seed, salt=f"retract/{self.number}", ruling=self.number, **(committed or {})
        )
        self.fixed = fixed
        self.histories: dict[UUID, list[Any]] = {}
        hyp = copy.copy(campaign)
        hyp.dead = {**campaign.dead, str(target): self.number}
        self.dead = hyp.dead_set()
        live = hyp.live_amendments()
        self.amend = {n: self._amendment_records(n, by) for n, by in live.items()}
        self.world: dict[UUID, Any] = {}

    # -- history access ---------------------------------------------------------------------
    def history(self, aid: UUID) -> list[Any]:
        """An aggregate's stored events (cached)."""
        if aid not in self.histories:
            self.histories[aid] = list(self.store.events.get(aid))
        return self.histories[aid]

    def _amendment_records(self, n: int, by: int) -> Records:
        return self.store.repository.get(ruling_id(by)).amendments[str(n)]["records"]

    def _mine(self, aid: UUID, amend: dict[int, Records], below: int | None = None) -> dict[int, Records]:
        return {
            n: [r for r in recs if r["aggregate"] == aid.hex] for n, recs in amend.items() if below is None or n < below
        }

    # -- the world before the target --------------------------------------------------------
    def load(self, aid: UUID) -> Any:
        """An aggregate as it stood before the target ruling (kept in the world once loaded)."""
        if aid in self.world:
            return self.world[aid]
        from eventsourcing.application import AggregateNotFoundError

        history = self.history(aid)
        if not history:
            raise AggregateNotFoundError(aid)
        before = self.dead | {n for n in range(self.target, self.number)}
        if not live_records(history, before, self._mine(aid, self.amend, self.target)):
            raise AggregateNotFoundError(aid)
        aggregate: Any = copy.deepcopy(self.store.repository.get(aid))
        event_class, fields = type(aggregate).restoration(history, before, self._mine(aid, self.amend, self.target))
        aggregate.trigger_event(event_class, ruling=0, **fields)
        aggregate.pending_events.clear()
        self.world[aid] = aggregate
        return aggregate

    # -- re-deriving ------------------------------------------------------------------------
    def plan(self) -> Plan:
        """Re-derive every later live play ruling and compare outcomes and final states."""
        target: Ruling = self.store.repository.get(ruling_id(self.target))
        plan = Plan(self.target, target.command, self.number)
        self.world[CAMPAIGN_ID] = self.load(CAMPAIGN_ID)
        new_amend = dict(self.amend)
        for n in range(self.target + 1, self.number):
            if n in self.dead:
                continue
            ruling: Ruling = self.store.repository.get(ruling_id(n))
            if ruling.kind in META or ruling.kind == "retract":
                continue
            before = self._effective(n, ruling)
            after, refused, dice = self._decide_again(n, ruling)
            plan.rolled += dice
            if _grouped(before) != _grouped(after) or dice:
                data = [r.to_data() | {"name": r.name.split(".", 1)[1]} for r in dice]
                plan.changes.append(Change(n, ruling.command, before, after, refused, data))
                new_amend[n] = after
        self._final_states(plan, target, new_amend)
        return plan

    def _effective(self, n: int, ruling: Ruling) -> Records:
        """The outcome ruling n has now: its live amendment's records, or its original events."""
        if n in self.amend:
            return self.amend[n]
        out: Records = []
        ids = [ruling_id(n), *(UUID(h) for h in ruling.touched)]
        for aid in ids:
            for e in self.history(aid):
                if e.ruling == n and folds(e) and type(e).__name__ not in (RULING_RECORDED, DICE_ROLLED):
                    out.append({"aggregate": aid.hex, "type": type(e).__name__, "data": payload(e)})
        return out

    def _recorded_dice(self, n: int, ruling: Ruling) -> dict[str, Roll]:
        rolls = {name: Roll.from_data(data) for name, data in ruling.dice.items()}
        for by in self.campaign.amended.get(str(n), []) if hasattr(self.campaign, "amended") else []:
            if by not in self.dead:
                data: dict[str, Any]
                for data in self.store.repository.get(ruling_id(by)).amendments[str(n)]["dice"]:
                    rolls[data["name"]] = Roll.from_data(data)
        return rolls

    def _decide_again(self, n: int, ruling: Ruling) -> tuple[Records, str | None, list[Roll]]:
        """Decide ruling n again in the world; a refusal now leaves the world as it was."""
        saved = copy.deepcopy(self.world)
        dice = ReplayDice(n, self._recorded_dice(n, ruling), self.box, self.fixed)
        sim = Draft(
            self.store,
            self.world[CAMPAIGN_ID],
            n,
            kind=ruling.kind,
            command=ruling.command,
            intent=ruling.intent,
            actor=ruling.actor,
            at=ruling.at,
            dice=dice,  # type: ignore[arg-type]
        )
        sim.loader = self.load
        try:
            stored = cast("Intent", dict(ruling.intent))  # JSON read back: the intent its command recorded
            decider_of(ruling.command)(sim, stored)
        except LedgerError as e:
            self.world = saved
            return [], e.message, []
        for ch in sim.characters.values():
            self.world[ch.id] = ch
        for agg in sim.extra_aggregates:
            self.world[agg.id] = agg
        records = [
            {"aggregate": e.originator_id.hex, "type": type(e).__name__, "data": payload(e)}
            for e in sim.events
            if folds(e) and type(e).__name__ not in (RULING_RECORDED, DICE_ROLLED)
        ]
        return records, None, dice.new

    def _final_states(self, plan: Plan, target: Ruling, new_amend: dict[int, Records]) -> None:
        """Every aggregate the target or a re-derived ruling touches, refolded with the new outcomes."""
        affected: dict[str, None] = {h: None for h in target.touched}
        if self.target in self.amend:
            affected.update({r["aggregate"]: None for r in self.amend[self.target]})
        for c in plan.changes:
            affected.update({r["aggregate"]: None for r in [*c.before, *c.after]})
        affected.pop(ruling_id(self.target).hex, None)
        for c in plan.changes:
            affected.pop(ruling_id(c.ruling).hex, None)
        for hex_id in affected:
            aid = UUID(hex_id)
            history = self.history(aid)
            if not history:
                self._new_in_rederived_world(plan, aid)
                continue
            aggregate: Any = self.store.repository.get(aid)
            if isinstance(aggregate, Ruling):
                continue
            _, fields = type(aggregate).restoration(history, self.dead, self._mine(aid, new_amend))
            now = current_fields(aggregate)
            if fields != now:
                plan.states[hex_id] = (now, fields)
                plan.kinds[hex_id] = type(aggregate).__name__

    def _new_in_rederived_world(self, plan: Plan, aid: UUID) -> None:
        """A character that only the re-derived history makes (P&P's GM pool, first needed by a later ruling now)."""
        made = self.world.get(aid)
        if made is None:
            return
        if not isinstance(made, Character):
            raise Conflict(
                f"the re-derived history makes a new {type(made).__name__}, which a retraction can't add",
                "undo instead",
            )
        plan.states[aid.hex] = ({"active": False, "sheet": {}}, current_fields(made))
        plan.kinds[aid.hex] = "Character"
        plan.created.append(aid.hex)


def _grouped(records: Records) -> dict[str, list[tuple[str, Any]]]:
    out: dict[str, list[tuple[str, Any]]] = {}
    for r in records:
        out.setdefault(r["aggregate"], []).append((r["type"], r["data"]))
    return out


def validate_target(campaign: Campaign, target: int) -> None:
    """Only a live, recorded ruling other than the campaign's creation (and not an undo or redo) can be retracted."""
    if target < 1 or target > campaign.rulings:
        raise NotFound(f"there is no ruling {target}", f"rulings run 1 to {campaign.rulings}")
    if target == 1:
        raise Conflict("ruling 1 created the campaign; it can't be retracted")
    if target in set(campaign.meta):
        raise Conflict(f"ruling {target} is an undo or redo", "retract the ruling it acted on, or use undo/redo")
    if campaign.is_dead(target):
        raise Conflict(f"ruling {target} is already retracted", "retract the ruling that retracted it to bring it back")


def commit(d: Draft, plan: Plan) -> dict[str, Any]:
    """Append the retraction: the target marked, each amended outcome, each restored state."""
    store = d.store
    target: Ruling = store.repository.get(ruling_id(plan.target))
    d.save_also(target)
    d.trigger(target, Ruling.RulingRetracted, actor=d.actor, at=d.at)
    for c in plan.changes:
        d.trigger(
            d.ruling,
            Ruling.OutcomeAmended,
            target=c.ruling,
            command=c.command,
            records=c.after,
            dice=c.dice,
            refused=c.refused,
        )
    d.campaign_event(
        Campaign.RetractionRecorded, touches=False, target=plan.target, amended=[c.ruling for c in plan.changes]
    )
    for hex_id, (_, fields) in plan.states.items():
        aid = UUID(hex_id)
        if hex_id in plan.created:  # enters the log with the retraction, in the state the re-derived history gives it
            d.take(Character._create(Character.CharacterAdded, id=aid, ruling=d.number, sheet=fields["sheet"]))
        aggregate = (
            d.campaign if aid == CAMPAIGN_ID else store.repository.get(aid) if hex_id not in plan.created else None
        )
        if aggregate is None:
            d.touch(aid)
            continue
        event_class, _ = type(aggregate).restoration([], set(), {})
        d.trigger(aggregate, event_class, **fields)
        if aggregate is not d.campaign:
            d.save_also(aggregate)
        d.touch(aid)
    return plan.summary()
