"""Every ruling kind of each system says its outcome in a sentence, in that system's own words.

Each system plays every command it has (every ruling command of ledger/catalog.py and every `act` its rules
declare) through the real CLI; the first line of each ruling must be a sentence a person can read: no raw event
class name, no `None`, no empty heading, and the system's word for health and for a round (P&P: Health, page).
"""

from __future__ import annotations

import re

import pytest

from ledger.model import event_names
from ledger.rules import get_rules, health_word, round_word
from tests.conftest import FIXTURES, Cli

EVENT_NAMES = sorted(
    {v for k, v in vars(event_names).items() if k.isupper() and isinstance(v, str) and re.fullmatch(r"[A-Z]\w+", v)}
)
RAW = re.compile(r"\b(" + "|".join(EVENT_NAMES) + r")\b")
ROLLS = ("--roll", "attack=+,0,0", "--roll", "defense=0,0,0", "--roll", "power=0,0,0", "--roll", "toughness=-,0,0")

HNH: list[tuple[str, ...]] = [
    ("character", "add", "Ann", "--pc", "--trait", "fighting=6", "--trait", "strength=3", "--trait", "agility=2",
     "--trait", "deception=6", "--trait", "intimidation=6", "--trait", "seize-initiative=1", "--trait", "stamina=2",
     ),
    ("character", "add", "Bob", "--trait", "strength=1", "--trait", "fighting=2", "--trait", "stamina=2",
     "--trait", "insight=1", "--trait", "presence=0", "--trait", "agility=1"),
    ("character", "add", "Goons", "--minion", "--count", "3", "--trait", "fighting=2", "--trait", "toughness=1"),
    ("character", "copy", "Bob", "Bob 2"),
    ("character", "set", "Bob", "--trait", "insight=2"),
    ("session", "start", "Docks"),
    ("encounter", "start", "Ann", "Bob", "Goons", "--roll", "Ann=+,0,0", "--roll", "Bob=0,0,0", "--roll",
     "Goons=-,0,0"),
    ("attack", "Ann", "Bob", "--rank", "4", "--bonus", "6", *ROLLS),
    ("attack", "Goons", "Ann", "--rank", "2", "--bonus", "2", "--roll", "attack=+,+,0", "--roll", "defense=-,-,0",
     "--roll", "power=0,0,0", "--roll", "toughness=0,0,0"),
    ("roll", "3dF+2", "--for", "Ann"),
    ("check", "Ann", "fighting", "--dc", "5"),
    ("damage", "Bob", "--rank", "2"),
    ("condition", "add", "Bob", "dazed", "--rounds", "1"),
    ("condition", "remove", "Bob", "dazed"),
    ("spend", "Ann", "victory-points", "1"),
    ("gain", "Ann", "victory-points", "1"),
    ("hazard", "Ann", "forced-labor", "--roll", "fortitude=0,0,0"),
    ("recover", "Ann", "--hours", "8", "--restful"),
    ("act", "Ann", "grab", "--against", "Bob", "--roll", "attack=0,0,0", "--roll", "defense=0,0,0", "--roll",
     "strength=0,0,0", "--roll", "against=0,0,0"),
    ("act", "Bob", "escape", "--against", "Ann"),
    ("act", "Ann", "release", "--against", "Bob"),
    ("act", "Ann", "trip", "--against", "Bob", "--roll", "attack=0,0,0", "--roll", "defense=0,0,0"),
    ("act", "Ann", "disarm", "--against", "Bob", "--roll", "attack=+,+,0", "--roll", "defense=0,0,0"),
    ("act", "Ann", "smash", "--against", "Bob", "--roll", "attack=+,+,0", "--roll", "defense=0,0,0"),
    ("act", "Ann", "feint", "--against", "Bob"),
    ("act", "Ann", "demoralize", "--against", "Bob"),
    ("act", "Ann", "aim"),
    ("act", "Ann", "defend", "-o", "defense=parry"),
    ("act", "Ann", "extra-effort", "-o", "benefit=strength"),
    ("act", "Ann", "seize-initiative"),
    ("act", "Bob", "until", "-o", "condition=dazed", "-o", "until=end"),
    ("act", "Bob", "ongoing-damage", "-o", "rank=2"),
    ("act", "Ann", "heal", "--against", "Bob", "-o", "rank=3"),
    ("act", "Ann", "affliction", "--against", "Bob", "-o", "with=daze", "-o", "rank=4", "-o",
     "conditions=dazed,stunned,incapacitated"),
    ("encounter", "next"),  # the stunned Bob's turn is passed over (conditions.txt, Stunned): the Goons are up
    ("encounter", "delay"),
    ("encounter", "next"),
    ("encounter", "act", "Goons"),
    ("encounter", "join", "Bob 2"),
    ("encounter", "remove", "Bob 2"),
    ("encounter", "next"),
    ("encounter", "end"),  # Bob died of his dying check in round 2 (gameplay.txt, Dying)
    ("revive", "Bob", "--means", "healing"),
    ("character", "retire", "Bob 2"),
    ("condition", "add", "Ann", "prone"),
    ("act", "Ann", "stand"),
    ("act", "Ann", "action", "-o", "kind=move", "-o", "what=climb the crates"),
    ("act", "Ann", "ready", "-o", "what=strike whoever comes through the door"),
    ("condition", "add", "Goons", "entranced"),
    ("act", "Ann", "shake", "--against", "Goons", "-o", "dc=0", "--roll", "check=0,0,0"),
    ("character", "import", str(FIXTURES / "psychic.json")),
    ("act", "Psychic", "maintain", "-o", "power=telekinesis"),
    ("act", "Psychic", "drop", "-o", "power=telekinesis"),
    ("undo",),
    ("redo",),
    ("retract", "{attack}", "--yes"),
    ("session", "end"),
]  # fmt: skip

D20: list[tuple[str, ...]] = [
    ("character", "add", "Ann", "--pc", "--trait", "str=14", "--trait", "dex=14", "--trait", "attack=2",
     "--trait", "hp=12"),
    ("character", "add", "Thug", "--trait", "hp=20", "--trait", "dn=1"),
    ("character", "copy", "Thug", "Thug 2"),
    ("character", "set", "Thug", "--trait", "dn=2"),
    ("session", "start", "Roof"),
    ("encounter", "start", "Ann", "Thug", "--roll", "Ann=15", "--roll", "Thug=9"),
    ("attack", "Ann", "Thug", "--damage", "1d8", "--roll", "attack=15", "--roll", "damage=5"),
    ("attack", "Ann", "Thug", "--damage", "1d8", "--roll", "attack=20", "--roll", "confirm=19", "--roll", "death=2",
     "--roll", "damage=5"),
    ("attack", "Ann", "Thug", "--roll", "attack=2"),
    ("roll", "1d20+2", "--for", "Ann"),
    ("check", "Ann", "dex", "--dc", "12"),
    ("damage", "Thug", "--amount", "2"),
    ("condition", "add", "Thug", "prone", "--rounds", "1"),
    ("recover", "Ann", "--amount", "1", "--cause", "first aid"),
    ("act", "Ann", "action", "-o", "kind=free", "-o", "what=talk"),
    ("encounter", "next"),
    ("encounter", "next"),
    ("act", "Thug", "run"),
    ("encounter", "next"),
    ("act", "Ann", "charge"),
    ("encounter", "delay"),
    ("encounter", "act", "Thug"),
    ("encounter", "join", "Thug 2"),
    ("encounter", "remove", "Thug 2"),
    ("condition", "add", "Thug", "flat-footed"),
    ("condition", "remove", "Thug", "flat-footed"),
    ("encounter", "end"),
    ("damage", "Thug", "--amount", "30"),
    ("revive", "Thug", "--means", "gem-of-eternity"),
    ("character", "retire", "Thug 2"),
    ("undo",),
    ("redo",),
    ("retract", "{attack}", "--yes"),
    ("session", "end"),
]  # fmt: skip

PNP: list[tuple[str, ...]] = [
    ("character", "add", "Mara", "--pc", "--trait", "might=4", "--trait", "agility=3", "--trait", "toughness=4",
     "--trait", "willpower=5", "--trait", "perception=3"),
    ("character", "add", "Brute", "--trait", "might=3", "--trait", "agility=2", "--trait", "toughness=3"),
    ("character", "add", "Goons", "--minion", "--count", "5", "--trait", "threat=2"),
    ("character", "copy", "Brute", "Brute 2"),
    ("character", "set", "Brute", "--trait", "agility=3"),
    ("session", "start", "Issue 1"),
    ("encounter", "start", "Mara", "Brute", "Goons"),
    ("check", "Mara", "perception", "--threshold", "2"),
    ("attack", "Mara", "Goons", "--with", "might", "--roll", "attack=6,4,2,1", "--roll", "defense=3,4"),
    ("attack", "Goons", "Mara", "--roll", "attack=6,2", "--roll", "defense=4,1,3"),
    ("attack", "Goons", "Mara", "--roll", "attack=1,3", "--roll", "defense=4,1,3"),
    ("attack", "Brute", "Mara", "--with", "might", "--roll", "attack=6,6,4", "--roll", "defense=1,1,1"),
    ("roll", "4d6 pool", "--for", "Mara"),
    ("damage", "Brute", "--amount", "1"),
    ("condition", "add", "Brute", "stunned", "--rounds", "1"),
    ("gain", "Mara", "resolve", "2", "--reason", "heroics"),
    ("spend", "Mara", "resolve", "1", "--purpose", "recovery"),
    ("gain", "GM", "adversity", "1"),
    ("spend", "GM", "adversity", "1"),
    ("recover", "Mara", "--amount", "1"),
    ("act", "Mara", "move", "-o", "from=close", "-o", "to=distant"),
    ("act", "Mara", "chase", "--against", "Brute"),
    ("encounter", "next"),
    ("encounter", "next"),
    ("encounter", "next"),
    ("encounter", "delay"),
    ("encounter", "act", "Mara"),
    ("encounter", "join", "Brute 2"),
    ("encounter", "remove", "Brute 2"),
    ("condition", "add", "Brute", "stunned"),
    ("condition", "remove", "Brute", "stunned"),
    ("encounter", "end"),
    ("scene", "end"),
    ("character", "retire", "Brute 2"),
    ("undo",),
    ("redo",),
    ("retract", "{attack}", "--yes"),
    ("session", "end"),
]  # fmt: skip

SCRIPTS = {"hnh": HNH, "d20": D20, "pnp": PNP}
INIT = {"hnh": ("-o", "action-economy=off"), "d20": ("-o", "action-economy=off"), "pnp": ()}  # every action in a turn


def words_wrong(text: str, system: str) -> list[str]:
    """What in a ruling's output is not in the system's own words (its health and round words, nobody else's)."""
    health, rnd = health_word(system), round_word(system)
    others = {health_word(s) for s in SCRIPTS} - {health}
    rounds = {round_word(s) for s in SCRIPTS} - {rnd}
    found = [w for w in others if re.search(rf"\b{w}\b", text)]
    return found + [w for w in rounds if re.search(rf"\b{w}s?\b", text, re.IGNORECASE)]


def empty_headings(text: str) -> list[str]:
    """Lines that end in `:` with nothing under them (the next line is not indented further)."""
    lines = text.splitlines()
    out = []
    for i, ln in enumerate(lines):
        if ln.rstrip().endswith(":"):
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if not nxt.strip() or len(nxt) - len(nxt.lstrip()) <= len(ln) - len(ln.lstrip()):
                out.append(ln)
    return out


@pytest.mark.parametrize("system", list(SCRIPTS))
def test_every_ruling_kind_says_its_outcome_in_the_systems_words(cli: Cli, system: str) -> None:
    """CLI.md, Additions agreed in the second round (a ruling's first line is a sentence to read out at the table) and
    the rules' own words: pnp-site Health and pages (p&p.txt), H&H and d20 Supers' HP and rounds. Every command and
    every declared action of the system is played; each first line is a sentence with no raw event name, no `None`
    and no empty heading."""
    cli.ok("init", "--system", system, "--name", "T", *INIT[system])
    script = SCRIPTS[system]
    played = {" ".join(s[:2]) if s[0] in ("character", "session", "encounter", "condition", "scene") else s[0]
              for s in script}  # fmt: skip
    acts = {s[2] for s in script if s[0] == "act"}
    assert acts == set(get_rules(system).actions)  # every action the system declares is played
    assert {"attack", "check", "damage", "roll", "recover", "undo", "redo", "retract",
            "encounter next", "encounter end", "condition add", "session start"} <= played  # fmt: skip
    attack = ""
    for step in script:
        out = cli.ok(*(a.replace("{attack}", attack) for a in step)).stdout
        attack = attack or (out.split(":")[0].split()[-1] if step[0] == "attack" else "")
        first = out.splitlines()[0]
        head, _, said = first.partition(": ")
        assert re.fullmatch(r"ruling \d+", head), (step, first)
        assert said.strip() and said[:1].isupper() or said[:1].isdigit() or said[:1].islower(), (step, first)
        assert said.rstrip() and not said.rstrip().endswith(":"), (step, first)
        assert not RAW.search(out), (step, out)
        assert not re.search(r"\bNone\b", out), (step, out)
        assert not re.search(r":\s*$", first) and ": :" not in first and ":," not in first, (step, first)
        assert not empty_headings(out), (step, out)
        assert not words_wrong(out, system), (step, out, words_wrong(out, system))
