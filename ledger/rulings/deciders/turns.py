"""The encounter's turns: who takes the next turn, who is up, whether a side is all down, and the turn hooks.

The deciders of ledger/rulings/deciders/encounter.py call these as turns pass; each hook runs the rules' start- or
end-of-turn processing (ledger/rules/contract.py), then the durations it counts (deciders/durations.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eventsourcing.application import AggregateNotFoundError

from ledger.encounter import ENCOUNTER_ID, Encounter, Entry, step
from ledger.errors import Conflict
from ledger.model.dice import DiceSpec, Roll
from ledger.model.event_names import EFFECT_RESOLVED
from ledger.model.sheet import Effect, Sheet
from ledger.rules.contract import RuleSystem
from ledger.rules.durations import left
from ledger.rules.options import passes_over
from ledger.rulings.deciders import durations, economy
from ledger.rulings.deciders.common import rules_of
from ledger.rulings.draft import Draft
from ledger.words.tracker import row


class OwnedDice:
    """The draft's dice for one character: rolls recorded as theirs, some renamed (initiative -> the participant)."""

    def __init__(self, d: Draft, owner: str, names: Mapping[str, str] | None = None) -> None:
        self.d = d
        self.owner = owner
        self.names = dict(names or {})

    def take(self, name: str, spec: DiceSpec) -> Roll:
        """Take the roll under the name the GM uses for it."""
        real = self.names.get(name, name)
        self.d.expect_roll(real, spec, owner=self.owner)
        return self.d.dice.take(real, spec)


def current(d: Draft) -> Encounter | None:
    """The campaign's Encounter aggregate if one was ever started (not created, not marked touched)."""
    try:
        return d.load(ENCOUNTER_ID)
    except AggregateNotFoundError:
        return None


def advance(
    d: Draft, rules: RuleSystem, order: list[Entry], turn: int, rnd: int, pass_over: int
) -> tuple[int, int, list[Entry], bool, list[dict[str, str]]]:
    """The next turn after `turn`: (turn, round, order, forced, skipped), passing over who has no more turns.

    Who takes turns is the rules' call (`RuleSystem.takes_turn`): the dead and fully defeated groups are
    passed over, an H&H dying character keeps the turn that brings the dying check. Rulings recorded before
    the pass-over (intents without `pass_over`) are decided again as they were; from `pass_over` 2 on, whoever the
    rules give no turn at all (`RuleSystem.no_turn`: d20's dying and unconscious) is passed over too, and the
    durations their turn counts still tick. From `pass_over` 3 on (unless the campaign was set up with `-o
    pass-over=never`), so is a turn the rules leave nothing to do in (`RuleSystem.nothing_to_do`: H&H's stunned and
    incapacitated): its start and end run as if it were played, and each passing is recorded, to be said in words.
    """
    turn, rnd, order, forced = step(order, turn, rnd)
    skipped: list[dict[str, str]] = []
    if not pass_over:
        return turn, rnd, order, forced, skipped
    idle = pass_over >= 3 and passes_over(d.campaign.domain.get("settings", {}))
    for _ in range(len(order)):
        why = out_of_turns(d, rules, order[turn], pass_over)
        played = False
        if why is None and idle:
            sheet = None if order[turn].get("hazard") else live_sheet(d, order[turn])
            why = rules.nothing_to_do(sheet) if sheet is not None else None
            played = why is not None
        if why is None:
            return turn, rnd, order, forced, skipped
        skipped.append({"name": order[turn]["name"], "why": why})
        if pass_over >= 3:  # said in the log too: `Crime Lord's turn passes (stunned)`
            d.apply([Effect(EFFECT_RESOLVED, "", {"passed": order[turn]["name"], "why": why})])
        if played:  # a turn with nothing to do still starts and ends: ongoing effects, recovery checks, durations
            turn_hook(d, rules, order[turn], "start")
            turn_hook(d, rules, order[turn], "end")
        elif pass_over >= 2:
            for when in ("start", "end"):  # their turn passes: what it counts still counts
                durations.at_turn(d, rules, order[turn]["name"], when)
        turn, rnd, order, forced = step(order, turn, rnd)
    raise Conflict("no one left in the encounter takes a turn", "end it: ledger encounter end")


def out_of_turns(d: Draft, rules: RuleSystem, entry: Entry, level: int = 1) -> str | None:
    """Why a participant gets no turn (dead, defeated, dying, ...), or None if the rules give them one."""
    if entry.get("hazard"):  # a hazard's slot has no sheet: its turn comes to say its note
        return None
    sheet = live_sheet(d, entry)
    if sheet is None:
        return "no longer in play"
    if rules.takes_turn(sheet):
        return rules.no_turn(sheet) if level >= 2 else None
    found = next((c for c in ("dead", "defeated") if sheet.has(c)), None)
    if found:
        return found
    if sheet.minion and sheet.count <= 0:
        return "defeated (no one left standing)"
    return "out of the fight"


def up(d: Draft, rules: RuleSystem, name: str) -> dict[str, Any]:
    """Who is up: HP (Health), conditions with what is left of them, and why they can take no action, if so; a
    hazard's slot: its note."""
    enc = current(d)
    slot = next((e for e in (enc.state["order"] if enc is not None else []) if e["name"] == name), None)
    if slot is not None and slot.get("hazard"):
        return {"name": name, "hazard": slot.get("note") or ""}
    sheet = d.sheet(name)
    plain = sheet.to_dict()
    out = {"name": sheet.name, "hp": sheet.hp, "max_hp": sheet.max_hp, "conditions": list(sheet.conditions)}
    out["left"] = left(plain)
    if sheet.minion:
        out["count"] = sheet.count
    why = rules.no_action(sheet)
    return {**out, **({"no_action": why} if why else {})}


def rows(d: Draft, state: Mapping[str, Any], skipped: list[dict[str, str]] | None = None) -> list[dict[str, Any]]:
    """The order as the tracker shows it: each participant with HP, conditions and marks; who was passed over, why."""
    order = state["order"]
    current = order[state["turn"]]["name"] if order else None
    passed = {s["name"]: s["why"] for s in skipped or ()}
    out = []
    for e in order:
        sheet = live_sheet(d, e)
        r = row(e, sheet.to_dict() if sheet is not None else None, current)
        if e["name"] in passed:
            r["passed"] = passed[e["name"]]
        out.append(r)
    return out


def sides_down(d: Draft, gone: str | None = None, left: str | None = None) -> dict[str, Any]:
    """`{"side_down": "heroes"|"foes"}` when this ruling left every combatant of one side down (out of turns);
    `gone`: the side of `left`, who left the encounter in this ruling (their side may be all down, or empty, now)."""
    enc = current(d)
    if enc is None or not enc.active:
        return {}
    if not gone and not any(e["id"] in d.touched for e in enc.order):
        return {}
    rules = rules_of(d)
    sheets = [(e, live_sheet(d, e)) for e in enc.order if not (left and e["name"] == left)]
    down = {True: [], False: []}  # type: dict[bool, list[bool]]
    for _, s in sheets:
        if s is not None:
            fallen = not rules.takes_turn(s) or rules.no_turn(s) is not None or any(s.has(c) for c in DOWN)
            down[s.pc].append(fallen)
    if gone:  # the one who left counts as down: a side whose last standing member left is all down
        down[gone == "heroes"].append(True)
    for pc, side in ((False, "foes"), (True, "heroes")):
        if down[pc] and all(down[pc]) and down[not pc]:
            return {"side_down": side}
    return {}


def side_down(d: Draft, *, record: bool, gone: str | None = None, left: str | None = None) -> dict[str, Any]:
    """Whether this ruling left one side all down (`sides_down`: the one decision), said in the ruling's result and,
    with `record` (rulings of the tracker's version 2 on), recorded in it too (an EffectResolved the describer
    reads: `every foe is down`); rulings recorded before say it and record nothing, decided again as they were."""
    found = sides_down(d, gone, left)
    if found and record:
        d.apply([Effect(EFFECT_RESOLVED, "", {"side_down": found["side_down"]})])
    return found


DOWN = ("dead", "dying", "defeated", "incapacitated", "unconscious")


def live_sheet(d: Draft, entry: Entry) -> Sheet | None:
    """The participant's sheet, or None if that character is no longer in play (or a hazard's slot, which has none)."""
    if entry.get("hazard"):
        return None
    found = d.campaign.character(entry["name"])
    if found is None or found["id"] != entry["id"]:
        return None
    return d.sheet(entry["name"])


def turn_hook(d: Draft, rules: RuleSystem, entry: Entry, when: str) -> None:
    """Run the rules' start- or end-of-turn processing for a participant and record its effects."""
    sheet = live_sheet(d, entry)
    if sheet is None:
        return
    names = rules.turn_rolls
    d.allow_entered(
        lambda name, text: (
            rules.entered_spec(name, text, {})
            if any(name == n or (n.endswith("-") and name.startswith(n)) for n in names)
            else None
        )
    )
    hook = rules.start_of_turn if when == "start" else rules.end_of_turn
    d.apply(durations.left_to_durations(d, sheet, when, hook(sheet, OwnedDice(d, sheet.name))))
    durations.at_turn(d, rules, sheet.name, when)
    if when == "start":
        economy.refresh(d, rules, sheet.name)  # once-a-round uses ready again at the bearer's own turn
