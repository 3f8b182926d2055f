"""`encounter start|next|delay|act|join|show|end|log`: initiative and turns, one ruling per command."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any, cast

import click

from commands.context import AppContext, pass_app
from commands.options import wait_option
from commands.params import number
from commands.registry import command, group
from ledger import catalog as C
from ledger.errors import BadInput
from ledger.model.dice import parse_roll_options
from ledger.model.event_names import (
    DELAYED_TURN_TAKEN,
    DICE_ROLLED,
    ENCOUNTER_ENDED,
    ENCOUNTER_STARTED,
    OPENED,
    PARTICIPANT_JOINED,
    PARTICIPANT_REMOVED,
    TURN_ADVANCED,
    TURN_DELAYED,
)
from ledger.rules import health_word
from ledger.rules import round_word as word
from ledger.rules.durations import shown
from ledger.words.asked import asked
from ledger.words.describe import HpFold, dice_line, possessive, ruling_lines, sentence
from ledger.words.tracker import table

if TYPE_CHECKING:
    from ledger.intents import Recorded

ROLLS_HELP = (
    "Enter physical dice NAME=FACES (repeatable); a roll not given is rolled by the ledger. Initiative rolls are "
    "named after the participant (Ann=+,0,- in hnh, Ann=14 in d20; pnp rolls none); ties left open: rolloff-NAME."
)
TURN_ROLLS_HELP = (
    "Enter physical dice NAME=FACES (repeatable) for the turn's processing: hnh fortitude (dying check), "
    "ongoing-NAME (affliction checks), power and toughness (ongoing damage)."
)
OWN_EVENTS = {
    OPENED,
    ENCOUNTER_STARTED,
    TURN_ADVANCED,
    TURN_DELAYED,
    DELAYED_TURN_TAKEN,
    PARTICIPANT_JOINED,
    PARTICIPANT_REMOVED,
    ENCOUNTER_ENDED,
}


def round_word(system: str) -> str:
    """What the system calls a round (P&P: a page)."""
    return word(system)


def order_text(v: Mapping[str, Any]) -> str:
    """The running encounter: round, whose turn, and the order with initiatives."""
    up = possessive(str(v["current"]))
    head = f"encounter {v['encounter']} ({v['system']}), {round_word(v['system'])} {v['round']}: {up} turn"
    width = max((len(e["name"]) for e in v["order"]), default=4)
    lines = [head]
    passed = {s["name"]: s["why"] for s in v.get("skipped") or []}
    for e in v["order"]:
        mark = ">" if e["name"] == v["current"] else " "
        note = (
            "  (delaying)"
            if e.get("delayed")
            else f"  (passed over: {passed[e['name']]})"
            if e["name"] in passed
            else ""
        )
        lines.append(f"  {mark} {e['name']:<{width}}  {e['initiative']:>3}{note}")
    return "\n".join(lines)


def turn_text(lead: Callable[[Recorded], str]) -> Callable[[Recorded], str]:
    """A renderer: a lead line, the order, then what the rules did."""

    def text(r: Recorded) -> str:
        events = r.get("events", [])
        several = [str(e["name"]) for e in r.get("rows") or () if int(e.get("count") or 1) > 1]  # `Goons take`
        said = sentence(events, HpFold(several), system=r.get("system", "")) or f"{lead(r)}."
        dice = [f"  {dice_line(e['data'], events)}" for e in events if e["type"] == DICE_ROLLED]
        recorded = any("passed" in (e.get("data") or {}) for e in events)  # the sentence says who it passed over
        notes = ("" if recorded else passed_over(r)) + forced(r)  # who the turn passed over, and why
        order = table({**r, "order": r["rows"]}) if r.get("rows") else order_text(r)
        lines = [said[:-1] + notes + "." if notes else said, *up_line(r), order, *dice]
        return "\n".join(lines)

    return text


def forced(r: Recorded) -> str:
    """A note when the turn that came up was a delayer's, forced on them."""
    return (
        f" ({r['current']} delayed until their place came round again: this turn is forced)" if r.get("forced") else ""
    )


@group(C.ENCOUNTER)
def encounter() -> None:
    """Encounters: roll initiative, run turns and rounds, join, delay, end."""


group_init_option = click.option(
    "--group-init",
    "group_init",
    multiple=True,
    metavar="NAME",
    help="The copies NAME 1 .. NAME N share one initiative roll (named NAME), their turns one after another "
    "(repeatable).",
)


@command(C.ENCOUNTER_START)
@click.argument("names", nargs=-1, required=True)
@click.option(
    "--surprised",
    multiple=True,
    metavar="NAME",
    help="hnh: this participant is Surprised (-10 initiative, vulnerable until their turn).",
)
@click.option(
    "--init",
    "inits",
    multiple=True,
    metavar="NAME=VALUE",
    help="This participant's initiative total, rolled elsewhere (repeatable); it replaces their roll. Ties are "
    "still settled by the rules.",
)
@click.option("--roll", "rolls", multiple=True, metavar="NAME=FACES", help=ROLLS_HELP)
@group_init_option
@click.option(
    "--hidden",
    is_flag=True,
    help="Keep the participants who are not heroes off the players' screen until each acts or is revealed.",
)
@wait_option
@pass_app
def start(
    app: AppContext,
    names: tuple[str, ...],
    surprised: tuple[str, ...],
    inits: tuple[str, ...],
    rolls: tuple[str, ...],
    group_init: tuple[str, ...],
    hidden: bool,
) -> None:
    """Start an encounter: everyone rolls initiative in the campaign's system; the highest acts first.

    \b
    hnh 3dF + Agility + Improved Initiative (ties: Dodge, Agility, Awareness, then a roll-off);
    d20 1d20 + Dex modifier; pnp no roll: Edge. A minion group is one participant; the name of a group
    added with `character add NAME --copies N` brings NAME 1 .. NAME N.
    Example: ledger encounter start Ann Bob Thugs --surprised Thugs --roll Ann=+,0,-
    Rolled at the table: ledger encounter start Ann Bob --init Ann=14 --init Bob=9
    One roll for five copies: ledger encounter start Ann Goon --group-init Goon --roll Goon=12
    An ambush the players don't see yet: ledger encounter start Ann Ghost --hidden (see encounter reveal)
    """
    result = app.ledger.start_encounter(
        list(names),
        surprised=list(surprised),
        init=parse_inits(inits),
        rolls=parse_roll_options(rolls),
        group_init=list(group_init),
        hidden=hidden,
    )
    app.wrote(result, turn_text(lambda r: "initiative rolled"))


def parse_inits(values: tuple[str, ...]) -> dict[str, int]:
    """`--init NAME=VALUE` pairs: whole-number initiative totals by participant."""
    out: dict[str, int] = {}
    for item in values:
        name, sep, raw = item.rpartition("=")
        if not sep or not name.strip():
            raise BadInput(f"--init '{item}' is not NAME=VALUE", "for example --init Ann=14")
        try:
            out[name.strip()] = int(raw.strip())
        except ValueError:
            raise BadInput(f"--init {name.strip()}: initiative is a whole number, got '{raw.strip()}'") from None
        if abs(out[name.strip()]) > 1000:
            raise BadInput(f"--init {name.strip()}: initiative must be from -1000 to 1000, got {raw.strip()}")
    return out


def passed_over(r: Recorded) -> str:
    """A note naming who the turn passed over and why: `(Villain is dying: no turn)`."""
    skipped = [f"{s['name']} is {s['why']}: no turn" for s in r.get("skipped") or []]
    return f" ({'; '.join(skipped)})" if skipped else ""


def up_line(r: Recorded) -> list[str]:
    """Who is up, with HP (Health) and conditions: `up: Bob  HP 4/10  dazed 1`; or why they can take no action."""
    u = r.get("up")
    if not u:
        return []
    if "hazard" in u:
        return [f"up: {u['name']} (hazard)" + (f": {u['hazard']}" if u["hazard"] else "")]
    timed = u.get("left") or {}
    conditions = ", ".join(shown(u.get("conditions") or (), timed))
    count = f" x{u['count']}" if "count" in u else ""
    line = f"up: {u['name']}{count}  {health_word(r.get('system', ''))} {u['hp']}/{u['max_hp']}"
    line += f"  {conditions}" if conditions else ""
    if u.get("no_action"):
        line += f"  ({u['name']} {'are' if u.get('count', 1) > 1 else 'is'} {u['no_action']}: no action)"
    return [line]


@command(C.ENCOUNTER_NEXT)
@click.option("--roll", "rolls", multiple=True, metavar="NAME=FACES", help=TURN_ROLLS_HELP)
@wait_option
@pass_app
def next_(app: AppContext, rolls: tuple[str, ...]) -> None:
    """End the current turn and start the next one (the rules' end- and start-of-turn processing).

    A round ends when the order comes back to its top. The dead and fully defeated groups are passed over
    (and named); everyone the rules still give a turn keeps it (hnh: a dying character, for the dying check).
    Example: ledger encounter next
    """
    result = app.ledger.next_turn(rolls=parse_roll_options(rolls))
    app.wrote(result, turn_text(lambda r: "next turn"))


@command(C.ENCOUNTER_REMOVE)
@click.argument("name")
@click.option("--roll", "rolls", multiple=True, metavar="NAME=FACES", help=TURN_ROLLS_HELP)
@wait_option
@pass_app
def remove(app: AppContext, name: str, rolls: tuple[str, ...]) -> None:
    """NAME leaves the fight (fled, captured, gone); the order and whose turn it is stay right.

    If it was NAME's turn, the next one's starts. Example: ledger encounter remove Thugs
    """
    result = app.ledger.remove_from_encounter(name, rolls=parse_roll_options(rolls))
    app.wrote(result, turn_text(lambda r: f"{r['removed']} leaves the encounter"))


@command(C.ENCOUNTER_DELAY)
@click.option("--roll", "rolls", multiple=True, metavar="NAME=FACES", help=TURN_ROLLS_HELP)
@wait_option
@pass_app
def delay(app: AppContext, rolls: tuple[str, ...]) -> None:
    """The current character delays their whole turn; take it later with `encounter act NAME`.

    If they have not acted when their place comes round again, that turn is forced on them.
    Example: ledger encounter delay
    """
    result = app.ledger.delay_turn(rolls=parse_roll_options(rolls))
    app.wrote(result, turn_text(lambda r: f"{r['delayed']} delays"))


@command(C.ENCOUNTER_ACT)
@click.argument("name")
@click.option("--roll", "rolls", multiple=True, metavar="NAME=FACES", help=TURN_ROLLS_HELP)
@wait_option
@pass_app
def act(app: AppContext, name: str, rolls: tuple[str, ...]) -> None:
    """A delaying character takes their turn now, after the current turn ends; their initiative moves there.

    Example: ledger encounter act Ann
    """
    result = app.ledger.act_now(name, rolls=parse_roll_options(rolls))
    app.wrote(result, turn_text(lambda r: f"{r['current']} stops delaying and acts now"))


@command(C.ENCOUNTER_JOIN)
@click.argument("names", nargs=-1, required=True)
@click.option("--surprised", is_flag=True, help="hnh: the newcomers are Surprised.")
@click.option("--roll", "rolls", multiple=True, metavar="NAME=FACES", help=ROLLS_HELP)
@click.option(
    "--hazard",
    is_flag=True,
    help="NAME is a turn slot with no sheet (a hazard, a timed event) at initiative --init N; its --note is said on "
    "its turn.",
)
@click.option(
    "--init", "at_init", type=number("initiative"), default=None, metavar="N", help="With --hazard: its place."
)
@click.option(
    "--hidden", is_flag=True, help="Keep the newcomers off the players' screen until each acts or is revealed."
)
@group_init_option
@wait_option
@pass_app
def join(
    app: AppContext,
    names: tuple[str, ...],
    surprised: bool,
    rolls: tuple[str, ...],
    hazard: bool,
    at_init: int | None,
    hidden: bool,
    group_init: tuple[str, ...],
) -> None:
    """Characters join mid-fight: each rolls initiative and acts when their place in the order comes.

    The name of a group added with `character add NAME --copies N` brings NAME 1 .. NAME N. A hazard or a timed
    event takes a turn slot of its own, with no sheet: its turn comes at its initiative and says its note.

    \b
    Examples:
      ledger encounter join Cy --roll Cy=0,0,+
      ledger encounter join "Falling Debris" --hazard --init 5 --note "the ceiling gives way: Dodge DC 12"
      ledger encounter join Ghost --hidden   (a foe the players don't see yet)
      ledger encounter join Goon --group-init Goon --roll Goon=0,+,0   (one roll for Goon 1 .. Goon N)
    """
    result = app.ledger.join_encounter(
        list(names),
        surprised=surprised,
        rolls=parse_roll_options(rolls),
        hazard=hazard,
        init=at_init,
        note=app.note,
        hidden=hidden,
        group_init=list(group_init),
    )
    app.wrote(result, turn_text(joined_text))


def joined_text(r: Recorded) -> str:
    """`Cy joins at initiative 7`, or each newcomer's initiative."""
    found = r.get("initiatives") or {r["joined"]: r["initiative"]}
    if len(found) == 1:
        return f"{r['joined']} joins at initiative {r['initiative']}"
    return "join at initiative " + ", ".join(f"{n} {v}" for n, v in found.items())


@command(C.ENCOUNTER_REVEAL)
@click.argument("names", nargs=-1)
@click.option(
    "--ruling", "rulings", multiple=True, type=number("ruling"), metavar="N", help="Show ruling N, recorded --secret."
)
@pass_app
def reveal(app: AppContext, names: tuple[str, ...], rulings: tuple[int, ...]) -> None:
    """Show hidden characters (added or brought in with --hidden), and rulings recorded with --secret, to the players.

    \b
    Only `ledger serve`'s players' pages hide anything: the record, verify and the exports always hold it all.
    A hidden character also shows itself as it acts (attack, check, act).
    Example: ledger encounter reveal Ghost; ledger encounter reveal --ruling 12
    """
    result = app.ledger.reveal(list(names), rulings=list(rulings))
    app.wrote(result, revealed_text)


def revealed_text(r: Recorded) -> str:
    """`Ghost is revealed to the players` (and each ruling shown)."""
    names = cast("list[str]", r.get("revealed") or [])
    numbers = cast("list[int]", r.get("rulings") or [])
    said = [f"{n} is revealed to the players" for n in names]
    said += [f"ruling {n} is shown to the players" for n in numbers]
    return "; ".join(said)


@command(C.ENCOUNTER_SHOW)
@click.option("--odds", "with_odds", is_flag=True, help="Add the quick forecast: each side's chance (ledger odds).")
@pass_app
def show(app: AppContext, with_odds: bool) -> None:
    """The running encounter: round, who is up, and each participant's initiative, HP, conditions and marks.

    Marks are DEAD, DYING, DEFEATED and the like, and DELAYING; a minion group shows its count (Thugs x3).
    A participant who has acted this round says what the round's action count holds (acted: standard, move; d20:
    partial), and --json keeps it as `spent`. Example: ledger --json encounter show --odds
    """
    # lazy: the read side (SQLAlchemy); kept out of a one-shot write
    from projections.tracker import idle, text, tracker

    found = tracker(app.read, required=False)
    if found is None:
        app.emit(idle(app.read), idle_text)
        return
    if not with_odds:
        app.emit({"running": True, **found}, text)
        return
    # lazy: the simulator, for --odds only
    from commands.odds import odds_line, quick_odds

    estimate = quick_odds(app.ledger)
    app.emit({"running": True, **found, "odds": estimate}, lambda d: text(d) + "\n" + odds_line(d["odds"]))


def idle_text(doc: dict[str, Any]) -> str:
    """No encounter running: say so, then the last one's summary, if there was one."""
    # lazy: the round summary; kept out of a one-shot write
    from ledger.words.summary import lines

    last = doc.get("last")
    return "\n".join(["no encounter is running", *(lines(last, round_word(last["system"])) if last else [])])


@command(C.ENCOUNTER_END)
@pass_app
def end(app: AppContext) -> None:
    """End the running encounter (Surprised ends with it; in pnp the scene ends too: see `ledger scene end`).

    Example: ledger encounter end
    """
    result = app.ledger.end_encounter()
    app.wrote(result, ended)


def ended(r: Recorded) -> str:
    """`Encounter 1 ends after 2 rounds.`, with what ending it did (scene effects), then any dice."""
    system = r.get("system") or ("pnp" if "scene_ended_for" in r else "")  # only P&P has scenes to end
    word = round_word(system)
    lead = f"Encounter {r['encounter']} ends after {r['rounds']} {word}{'s' if r['rounds'] != 1 else ''}"
    rest = ruling_lines([e for e in r.get("events", []) if e["type"] not in OWN_EVENTS], system=system)
    summary = summary_lines(r.get("summary"), word)
    if rest and not rest[0].startswith("  "):
        return "\n".join([f"{lead}; {rest[0]}", *rest[1:], *summary])
    return "\n".join([f"{lead}.", *rest, *summary])


def summary_lines(summary: dict[str, Any] | None, word: str) -> list[str]:
    """The encounter's summary after its first line (which the ruling's sentence already says)."""
    # lazy: the round summary; kept out of a one-shot write
    from ledger.words.summary import lines

    return lines(summary, word)[1:] if summary else []


@command(C.ENCOUNTER_LOG)
@click.argument("number", type=number("number"), required=False)
@pass_app
def log(app: AppContext, number: int | None) -> None:
    """Turn by turn: who acted, rolls with faces, outcomes and conditions (undone rulings left out).

    NUMBER is the encounter (default: the latest). Example: ledger encounter log 1
    """
    # lazy: the read side (SQLAlchemy); kept out of a one-shot write
    from projections import queries

    groups = queries.groups(app.read)  # the encounter starts after the groups were added
    app.emit(queries.encounter_log(app.read, number), lambda doc: log_text(doc, groups), page=True)


def log_text(doc: dict[str, Any], groups: Collection[str] = ()) -> str:
    """An encounter's log, grouped by round and turn."""
    fold = HpFold(groups)
    word = round_word(doc["system"])
    end = f", ended at ruling {doc['ended']}" if doc["ended"] else " (running)"
    lines = [f"encounter {doc['number']} ({doc['system']}): started at ruling {doc['started']}{end}"]
    for t in doc["turns"]:
        lines.append(f"{word} {t['round']}, {possessive(str(t['actor']))} turn" if t["actor"] else "initiative")
        for r in t["rulings"]:
            said = ruling_lines(
                [e for e in r["events"] if e["type"] not in OWN_EVENTS], fold=fold, system=doc["system"]
            )
            bare = not (said and not said[0].startswith("  "))  # no sentence: say what was asked
            notes = [f"{k}: {v}" for k in ("note", "reason") if (v := (r["intent"] or {}).get(k))]
            lines.append(
                f"  #{r['ruling']}"
                + (f" {asked(r['command'], r['intent'])}" if bare else "")
                + (f" ({'; '.join(notes)})" if notes else "")
            )
            lines += [f"      {line}" for line in said]
            lines += [
                f"      {own_event(e['type'], e['data'], word)}"
                for e in r["events"]
                if e["type"] in OWN_EVENTS and e["type"] != OPENED
            ]
    return "\n".join(lines)


def own_event(kind: str, d: dict[str, Any], word: str) -> str:
    """An encounter event in words."""
    if kind == ENCOUNTER_STARTED:
        return "order: " + ", ".join(f"{e['name']} {e['initiative']}" for e in d["order"])
    if kind == TURN_ADVANCED:
        return f"turn ends; next: {d['current']} ({word} {d['round']})"
    if kind == TURN_DELAYED:
        return f"{d['name']} delays; next: {d['current']} ({word} {d['round']})"
    if kind == DELAYED_TURN_TAKEN:
        return f"turn ends; {d['name']} stops delaying and acts now"
    if kind == PARTICIPANT_JOINED:
        joined = next((e for e in d["order"] if e["name"] == d["name"]), {"initiative": "?"})
        return f"{d['name']} joins at initiative {joined['initiative']}"
    if kind == PARTICIPANT_REMOVED:
        return f"{d['name']} leaves the encounter; {possessive(str(d['current']))} turn ({word} {d['round']})"
    return "the encounter ends"
