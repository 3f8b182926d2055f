"""DESIGN.md, Errors and bad input: random command lines over every command (hypothesis, a fixed budget): exit 0 or 2 (1
only from verify), never a traceback, nothing appended on a refusal, and the ledger still verifies afterwards.

The budget is fixed (EXAMPLES per rule system, derandomized so CI runs the same lines); run with `-s` to see
the figures (tried, succeeded, refused).
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from commands.main import cli
from tests.conftest import FIXTURES, Cli, event_count, figures_seen

EXAMPLES = {"hnh": 600, "d20": 300, "pnp": 300}
SKIPPED = {"demo", "serve"}  # demo writes three ledgers of its own (seconds); serve listens until stopped
FIGURES: Counter[str] = Counter()
# test_fuzz_figures adds up what the other tests of this file tried: under pytest-xdist they all run in one worker
pytestmark = pytest.mark.xdist_group("fuzz")

# every script's digits, fullwidth digits and underscores: int() takes them all, the ledger never does
UNICODE_NUMBERS = ["٣٢", "５", "1_000", "١٠", "𝟓", "+٣", "٥٠٠٠٠٠٠", "1_0", "१२", "৩"]
# names that print like Ann, Bob or José: other scripts' letters, fullwidth forms, invisible and combining characters
LOOKALIKES = ["Аnn", "Ａnn", "Ann\u200b", "\u200dAnn", "B\u03bfb", "Jose\u0301", "An\u200en", "ᎪNN"]
HUGE = [str(2**63), str(-(2**63) - 1), "9" * 30, str(2**53), "-" + "9" * 25]
NUMBERS = st.one_of(
    st.integers(-5, 60).map(str),
    st.sampled_from(HUGE),
    st.integers(-(2**70), 2**70).map(str),
    st.sampled_from(["1e3", "0x10", "+5", "-0", "", " 7", "½", "٣"]),
    st.sampled_from(UNICODE_NUMBERS),
)
WORDS = st.sampled_from(
    [
        "Ann",
        "ann",
        "Thugs",
        "Bob",
        "Nobody",
        "Ann Smith",
        "GM",
        "toughness",
        "fighting",
        "agility",
        "str",
        "hp",
        "might",
        "victory-points",
        "resolve",
        "adversity",
        "dazed",
        "stunned",
        "dying",
        "prone",
        "unknown",
        "falling",
        "heat",
        "run",
        "charge",
        "chase",
        "jsonl",
        "csv",
        "md",
        "html",
        "xml",
        "hnh",
        "d20",
        "pnp",
        "none",
    ]
)
DICE = st.sampled_from(
    ["3dF", "1d20+3", "2d6+1", "5d6 pool", "5d6", "1d20+" + HUGE[0], "0d6", "d", "3dF+-1", "101d6", "1d1", "1dF"]
)
PAIRS = st.sampled_from(
    [
        "toughness=4",
        "fighting=6",
        "hp=12",
        "might=3d",
        "x=y",
        "=",
        "toughness=" + HUGE[0],
        "hp=" + HUGE[2],
        "toughness=-3",
        "attack=+,0,-",
        "attack=17",
        "power=+,+,+",
        "toughness=-,-,-",
        "check=0,0,0",
        "defense=1",
        "attack=99",
        "x=",
        "=1",
        "rank=" + HUGE[0],
        "cover=1/2",
        "flanking=yes",
        "nonlethal=yes",
        "Ann=+,0,-",
    ]
)
TEXT = st.text(max_size=12)
# relative to the fuzz's own folder (exports land there);
# never a path outside it that a refusal-free export could replace
PATHS = st.sampled_from(
    ["out.md", "out.jsonl", "sub/x.jsonl", ".", "missing.json", "ape.json", "ape.ledger", "hnh.ledger", "d20.ledger"]
)  # the fuzz's own ledgers too: an export onto a ledger is refused
TOKENS = st.one_of(WORDS, NUMBERS, DICE, PAIRS, TEXT, PATHS)
NAMES = st.one_of(st.sampled_from(["Ann", "Bob", "Thugs", "ann"]), st.sampled_from(LOOKALIKES))
SMALL = st.integers(0, 12).map(str)
FITTING = {  # what usually goes in a parameter of this name: most lines are nearly right, so they reach the rules
    "name": NAMES,
    "target": NAMES,
    "attacker": NAMES,
    "names": NAMES,
    "other": NAMES,
    "for_name": NAMES,
    "character_name": NAMES,
    "by": NAMES,
    "expr": DICE,
    "damage_expr": DICE,
    "traits": PAIRS,
    "rolls": PAIRS,
    "extra": PAIRS,
    "n": st.one_of(SMALL, st.sampled_from(UNICODE_NUMBERS)),
    "amount": st.one_of(SMALL, st.sampled_from(UNICODE_NUMBERS)),
    "rank": st.one_of(SMALL, st.sampled_from(UNICODE_NUMBERS)),
    "bonus": SMALL,
    "dc": SMALL,
    "hours": SMALL,
    "count": SMALL,
    "ruling": SMALL,
    "number": SMALL,
    "session": SMALL,
    "at": SMALL,
    "trait": st.sampled_from(["toughness", "fighting", "agility", "str", "might", "awareness"]),
    "resource": st.sampled_from(["victory-points", "resolve", "adversity"]),
    "fmt": st.sampled_from(["jsonl", "csv", "md", "html"]),
    "system": st.sampled_from(["hnh", "d20", "pnp"]),
    "output": PATHS,
    "file": PATHS,
    "kind": st.sampled_from(["falling", "heat", "cold", "suffocation"]),
    "action": st.sampled_from(["run", "charge", "chase", "affliction"]),
}


def token(draw: st.DrawFn, param: str) -> str:
    """A token for a parameter: mostly a fitting value, sometimes anything at all."""
    fitting = FITTING.get(param)
    if fitting is not None and draw(st.integers(0, 4)) > 0:
        return draw(fitting)
    return draw(TOKENS)


def commands() -> list[tuple[list[str], click.Command]]:
    """Every leaf command of the CLI with its path."""
    cli.load_all()  # type: ignore[attr-defined]
    out: list[tuple[list[str], click.Command]] = []

    def walk(group: click.Group, path: list[str]) -> None:
        for name, c in sorted(group.commands.items()):
            if name in SKIPPED:
                continue
            if isinstance(c, click.Group):
                walk(c, [*path, name])
            else:
                out.append(([*path, name], c))

    walk(cli, [])
    return out


COMMANDS = commands()


@st.composite
def command_line(draw: st.DrawFn) -> list[str]:
    """A random command line: a command, its arguments, some of its options, sometimes global options and junk."""
    path, command = draw(st.sampled_from(COMMANDS))
    words: list[str] = []
    if draw(st.booleans()):
        words.append("--json")
    if draw(st.integers(0, 5)) == 0:
        words += ["--seed", draw(NUMBERS)]
    if draw(st.integers(0, 7)) == 0:
        words += ["--as", draw(st.one_of(WORDS, TEXT))]
    words += path
    for p in command.params:
        if isinstance(p, click.Argument):
            count = draw(st.integers(1, 3)) if p.nargs == -1 else p.nargs
            if not p.required and draw(st.booleans()):
                continue
            words += [token(draw, p.name or "") for _ in range(count)]
        elif isinstance(p, click.Option) and draw(st.integers(0, 2)) == 0:
            words.append(draw(st.sampled_from(p.opts)))
            if not p.is_flag:
                words += [token(draw, p.name or "") for _ in range(max(p.nargs, 1))]
    if draw(st.integers(0, 9)) == 0:
        words.append(draw(st.sampled_from(["--bogus", "-x", "--", draw(TOKENS)])))
    return words


SETUP = {
    "hnh": [
        ["character", "add", "Ann", "--trait", "toughness=4", "--trait", "fighting=6", "--trait", "parry=5", "--pc"],
        ["character", "add", "Bob", "--trait", "toughness=2"],
        ["character", "add", "Thugs", "--minion", "--count", "3"],
    ],
    "d20": [
        ["character", "add", "Ann", "--trait", "hp=20", "--trait", "str=14", "--pc"],
        ["character", "add", "Bob", "--trait", "hp=9"],
        ["character", "add", "Thugs", "--trait", "hp=4"],
    ],
    "pnp": [
        ["character", "add", "Ann", "--trait", "might=3d", "--trait", "toughness=2d", "--pc"],
        ["character", "add", "Bob", "--trait", "might=2d"],
        ["character", "add", "Thugs", "--minion", "--trait", "threat=2"],
    ],
}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder to run in: exports with -o land here, not in the checkout."""
    path = tmp_path_factory.mktemp("fuzz")
    old = os.getcwd()
    os.chdir(path)
    shutil.copy(FIXTURES / "ape.json", path / "ape.json")
    yield path
    os.chdir(old)


def _ledger(workdir: Path, system: str) -> Cli:
    db = Cli(str(workdir / f"{system}.ledger"))
    db.ok("init", "--system", system)
    for args in SETUP[system]:
        r = db(*args)
        assert r.exit_code in (0, 2), r.stderr
    db.ok("session", "start", "Fuzz")
    return db


def _json_error(stderr: str) -> str:
    """A refusal under --json (one JSON object with `error` and `hint`) as the plain `error: ...` line it stands for."""
    import orjson

    lines = stderr.strip().splitlines()
    if not lines:
        return ""
    doc = orjson.loads(lines[-1]) if lines[-1].startswith("{") else {}
    return f"error: {doc['error']}" if set(doc) == {"error", "hint"} else stderr


def _run(led: Cli, words: list[str]) -> None:
    before = event_count(led.db)
    runner = CliRunner()
    r = runner.invoke(cli, ["--db", led.db, *words], input="")
    FIGURES["tried"] += 1
    shown = " ".join(words)
    assert r.exception is None or isinstance(r.exception, SystemExit), f"{shown}: {r.exception!r}\n{r.stderr}"
    FIGURES["tracebacks"] += "Traceback" in r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr, shown
    allowed = (0, 1, 2) if "verify" in words else (0, 2)
    assert r.exit_code in allowed, f"{shown} -> {r.exit_code}\n{r.stderr}"
    if r.exit_code != 0:
        said = r.stderr if "--json" not in words else _json_error(r.stderr)  # CLI.md: under --json, one JSON object
        assert "error: " in said or "verify" in words, f"{shown}: {r.stderr}"  # retract shows its diff first
        assert event_count(led.db) == before, f"{shown}: refused, but appended"
    FIGURES["succeeded" if r.exit_code == 0 else "refused"] += 1


@pytest.mark.parametrize("system", list(EXAMPLES))
def test_random_command_lines_are_handled(workdir: Path, system: str) -> None:
    """DESIGN.md, Errors and bad input: random command lines over every command: exit 0 or 2, no traceback, nothing
    appended on a refusal."""
    led = _ledger(workdir, system)

    @settings(
        max_examples=EXAMPLES[system],
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )
    @given(command_line())
    def one(words: list[str]) -> None:
        _run(led, words)

    one()
    r = led("verify")
    assert r.exit_code == 0, r.stdout  # no accepted line damaged the record
    _no_lookalikes_and_no_self_targets(led)


def _no_lookalikes_and_no_self_targets(led: Cli) -> None:
    """What the accepted lines left: no two names printing alike, none with an invisible character, every one NFC;
    no attack of a character on itself; no number read from other scripts' digits."""
    import unicodedata

    from ledger.model.names import invisible, skeleton

    names = [c["name"] for c in led.json("character", "list")]  # type: ignore[union-attr, index]
    assert all(invisible(n) is None and unicodedata.normalize("NFC", n) == n for n in names), names
    assert len({skeleton(n) for n in names}) == len(names), names
    for entry in led.json("log"):  # type: ignore[union-attr]
        if entry["type"] != "RulingRecorded":  # type: ignore[index]
            continue
        intent = entry["data"]["intent"]  # type: ignore[index]
        pairs = [("attacker", "target"), ("name", "against"), ("by", "target")]
        for a, b in pairs:
            other = intent.get(b)
            other = other[0] if isinstance(other, list) and other else other
            if intent.get(a) is not None and isinstance(other, str):
                assert str(intent[a]).casefold() != other.casefold(), intent
    FIGURES["ledgers checked for look-alikes and self-targets"] += 1


def test_fuzz_figures() -> None:
    """The figures: every line tried was handled (succeeded or refused in one line)."""
    figures_seen(FIGURES["tried"], "fuzzed command line")
    print(
        f"\nfuzz: {FIGURES['tried']} command lines tried, {FIGURES['succeeded']} succeeded, "
        f"{FIGURES['refused']} refused in one line;"
        f" {FIGURES['tracebacks']} tracebacks; {FIGURES['ledgers checked for look-alikes and self-targets']} ledgers"
        " checked: no look-alike names, no self-targets"
    )
    assert FIGURES["tried"] == FIGURES["succeeded"] + FIGURES["refused"]
