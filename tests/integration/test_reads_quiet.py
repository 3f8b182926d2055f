"""No false alarms: on a healthy ledger every read shows what it shows without a note (docs/verify.md, What a read
checks before it shows: a note only "where they differ").

For each system a fight is played through the real CLI with every ruling command the catalog (ledger/catalog.py)
declares for that system and every action its rules declare (tests/cli/test_every_ruling_sentence.py's scripts), and
more: sessions with --commit-dice, started and ended, one left open with more than five rulings; encounters started,
turned and ended, one left running; conditions with durations (--rounds, --until, --scene); minion groups; --copies;
a character retired and its name, in another case, given to a copy; traits set; undo, redo; a retraction whose
re-derivation amends later rulings. Then every read runs with every part option, the exports with and without
--session, and the players' screen's pages: each exits 0 with nothing on stderr.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from ledger import catalog
from ledger.rules import get_rules
from ledger.rules.contract import RuleSystem
from ledger.storage.target import parse_target
from projections.db import ReadSide, amendments
from tests.cli.test_every_ruling_sentence import INIT, SCRIPTS
from tests.conftest import Cli, Recorded

Step = tuple[str, ...]

# What each system plays after the shared script (its session 2): a third session, left open, with more than five
# rulings; a retired character's name taken, in another case, by a copy; another encounter; timed conditions; a
# retraction that later rulings read (so it amends their outcomes); undo and redo. {N} is ruling N's number as played.
EXTRA: dict[str, list[Step]] = {
    "hnh": [
        ("character", "add", "Guard", "--trait", "parry=2", "--trait", "toughness=2", "--copies", "2"),
        ("character", "add", "Mob", "--minion", "--count", "4", "--trait", "parry=1", "--trait", "toughness=1"),
        ("character", "add", "Tank", "--trait", "parry=2", "--trait", "toughness=12", "--trait", "insight=1"),
        ("character", "retire", "Guard 2"),
        ("character", "copy", "Guard 1", "GUARD 2"),
        ("encounter", "start", "Ann", "Tank", "Guard 1", "Mob", "GUARD 2", "--init", "Ann=9", "--init", "Tank=7",
         "--init", "Guard 1=5", "--init", "Mob=3", "--init", "GUARD 2=1"),
        ("encounter", "join", "Falling Debris", "--hazard", "--init", "4", "--note", "the roof gives way"),
        ("condition", "add", "Tank", "dazed", "--rounds", "2"),
        ("condition", "add", "Guard 1", "vulnerable", "--until", "start", "--of", "Ann"),
        ("condition", "add", "Ann", "impaired", "--until", "end", "--of", "Tank"),
        ("attack", "Ann", "Guard 1", "--rank", "4", "--bonus", "6", "--roll", "attack=+,+,0", "--roll",
         "defense=-,0,0", "--roll", "power=0,0,0", "--roll", "toughness=-,0,0"),  # {A}: retracted below
        ("attack", "Guard 1", "Tank", "--rank", "2", "--bonus", "2", "--roll", "attack=+,+,+", "--roll",
         "defense=-,-,0", "--roll", "power=0,0,0", "--roll", "toughness=0,0,0"),
        ("attack", "Ann", "Mob", "--rank", "4", "--bonus", "6", "--roll", "attack=+,+,0", "--roll", "defense=-,0,0",
         "--roll", "power=0,0,0", "--roll", "toughness=-,-,-"),
        ("encounter", "next"),
        ("encounter", "next"),
        ("damage", "Guard 1", "--rank", "2", "--roll", "power=0,0,0", "--roll", "toughness=0,0,0"),
        ("character", "set", "Tank", "--trait", "insight=3"),
        ("character", "add", "Lurker", "--trait", "parry=1", "--trait", "toughness=1", "--hidden"),
        ("encounter", "join", "Lurker", "--hidden", "--roll", "Lurker=0,0,0"),
        ("roll", "1d20", "--secret"),
        ("encounter", "reveal", "Lurker"),
        ("encounter", "next"),
        ("retract", "{A}", "--yes", "--reason", "Guard 1 had cover"),
        ("undo",),
        ("redo",),
        ("attack", "Ann", "Tank", "Guard 1", "--with", "fighting", "--rank", "2", "--range", "area", "--cover",
         "Tank=total,Guard 1=partial"),
        ("attack", "Tank", "Ann", "GUARD 2", "--with", "insight", "--rank", "2", "--range", "area", "-o",
         "improve=Ann.toughness"),
        ("act", "Tank", "affliction", "--against", "Guard 1", "-o", "rank=2", "-o",
         "conditions=dazed,stunned,incapacitated", "-o", "limited-degree=1", "-o", "empty-degree=1", "-o",
         "instant-recovery=yes"),
        ("act", "Ann", "extra-effort", "-o", "benefit=bonus"),
        ("encounter", "next"),
    ],
    "d20": [
        ("character", "add", "Guard", "--trait", "hp=8", "--copies", "2"),
        ("character", "retire", "Guard 2"),
        ("character", "copy", "Guard 1", "GUARD 2"),
        ("encounter", "start", "Ann", "Thug", "Guard 1", "GUARD 2", "--roll", "Ann=15", "--roll", "Thug=9",
         "--roll", "Guard 1=7", "--roll", "GUARD 2=3"),
        ("encounter", "join", "Falling Debris", "--hazard", "--init", "4", "--note", "the roof gives way"),
        ("condition", "add", "Thug", "prone", "--rounds", "2"),
        ("condition", "add", "Guard 1", "flat-footed", "--until", "start", "--of", "Ann"),
        ("condition", "add", "Ann", "prone", "--until", "end", "--of", "Thug"),
        ("attack", "Ann", "Thug", "--damage", "1d8", "--roll", "attack=18", "--roll", "damage=6"),  # {A}
        ("attack", "Guard 1", "Thug", "--damage", "1d6", "--roll", "attack=19", "--roll", "damage=4"),
        ("encounter", "next"),
        ("encounter", "next"),
        ("damage", "Thug", "--amount", "3"),
        ("character", "set", "Thug", "--trait", "dn=3"),
        ("character", "add", "Lurker", "--trait", "hp=4", "--hidden"),
        ("encounter", "join", "Lurker", "--hidden", "--roll", "Lurker=5"),
        ("roll", "1d20", "--secret"),
        ("encounter", "reveal", "Lurker"),
        ("encounter", "next"),
        ("retract", "{A}", "--yes", "--reason", "Thug had cover"),
        ("undo",),
        ("redo",),
        ("encounter", "end"),
    ],
    "pnp": [
        ("character", "add", "Guard", "--trait", "might=2", "--trait", "toughness=2", "--copies", "2"),
        ("character", "add", "Mob", "--minion", "--count", "4", "--trait", "threat=1"),
        ("character", "add", "Tank", "--trait", "might=3", "--trait", "agility=2", "--trait", "toughness=8"),
        ("character", "retire", "Guard 2"),
        ("character", "copy", "Guard 1", "GUARD 2"),
        ("encounter", "start", "Mara", "Tank", "Guard 1", "Mob", "GUARD 2"),
        ("encounter", "join", "Falling Debris", "--hazard", "--init", "4", "--note", "the roof gives way"),
        ("condition", "add", "Tank", "stunned", "--rounds", "2"),
        ("condition", "add", "Guard 1", "stunned", "--until", "start", "--of", "Mara"),
        ("condition", "add", "Mob", "stunned", "--scene"),
        ("attack", "Mara", "Tank", "--with", "might", "--roll", "attack=6,6,1,1", "--roll", "defense=1,2"),  # {A}
        ("attack", "Guard 1", "Tank", "--with", "might", "--roll", "attack=6,5", "--roll", "defense=1,1"),
        ("encounter", "next"),
        ("encounter", "next"),
        ("damage", "Tank", "--amount", "1"),
        ("character", "set", "Tank", "--trait", "agility=2"),
        ("character", "add", "Lurker", "--trait", "might=1", "--hidden"),
        ("encounter", "join", "Lurker", "--hidden"),
        ("roll", "1d6", "--secret"),
        ("encounter", "reveal", "Lurker"),
        ("encounter", "next"),
        ("retract", "{A}", "--yes", "--reason", "Tank had cover"),
        ("undo",),
        ("redo",),
        ("encounter", "next"),
    ],
}  # fmt: skip

NAMES = {  # the characters every per-character read is asked about: a hero, a foe, a minion group, a reused name
    "hnh": ("Ann", "Bob", "Goons", "Mob", "GUARD 2", "Guard 2", "guard 1"),
    "d20": ("Ann", "Thug", "GUARD 2", "Guard 2", "guard 1"),
    "pnp": ("Mara", "Brute", "Goons", "Mob", "GUARD 2", "Guard 2", "guard 1"),
}

RULING_COMMANDS = {c.name for c in catalog.COMMANDS if c.stored == c.name and c.name != catalog.INIT.name}


def not_in_the_rules(system: str) -> set[str]:
    """The ruling commands the system's rules have nothing for (refused when asked)."""
    rules = get_rules(system)
    out = set() if rules.scenes else {catalog.SCENE_END.name}
    if type(rules).hazard is RuleSystem.hazard:
        out.add(catalog.HAZARD.name)
    if type(rules).revive is RuleSystem.revive:
        out.add(catalog.REVIVE.name)
    if type(rules).spend is RuleSystem.spend:
        out |= {catalog.SPEND.name, catalog.GAIN.name}
    return out


def fight(system: str) -> list[Step]:
    """Session 1 (--commit-dice: its dice derive from a secret revealed when it ends), the shared script's session 2
    (ended; seeded dice, so the fight goes the same way each time), then EXTRA in session 3 (open)."""
    first = [("session", "start", "Prelude", "--commit-dice"), ("roll", "1d6"), ("session", "end")]
    return [*first, *SCRIPTS[system], ("session", "start", "Open"), *EXTRA[system]]


def played(step: Step) -> str:
    """The catalog's name of the ruling command a step runs (`character import` records a `character add`)."""
    two = " ".join(step[:2])
    if two in catalog.BY_NAME:
        return catalog.BY_NAME[two].stored or two
    return step[0]


def _play(system: str) -> Callable[[Cli], None]:
    def record(cli: Cli) -> None:
        cli.ok("init", "--system", system, "--name", "Quiet", *INIT[system])
        steps = fight(system)
        extra = len(steps) - len(EXTRA[system])
        found: dict[str, str] = {}
        for i, step in enumerate(steps):
            args = [re.sub(r"\{(\w+)\}", lambda m: found[m.group(1)], a) for a in step]
            out = cli.ok(*args).stdout
            if step[0] == "attack":  # the shared script retracts its first attack ({attack}), EXTRA its own ({A})
                found.setdefault("attack" if i < extra else "A", out.split(":", 1)[0].rpartition(" ")[2])

    record.__qualname__ = f"record_{system}"  # one recording per system (Recorded keys by the recipe's name)
    return record


RECIPES = {s: _play(s) for s in SCRIPTS}


@pytest.fixture(params=[pytest.param(s, marks=pytest.mark.xdist_group(f"reads-quiet-{s}")) for s in SCRIPTS])
def fought(request: pytest.FixtureRequest, cli: Cli, recorded: Recorded) -> tuple[str, Cli]:
    """(system, the CLI on a ledger holding that system's fight), the fight recorded once per process and backend."""
    return request.param, recorded(cli, RECIPES[request.param])


def reads(system: str, head: int, added: dict[str, int], every: bool = True) -> list[Step]:
    """Every read with every part option it takes (`added`: the ruling that added each of NAMES[system]).

    Not `every` (PostgreSQL, where each command costs more to start): each check once, without the -v and --json
    variants (which render the same checked rows) and for the hero and the reused name only.
    """
    out: list[Step] = []
    for pre in ((), ("-v",), ("--json",)) if every else ((),):
        for parts in (
            (),
            ("-n", "5"),
            ("--session", "current"),
            ("--session", "1"),
            ("--session", "2"),
            ("--session", "current", "-n", "5"),
            ("--session", "2", "-n", "3"),
            ("--all",),
            ("--all", "-n", "5"),
            ("--all", "--session", "current"),
            ("--all", "--session", "2", "-n", "2"),
        ):
            out.append((*pre, "log", *parts))  # fmt: skip
    for name in NAMES[system] if every else (NAMES[system][0], "GUARD 2", "Guard 2"):
        middle = (added[name] + head) // 2
        for parts in ((), ("-n", "5"), ("--session", "current"), ("--all",)) if every else ((),):
            out.append(("log", "--character", name, *parts))
        out += [("timeline", name), ("why", name, "hp"), ("character", "show", name)]
        out += [
            ("character", "show", name, "--at", str(n)) for n in ((added[name], middle, head) if every else (middle,))
        ]
        if every:
            out += [
                ("why", name),
                ("--json", "timeline", name),
                ("--json", "character", "show", name, "--at", str(middle)),
            ]
    out += [("session", "show"), ("session", "show", "current"), ("session", "show", "1"), ("session", "show", "2")]
    out += [("encounter", "log"), ("encounter", "log", "1"), ("encounter", "show")]
    out += [("character", "list"), ("character", "list", "--all")]
    for fmt in ("jsonl", "csv", "md", "html"):
        out.append(("export", "--format", fmt))
        if fmt != "jsonl":
            out += [("export", "--format", fmt, "--session", s) for s in (("1", "2", "current") if every else ("2",))]
    if every:
        out += [("--json", "session", "show", "2"), ("--json", "encounter", "log"), ("--json", "encounter", "show")]
        out += [("encounter", "log", "2"), ("--json", "character", "list", "--all")]
    return out


def test_the_fight_plays_every_ruling_command_of_its_system() -> None:
    """ledger/catalog.py: each system's fight uses every ruling command the catalog declares that the system's rules
    have, and each one it leaves out is one those rules have nothing for."""
    for system in SCRIPTS:
        steps = fight(system)
        assert {played(s) for s in steps} == RULING_COMMANDS - not_in_the_rules(system), system
        assert {s[2] for s in steps if s[0] == "act"} == set(get_rules(system).actions), system
        assert any("--commit-dice" in s for s in steps) and any(s[:2] == ("session", "end") for s in steps)
        assert {"--rounds", "--until"} <= {a for s in steps if s[:2] == ("condition", "add") for a in s}
        assert any("--copies" in s for s in steps) and any("--minion" in s for s in steps) or system == "d20"


def test_every_read_of_a_healthy_ledger_prints_no_note(fought: tuple[str, Cli]) -> None:
    """docs/verify.md, What a read checks before it shows: a read whose rows agree with their events shows them
    without a note. Every read, with every part option, on every system's whole fight: exit 0, nothing on stderr.
    Also: the fight left amended outcomes to check (the retraction reached later rulings) and verify passes."""
    system, cli = fought
    head = _head(cli)
    assert _amendments(cli) > 0  # a retraction amended later rulings: ledger_amendments is shown and checked
    noisy = []
    for args in reads(system, head, {n: _added(cli, n) for n in NAMES[system]}, every="://" not in cli.db):
        r = cli(*args)
        if r.exit_code != 0 or r.stderr:
            noisy.append(f"ledger {' '.join(args)} -> {r.exit_code}: {r.stderr.strip()}")
    assert not noisy, "\n".join(noisy)
    assert cli("verify").exit_code == 0


def _head(cli: Cli) -> int:
    """The last ruling's number."""
    rows = cli.json("log", "-n", "1")
    assert isinstance(rows, list) and rows
    return int(rows[-1]["ruling"])


def _added(cli: Cli, name: str) -> int:
    """The ruling that added the character now called `name`."""
    rows = cli.json("log", "--character", name)
    assert isinstance(rows, list) and rows
    return int(rows[0]["ruling"])


def _amendments(cli: Cli) -> int:
    """How many amended outcomes the read models hold."""
    read = ReadSide(parse_target(cli.db))
    try:
        with read.engine.connect() as conn:
            return len(conn.execute(amendments.select()).all())
    finally:
        read.close()


def test_the_players_screen_of_a_healthy_ledger_prints_no_note(fought: tuple[str, Cli]) -> None:
    """docs/serve.md and docs/verify.md (serve checks each page, and again when the log's head moves): on a healthy
    ledger the screen, the GM's view, its stream and a hero's page answer 200 and the server prints nothing on
    stderr, before and after a new ruling moves the head."""
    # lazy: tests.serving skips its importer without the `serve` extra; kept out of the CLI reads' test
    from tests.serving import EventStream, serving

    system, cli = fought
    hero = NAMES[system][0]
    page = "/p/" + str(cli.json("player", "link", hero)["url"]).rsplit("/p/", 1)[1]  # type: ignore[index]
    with serving(cli.db, "--gm-token", "gm") as server:
        for path in ("/", "/?gm=gm", page, page + "/request", "/screen.js"):
            status, body = server.get(path)
            assert status == 200, (path, status, body[:300])
        stream = EventStream(server, "events?gm=gm")
        stream.next()
        cli.ok("roll", "1d6", "--for", hero)  # the head moves: the pages are checked again
        stream.until("1d6")
        stream.close()
        for path in ("/", "/?gm=gm", page):
            assert server.get(path)[0] == 200, path
        server.proc.terminate()
        _, err = server.proc.communicate(timeout=20)
    assert err == "", err
