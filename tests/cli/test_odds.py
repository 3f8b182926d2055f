"""`ledger odds` through the real CLI (CLI.md, Additions agreed in the fourth round; docs/odds.md).

The forecast reads the running encounter (or the state after ruling N, or a planned fight), plays it out with the
campaign's rules and appends nothing; its options each change what it plays, and the same ledger, seed and options
print the same bytes.
"""

from __future__ import annotations

import re
import subprocess
import sys

import orjson
import pytest

from tests.conftest import Cli, Recorded

TRIALS = ["--trials", "300"]


def _fight(cli: Cli) -> None:
    """An H&H fight: Ann (a hero) against Bob and a group of three thugs, Ann up."""
    cli.ok("init", "--system", "hnh", "--name", "Odds")
    cli.ok("character", "add", "Ann", "--trait", "fighting=6", "--trait", "strength=4", "--trait", "parry=5",
           "--trait", "toughness=4", "--trait", "dodge=4", "--pc")  # fmt: skip
    cli.ok("character", "add", "Bob", "--trait", "fighting=4", "--trait", "strength=3", "--trait", "parry=3",
           "--trait", "toughness=3")  # fmt: skip
    cli.ok("character", "add", "Thugs", "--minion", "--count", "3", "--trait", "parry=1", "--trait", "toughness=1",
           "--trait", "fighting=2", "--trait", "strength=2")  # fmt: skip
    cli.ok("encounter", "start", "Ann", "Bob", "Thugs", "--init", "Ann=9", "--init", "Bob=5", "--init", "Thugs=2")


@pytest.fixture
def fight(cli: Cli, recorded: Recorded) -> Cli:
    """_fight's ledger, recorded once and copied for this test."""
    return recorded(cli, _fight)


def log_of(cli: Cli) -> bytes:
    """Every event of the log, bookkeeping included, as `log --all --json` prints it."""
    return cli.ok("--json", "log", "--all").stdout_bytes


def test_a_forecast_from_the_running_encounter_names_who_is_up_and_each_sides_chance(fight: Cli) -> None:
    """CLI.md, odds: from the running encounter; each side's chance with its 95% interval, unresolved, rounds, and per
    character the chance to be out; the sides' wins and unresolved add up to 1."""
    doc = fight.json("odds", *TRIALS, "--seed", "3")
    assert doc["from"] == {"ruling": 5, "round": 1, "up": "Ann"}
    assert doc["sides"]["heroes"]["members"] == ["Ann"]
    assert doc["sides"]["foes"]["members"] == ["Bob", "Thugs"]
    total = doc["sides"]["heroes"]["win"] + doc["sides"]["foes"]["win"] + doc["unresolved"]
    assert total == pytest.approx(1.0, abs=1e-9)
    for side in doc["sides"].values():
        lo, hi = side["ci"]
        assert lo <= side["win"] <= hi
    assert set(doc["characters"]) == {"Ann", "Bob", "Thugs"}
    assert sum(doc["rounds"]["distribution"].values()) == pytest.approx(1 - doc["unresolved"], abs=1e-3)
    assert doc["rounds"]["p10"] <= doc["rounds"]["median"] <= doc["rounds"]["p90"]
    text = fight.ok("odds", *TRIALS, "--seed", "3").stdout
    assert text.startswith("forecast from ruling 5, round 1, Ann up (300 trials, seed 3, policy focus-weakest):")


def test_the_same_ledger_seed_and_options_print_the_same_bytes_and_append_nothing(fight: Cli) -> None:
    """CLI.md, odds: appends nothing; a run with the same ledger, seed and options prints byte-identical output."""
    before = log_of(fight)
    one = fight.ok("odds", *TRIALS, "--seed", "11", "--policy", "all").stdout_bytes
    two = fight.ok("odds", *TRIALS, "--seed", "11", "--policy", "all").stdout_bytes
    assert one == two
    fight.ok("odds", *TRIALS, "--what-if", "condition add Bob stunned --rounds 1")
    fight.ok("encounter", "show", "--odds")
    assert log_of(fight) == before


def test_without_a_seed_one_is_drawn_and_printed_and_repeats_the_forecast(fight: Cli) -> None:
    """CLI.md, odds: `--seed` defaults to one drawn and printed; given back, it repeats the forecast."""
    first = fight.ok("odds", *TRIALS, seed=None).stdout
    seed = re.search(r"seed (\d+)", first)
    assert seed is not None
    assert fight.ok("odds", *TRIALS, "--seed", seed[1], seed=None).stdout == first


def test_at_a_ruling_the_forecast_is_the_one_made_when_that_ruling_was_the_last(fight: Cli) -> None:
    """CLI.md, odds --at N: the state after ruling N; later rulings change nothing of it."""
    then = fight.ok("--json", "odds", *TRIALS, "--seed", "5").stdout_bytes
    fight.ok("damage", "Ann", "--amount", "3")
    fight.ok("encounter", "next")
    now = fight.json("odds", *TRIALS, "--seed", "5")
    assert now["from"]["ruling"] == 7 and now["from"]["up"] == "Bob"
    assert fight.ok("--json", "odds", *TRIALS, "--seed", "5", "--at", "5").stdout_bytes == then
    bad = fight("odds", "--at", "99")
    assert bad.exit_code == 2 and "there is no ruling 99" in bad.stderr


def test_a_planned_fight_names_both_sides_and_needs_no_encounter(cli: Cli) -> None:
    """CLI.md, odds: a planned fight `ledger odds A B --vs C D` from the roster's sheets when none runs; initiative is
    rolled in every trial."""
    _fight_roster(cli)
    doc = cli.json("odds", "Ann", "Cy", "--vs", "Bob", *TRIALS, "--seed", "2")
    assert doc["sides"]["heroes"]["members"] == ["Ann", "Cy"]
    assert doc["sides"]["foes"]["members"] == ["Bob"]
    assert doc["from"]["up"] is None
    stronger = cli.json("odds", "Ann", "Cy", "--vs", "Bob", *TRIALS, "--seed", "2", "--what-if",
                        "character set Bob --trait attack=12")  # fmt: skip
    assert stronger["what_if"][0]["sides"]["foes"]["win"] >= doc["sides"]["foes"]["win"]
    for args, words in [
        (["odds", "Ann"], "a planned fight names both sides"),
        (["odds", "Ann", "--vs", "Nobody"], "no character called 'Nobody'"),
        (["odds"], "no encounter is running"),
        (["odds", "Ann", "--vs", "Ann"], "Ann is named twice"),
        (["odds", "Ann", "--vs", "Bob", "--at", "2", "--what-if", "damage Bob --amount 1"], "a what-if is decided on"),
    ]:
        r = cli(*args)
        assert r.exit_code == 2, (args, r.stdout)
        assert words in r.stderr.splitlines()[0]


def _fight_roster(cli: Cli) -> None:
    cli.ok("init", "--system", "d20", "--name", "Plan")
    cli.ok("character", "add", "Ann", "--trait", "str=14", "--trait", "attack=3", "--trait", "hp=14", "--pc")
    cli.ok("character", "add", "Cy", "--trait", "str=12", "--trait", "attack=2", "--trait", "hp=10", "--pc")
    cli.ok("character", "add", "Bob", "--trait", "str=16", "--trait", "attack=4", "--trait", "hp=20")


def test_a_what_if_is_decided_on_a_copy_with_the_same_dice(fight: Cli) -> None:
    """CLI.md, odds --what-if: a ruling command as typed, decided by the real deciders on a copy, never recorded; the
    same trials with common random numbers: a what-if that changes nothing the fight reads differs by exactly 0, and
    a stunned foe (conditions.txt, Stunned: no actions) can only help the heroes."""
    before = log_of(fight)
    doc = fight.json(
        "odds", *TRIALS, "--seed", "9",
        "--what-if", "character set Bob --trait intellect=5",
        "--what-if", "ledger condition add Bob stunned --rounds 1",
    )  # fmt: skip
    same, stunned = doc["what_if"]
    assert same["command"] == "character set Bob --trait intellect=5"
    assert same["delta"] == {"heroes": 0.0, "ci": [0.0, 0.0]}
    assert stunned["sides"]["heroes"]["win"] >= doc["sides"]["heroes"]["win"]
    assert stunned["delta"]["heroes"] == pytest.approx(
        stunned["sides"]["heroes"]["win"] - doc["sides"]["heroes"]["win"], abs=1e-3
    )
    assert log_of(fight) == before
    for line, words in [
        ("condition add Nobody stunned", "no character called"),
        ("export --format md", "not a ruling command of the fight"),
        ("undo", "not a ruling command of the fight"),
    ]:
        r = fight("odds", *TRIALS, "--what-if", line)
        assert r.exit_code == 2, (line, r.stdout)
        assert words in r.stderr
    assert log_of(fight) == before


def test_policy_all_reports_each_policy_and_the_band_between_them(fight: Cli) -> None:
    """CLI.md, odds --policy all: each policy's chances and the band between them."""
    doc = fight.json("odds", *TRIALS, "--seed", "4", "--policy", "all")
    assert set(doc["policies"]) == {"focus-weakest", "focus-dangerous", "spread"}
    wins = [p["heroes"] for p in doc["policies"].values()]
    assert doc["band"]["heroes"] == [min(wins), max(wins)]
    spread = fight.json("odds", *TRIALS, "--seed", "4", "--policy", "spread")
    assert spread["sides"]["heroes"]["win"] == doc["policies"]["spread"]["heroes"]


def test_side_moves_a_character_and_max_rounds_leaves_longer_trials_unresolved(fight: Cli) -> None:
    """CLI.md, odds: `--side NAME=heroes|foes` overrides the sides; a trial past `--max-rounds` is unresolved."""
    doc = fight.json("odds", *TRIALS, "--seed", "1", "--side", "Bob=heroes")
    assert doc["sides"]["heroes"]["members"] == ["Ann", "Bob"]
    short = fight.json("odds", *TRIALS, "--seed", "1", "--max-rounds", "1")
    assert short["unresolved"] > 0.5
    assert set(short["rounds"]["distribution"]) <= {"1"}
    for args in (
        ["--side", "Bob=maybe"],
        ["--trials", "0"],
        ["--max-rounds", "0"],
        ["--side", "Bob=foes", "--side", "Ann=foes"],
    ):
        r = fight("odds", *args)
        assert r.exit_code == 2, (args, r.stdout)
        assert r.stderr.startswith("error:")


def test_calibrate_scores_each_ended_encounters_forecast_against_what_happened(fight: Cli) -> None:
    """CLI.md, odds --calibrate: every ended encounter's forecast at its start (recomputed, never stored) against what
    happened: the Brier score and a reliability table; in the Markdown and HTML exports too. An encounter ended with
    neither side all out is listed and left out of the score."""
    fight.ok("encounter", "end")
    left = fight.json("odds", "--calibrate", *TRIALS, "--seed", "2")
    assert (left["encounters"], left["left_out"], left["brier"], left["reliability"]) == (0, 1, None, [])
    assert left["rows"][0]["from"] == 5 and left["rows"][0]["won"] is None
    fight.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=9", "--init", "Bob=5")
    forecast = fight.json("odds", *TRIALS, "--seed", "2")["sides"]["heroes"]["win"]
    fight.ok("attack", "Ann", "Bob", "--roll", "attack=1,1,1", "--roll", "defense=-1,0,0", "--roll", "power=1,1,1",
             "--roll", "toughness=-1,-1,-1")  # fmt: skip
    assert fight.json("character", "show", "Bob")["conditions"]  # Bob is out of the fight: the heroes won
    fight.ok("encounter", "end")
    doc = fight.json("odds", "--calibrate", *TRIALS, "--seed", "2")
    assert (doc["encounters"], doc["left_out"]) == (1, 1)
    won = doc["rows"][1]
    assert won["won"] == "heroes" and won["heroes"] == forecast
    assert doc["brier"] == pytest.approx((1 - forecast) ** 2, abs=1e-4)
    assert [t["n"] for t in doc["reliability"]] == [1]
    md = fight.ok("export", "--format", "md").stdout
    assert "## Forecasts" in md and "Brier score" in md
    html = fight.ok("export", "--format", "html").stdout
    assert "<h2>Forecasts</h2>" in html and "Brier score" in html


def test_encounter_show_odds_adds_the_quick_estimate(fight: Cli) -> None:
    """CLI.md, odds: `encounter show --odds` adds the quick estimate as percentages (2,000 trials)."""
    text = fight.ok("encounter", "show", "--odds").stdout
    assert re.search(r"^odds \(2,000 trials, seed 5\): heroes \d+%, foes \d+%, unresolved \d+%$", text, re.M)
    doc = fight.json("encounter", "show", "--odds")
    assert doc["odds"]["trials"] == 2000
    assert doc["odds"]["heroes"] + doc["odds"]["foes"] + doc["odds"]["unresolved"] == pytest.approx(1.0)


def test_the_session_shell_forecasts_too(fight: Cli) -> None:
    """docs/shell.md: the same commands, one a line: `odds` in `ledger play` prints what the one-shot prints."""
    one_shot = fight.ok("odds", *TRIALS, "--seed", "8").stdout
    r = subprocess.run(
        [sys.executable, "-m", "commands", "--db", fight.db, "play"],
        input="odds --trials 300 --seed 8\n",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert one_shot in r.stdout


def test_every_system_forecasts_a_planned_fight(cli: Cli) -> None:
    """docs/odds.md: a forecast in each system: a stronger side wins more often (hnh, d20, pnp)."""
    cli.ok("init", "--system", "pnp", "--name", "P")
    cli.ok("character", "add", "Ann", "--trait", "might=5", "--trait", "agility=4", "--trait", "toughness=5", "--pc")
    cli.ok("character", "add", "Bob", "--trait", "might=2", "--trait", "agility=1", "--trait", "toughness=2")
    doc = cli.json("odds", "Ann", "--vs", "Bob", *TRIALS, "--seed", "1")
    assert doc["sides"]["heroes"]["win"] > doc["sides"]["foes"]["win"]
    assert orjson.loads(orjson.dumps(doc)) == doc
