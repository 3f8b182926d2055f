"""Retracting a contested ruling: re-derive every later live ruling against the history without it.

Each later play ruling is decided again from its recorded command, intent and dice, in a world built by
refolding the history before the retracted ruling. A roll that was never made (an attack that now hits
needs its damage roll) is taken from `--roll N.NAME=FACES` or rolled, and the plan says which. The plan
lists every ruling whose outcome changes and every aggregate whose state changes; committing it appends
the retraction, the amended outcomes and the restored states as new events. Nothing is edited.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError

from ledger import catalog as C
from ledger.aggregates import CAMPAIGN_ID, Campaign, Character, Ruling, folds, live_records, payload, ruling_id
from ledger.encounter import Encounter
from ledger.errors import Conflict, LedgerError, NotFound
from ledger.history.plan import Change, Plan, ReplayDice
from ledger.history.walk import Walk, decoded, rows
from ledger.model.dice import DiceBox, Roll
from ledger.model.event_names import DICE_ROLLED, RULING_RECORDED
from ledger.rulings.deciders.table import decider_of
from ledger.rulings.draft import Draft
from ledger.storage.store import project_fast

if TYPE_CHECKING:
    from ledger.intents import Intent
    from ledger.storage.store import EventStore

META = ("undo", "redo", "ask")  # an ask (ledger/storage/wait.py) decides nothing
UNFOLDED = frozenset(  # the stored topics of events no refold reads (ledger/aggregates.py folds)
    f"{c.__module__}:{c.__qualname__}"
    for c in (
        Campaign.RulingChained,
        Campaign.RulingUndone,
        Campaign.RulingRedone,
        Campaign.RetractionRecorded,
        Campaign.CampaignRestored,
        Ruling.Touched,
        Character.StateRestored,
        Encounter.EncounterRestored,
    )
)
Records = list[dict[str, Any]]
__all__ = ["Change", "Plan", "Rederiver", "ReplayDice", "commit", "validate_target"]
Outcome = tuple[Records, str | None, list[Roll], list[int | None], list[str]]
Decided = tuple[Records, str | None, list[Roll], list[int | None], list[str], Draft | None]


def current_fields(aggregate: Any) -> dict[str, Any]:
    """An aggregate's restorable state, in the shape its restoration event carries."""
    return aggregate.restorable()


class Rederiver(Walk):
    """Plans (and lets the caller commit) the retraction of one ruling.

    Incremental (the default): a later ruling is decided again only if an aggregate it read differs, at that
    point, from the history as it stands (ledger/history/walk.py); with `incremental=False` every later live
    ruling is decided again (as before reads were recorded: the property tests compare the two).
    """

    def __init__(
        self,
        store: EventStore,
        seed: int | None,
        campaign: Campaign,
        target: int,
        entered: dict[str, str],
        fixed: dict[str, Roll],
        committed: Mapping[str, Any] | None = None,
        *,
        incremental: bool = True,
        secrets: Callable[[str], bytes | None] | None = None,
    ) -> None:
        self.store = store
        self.campaign = campaign
        self.target = target
        self.number = campaign.rulings + 1
        self.incremental = incremental
        self.secrets = secrets  # a commitment's dice secret, from the ledger's side table (DiceSecrets.get)
        # `committed`: the open session's dice commitment and secret (ledger/storage/secrets.py session_dice), if any
        self.box = DiceBox(
            entered=entered, seed=seed, salt=f"retract/{self.number}", ruling=self.number, **(committed or {})
        )
        self.fixed = fixed
        self.histories: dict[UUID, list[Any]] = {}
        self.by_ruling: dict[UUID, dict[int, list[Any]]] = {}
        self.rulings: dict[int, Ruling] = {}
        hyp = copy.copy(campaign)
        hyp.dead = {**campaign.dead, str(target): self.number}
        self.dead = hyp.dead_set()
        self.live = hyp.live_amendments()
        self.amend = {n: self._amendment(n, by)["records"] for n, by in self.live.items()}
        self.world: dict[UUID, Any] = {}
        self.decided = 0  # how many later rulings were decided again
        self.start_walk()

    # -- history access ---------------------------------------------------------------------
    def history(self, aid: UUID) -> list[Any]:
        """An aggregate's stored events that fold (cached): restorations and bookkeeping are never decoded."""
        if aid not in self.histories:
            self.histories[aid] = decoded(self.store, aid, rows(self.store, aid, skip=UNFOLDED))
        return self.histories[aid]

    def ruling(self, n: int) -> Ruling:
        """Ruling n's aggregate (cached), folded from its events in one read (they also serve `events_of`)."""
        if n not in self.rulings:
            aid = ruling_id(n)
            found = rows(self.store, aid)
            if not found:
                raise AggregateNotFoundError(aid)
            events = decoded(self.store, aid, found)
            self.histories.setdefault(aid, [e for (_, t, _), e in zip(found, events, strict=True) if t not in UNFOLDED])
            self.rulings[n] = project_fast(None, events)
        return self.rulings[n]

    def _amendment(self, n: int, by: int) -> dict[str, Any]:
        return dict(self.ruling(by).amendments[str(n)])

    def _mine(self, aid: UUID, amend: dict[int, Records], below: int | None = None) -> dict[int, Records]:
        return {
            n: [r for r in recs if r["aggregate"] == aid.hex] for n, recs in amend.items() if below is None or n < below
        }

    # -- the world before the target --------------------------------------------------------
    def hypothetical(self, aid: UUID) -> Any:
        """An aggregate as it stood before the target ruling in the history without it (None: not there)."""
        history = self.history(aid)
        if not history:
            return None
        before = self.dead | {n for n in range(self.target, self.number)}
        if not live_records(history, before, self._mine(aid, self.amend, self.target)):
            return None
        aggregate: Any = copy.deepcopy(self.store.repository.get(aid))
        event_class, fields = type(aggregate).restoration(history, before, self._mine(aid, self.amend, self.target))
        aggregate.trigger_event(event_class, ruling=0, **fields)
        aggregate.pending_events.clear()
        return aggregate

    def load(self, aid: UUID) -> Any:
        """An aggregate as it stood before the target ruling (kept in the world once loaded): every-ruling mode."""
        if aid in self.world:
            return self.world[aid]
        aggregate = self.hypothetical(aid)
        if aggregate is None:
            raise AggregateNotFoundError(aid)
        self.world[aid] = aggregate
        return aggregate

    # -- re-deriving ------------------------------------------------------------------------
    def plan(self) -> Plan:
        """Re-derive the later live play rulings that can change and compare outcomes and final states."""
        target = self.ruling(self.target)
        plan = Plan(self.target, target.command, self.number, head=(self.campaign.version, self.campaign.last_hash))
        plan.system = self.campaign.system
        plan.retracted = self._effective(self.target, target)
        if self.incremental:
            self.dirty_at_start(target)
        else:
            self.world[CAMPAIGN_ID] = self.load(CAMPAIGN_ID)
        new_amend = dict(self.amend)
        for n in self.later():
            if n in self.dead or self.skip(n):
                continue
            ruling = self.ruling(n)
            if ruling.kind in META or ruling.kind == "retract":
                continue
            before = self._effective(n, ruling)
            self.decided += 1
            if self.incremental:
                after, refused, dice, hp, reads = self.decide_at(n, ruling, before)
            else:
                after, refused, dice, hp, reads = self._decide_again(n, ruling)
            plan.rolled += dice
            if _grouped(before) != _grouped(after) or dice:
                data = [r.to_data() | {"name": r.name.split(".", 1)[1]} for r in dice]
                change = Change(n, ruling.command, before, after, refused, data, reads=reads)
                change.hp = {"before": self.hp_before(n, before), "after": hp}
                plan.changes.append(change)
                new_amend[n] = after
            self.forget(n)
        self._final_states(plan, target, new_amend)
        plan.names = self._names(plan)
        plan.groups = self._groups(plan)
        plan.decided = self.decided
        return plan

    def _groups(self, plan: Plan) -> list[str]:
        """The minion groups of several the plan's sentences name (added with a count above 1), for their plurals
        (`Goons take the delayed turn`)."""
        said = repr([plan.retracted, *[(c.before, c.after) for c in plan.changes]])
        out = []
        for e in self.campaign.domain["roster"].values():
            if e["name"] not in said:
                continue
            added = next(iter(self.history(UUID(e["id"]))), None)
            sheet = (payload(added).get("sheet") or {}) if added is not None else {}
            if sheet.get("minion") and int(sheet.get("count") or 1) > 1:
                out.append(str(e["name"]))
        return sorted(out)

    def _names(self, plan: Plan) -> dict[str, str]:
        """Every character the plan mentions, by aggregate id (the roster's names, or the re-derived world's)."""
        names = {e["id"]: e["name"] for e in self.campaign.domain["roster"].values()}
        for aid, agg in self.world.items():
            if isinstance(agg, Character) and agg.sheet:
                names.setdefault(aid.hex, str(agg.sheet.get("name", "")))
        for hex_id, (b, a) in plan.states.items():
            sheet = a.get("sheet") or b.get("sheet")
            if plan.kinds.get(hex_id) == "Character" and sheet:
                names.setdefault(hex_id, str(sheet.get("name", "")))
        return names

    def events_of(self, aid: UUID, n: int) -> list[Any]:
        """The stored events ruling n wrote on an aggregate (its history indexed by ruling once)."""
        if aid not in self.by_ruling:
            index: dict[int, list[Any]] = {}
            for e in self.history(aid):
                index.setdefault(e.ruling, []).append(e)
            self.by_ruling[aid] = index
        return self.by_ruling[aid].get(n, [])

    def _effective(self, n: int, ruling: Ruling) -> Records:
        """The outcome ruling n has now: its live amendment's records, or its original events."""
        if n in self.amend:
            return self.amend[n]
        out: Records = []
        ids = [ruling_id(n), *(UUID(h) for h in ruling.touched)]
        for aid in ids:
            for e in self.events_of(aid, n):
                if folds(e) and type(e).__name__ not in (RULING_RECORDED, DICE_ROLLED):
                    out.append({"aggregate": aid.hex, "type": type(e).__name__, "data": payload(e)})
        return out

    def _recorded_dice(self, n: int, ruling: Ruling) -> dict[str, Roll]:
        rolls = {name: Roll.from_data(data) for name, data in ruling.dice.items()}
        for by in self.campaign.amended.get(str(n), []) if hasattr(self.campaign, "amended") else []:
            if by not in self.dead:
                data: dict[str, Any]
                for data in self._amendment(n, by)["dice"]:
                    rolls[data["name"]] = Roll.from_data(data)
        return rolls

    def decide(self, n: int, ruling: Ruling, campaign: Any, loader: Any) -> Decided:
        """Decide ruling n again on `campaign` and what `loader` gives: records, refusal, new dice, HP before each
        record, what it read, and the draft (None if refused)."""
        dice = ReplayDice(n, self._recorded_dice(n, ruling), self.box, self.fixed)
        sim = Draft(
            self.store,
            campaign,
            n,
            kind=ruling.kind,
            command=ruling.command,
            intent=ruling.intent,
            actor=ruling.actor,
            at=ruling.at,
            dice=dice,  # type: ignore[arg-type]
        )
        sim.loader = loader
        try:
            stored = cast("Intent", dict(ruling.intent))  # JSON read back: the intent its command recorded
            if ruling.command == C.SESSION_END.name:
                stored = cast("Intent", {**stored, **self._reveals(campaign)})
            decider_of(ruling.command)(sim, stored)
        except LedgerError as e:
            return [], e.message, [], [], sorted(sim.reads), None
        kept = [e for e in sim.events if folds(e) and type(e).__name__ not in (RULING_RECORDED, DICE_ROLLED)]
        records = [{"aggregate": e.originator_id.hex, "type": type(e).__name__, "data": payload(e)} for e in kept]
        return records, None, dice.new, [sim.hp_before.get(id(e)) for e in kept], sorted(sim.reads), sim

    def _reveals(self, campaign: Any) -> dict[str, str]:
        """A `session end` decided again reveals the secret of the session it ends now: another session's, when the
        retraction brought an earlier start back (a retracted retraction), which the ledger's side table holds; the
        recorded one otherwise (nothing, if the table no longer has it)."""
        number = campaign.open_session
        entry: dict[str, Any] = next(
            (s for s in campaign.domain.get("sessions") or () if s.get("number") == number), {}
        )
        secret = self.secrets(str(entry["commitment"])) if self.secrets and entry.get("commitment") else None
        return {"reveal": secret.hex()} if secret else {}

    def _decide_again(self, n: int, ruling: Ruling) -> Outcome:
        """Decide ruling n again in the world of every aggregate; a refusal now leaves the world as it was."""
        saved = copy.deepcopy(self.world)
        records, refused, dice, hp, reads, sim = self.decide(n, ruling, self.world[CAMPAIGN_ID], self.load)
        if sim is None:
            self.world = saved
            return records, refused, dice, hp, reads
        for ch in sim.characters.values():
            self.world[ch.id] = ch
        for agg in sim.extra_aggregates:
            self.world[agg.id] = agg
        return records, refused, dice, hp, reads

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
    target: Ruling = store.repository.get(ruling_id(plan.target))  # fresh: the planner's copies are never written
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
            reads=c.reads,
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
