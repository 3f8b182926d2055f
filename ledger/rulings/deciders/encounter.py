"""Deciders of the encounter commands: initiative, turn order and rounds (the turns themselves: turns.py).

Every command here is one ruling. The rules modules decide initiative, ties and what happens at the start
and end of a turn; this module only keeps the order (ledger/encounter.py) and records what they decide.
Roll names: each participant's initiative roll is named after them (`--roll Ann=+,0,-`); a tie that the
rules' keys leave open is settled by `rolloff-NAME` (then `rolloff-NAME-2`, ...); the turn hooks keep the
rules' own names (hnh: `fortitude` for the dying check, `ongoing-NAME` for affliction checks).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from eventsourcing.application import AggregateNotFoundError

from ledger.aggregates import name_key
from ledger.encounter import (
    ENCOUNTER_ID,
    Encounter,
    Entry,
    find,
    public,
    round_tallies,
    slot,
    take_delayed,
)
from ledger.errors import BadInput, Conflict, ImpossibleAction, NotFound
from ledger.model.dice import ROLLOFF_ROUNDS, DiceSpec, Roll
from ledger.model.event_names import EFFECT_RESOLVED, NOTE_RECORDED
from ledger.model.sheet import Effect, Sheet
from ledger.rules.contract import RuleSystem
from ledger.rules.options import suggest
from ledger.rulings.deciders import economy
from ledger.rulings.deciders.common import rules_of
from ledger.rulings.deciders.durations import NATURAL, version
from ledger.rulings.deciders.turns import (
    OwnedDice,
    advance,
    current,
    live_sheet,
    rows,
    turn_hook,
    up,
)
from ledger.rulings.draft import Draft
from ledger.words.tracker import natural

if TYPE_CHECKING:
    from ledger.intents import (
        EncounterEndResult,
        EncounterStartIntent,
        EncounterView,
        JoinIntent,
        JoinResult,
        NameIntent,
        NoIntent,
        RevealIntent,
        SceneEnded,
        TurnIntent,
        TurnResult,
    )

JOINED_LATE = 1_000  # sorts a newcomer after everyone it ties with (gameplay.txt, Initiative: "in the existing order")
SEIZED = 1_000_000  # sorts a character who seized the initiative before every total (hnh Seize Initiative)
NO_ENCOUNTER = "start one: ledger encounter start NAME..."


# -- deciders -----------------------------------------------------------------------------------
def start(d: Draft, i: EncounterStartIntent) -> EncounterView:
    enc = load(d)
    if enc.active:
        raise Conflict(f"encounter {enc.state['number']} is still running", "end it first: ledger encounter end")
    rules = rules_of(d)
    sheets = [d.sheet(n) for n in expand(d, i["names"])]
    keys = [name_key(s.name) for s in sheets]
    for s in sheets:
        if keys.count(name_key(s.name)) > 1:
            raise BadInput(f"{s.name} is named twice")
        require_able(s)
    for n in i["surprised"]:
        if name_key(n) not in keys:
            raise BadInput(f"--surprised {n}: not one of the participants", suggest(n, [s.name for s in sheets]))
        surprise(d, rules, n)
    given = {name_key(n): int(v) for n, v in (i.get("init") or {}).items()}
    for n in i.get("init") or {}:
        if name_key(n) not in keys:
            raise BadInput(f"--init {n}: not one of the participants", suggest(n, [s.name for s in sheets]))
    groups = grouped(d, i.get("group_init") or [], [s.name for s in sheets])
    rolled = [s.name for s in sheets if given.get(name_key(s.name)) is None]
    declare_initiative(d, rules, [n for n in rolled if all(n not in m for m in groups.values())])
    entries = [
        initiative(d, rules, s.name, given.get(name_key(s.name)))
        for s in sheets
        if all(s.name not in members for members in groups.values())
    ]
    for group, members in groups.items():  # one roll for the group, named after it; its members' turns adjacent
        first = initiative(d, rules, members[0], given.get(name_key(group)), roll_as=group)
        for k, member in enumerate(members):
            d.apply([Effect(EFFECT_RESOLVED, member, {"initiative": first["initiative"], "group": group})] if k else [])
            entry = {**first, "name": member, "id": d.character(member).id.hex} if k else first
            entries.append({**entry, "sort": [*first["sort"], natural(group), k]})
    rolloffs(d, rules, entries)
    order = sorted(entries, key=lambda e: e["sort"])
    d.trigger(
        enc,
        Encounter.EncounterStarted,
        number=int(enc.state["number"]) + 1,
        system=rules.key,
        order=order,
        round=1,
        turn=0,
        active=True,
        started=d.number,
        ended=None,
    )
    turn_hook(d, rules, order[0], "start")
    return {**view(enc.state), "rows": rows(d, enc.state)}


def next_(d: Draft, i: TurnIntent) -> TurnResult:
    enc = running(d)
    rules = rules_of(d)
    st = enc.state
    turn_hook(d, rules, st["order"][st["turn"]], "end")
    if st["turn"] + 1 >= len(st["order"]) and rerolls(d):  # a new round: everyone rolls initiative again
        turn, rnd, order, forced, skipped = advance(
            d, rules, rerolled(d, rules, st["order"]), -1, st["round"] + 1, int(i.get("pass_over") or 0)
        )
    else:
        turn, rnd, order, forced, skipped = advance(
            d, rules, st["order"], st["turn"], st["round"], int(i.get("pass_over") or 0)
        )
    d.trigger(enc, Encounter.TurnAdvanced, round=rnd, turn=turn, current=order[turn]["name"], order=order)
    turn_hook(d, rules, order[turn], "start")
    if order[turn].get("hazard"):  # a hazard's turn: its note said, in the log too
        d.apply([Effect(EFFECT_RESOLVED, "", {"slot": order[turn]["name"], "note": order[turn].get("note") or ""})])
    return {
        **view(enc.state),
        "forced": forced,
        "skipped": skipped,
        "up": up(d, rules, order[turn]["name"]),
        "rows": rows(d, enc.state, skipped),
    }


def delay(d: Draft, i: TurnIntent) -> TurnResult:
    enc = running(d)
    rules = rules_of(d)
    st = enc.state
    if len(st["order"]) < 2:
        raise Conflict("there is no one else to wait for")
    me = st["order"][st["turn"]]
    sheet = live_sheet(d, me)
    if sheet is not None:
        mine = (round_tallies(st) or {}).get(me["name"], {})
        why = rules.delay_refused(sheet, economy.acted(mine))
        if why:
            raise Conflict(why, "Delay: you cannot delay after acting this turn, or while unable to take actions")
        d.apply(rules.delayed(sheet))
    marked = [{**e, "delayed": True} if n == st["turn"] else e for n, e in enumerate(st["order"])]
    turn, rnd, order, forced, skipped = advance(d, rules, marked, st["turn"], st["round"], int(i.get("pass_over") or 0))
    d.trigger(
        enc, Encounter.TurnDelayed, name=me["name"], round=rnd, turn=turn, current=order[turn]["name"], order=order
    )
    turn_hook(d, rules, order[turn], "start")
    return {
        **view(enc.state),
        "delayed": me["name"],
        "forced": forced,
        "skipped": skipped,
        "rows": rows(d, enc.state, skipped),
    }


def act(d: Draft, i: NameIntent) -> EncounterView:
    enc = running(d)
    rules = rules_of(d)
    st = enc.state
    at = find(st["order"], i["name"])
    if at is None:
        raise NotFound(f"{i['name']} is not in the encounter", suggest(i["name"], [e["name"] for e in st["order"]]))
    who = st["order"][at]
    if not who.get("delayed"):
        raise Conflict(f"{who['name']} is not delaying", "only a character who delayed can act out of turn")
    turn_hook(d, rules, st["order"][st["turn"]], "end")
    order, turn = take_delayed(st["order"], st["turn"], who["name"])
    d.trigger(enc, Encounter.DelayedTurnTaken, name=who["name"], turn=turn, current=who["name"], order=order)
    return {**view(enc.state), "rows": rows(d, enc.state)}


def join(d: Draft, i: JoinIntent) -> JoinResult:
    """Newcomers join mid-fight (one or several names; a `--copies` group's name brings all its members); a hazard
    (`hazard`) is one turn slot with no sheet, at the initiative given, whose note is said on its turn."""
    enc = running(d)
    rules = rules_of(d)
    if i.get("hazard"):
        return join_hazard(d, enc, i)
    joined: dict[str, int] = {}
    names = [d.sheet(n).name for n in expand(d, i.get("names") or [i["name"]])]
    groups = grouped(d, i.get("group_init") or [], names)  # `--group-init NAME`: one roll, adjacent turns
    declare_initiative(d, rules, [n for n in names if all(n not in m for m in groups.values())])
    shared: dict[str, Entry] = {}
    for name in names:
        sheet = d.sheet(name)
        st = enc.state
        if find(st["order"], sheet.name) is not None:
            raise Conflict(f"{sheet.name} is already in the encounter")
        require_able(sheet)
        if i["surprised"]:
            surprise(d, rules, sheet.name)
        texts = any(isinstance(k, str) for e in st["order"] for k in e["sort"])
        group = next((g for g, members in groups.items() if sheet.name in members), None)
        if group is None:
            entry = initiative(d, rules, sheet.name, texts=texts)
            entry["sort"].append(JOINED_LATE)
        else:
            k = groups[group].index(sheet.name)
            if k == 0:
                shared[group] = initiative(d, rules, sheet.name, texts=texts, roll_as=group)
                shared[group]["sort"].append(JOINED_LATE)
            else:
                d.apply(
                    [Effect(EFFECT_RESOLVED, sheet.name, {"initiative": shared[group]["initiative"], "group": group})]
                )
            base = shared[group]
            entry = {**base, "name": sheet.name, "id": d.character(sheet.name).id.hex}
            entry["sort"] = [*base["sort"], group.casefold() if texts else natural(group), k]
        at = slot(st["order"], entry)
        order = [*st["order"][:at], entry, *st["order"][at:]]
        turn = st["turn"] + 1 if at <= st["turn"] else st["turn"]
        d.trigger(enc, Encounter.ParticipantJoined, name=sheet.name, turn=turn, order=order)
        joined[sheet.name] = entry["initiative"]
    first = next(iter(joined))
    return {
        **view(enc.state),
        "joined": ", ".join(joined),
        "initiative": joined[first],
        "initiatives": joined,
        "rows": rows(d, enc.state),
    }


def join_hazard(d: Draft, enc: Encounter, i: JoinIntent) -> JoinResult:
    """A hazard's or timed event's turn slot (`encounter join NAME --hazard --init N`): no sheet, no roll."""
    name, at_init = i["name"].strip(), int(i.get("init") or 0)
    st = enc.state
    if not name:
        raise BadInput("name the hazard", "ledger encounter join 'Falling Debris' --hazard --init 5")
    if find(st["order"], name) is not None:
        raise Conflict(f"{name} is already in the encounter")
    if d.campaign.character(name) is not None:
        raise Conflict(f"{name} is a character: a hazard's slot needs a name of its own", "ledger encounter join NAME")
    entry: Entry = {
        "name": name,
        "id": "",
        "initiative": at_init,
        "sort": [-at_init, JOINED_LATE],
        "delayed": False,
        "hazard": True,
        "note": str(i.get("note") or ""),
    }
    at = slot(st["order"], entry)
    order = [*st["order"][:at], entry, *st["order"][at:]]
    turn = st["turn"] + 1 if at <= st["turn"] else st["turn"]
    d.trigger(enc, Encounter.ParticipantJoined, name=name, turn=turn, order=order)
    return {
        **view(enc.state),
        "joined": name,
        "initiative": at_init,
        "initiatives": {name: at_init},
        "rows": rows(d, enc.state),
    }


def grouped(d: Draft, groups: list[str], names: list[str]) -> dict[str, list[str]]:
    """`--group-init NAME`: each `--copies` group's members among the participants (NAME 1 .. NAME N), in order."""
    out: dict[str, list[str]] = {}
    for group in groups:
        members = [m for m in expand(d, [group]) if m in names]
        if len(members) < 2 or d.campaign.character(group) is not None:
            raise BadInput(
                f"--group-init {group}: not a group of copies among the participants",
                "name the group of `character add NAME --copies N` that the encounter brings: --group-init NAME",
            )
        if any(m in other for other in out.values() for m in members):
            raise BadInput(f"--group-init {group}: its members are in another group already")
        out[group] = members
    return out


def expand(d: Draft, names: list[str]) -> list[str]:
    """The names given, with the name of a `--copies` group (no character of its own) standing for NAME 1 .. NAME N."""
    out: list[str] = []
    for name in names:
        if d.campaign.character(name) is not None:
            out.append(name)
            continue
        pattern = re.compile(re.escape(name.strip()) + r" (\d+)", re.IGNORECASE)
        members = [
            (int(m.group(1)), e["name"])
            for e in d.campaign.domain["roster"].values()
            if (m := pattern.fullmatch(e["name"])) is not None
        ]
        out += [n for _, n in sorted(members)] if members else [name]
    return out


def remove(d: Draft, i: NameIntent) -> TurnResult:
    """A participant leaves the fight (the GM's ruling); the order and whose turn it is stay right."""
    enc = running(d)
    rules = rules_of(d)
    st = enc.state
    at = find(st["order"], i["name"])
    if at is None:
        names = [e["name"] for e in st["order"]]
        raise NotFound(f"{i['name']} is not in the encounter", suggest(i["name"], names))
    who = st["order"][at]
    if len(st["order"]) == 1:
        raise Conflict(f"{who['name']} is the last one in the encounter", "end it instead: ledger encounter end")
    sheet = live_sheet(d, who)
    if sheet is not None and sheet.has("surprised"):
        d.apply(rules.remove(sheet, "surprised"))  # Surprised lasts while they are in the combat
    # lazy: the durations' deciders; kept out of a one-shot write
    from ledger.rulings.deciders import durations

    durations.leaving(d, rules, who["name"])  # from version 4: what their turns counted ends with them gone
    order = [e for n, e in enumerate(st["order"]) if n != at]
    turn, rnd, forced = st["turn"], st["round"], False
    skipped: list[dict[str, str]] = []
    if at < turn:
        turn -= 1
    elif at == turn:  # their turn ends with them gone: the next in order is up (a new round if they were last)
        turn, rnd, order, forced, skipped = advance(d, rules, order, at - 1, rnd, int(i.get("pass_over", 1)))
    d.trigger(
        enc,
        Encounter.ParticipantRemoved,
        name=who["name"],
        round=rnd,
        turn=turn,
        current=order[turn]["name"],
        order=order,
    )
    if at == st["turn"]:
        turn_hook(d, rules, order[turn], "start")
    result: TurnResult = {
        **view(enc.state),
        "removed": who["name"],
        "forced": forced,
        "skipped": skipped,
        "rows": rows(d, enc.state, skipped),
    }
    if sheet is not None:
        result["removed_side"] = "heroes" if sheet.pc else "foes"
    return result


def end(d: Draft, i: NoIntent) -> EncounterEndResult:
    enc = running(d)
    rules = rules_of(d)
    for e in enc.state["order"]:
        sheet = live_sheet(d, e)
        if sheet is not None and "surprised" in sheet.conditions:
            d.apply(rules.remove(sheet, "surprised"))
    number = enc.state["number"]
    # lazy: the durations' deciders; kept out of a one-shot write
    from ledger.rulings.deciders import durations

    kinds = durations.ENCOUNTER_KINDS + (("scene",) if rules.scenes else ())
    timed = durations.at_end(d, rules, kinds, "the encounter ended")
    ended = end_scene(d, rules) if rules.scenes else []
    ended = [n for n in d.campaign.names() if n in {*timed, *ended}] if rules.scenes else []  # P&P: the scene's end
    d.trigger(enc, Encounter.EncounterEnded, number=number, active=False, ended=d.number)
    result: EncounterEndResult = {"encounter": number, "rounds": enc.state["round"]}
    if rules.scenes:
        result["scene_ended_for"] = ended
    return result


def reveal(d: Draft, i: RevealIntent) -> dict[str, Any]:
    """Hidden characters and `--secret` rulings shown to the players from now on (projections/hidden.py reads this
    ruling's intent); a note per name or ruling, nothing else changes."""
    names: list[str] = []
    for name in i.get("names") or ():
        sheet = d.sheet(name)  # refuses an unknown name, with a suggestion
        if sheet.pc:
            raise Conflict(f"{sheet.name} is a hero: a player always sees their own hero", "reveal a hidden NPC")
        names.append(sheet.name)
    numbers = [int(n) for n in i.get("rulings") or ()]
    for n in numbers:
        if not 1 < n <= d.campaign.rulings:
            raise NotFound(f"there is no ruling {n} to reveal", f"rulings run 2 to {d.campaign.rulings}")
    if not names and not numbers:
        raise BadInput("name who to reveal, or give --ruling N", "ledger encounter reveal NAME")
    notes = [Effect(NOTE_RECORDED, n, {"kind": "revealed", "note": f"{n} is revealed to the players"}) for n in names]
    notes += [
        Effect(NOTE_RECORDED, "", {"kind": "revealed", "note": f"ruling {n} is shown to the players"}) for n in numbers
    ]
    d.apply(notes)
    return {"revealed": names, "rulings": numbers}


def scene(d: Draft, i: NoIntent) -> SceneEnded:
    """End the scene outside an encounter (P&P: effects "for the rest of the scene" end, with their defeats)."""
    rules = rules_of(d)
    if not rules.scenes:
        raise rules.refuse("ending a scene", "encounter end ends the encounter")
    enc = current(d)
    if enc is not None and enc.active:
        raise Conflict(f"encounter {enc.state['number']} is running", "ledger encounter end ends it and its scene")
    # lazy: the durations' deciders; kept out of a one-shot write
    from ledger.rulings.deciders import durations

    durations.at_end(d, rules, ("scene",), "the scene ended")
    ended = end_scene(d, rules)
    d.apply([Effect(EFFECT_RESOLVED, "", {"scene": "ended", "ended_for": ended})])
    return {"scene_ended_for": ended}


def end_scene(d: Draft, rules: RuleSystem) -> list[str]:
    """What ends with the scene, for every character in play; the names of those it changed."""
    changed = []
    for entry in d.campaign.domain["roster"].values():
        sheet = d.sheet(entry["name"])
        effects = rules.scene_ended(sheet)
        if effects:
            d.apply(effects)
            changed.append(sheet.name)
    return changed


# -- helpers (pure but for the draft they record into) -----------------------------------------
def view(state: Mapping[str, Any]) -> EncounterView:
    """The `encounter show` document (CLI.md): round, current, order with initiative; plus number and system."""
    order = state["order"]
    return {
        "encounter": state["number"],
        "system": state["system"],
        "round": state["round"],
        "current": order[state["turn"]]["name"] if order else None,
        "order": public(order),
    }


def load(d: Draft) -> Encounter:
    """The campaign's Encounter aggregate (created on first use), marked touched by this ruling."""
    try:
        enc: Encounter = d.load(ENCOUNTER_ID)
    except AggregateNotFoundError:
        enc = Encounter._create(Encounter.Opened, id=ENCOUNTER_ID, ruling=d.number)
        d.take(enc)
    d.touch(ENCOUNTER_ID)
    d.save_also(enc)
    return enc


def running(d: Draft) -> Encounter:
    """The running encounter, or NotFound."""
    enc = load(d)
    if not enc.active:
        raise NotFound("no encounter is running", NO_ENCOUNTER)
    return enc


def require_able(sheet: Sheet) -> None:
    """The dead (and P&P's defeated) don't join a fight."""
    for c in ("dead", "defeated"):
        if sheet.has(c):
            raise ImpossibleAction(f"{sheet.name} is {c} and can't take part in the encounter")


def surprise(d: Draft, rules: RuleSystem, name: str) -> None:
    """Impose Surprised through the rules, before initiative is rolled (it reads the condition)."""
    if "surprised" not in rules.conditions:
        raise BadInput(f"{rules.title} has no Surprised condition", "leave out --surprised")
    sheet = d.sheet(name)
    if not sheet.has("surprised"):
        d.apply(rules.impose(sheet, "surprised"))


def rerolls(d: Draft) -> bool:
    """Whether the campaign rolls initiative again each round (`init -o reroll-initiative=each-round`, where the
    system's text leaves it open: d20-supers.txt, Initiative)."""
    return d.campaign.domain.get("settings", {}).get("reroll-initiative") == "each-round"


def rerolled(d: Draft, rules: RuleSystem, order: list[Entry]) -> list[Entry]:
    """The order rolled anew for a new round: every participant in play rolls initiative again (ties rolled off as at
    the start); those out of play and hazards' slots keep their initiative."""
    kept = [e for e in order if e.get("hazard") or live_sheet(d, e) is None]
    entries = [initiative(d, rules, e["name"]) for e in order if e not in kept]
    rolloffs(d, rules, entries)
    out = sorted(entries, key=lambda e: e["sort"])
    for k in kept:  # each where its initiative places it, after those it ties with
        at = next((n for n, e in enumerate(out) if e["sort"][0] > k["sort"][0]), len(out))
        out.insert(at, k)
    return out


def roll_name(d: Draft, name: str) -> str:
    """A participant's initiative roll is named after them; an entered roll may spell the name in any case."""
    return next((k for k in d.dice.entered if name_key(k) == name_key(name)), name)


def tie_key(rules: RuleSystem, sheet: Sheet) -> list[Any]:
    """The rules' tie-break key, turned to sort ascending."""
    key = list(rules.tie_break_key(sheet))
    return [-k for k in key] if rules.ties_descending else key


def initiative(
    d: Draft, rules: RuleSystem, name: str, given: int | None = None, *, texts: bool = False, roll_as: str = ""
) -> Entry:
    """Roll (or compute) one participant's initiative with the rules, or take the one the table rolled elsewhere
    (`texts`: the order it joins sorts names as text, an encounter started before the tracker's version 5)."""
    sheet = d.sheet(name)
    numbered = natural_names(d) and not texts
    first = rules.seizes_initiative(sheet)  # read before the roll spends it
    if given is None:
        rolled = roll_name(d, roll_as or sheet.name)  # a group's one roll is named after the group
        total, effects = rules.initiative(sheet, OwnedDice(d, sheet.name, {"initiative": rolled}))
    else:
        total, effects = given, [Effect(EFFECT_RESOLVED, sheet.name, {"initiative": given, "entered": True})]
    d.apply(effects)
    cid = d.character(name).id.hex
    lead = -SEIZED if first else -total
    return {
        "name": sheet.name,
        "id": cid,
        "initiative": total,
        "sort": [lead, *[natural(k) if k == sheet.name and numbered else k for k in tie_key(rules, sheet)]],
        "delayed": False,
    }


def rolloffs(d: Draft, rules: RuleSystem, entries: list[Entry]) -> None:
    """Ties the rules' keys leave open: each tied character rolls their initiative dice, highest first."""
    for rnd in range(1, ROLLOFF_ROUNDS + 1):
        groups: dict[str, list[Entry]] = {}
        for e in entries:
            groups.setdefault(repr(e["sort"]), []).append(e)
        tied = [g for g in groups.values() if len(g) > 1]
        if not tied:
            return
        for group in tied:
            results: dict[str, int] = {}
            for e in group:
                spec = rolloff_spec(d, rules, e["name"])
                if spec is None:  # a system without an initiative roll: the name decides
                    e["sort"].append(name_order(d, e["name"]))
                    continue
                name = f"rolloff-{e['name']}" + (f"-{rnd}" if rnd > 1 else "")
                results[e["name"]] = OwnedDice(d, e["name"]).take(name, spec).total
                e["sort"].append(-results[e["name"]])
            if results:
                d.apply(
                    [Effect(EFFECT_RESOLVED, "", {"initiative-tie": sorted(results), "rolloff": results, "round": rnd})]
                )
    for e in entries:
        e["sort"].append(name_order(d, e["name"]))


def name_order(d: Draft, name: str) -> Any:
    """The last tie-break, by name: from the tracker's version 5 with its numbers as numbers (`Goon 2` before `Goon
    10`); rulings recorded before sort as they did, as text."""
    return natural(name) if natural_names(d) else name.casefold()


def natural_names(d: Draft) -> bool:
    """Whether names sort with their numbers as numbers (rulings of the tracker's version 5 on)."""
    return version(d) >= NATURAL


class _Probe:
    """Dice that only note which dice a rule asks for (the lowest faces stand in; the result is thrown away)."""

    def __init__(self) -> None:
        self.spec: DiceSpec | None = None

    def take(self, name: str, spec: DiceSpec) -> Roll:
        self.spec = spec
        return Roll(name, spec, (spec.face_range()[0],) * spec.count, "entered")


def declare_initiative(d: Draft, rules: RuleSystem, names: list[str]) -> None:
    """Declare every participant's initiative roll before any is taken, each as its owner's: the heroes whose rolls go
    to their players' pages are then all asked at once (ledger/storage/wait.py), not one after another. A system
    without an initiative roll declares none."""
    if not names:
        return
    probe = _Probe()
    rules.initiative(d.sheet(names[0]), probe)
    if probe.spec is None:
        return
    for name in names:
        d.expect_roll(roll_name(d, name), owner=name)


def rolloff_spec(d: Draft, rules: RuleSystem, name: str) -> DiceSpec | None:
    """The dice of a participant's initiative roll, without its bonus (None if the system rolls none).

    An initiative entered by hand (`--init`) rolled no dice here: the rules say which they would have rolled.
    """
    first = d.dice.taken.get(roll_name(d, name))
    spec = first.spec if first is not None else None
    if spec is None:
        probe = _Probe()
        rules.initiative(d.sheet(name), probe)
        spec = probe.spec
    return DiceSpec(spec.kind, spec.count, spec.sides) if spec is not None else None
