"""H&H's own effects that last until a point of the bearer's next turn, as durations (the tracker's version 3): Aim,
Defend, Feint, all-out and defensive attack, an ally's Aid, a Heroic Feat, Extra Effort's +1 Strength. Each keeps
the rules' own counter (the rules read it: the aim bonus, the defense's dice, the feint's vulnerability, the attack's
trade-off, the aid's bonus, the feat's advantage, the raised Strength); a duration (ledger/rules/durations.py) on the
effect's name counts when it ends, so it ends as the GM's durations do, saying why, and shows the same way (`aim
until end of Ann`). The rules' own hooks (turns.py, maneuvers.py, victory.py) leave an effect a duration counts be.

Texts: gameplay.txt, Actions (Aim: "You are vulnerable while aiming", read as until the aimed attack or the end of
the next turn; Defend: "until your next turn"; Aid: "for 1 round", to the end of the ally's next turn), Maneuvers
(All-out Attack, Defensive Attack: "last for 1 round", until the attacker's next turn starts; Feint: "vulnerable
against your next attack or until the end of your next turn"); the-basics.txt (Heroic Feat: "until the end of your
next turn", Extra Effort: "Increase the hero's Strength rank by +1 for 1 round"). Readings:
docs/interpretations.md (Durations).
"""

from __future__ import annotations

from typing import Any

from ledger.model.sheet import CONDITION_REMOVED, COUNTERS_CHANGED, EFFECT_RESOLVED, TRAITS_CHANGED, Effect, Sheet
from ledger.rules.durations import counters_for, name_key, retimed
from ledger.rules.hnh.maneuvers import end_aim
from ledger.rules.hnh.victory import DEFEND, FEAT

SINCE = 3  # the tracker's version from which these are durations (ledger/rulings/deciders/durations.py)
AIM = "aim"
ATTACKS = {"all-out-attack": "all-out attack", "defensive-attack": "defensive attack"}
ATTACKS["extra-strength"] = "extra strength"  # Extra Effort's +1 Strength (the counters without an argument)
ATTACKS["ready"] = "ready"  # a readied action: "The action expires at the start of your turn" (Ready, version 4)
FEINT = "feint:"
# counter prefix -> the word its durations name it by (`defend (dodge)`, `heroic feat (luck)`, `aid attack (Bob)`)
NAMED: tuple[tuple[str, str], ...] = ((DEFEND, "defend"), (FEINT, "feint"), (FEAT, "heroic feat"))
NAMED += (("aid-attack:", "aid attack"), ("aid-defense:", "aid defense"))
NAMED += (("increased-rank:", "increased rank"),)  # extra effort's +1 rank for 1 round, to the next turn's start
UNTIL_END = ("feint (", "heroic feat (", "aid attack (", "aid defense (")  # and aim: the end of the next turn


def name_of(counter: str) -> str | None:
    """The name a duration gives the effect this counter holds (`defend (dodge)`, `feint (Bob)`), or None."""
    if counter == AIM or counter in ATTACKS:
        return ATTACKS.get(counter, counter)
    for head, word in NAMED:
        if counter.startswith(head):
            return f"{word} ({counter[len(head) :]})"
    return None


def counter_of(name: str) -> str:
    """The rules' counter an effect's name stands for (the inverse of `name_of`)."""
    for counter, word in ATTACKS.items():
        if word == name:
            return counter
    for head, word in NAMED:
        if name.startswith(f"{word} (") and name.endswith(")"):
            return head + name[len(word) + 2 : -1]
    return name


def until(name: str) -> str:
    """Which point of the bearer's next turn ends it: aim, feint, aid and a heroic feat its end; the rest its start."""
    return "end" if name == AIM or name.startswith(UNTIL_END) else "start"


def held(sheet: Sheet) -> set[str]:
    """The names of these effects the sheet holds now."""
    return {n for k, v in sheet.counters.items() if v and (n := name_of(k)) is not None}


def end(sheet: Sheet, name: str, why: str) -> list[Effect]:
    """The effect ends as its duration runs out (an aim takes its vulnerability with it), saying why."""
    said = Effect(EFFECT_RESOLVED, sheet.name, {"timed_effect": name, "expired": why})
    if name == AIM:
        return [*(e if e.event != CONDITION_REMOVED else _expired(e, why) for e in end_aim(sheet, why)), said]
    counter = counter_of(name)
    out = [said]  # first: what ended and why, then what it takes with it (one clause: `...ends (why): luck removed`)
    if counter == "extra-strength":  # Extra Effort: "+1 for 1 round", until the next turn starts
        out.append(Effect(TRAITS_CHANGED, sheet.name, {"traits": {"strength": sheet.trait("strength") - 1}}))
    if counter.startswith(FEAT):  # the advantage the feat lent goes with it
        traits: dict[str, Any] = {counter[len(FEAT) :]: None}
        out.append(Effect(TRAITS_CHANGED, sheet.name, {"traits": traits}))
    return [*out, Effect(COUNTERS_CHANGED, sheet.name, {"counters": {counter: None}})]


def _expired(e: Effect, why: str) -> Effect:
    return Effect(e.event, e.target, {**e.data, "expired": why})


def as_durations(effects: list[Effect], up: str | None, version: int) -> list[Effect]:
    """From the tracker's version 3, each of these effects set gets its duration on the bearer: until the start of
    their next turn, or (aim, feint) its end; a turn of theirs in progress is not the next (`up`)."""
    if version < SINCE:
        return effects

    def convert(bearer: str, counters: dict[str, Any]) -> dict[str, Any]:
        for key, value in list(counters.items()):
            name = name_of(key)
            if name is None or not value:
                continue
            when = until(name)
            mine = up is not None and name_key(up) == name_key(bearer)
            counters.update(counters_for(name, until=when, of=bearer, held=mine and when == "end"))
        return counters

    return retimed(effects, convert)
