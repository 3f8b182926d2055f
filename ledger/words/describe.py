"""The one description of events and intents: a ruling as a sentence, a die as a line, an intent in one line.

Pure functions on plain event dicts (`{"type", "character", "data"}`, optionally `"hp_before"`) and on
(command, intent) pairs. The CLI's output, `log`, and the CSV, Markdown and HTML exports all say what they
say through this module, so the terminal and a shared page never disagree.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from ledger.model.dice import show_faces
from ledger.model.event_names import (
    ACTION_TAKEN,
    ASK_CLOSED,
    ATTACK_RESOLVED,
    CAMPAIGN_CREATED,
    CAMPAIGN_RESTORED,
    CHARACTER_ADDED,
    CHARACTER_ENROLLED,
    CHARACTER_RETIRED,
    CHECK_RESOLVED,
    CONDITION_IMPOSED,
    CONDITION_REMOVED,
    COUNTERS_CHANGED,
    DAMAGE_APPLIED,
    DELAYED_TURN_TAKEN,
    DICE_ASKED,
    DICE_COMMITTED,
    DICE_COUNTED,
    DICE_REVEALED,
    DICE_ROLLED,
    DICE_SCHEME,
    EFFECT_RESOLVED,
    ENCOUNTER_ENDED,
    ENCOUNTER_RESTORED,
    ENCOUNTER_STARTED,
    HEALTH_RECOVERED,
    MINIONS_DEFEATED,
    NOTE_RECORDED,
    OPENED,
    OUTCOME_AMENDED,
    PARTICIPANT_JOINED,
    PARTICIPANT_REMOVED,
    RESISTANCE_RESOLVED,
    RESOURCE_CHANGED,
    RETRACTION_RECORDED,
    RULING_CHAINED,
    RULING_RECORDED,
    RULING_REDONE,
    RULING_REINSTATED,
    RULING_RETRACTED,
    RULING_UNDONE,
    SESSION_ENDED,
    SESSION_STARTED,
    STATE_RESTORED,
    TOUCHED,
    TRAITS_CHANGED,
    TURN_ADVANCED,
    TURN_DELAYED,
)
from ledger.rules import health_word, round_word, title
from ledger.words import dielines
from ledger.words.asked import asked

Event = Mapping[str, Any]

# Bookkeeping that says nothing to a reader of a ruling (they stay in `-v` and `log --all`).
QUIET = frozenset(
    {
        RULING_RECORDED,
        CHARACTER_ENROLLED,
        OPENED,
        RULING_RETRACTED,
        RULING_REINSTATED,
        TOUCHED,
        RULING_CHAINED,
        COUNTERS_CHANGED,
        DICE_COUNTED,  # a committed session's dice counter (`number 1, next 46`)
        CAMPAIGN_RESTORED,  # the campaign's own state put back by an undo (the undo's sentence says which ruling)
    }
)
# Keys of event data that are the ledger's bookkeeping, never said in a sentence (ids, versions, counters' names).
UNSAID = frozenset(
    {
        "character",
        "for",
        "faces",
        "note",
        "id",
        "character_id",
        "version",
        "next",
        "number",
        "commitment",
        "secret",
        "tracker",
        "pass_over",
        "counters",
        "sort",
        "order",
    }
)
HP_EVENTS = frozenset({DAMAGE_APPLIED, HEALTH_RECOVERED})
LONG_INTENT = 6  # an intent with more parts than this is summarised


# -- dice -------------------------------------------------------------------------------------------
def dice_line(d: Mapping[str, Any], ruling: Iterable[Event] = ()) -> str:
    """One roll: who and which roll, notation, faces, every term the rules added (from the ruling's events), the
    total used; `entered` and `unused` when they apply."""
    head, faces, tail = dice_parts(d, ruling)
    return f"{head} [{faces}]{tail}" if faces is not None else f"{head}{tail}"


def dice_parts(d: Mapping[str, Any], ruling: Iterable[Event] = ()) -> tuple[str, str | None, str]:
    """A die line in three parts, so an export can set the faces apart without searching the text (a name may
    hold brackets): (`Guard [A] attack: 1d20+2`, `15`, ` = 17 (entered)`); faces None for an expression whose
    faces sit inside it (`1d20 (14) + 1d4 (3) + 2`)."""
    owner, name = d.get("for"), d.get("name")
    if owner and str(name).startswith(f"{owner}."):  # an area's per-target roll `Paragon.dodge`: `Paragon dodge`
        name = str(name)[len(str(owner)) + 1 :]
    label = f"{owner} {name}" if owner and owner != name else str(name)
    if owner and str(owner).startswith(f"{name} "):  # `--group-init Goon`: the copies' one roll, named after them
        label = f"{name} (group initiative)"
    notes = [
        n
        for n in (
            "entered" if d.get("source") == "entered" else "",
            "player" if d.get("source") == "player" else "",
            "unused" if d.get("used") is False else "",
        )
        if n
    ]
    tail = f" ({', '.join(notes)})" if notes else ""
    if d.get("kind") == "expr":  # an expression: its faces in place, `1d20 (14) + 1d4 (3) + 2 = 19`
        # lazy: the d20 library (~0.1 s); kept out of a one-shot write
        from ledger.model import notation

        text, single = notation.shown(str(d.get("notation", "")), list(d.get("faces") or []))
        if not single:
            return f"{label}: {text}", None, f" = {d.get('total')}{tail}"
    notation_shown, extra, total = dielines.terms(d, list(ruling))
    added = "".join(f" {dielines.shown(t)}" for t in extra)
    return f"{label}: {notation_shown or d.get('notation', '')}", show_faces(dict(d)), f"{added} = {total}{tail}"


# -- intents ----------------------------------------------------------------------------------------
def intent_line(command: str, intent: Mapping[str, Any] | None) -> str:
    """A command and its arguments on one line; a long intent (an imported sheet) is summarised."""
    parts = [command] if command else []
    said = {k: (intent or {}).get(k) for k in ("note", "reason") if (intent or {}).get(k)}  # the GM's own words
    for k, v in (intent or {}).items():
        if k in said:
            continue
        if k == "powers" and isinstance(v, dict):
            parts.append(f"{len(v)} power{'s' if len(v) != 1 else ''}" if len(v) > 3 else f"powers={', '.join(v)}")
        elif k in ("typed_traits", "traits") and isinstance(v, dict) and len(v) > 3:
            parts.append(f"{len(v)} traits")
        elif k == "sheet" and isinstance(v, dict):
            parts.append(str(v.get("name", "a sheet")))
        elif (k == "count" and v == 1) or k in ("tracker", "rules"):  # (tracker: bookkeeping, deciders/table.py)
            continue
        elif isinstance(v, dict):
            parts += [f"{k2}={_value(v2)}" for k2, v2 in v.items() if v2 is not None]
        elif v is not None and v != [] and v != "":
            parts.append(f"{k}={_value(v)}")
    if len(parts) > LONG_INTENT + 1:
        parts = [*parts[: LONG_INTENT + 1], f"(+{len(parts) - LONG_INTENT - 1} more)"]
    return " ".join([*parts, *(f"({k}: {v})" for k, v in said.items())])


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (list, tuple)):
        return ",".join(map(str, v))
    if isinstance(v, dict):
        return f"({len(v)} entries)"
    return str(v)


# -- HP before a change -----------------------------------------------------------------------------
class HpFold:
    """Follows every character's HP through a stream of events, to say `HP 6 -> 1` for each change."""

    def __init__(self, groups: Collection[str] = ()) -> None:
        self.hp: dict[str, int] = {}
        self.minion: dict[str, bool] = {}
        self.groups: set[str] = set(groups)  # minion groups of more than one: their verbs are plural ("Goons hit")

    def know(self, sheet: Mapping[str, Any]) -> None:
        """Note whether a sheet is a minion group of more than one (its HP is left to the events)."""
        name = str(sheet.get("name") or "")
        if sheet.get("minion") and int(sheet.get("count") or 1) > 1:
            self.groups.add(name)  # a group stays one (`Thugs fail`) when one member is left: the name is plural
        elif not sheet.get("minion"):
            self.groups.discard(name)

    def before(self, e: Event) -> int | None:
        """The HP (or minion count) `e`'s character had just before `e`; then fold `e` in."""
        t, d, who = e["type"], e.get("data") or {}, e.get("character") or ""
        was = e.get("hp_before", self.hp.get(who))
        if t in (CHARACTER_ADDED, STATE_RESTORED):
            s = d.get("sheet") or {}
            name = s.get("name") or who
            if "hp" in s:
                self.hp[name] = s["hp"]
                self.minion[name] = bool(s.get("minion"))
            self.know({**s, "name": name})
        elif t in HP_EVENTS and isinstance(d.get("hp"), int):
            was = was if was is not None else _derived(t, d)
            self.hp[who] = d["hp"]
        elif t == MINIONS_DEFEATED and isinstance(d.get("count"), int):
            was = d["count"] + int(d.get("defeated", 0))
            self.know({"name": who, "minion": True, "count": was})
        return was if isinstance(was, int) else None


def _derived(t: str, d: Mapping[str, Any]) -> int | None:
    """The HP before, from the change itself (exact unless a floor clipped it: the fold knows better)."""
    if d.get("subdual") or not isinstance(d.get("amount"), int):
        return None
    return int(d["hp"]) + int(d["amount"]) if t == DAMAGE_APPLIED else int(d["hp"]) - int(d["amount"])


# -- one event ---------------------------------------------------------------------------------------
def change(e: Event, before: int | None = None, system: str = "") -> str:
    """What a sheet change does to its character, without the name: `HP 6 -> 1` (`Health` in P&P), `now dazed`,
    `2 fall, 3 left`."""
    t, d = e["type"], e.get("data") or {}
    label = health_word(system) if system else "HP"
    if t in HP_EVENTS:
        if d.get("subdual"):
            return f"takes {d.get('amount')} subdual damage (subdual {(d.get('counters') or {}).get('subdual', '?')})"
        before = before if before is not None else e.get("hp_before", _derived(t, d))
        arrow = f"{label} {before} -> {d.get('hp')}" if before is not None else f"{label} -> {d.get('hp')}"
        faded = f", {d['subdual-faded']} subdual fades" if d.get("subdual-faded") else ""
        bruises = (d.get("counters") or {}).get("bruises") if t == DAMAGE_APPLIED else None
        bruised = f", {bruises} bruise{'' if bruises == 1 else 's'} (Toughness -{bruises})" if bruises else ""
        return (arrow if before != d.get("hp") else f"{label} stays {d.get('hp')}") + bruised + faded
    if t == CONDITION_IMPOSED:
        return f"now {d.get('condition')}"
    if t == CONDITION_REMOVED:
        return f"no longer {d.get('condition')}" + (
            f" ({_expired(str(d['expired']), system)})" if d.get("expired") else ""
        )
    if t == MINIONS_DEFEATED:
        n = d.get("defeated", 0)
        return f"{n} {'falls' if n == 1 else 'fall'}, {d.get('count')} left"
    if t == RESOURCE_CHANGED:
        delta = int(d.get("delta", 0) or 0)
        verb = "gains" if delta > 0 else "spends"
        return f"{verb} {abs(delta)} {d.get('resource')} (now {d.get('value')})"
    if t == TRAITS_CHANGED:
        traits = ", ".join(f"{k} {v if v is not None else 'removed'}" for k, v in (d.get("traits") or {}).items())
        return f"{d['note']}: {traits}" if d.get("note") else traits  # none: what the clause before it took along
    return ""


def _expired(why: str, system: str) -> str:
    """Why a duration ran out, in the system's words: `1 round ran out` is `1 page ran out` in P&P; `until the end of
    Goons's turn` is `Goons' turn`."""
    m = re.fullmatch(r"(\d+) rounds? ran out", why)
    if m and system:
        n = int(m[1])
        return f"{n} {round_word(system)}{'' if n == 1 else 's'} ran out"
    m = re.fullmatch(r"(until the \w+ of )(.+)'s turn", why)
    return f"{m[1]}{possessive(m[2])} turn" if m else why


def opening(e: Event) -> str:
    """How a sentence about a sheet change starts when nothing before it named the character."""
    t, d, who = e["type"], e.get("data") or {}, e.get("character") or ""
    if t == DAMAGE_APPLIED and not d.get("subdual"):
        return f"{who} takes {d.get('amount')} damage"
    if t == HEALTH_RECOVERED:
        if not d.get("amount"):  # nothing regained: say why, when the rules said
            return f"{who} recovers nothing" + (f" ({d['note']})" if d.get("note") else "")
        return f"{who} recovers {d.get('amount')}"
    return who


def clause(e: Event, system: str = "", groups: Collection[str] = ()) -> tuple[str, str]:
    """A resolution or table event as (subject, words): `("Bruiser", "Ann hits Bruiser with blast (8 vs 3)")`;
    `groups` are minion groups of more than one, whose verbs are plural (`Goons hit Mara`)."""
    t, d = e["type"], e.get("data") or {}
    who = e.get("character") or d.get("character") or d.get("for") or ""
    if t == ATTACK_RESOLVED:
        return _attack(d, who, str(d.get("attacker") or who) in groups)
    if t == RESISTANCE_RESOLVED:
        return who, _resistance(d, who, who in groups)
    if t == CHECK_RESOLVED:
        return who, _check(d, who)
    if t == EFFECT_RESOLVED:
        return who, _effect(d, who, groups)
    if t == CHARACTER_ADDED:
        s = d.get("sheet") or {}
        if "adversity" in (
            s.get("resources") or {}
        ):  # the sheet that holds P&P's GM pool (ledger.model.sheet.is_gm_pool)
            return str(s.get("name") or who), f"the GM's Adversity pool opens ({s.get('name', who)})"
        extra = f" x{s['count']}" if s.get("minion") and s.get("count", 1) != 1 else ""
        system = system or str(s.get("system") or "")  # a sheet knows its system
        hp = f": {health_word(system) if system else 'HP'} {s.get('hp')}/{s.get('max_hp')}" if s.get("max_hp") else ""
        name = str(s.get("name") or who)
        return name, f"{name}{extra} {'join' if extra else 'joins'} the campaign{hp}"  # a group of several: plural
    if t == STATE_RESTORED:
        s = d.get("sheet") or {}
        system = system or str(s.get("system") or "")  # a sheet knows its system
        word = health_word(system) if system else "HP"
        return who, f"{who} restored to {word} {s.get('hp')}" if d.get("active") and s else f"{who} restored"
    if t == NOTE_RECORDED:
        return who, str(d.get("note") or d.get("text") or "note")
    if t == DICE_SCHEME and not d.get("player_dice"):
        return who, ""
    if t == CHARACTER_RETIRED:
        return who, f"{who} {_table(t, d, system)}" if "character_id" not in d else ""
    return who, _table(t, d, system, groups) or _generic(t, d, who)


def _attack(d: Mapping[str, Any], who: str, plural: bool = False) -> tuple[str, str]:
    attacker = d.get("attacker") or who
    target = d.get("target") or who
    weapon = f" with {d['with']}" if d.get("with") and d.get("with") not in ("unarmed", "threat") else ""
    if d.get("instant-death"):
        verb = "kills"
    elif d.get("critical_hit") or (d.get("critical") is True and d.get("hit")):
        verb = "critically hits"
    elif d.get("hit"):
        verb = "hits"
    else:
        verb = "misses"
    if plural:  # a group of several attacks: `Goons hit`, `Goons miss`
        verb = verb.removesuffix("es" if verb.endswith("sses") else "s")
    score = _attack_score(d)
    notes = [
        n
        for n in (
            "critical threat" if d.get("critical_threat") and not d.get("critical_hit") else "",
            "colossal failure" if d.get("colossal-failure") else "",
            "spectacular success" if d.get("spectacular-success") and not d.get("critical") else "",
            "automatic" if d.get("automatic") and not d.get("area") else "",
            "every die -1: an automatic miss"
            if isinstance(d.get("attack"), dict) and d["attack"].get("automatic_failure") and not d.get("hit")
            else "",
            _area_dodge(d),
            _upset(d),
            *_declined(d),
            _absorbed(d),
            str(d.get("reason") or ""),
            _effect_note(d, target)
            if d.get("effect")
            and d.get("effect") not in ("Damage",)
            and isinstance(d.get("effect"), str)
            and d.get("outcome") != "minions"
            else "",
        )
        if n
    ]
    tail = f" ({', '.join([score, *notes] if score else notes)})" if score or notes else ""
    return target, f"{attacker} {verb} {target}{weapon}{tail}"


def _effect_note(d: Mapping[str, Any], target: str) -> str:
    """The special effect an attack inflicts; in P&P with its pages (1 per 2 net successes), and why it defeats:
    prowlers-and-paragons.txt, Attacks: "If the duration of a special effect ever equals or exceeds the target's
    current Health, the target is defeated"."""
    effect, pages = str(d["effect"]), d.get("pages")
    if not d.get("defeated_by_effect") or not isinstance(pages, int) or isinstance(pages, bool) or pages < 1:
        return effect  # (the outcome says how long it lasts)
    return f"{effect} for {pages} page{'' if pages == 1 else 's'}, at least {possessive(target)} Health: defeated"


def _upset(d: Mapping[str, Any]) -> str:
    """hnh: why an attack check below the defense hits, or one above it misses: a critical of either roll."""
    a, dc = d.get("attack"), d.get("defense_check")
    if not isinstance(a, dict) or not isinstance(dc, dict) or not isinstance(a.get("total"), int):
        return ""
    if not isinstance(dc.get("total"), int) or a.get("automatic_failure"):
        return ""  # (an all-minus roll says its own why: an automatic miss)
    if d.get("hit") and a["total"] < dc["total"]:
        if dc.get("critical") == "failure":
            return "the defense fails critically"
        if a.get("critical") == "success":
            return "a critical success"
    if d.get("hit") is False and a["total"] >= dc["total"]:
        if a.get("critical") == "failure":
            return "a critical failure"
        if dc.get("critical") == "success":
            return "the defense succeeds critically"
    return ""


def _declined(d: Mapping[str, Any]) -> list[str]:
    """d20: a natural 20 whose critical the GM declined (`-o confirm=no`), or an instant death declined."""
    words = {"confirm": "critical declined", "death": "instant death declined"}
    return [words.get(str(n), f"{n} declined") for n in d.get("declined") or []]


def _absorbed(d: Mapping[str, Any]) -> str:
    """d20: a hit whose damage the target's DN takes entirely."""
    dmg = d.get("damage")
    if isinstance(dmg, dict) and dmg.get("dn") and dmg.get("dealt") == 0:
        return f"DN {dmg['dn']} absorbs all {dmg.get('raw')} damage"
    return ""


def _area_dodge(d: Mapping[str, Any]) -> str:
    """hnh area: the target's Dodge against the power check, and whether it halved the effect."""
    if not d.get("area"):
        return ""
    caught = f"{d['caught']} caught, " if d.get("caught") else ""
    dc = d.get("dodge_check")
    if not isinstance(dc, dict):
        return f"area, {caught}can't dodge"
    how = "dodges: half effect" if d.get("dodged") else "fails to dodge"
    return f"area, {caught}Dodge {dc.get('total')} vs {dc.get('against')}, {how}"


def _attack_score(d: Mapping[str, Any]) -> str:
    if isinstance(d.get("attack"), dict):  # hnh: attack check vs active defense or DC
        a = d["attack"].get("total")
        dc = d.get("defense_check")
        against = dc.get("total") if isinstance(dc, dict) else d.get("dc")
        return f"{a} vs {against}" if against is not None else f"{a}"
    if "dr" in d and "total" in d:  # d20: the roll against the target's DR
        return f"{d['total']} vs DR {d['dr']}"
    if "successes" in d:  # pnp: successes against the defense's
        return f"{_successes(d['successes'])} vs {d.get('threshold', 0)}"
    return ""


def _successes(n: Any) -> str:
    """`1 success`, `3 successes` (P&P pools)."""
    return f"{n} success" if n == 1 else f"{n} successes"


def _resistance(d: Mapping[str, Any], who: str, plural: bool = False) -> str:
    """`Bob resists with Toughness (3 vs 1): no effect`, `Bob fails Toughness by 2 degrees` (`Goons resist`, `fail`)."""
    resists, fails = ("resist", "fail") if plural else ("resists", "fails")
    defense = str(d.get("defense", "resistance")).capitalize()
    outcome = str(d.get("outcome") or "")
    deg = d.get("degrees")
    if outcome == "success" or outcome == "resisted":
        power, res = d.get("power"), d.get("resistance")
        vs = (
            f" ({res.get('total')} vs {power.get('total')})"
            if isinstance(power, dict) and isinstance(res, dict)
            else ""
        )
        return f"{who} {resists} with {defense}{vs}: no effect"
    by = f" by {deg} degree{'s' if deg != 1 else ''}" if isinstance(deg, int) and deg else ""
    if outcome.startswith("fail") or by:
        return f"{who} {fails} {defense}{by}"
    return f"{who} {defense}: {outcome}".rstrip(": ")


def _check(d: Mapping[str, Any], who: str) -> str:
    what = d.get("check") or d.get("kind") or d.get("trait") or "check"
    if what == "initiative":
        return f"{who} rolls initiative {d.get('total')}"
    if "successes" in d:  # pnp pools
        vs = (
            f"vs {possessive(d['opponent'])} {d.get('opponent_trait')}"
            if d.get("opponent")
            else f"vs threshold {d.get('threshold')}"
        )
        return f"{possessive(who)} {what} check: {_successes(d['successes'])} {vs}, {d.get('outcome')}"
    if d.get("healer") and d.get("subject") and d["healer"] != d["subject"]:  # Healing: the healer's check
        who, on = str(d["healer"]), f" on {d['subject']}"
    else:
        on = ""
    against = d.get("against")
    if isinstance(against, dict):
        vs = f"vs {possessive(str(against.get('character')))} {against.get('trait')} {against.get('total')}"
    elif d.get("dc") is not None:
        vs = f"vs DC {d['dc']}"
    else:
        vs = ""
    outcome = d.get("outcome") or ("success" if d.get("success") else "failure" if d.get("success") is False else "")
    deg = d.get("degrees")
    degrees = f" by {deg} degree{'s' if deg != 1 else ''}" if isinstance(deg, int) and deg and outcome else ""
    check = ("check" if what == "check" else f"{what} check") + on
    total = f" {d['total']}" if d.get("total") is not None else ""
    return f"{possessive(who)} {check}:{total} {vs}".rstrip() + (f", {outcome}{degrees}" if outcome else "")


def possessive(name: str) -> str:
    """Ann -> Ann's, Goons -> Goons' (the one spelling everywhere a turn or a trait is someone's)."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def _effect(d: Mapping[str, Any], who: str, groups: Collection[str] = ()) -> str:
    if "initiative" in d and "character" in d:
        return f"{who} rolls initiative {d['initiative']}"
    if "timed_effect" in d:  # the rules' own effect whose duration ran out (H&H aim, defend, ...)
        return f"{possessive(who)} {d['timed_effect']} ends" + (
            f" ({_expired(str(d['expired']), '')})" if d.get("expired") else ""
        )
    if "slot" in d:  # a hazard's or timed event's turn comes (`encounter join NAME --hazard`): its note
        return str(d["note"]) if d.get("note") else f"{possessive(str(d['slot']))} turn comes"
    if "passed" in d:  # the tracker passed over a turn (`encounter next`): who and why
        return f"{possessive(str(d['passed']))} turn passes ({d.get('why')})"
    if "side_down" in d:  # recorded by the ruling that left every combatant of one side down
        return "every foe is down" if d["side_down"] == "foes" else "every hero is down"
    if "initiative-tie" in d:
        return f"initiative tie between {', '.join(map(str, d['initiative-tie']))}: rolled off"
    if "hazard" in d:
        bits = [
            k.replace("_", " ") if v is True else f"{k.replace('_', ' ')} {v}"
            for k, v in d.items()
            if k not in ("hazard", *UNSAID) and v is not None and v is not False and not isinstance(v, (dict, list))
        ]
        note = f": {d['note']}" if d.get("note") else ""
        return f"{who} faces {d['hazard']}" + (f" ({', '.join(bits)})" if bits else "") + note
    if d.get("scene") == "ended":  # P&P: effects that last "for the rest of the scene" end with it
        ended = [str(n) for n in d.get("ended_for") or []]
        return f"the scene ends (effects ended for {', '.join(ended) or 'no one'})"
    if "revived" in d:
        return f"{who} is revived by {d.get('means')}" + (f" ({d['note']})" if d.get("note") else "")
    if d.get("action") and d.get("attacker") and d.get("target"):  # a contest: grab, trip, disarm, demoralize...
        won = d.get("winner")
        deg = d.get("degrees")
        how = (
            f", {won} wins" + (f" by {deg} degree{'s' if deg != 1 else ''}" if isinstance(deg, int) and deg else "")
            if won
            else ""
        )
        score = _attack_score(d) if isinstance(d.get("attack"), dict) else ""
        hit = "" if d.get("hit") is None else (", hits" if d["hit"] else ", misses")
        inner = (score + hit + how).lstrip(", ")
        item = (
            f": the {d.get('item', 'item')} is {'unharmed' if d['object_state'] == 'intact' else d['object_state']}"
            if d.get("object_state")
            else ""
        )  # Smash: Damaging Objects, bent, broken or destroyed
        tries = "try" if str(d["attacker"]) in groups else "tries"
        return f"{d['attacker']} {tries} to {d['action']} {d['target']}" + (f" ({inner})" if inner else "") + item
    if d.get("action") and d.get("kind") in FREE_KINDS and d["action"] not in RULES_VERBS:  # the GM's own words
        took = "take" if who in groups else "takes"
        typed = "" if d["action"] == "an action" else f": {d['action']}"
        return f"{who} {took} a {d['kind']} action{typed}"
    if d.get("action"):
        kind = f"a {d['kind']} action" if d.get("kind") else ""
        extra = ", ".join(
            [kind] * bool(kind)
            + [
                k.replace("-", " ") if v is True else f"{k.replace('-', ' ')} {v}"
                for k, v in d.items()
                if k not in ("action", "character", "kind", *UNSAID)
                and v is not None
                and v is not False
                and not isinstance(v, (dict, list))
            ]
        )
        does = str(d["action"]).replace("-", " ") if who in groups else _third_person(str(d["action"]))
        return f"{who} {does}" + (f" ({extra})" if extra else "")
    if "recovered" in d:
        return f"{who} recovers nothing" + (f" ({d.get('cause')})" if d.get("cause") else "")
    if d.get("critical") == "added":
        return f"{who}: {d.get('note', 'an added critical effect')}"
    if "defeated_by" in d:
        return f"{who} is taken out by {', '.join(d['defeated_by'])} until the end of the {d.get('until', 'scene')}"
    if "ended" in d and isinstance(d["ended"], list):
        return f"{who}: {', '.join(d['ended'])} ends" if d["ended"] else f"{who}: nothing ends"
    return _generic(EFFECT_RESOLVED, d, who)


FREE_KINDS = ("full", "partial", "free")  # d20 Attacks: an action as the GM names it (`act NAME action -o what=...`)
RULES_VERBS = frozenset({"charge", "run", "chase", "move"})  # the rules' own actions, said as verbs
NOT_VERBS = {
    "extra-effort": "makes an extra effort",
    "seize-initiative": "seizes the initiative",
    "an action": "takes an action",  # d20 `act NAME action` without `what`
}


def _third_person(action: str) -> str:
    """`crawl away` -> `crawls away`, `dash` -> `dashes`, `fly` -> `flies` (the verb is the first word; an action
    named by a noun has its own words, `makes an extra effort`)."""
    if action in NOT_VERBS:
        return NOT_VERBS[action]
    verb, sep, rest = action.replace("-", " ").partition(" ")
    if verb.endswith(("s", "sh", "ch", "x", "z")):
        verb += "es"
    elif verb.endswith("y") and verb[-2:-1] not in ("a", "e", "o", "u"):
        verb = verb[:-1] + "ies"
    else:
        verb += "s"
    return verb + sep + rest


def _table(t: str, d: Mapping[str, Any], system: str = "", groups: Collection[str] = ()) -> str:
    """Campaign, session, encounter and undo events (`groups`: minion groups of several, said in the plural)."""
    if t == CAMPAIGN_CREATED:
        return f"campaign {d.get('name')} begins ({title(str(d.get('system')))})"
    if t == SESSION_STARTED:
        return (
            f"session {d.get('number')} starts: {d.get('title')}"
            if d.get("title")
            else f"session {d.get('number')} starts"
        )
    if t == SESSION_ENDED:
        return f"session {d.get('number')} ends"
    if t == DICE_COMMITTED:  # verifiable dice: the commitment's first digits, to compare with what the GM showed
        return f"its dice are committed (SHA-256 {str(d.get('commitment', ''))[:12]}...)"
    if t == DICE_SCHEME:
        return "the players roll their heroes' dice" if d.get("player_dice") else ""
    if t == DICE_REVEALED:
        return "its dice secret is revealed (ledger verify --dice checks every die)"
    if t == CHARACTER_RETIRED:  # the campaign's and the character's events: said once, for the character
        return "" if "character_id" in d else "retires from play (the history keeps every ruling)"
    if t == DICE_ASKED:
        return (
            f"{possessive(str(d.get('hero')))} {d.get('name')} roll is asked of their page: committed roll"
            f" {d.get('counter')} of session {d.get('number')} is theirs"
        )
    if t == ASK_CLOSED:
        said = {"answered": "is answered", "expired": "expired", "cancelled": "is cancelled"}.get(
            str(d.get("fate")), str(d.get("fate"))
        )
        return f"the ask of ruling {d.get('ask')} {said}" + (f" ({d.get('why')})" if d.get("why") else "")
    if t == ENCOUNTER_STARTED:
        order = ", ".join(f"{o['name']} {o.get('initiative')}" for o in d.get("order", []))
        return f"encounter {d.get('number')} begins" + (f"; initiative: {order}" if order else "")
    if t in (TURN_ADVANCED, TURN_DELAYED, DELAYED_TURN_TAKEN, PARTICIPANT_JOINED, PARTICIPANT_REMOVED):
        many = d.get("name") in groups
        lead = {
            TURN_DELAYED: f"{d.get('name')} {'delay' if many else 'delays'}",
            DELAYED_TURN_TAKEN: f"{d.get('name')} {'take' if many else 'takes'} the delayed turn",
            PARTICIPANT_REMOVED: f"{d.get('name')} {'leave' if many else 'leaves'} the encounter",
            PARTICIPANT_JOINED: f"{d.get('name')} {'join' if many else 'joins'} the encounter{_joined_at(d)}",
        }.get(t, "")
        turn = (
            (f"{round_word(system)} {d['round']}: " if "round" in d else "") + f"{possessive(d['current'])} turn"
            if d.get("current")
            else ""
        )
        return "; ".join(p for p in (lead, turn) if p)
    if t == ENCOUNTER_ENDED:
        return f"encounter {d.get('number')} ends"
    if t == ACTION_TAKEN and d.get("kind") == "ready":  # a once-a-round use ready again at the bearer's turn
        return f"{possessive(str(d.get('name')))} Attack of Opportunity is ready again"
    if t == ACTION_TAKEN:
        return f"{d.get('name')} takes a {d.get('kind')} action"
    if t == CHARACTER_ENROLLED:
        return f"the roster lists {d.get('name')}"
    if t == ENCOUNTER_RESTORED:
        return "the encounter is restored"
    if t in (RULING_UNDONE, RULING_REDONE):
        return f"{'undoes' if t == RULING_UNDONE else 'redoes'} ruling {d.get('target')}"
    if t == RETRACTION_RECORDED:
        return f"retracts ruling {d.get('target')}"
    if t == OUTCOME_AMENDED:
        return f"re-derives ruling {d.get('target')} ({d.get('command')})"
    return ""


def _joined_at(d: Mapping[str, Any]) -> str:
    at = next((o.get("initiative") for o in d.get("order") or [] if o.get("name") == d.get("name")), None)
    return f" at initiative {at}" if at is not None else ""


def _generic(t: str, d: Mapping[str, Any], who: str) -> str:
    """An event no sentence knows, in words: its values (`scene ended`), else what kind of event it is."""
    scalars = ", ".join(
        k.replace("_", " ").replace("-", " ") if v is True else f"{k.replace('_', ' ').replace('-', ' ')} {v}"
        for k, v in d.items()
        if k not in UNSAID and v is not None and v is not False and not isinstance(v, (dict, list))
    )
    words = scalars or (str(d["note"]) if d.get("note") else re.sub(r"(?<!^)(?=[A-Z])", " ", t).lower())
    return f"{who}: {words}" if who else words


def event_line(e: Event, before: int | None = None, system: str = "", groups: Collection[str] = ()) -> str:
    """One event on its own, as a line of a log or an export."""
    t, d = e["type"], e.get("data") or {}
    if t == DICE_ROLLED:
        return dice_line(d)
    if t == RULING_RECORDED:  # what was asked, as a reader says it (`-v` keeps the intent as stored)
        return asked(str(d.get("command", "")), d.get("intent") or {})
    words = change(e, before, system)
    if words:
        return f"{e.get('character') or ''}: {words}".lstrip(": ")
    if t == COUNTERS_CHANGED:  # alone, a timed effect's or a tally's bookkeeping: said in words, or not at all
        return _counters(e)
    return clause(e, system, groups)[1]


def raw_line(e: Event) -> str:
    """The event as stored: type, character and every scalar field (for `-v`)."""
    d = e.get("data") or {}
    who = f" {e['character']}" if e.get("character") else ""
    fields = ", ".join(f"{k}={_raw(v)}" for k, v in d.items() if k not in ("character", "for"))
    return f"{e['type']}{who}: {fields}".rstrip(": ")


def _raw(v: Any) -> str:
    """A value as stored: nested data as compact JSON."""
    return json.dumps(v, separators=(",", ":"), default=str) if isinstance(v, (dict, list)) else str(v)


# -- a whole ruling ----------------------------------------------------------------------------------
def sentence(events: Iterable[Event], fold: HpFold | None = None, system: str = "") -> str:
    """A ruling's outcome as one sentence: who did what to whom, the outcome, every HP and condition change."""
    fold = fold or HpFold()
    evs = list(events)
    minion_hits = {e.get("character") for e in evs if e["type"] == MINIONS_DEFEATED}
    placed = {  # who the ruling's encounter line places at an initiative: their initiative checks go unsaid
        str(o.get("name"))
        for e in evs
        if e["type"] in (ENCOUNTER_STARTED, PARTICIPANT_JOINED)
        for o in (e.get("data") or {}).get("order") or []
        if e["type"] == ENCOUNTER_STARTED or o.get("name") == (e.get("data") or {}).get("name")
    }
    clauses: list[tuple[str, str, list[str]]] = []
    turning = any(e["type"] in TURNING for e in evs)  # a turn passing counts durations down: not new ones
    lasting = {} if turning else durations(evs, system)
    stated = {  # the rules' own words already say how long (`Ann defends (..., until the start of the next turn)`)
        (str(e.get("character") or ""), str((e.get("data") or {}).get("action")))
        for e in evs
        if e["type"] == EFFECT_RESOLVED and (e.get("data") or {}).get("until")
    }
    lasting = {k: v for k, v in lasting.items() if not any(k[0] == w and k[1].startswith(a) for w, a in stated)}
    imposed = {
        (e.get("character") or "", (e.get("data") or {}).get("condition"))
        for e in evs
        if e["type"] == CONDITION_IMPOSED
    }
    for e in evs:
        t = e["type"]
        before = fold.before(e)
        who = e.get("character") or ""
        if t == COUNTERS_CHANGED:  # a timed effect's duration, said with it: `aiming at Bob until the end of ...`
            words = ", ".join(f for (w, eff), f in timed_words(e, lasting).items() if (w, eff) not in imposed)
            if not words:
                continue
        elif t in QUIET or t == DICE_ROLLED or (t == ACTION_TAKEN and len(evs) > 1):
            continue  # (the action economy's tally: the action's own resolution says what was done)
        elif t == ASK_CLOSED and (e.get("data") or {}).get("fate") == "answered" and len(evs) > 1:
            continue  # a player's answer used by this ruling: its die lines say `player`
        elif t == DAMAGE_APPLIED and who in minion_hits and not (e.get("data") or {}).get("subdual"):
            continue  # the MinionsDefeated line says it better
        elif t == CONDITION_IMPOSED and (who, str((e.get("data") or {}).get("condition"))) in lasting:
            words = f"{change(e, before, system)} {lasting[(who, str((e.get('data') or {}).get('condition')))]}"
        else:
            words = change(e, before, system)
        if words:
            if clauses and clauses[-1][0] == who:
                clauses[-1][2].append(words)
            elif t == RESOURCE_CHANGED:
                clauses.append((who, f"{who} {words}", []))
            else:
                clauses.append((who, opening(e), [words]))
            continue
        if (
            who in placed
            and t in (CHECK_RESOLVED, EFFECT_RESOLVED)
            and "initiative" in ((e.get("data") or {}).get("check"), *(e.get("data") or {}))
        ):
            continue  # the encounter's opening (or joining) line gives the initiative
        subject, text = clause(e, system, fold.groups)
        if text:
            clauses.append((subject, text, []))
    if not clauses:  # only counters changed (an ongoing damage set): say which
        clauses = [(str(e.get("character") or ""), _counters(e), []) for e in evs if e["type"] == COUNTERS_CHANGED]
        clauses = [c for c in clauses if c[1]]
    if not clauses:
        return ""
    parts = [text + (": " + ", ".join(_merged(extra)) if extra else "") for _, text, extra in clauses]
    out = "; ".join(parts)
    return out[:1].upper() + out[1:] + ("" if out.endswith(".") else ".")


SAID_COUNTERS = {"ongoing-damage": "ongoing damage", "bruises": "bruises", "subdual": "subdual damage"}


TURNING = frozenset({TURN_ADVANCED, TURN_DELAYED, DELAYED_TURN_TAKEN, ENCOUNTER_STARTED, ENCOUNTER_ENDED})


def durations(evs: Iterable[Event], system: str = "") -> dict[tuple[str, str], str]:
    """How long each timed effect a ruling starts lasts, from the counters that keep it (ledger/rules/durations.py):
    `{("Ann", "aim"): "until the end of Ann's next turn", ("Bob", "dazed"): "for 2 rounds"}`."""
    out: dict[tuple[str, str], str] = {}
    for e in evs:
        if e["type"] != COUNTERS_CHANGED:
            continue
        who = str(e.get("character") or "")
        for key, n in ((e.get("data") or {}).get("counters") or {}).items():
            if not isinstance(n, int) or isinstance(n, bool):
                continue
            m = re.fullmatch(r"until-(start|end):(.+?):(.+)", key)
            if m:
                out[(who, m[3])] = f"until the {m[1]} of {possessive(m[2])} next turn"
            elif key.startswith("rounds:"):
                word = round_word(system) if system else "round"
                out[(who, key[7:])] = f"for {n} {word}{'' if n == 1 else 's'}"
            elif key.startswith("scene:"):
                out[(who, key[6:])] = "for the rest of the scene"
    return out


def timed_words(e: Event, lasting: Mapping[tuple[str, str], str]) -> dict[tuple[str, str], str]:
    """A CountersChanged event's timed effects in words, by (bearer, effect): `aiming at Bob until the end of Ann's
    next turn`; nothing for the tallies a reader is not told."""
    who = str(e.get("character") or "")
    counters = (e.get("data") or {}).get("counters") or {}
    aimed = next((k.split(":", 1)[1] for k, v in counters.items() if k.startswith("aim-at:") and v), None)
    out: dict[tuple[str, str], str] = {}
    for (w, eff), how in lasting.items():
        if w != who or not any(k.endswith(f":{eff}") and v is not None for k, v in counters.items()):
            continue
        if eff == "aim":
            out[(w, eff)] = f"aiming at {aimed} {how}" if aimed else f"aiming {how}"
        else:
            out[(w, eff)] = f"{eff} {how}"
    return out


def _counters(e: Event) -> str:
    """A ruling that only sets counters: `Bob: ongoing damage 2` (`ongoing damage ends` when removed)."""
    counters = (e.get("data") or {}).get("counters") or {}
    said = [f"{SAID_COUNTERS[k]} {'ends' if v is None else v}" for k, v in counters.items() if k in SAID_COUNTERS]
    who = e.get("character") or ""
    return f"{who}: {', '.join(said)}" if said and who else ", ".join(said)


def _merged(fragments: list[str]) -> list[str]:
    """`now dying`, `now prone` -> `now dying and prone` (the same for `no longer`; `no longer dazed (why)`, `no
    longer prone (why)` -> `no longer dazed and prone (why)`)."""
    out: list[str] = []
    for f in fragments:
        for lead in ("now ", "no longer "):
            if f.startswith(lead) and out and out[-1].startswith(lead):
                last, why = _why(out[-1])
                this, same = _why(f)
                out[-1] = f"{last} and {this[len(lead) :]}{why}" if why == same else f"{out[-1]} and {f[len(lead) :]}"
                break
        else:
            out.append(f)
    return out


def _why(fragment: str) -> tuple[str, str]:
    """A fragment without the reason that ends it (` (1 round ran out)`), and that reason ('' if none)."""
    m = re.fullmatch(r"(.*?)( \([^()]*\)| (?:for|until) .*)", fragment)
    return (m[1], m[2]) if m else (fragment, "")


def defense_names(evs: list[Event]) -> dict[str, str]:
    """hnh: a resistance roll named `toughness` that was a Will or Fortitude check -> the defense's real name."""
    out: dict[str, str] = {}
    for e in evs:
        d = e.get("data") or {}
        roll = (d.get("resistance") or {}).get("roll") if isinstance(d.get("resistance"), dict) else None
        defense = str(d.get("defense") or "")
        if e["type"] == RESISTANCE_RESOLVED and roll and defense and defense not in str(roll):
            out[str(roll)] = defense
    return out


def _named(d: Mapping[str, Any], real: Mapping[str, str]) -> Mapping[str, Any]:
    """The die's data with its name shown as `will (roll toughness)` where the defense differs from the name."""
    name = str(d.get("name"))
    return {**d, "name": f"{real[name]} (roll {name})"} if name in real else d


def ruling_lines(
    events: Iterable[Event], *, verbose: bool = False, fold: HpFold | None = None, system: str = ""
) -> list[str]:
    """The sentence, then one line per die, then (verbose) every raw event."""
    evs = list(events)
    lines = [sentence(evs, fold, system)]
    real = defense_names(evs)
    lines += [f"  {dice_line(_named(e.get('data') or {}, real), evs)}" for e in evs if e["type"] == DICE_ROLLED]
    if verbose:
        lines += [f"    {raw_line(e)}" for e in evs]
    return [x for x in lines if x]
