"""Durations as rulings decide them: imposed with `condition add --rounds|--until|--scene`, run out at the turn hooks.

The counting is ledger/rules/durations.py (pure, on sheets); this module finds whose sheets a turn point concerns,
asks the campaign's rules to remove what ran out, and records it with the reason (`1 round ran out`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from eventsourcing.application import AggregateNotFoundError

from ledger.encounter import ENCOUNTER_ID
from ledger.errors import BadInput, LedgerError, NotFound
from ledger.model.event_names import CONDITION_REMOVED, COUNTERS_CHANGED
from ledger.model.sheet import Effect, Sheet, is_gm_pool
from ledger.rules import durations
from ledger.rules.contract import CURRENT, FIFTH, FOURTH, RuleSystem
from ledger.rules.options import suggest
from ledger.rulings.draft import Draft

if TYPE_CHECKING:
    from ledger.intents import ConditionIntent

TRACKER = CURRENT  # the tracker's version a play ruling recorded during an encounter carries (`tracker` in its intent);
# rulings carrying an older version (or none) are decided again exactly as they were:
SIDES = 2  # from 2 the ruling records a side all down, and the rules' own timed effects that end at a point of the
# bearer's turn (H&H `act until`, Demoralize; d20 run and charge) run out as durations (`own` below)
PAGES = 3  # from 3 the others too (RuleSystem.own_timed): P&P special effects (pages and the rest of the scene) and
# H&H's aim, defend, feint, aid, heroic feat, extra strength, all-out and defensive attack; damage and spend rulings
# give them so too
# from FOURTH (ledger/rules/contract.py) every ruling that applies the rules carries the version, in an encounter
# (`tracker`) or out of one (`rules`); the rules decide by it (RuleSystem.at)
NATURAL = FIFTH  # from 5 a participant who leaves (`encounter remove`) can leave a side all down, and copies tied on
# initiative sort by their numbers (`Goon 2` before `Goon 10`; `encounter start` and `join` carry the version too)
ENCOUNTER_KINDS = ("rounds", "rounds-held", "rounds-total", "until-start", "until-end")


def bearers(d: Draft) -> Iterator[Sheet]:
    """Every character in play whose sheet holds a duration (the GM's hidden pool is no character)."""
    for entry in d.campaign.domain["roster"].values():
        sheet = d.sheet(entry["name"])
        if is_gm_pool(sheet.to_dict()):
            continue
        if any(durations.parse(k) is not None for k in sheet.counters):
            yield sheet


def run_out(d: Draft, rules: RuleSystem, sheet: Sheet, changes: dict[str, Any], ended: list[tuple[str, str]]) -> None:
    """Record the counters' change and the removal of each condition that ran out, saying why."""
    effects: list[Effect] = []
    now = sheet
    held = rules.held_effects(sheet)
    for condition, why in ended:
        if condition in held and not sheet.has(condition):  # the rules' own effect, no condition: they end it
            effects += rules.end_effect(now, condition, why)
            continue
        try:
            removed = rules.remove(now, condition)
        except LedgerError:  # the rules no longer let it be removed by hand (it follows HP now): the duration ends,
            if rules.since(FOURTH):  # and from version 4 the GM's part of it with it (d20: the knock-out's mark)
                marks = {m: None for m in rules.marks.get(condition, ()) if m in now.counters}
                effects += [Effect(COUNTERS_CHANGED, sheet.name, {"counters": marks})] if marks else []
            continue
        effects += [
            Effect(e.event, e.target, {**e.data, "expired": why})
            if e.event == CONDITION_REMOVED and e.data.get("condition") == condition
            else e
            for e in removed
        ]
    if changes:
        effects.append(Effect(COUNTERS_CHANGED, sheet.name, {"counters": changes}))
    d.apply(effects)


def version(d: Draft) -> int:
    """The tracker's version this ruling is decided by (`tracker` in its intent; ledger/rulings/deciders/table.py)."""
    return int((d.intent or {}).get("tracker") or 0)


def rules_version(d: Draft) -> int:
    """The rules' version this ruling is decided by: its `tracker` in an encounter, its `rules` out of one, else 0."""
    intent = d.intent or {}
    return int(intent.get("tracker") or intent.get("rules") or 0)


def own(d: Draft, rules: RuleSystem, effects: list[Effect], since: int = SIDES) -> list[Effect]:
    """The rules' own timed effects as durations (`RuleSystem.own_timed`, by the ruling's version), in rulings of the
    tracker's version `since` on; rulings recorded before it keep the rules' own counting, decided again as they
    were."""
    v = version(d)
    if v < since:
        return effects
    try:
        enc = d.load(ENCOUNTER_ID)
    except AggregateNotFoundError:
        enc = None
    up = enc.current["name"] if enc is not None and enc.active else None
    if v < FOURTH or enc is None or not enc.active:
        return rules.own_timed(effects, up, v)
    # from version 4 only a participant's turns count their effects: one out of the fight keeps the rules' own
    # counting, as out of an encounter (no turn of theirs will come to end a duration)
    order = {durations.name_key(e["name"]) for e in enc.order}
    out: list[Effect] = []
    for e in effects:
        out += rules.own_timed([e], up, v) if durations.name_key(e.target or "") in order else [e]
    return out


def left_to_durations(d: Draft, sheet: Sheet, when: str, effects: list[Effect]) -> list[Effect]:
    """A turn hook's effects without the removals of the bearer's conditions a duration ends at this very point of
    their turn (version 2: the duration ends them, saying why, as it ends the GM's)."""
    if version(d) < SIDES:
        return effects
    own_key = durations.name_key(sheet.name)
    ending = {
        p[2]
        for k, v in sheet.counters.items()
        if v == 1 and (p := durations.parse(k)) is not None and p[0] == f"until-{when}"
        if p[1] is not None and durations.name_key(p[1]) == own_key
    }
    return [
        e
        for e in effects
        if not (e.event == CONDITION_REMOVED and e.target == sheet.name and e.data.get("condition") in ending)
    ]


def at_turn(d: Draft, rules: RuleSystem, who: str, when: str) -> None:
    """The start or end of `who`'s turn: every duration counted by it ticks; what runs out ends."""
    for sheet in list(bearers(d)):
        changes, ended = durations.tick(sheet, who, when, rules.held_effects(sheet))
        if changes or ended:
            run_out(d, rules, sheet, changes, ended)


def leaving(d: Draft, rules: RuleSystem, who: str) -> None:
    """From version 4: `who` leaves the fight: the durations their turns counted end, on them and on everyone else
    (no turn of theirs will count them down), saying why."""
    if not rules.since(FOURTH):
        return
    key = durations.name_key(who)
    for sheet in list(bearers(d)):
        mine = durations.name_key(sheet.name) == key
        changes: dict[str, Any] = {}
        ended: list[str] = []
        for k in sorted(sheet.counters):
            p = durations.parse(k)
            if p is None or p[0] == "scene":
                continue
            if (mine and p[1] is None) or (p[1] is not None and durations.name_key(p[1]) == key):
                changes[k] = None
                if p[0] not in ("rounds-held", "rounds-total") and p[2] not in ended:
                    ended.append(p[2])
        held = rules.held_effects(sheet)
        if changes:
            run_out(
                d, rules, sheet, changes, [(c, f"{who} left the fight") for c in ended if sheet.has(c) or c in held]
            )


def at_end(d: Draft, rules: RuleSystem, kinds: tuple[str, ...], why: str) -> list[str]:
    """Every duration of these kinds ends at once (the encounter or the scene ended): the names of those whose
    conditions it ended."""
    names: list[str] = []
    for sheet in list(bearers(d)):
        changes, ended = durations.ending(sheet, kinds, rules.held_effects(sheet))
        if changes:
            run_out(d, rules, sheet, changes, [(c, why) for c in ended])
            names += [sheet.name] if ended else []
    return names


def impose(d: Draft, rules: RuleSystem, sheet: Sheet, condition: str, i: ConditionIntent) -> list[Effect]:
    """The counters that give a condition being imposed its duration (`--rounds`, `--until --of`, `--scene`)."""
    rounds, until, scene = i.get("rounds"), i.get("until"), bool(i.get("scene"))
    if rounds is None and until is None and not scene:
        return []
    if scene:
        if not rules.scenes:
            raise rules.refuse("a scene", "count it in rounds: --rounds N")
        return [Effect(COUNTERS_CHANGED, sheet.name, {"counters": durations.counters_for(condition, scene=True)})]
    try:
        enc = d.load(ENCOUNTER_ID)
    except AggregateNotFoundError:
        enc = None
    if enc is None or not enc.active:
        raise NotFound("no encounter is running: rounds and turns are counted by the tracker", "ledger encounter start")
    order = [e["name"] for e in enc.order]
    up = enc.current["name"]
    if rounds is not None:
        if sheet.name not in order:
            raise BadInput(
                f"{sheet.name} is not in the encounter: no turns count down --rounds", "encounter join first"
            )
        held = up == sheet.name
        counters = durations.counters_for(condition, rounds=rounds, held=held)
    else:
        of = next((n for n in order if n.casefold() == str(i.get("of") or "").strip().casefold()), None)
        if of is None:
            raise BadInput(f"--of {i.get('of')}: not in the encounter", suggest(str(i.get("of")), order))
        counters = durations.counters_for(condition, until=until, of=of, held=up == of)
    return [Effect(COUNTERS_CHANGED, sheet.name, {"counters": counters})]
