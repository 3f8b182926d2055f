"""P&P special effects under the tracker's version 3: their pages and the rest of the scene are durations, ticking and
ending through the turn hooks as the GM's do, saying why, shown the same way (`stunned 2`, `stunned scene`); the P&P
rules that read the pages (defeat by an effect, the end of the scene) keep working; undo, redo and retraction restore
every sheet and the tracker exactly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli

STUN = ("--with", "might", "--effect", "stun", "--roll", "defense=1,1")


def fight(cli: Cli) -> None:
    """Mara (Edge 3) acts before Boss (Edge 2, Health 3)."""
    cli.ok("init", "--system", "pnp")
    cli.ok("character", "add", "Mara", "--trait", "might=4", "--trait", "agility=3", "--trait", "toughness=4", "--pc")
    cli.ok("character", "add", "Boss", "--trait", "might=3", "--trait", "toughness=3", "--trait", "agility=2")
    cli.ok("encounter", "start", "Mara", "Boss")


def stun(cli: Cli, faces: str) -> Any:
    """Mara stuns Boss with these attack dice (Boss rolls no success)."""
    return cli.json("attack", "Mara", "Boss", *STUN, "--roll", f"attack={faces}")


def row(cli: Cli, name: str) -> dict[str, Any]:
    doc = cli.json("encounter", "show")
    assert isinstance(doc, dict)
    return next(e for e in doc["order"] if e["name"] == name)


def boss(cli: Cli) -> dict[str, Any]:
    shown = cli.json("character", "show", "Boss")
    assert isinstance(shown, dict)
    return shown


def states(cli: Cli) -> list[Any]:
    return [cli.json("character", "show", "Mara"), cli.json("character", "show", "Boss"), cli.json("encounter", "show")]


def removed(doc: Any, condition: str) -> dict[str, Any]:
    return next(
        e["data"] for e in doc["events"] if e["type"] == "ConditionRemoved" and e["data"]["condition"] == condition
    )


def test_stun_pages_run_out_as_a_duration_and_say_so(cli: Cli) -> None:
    """prowlers-and-paragons.txt, Combat, Attacks ("Special effects: last 1 page for every 2 net successes ... your
    target is stunned for 2 pages"): 4 net successes stun Boss for 2 pages, shown `stunned 2` in the tracker; each end
    of Boss's page counts one; the ruling that ends the second says `2 pages ran out`; undo and redo restore it."""
    fight(cli)
    stun(cli, "6,6,1,1")
    assert boss(cli)["effects"] == {"stun": 2}  # the P&P rules still read the pages
    assert row(cli, "Boss")["left"] == {"stunned": "2"}
    assert "stunned 2" in cli.ok("encounter", "show").stdout
    cli.ok("encounter", "next")  # Boss's page
    cli.ok("encounter", "next")  # Boss's page ended: one page left
    assert row(cli, "Boss")["left"] == {"stunned": "1"} and boss(cli)["effects"] == {"stun": 1}
    cli.ok("encounter", "next")
    before = states(cli)
    assert "Boss: no longer stunned (2 pages ran out)" in cli.ok("encounter", "next").stdout
    assert removed({"events": cli.json("log", "-n", "1")}, "stunned")["expired"] == "2 rounds ran out"
    after = states(cli)
    assert boss(cli)["conditions"] == [] and boss(cli)["effects"] == {} and boss(cli)["counters"] == {}
    cli.ok("undo")
    assert states(cli) == before
    cli.ok("redo")
    assert states(cli) == after


def test_retracting_the_stun_leaves_the_ledger_as_one_that_never_had_it(cli: Cli, tmp_path: Path) -> None:
    """prowlers-and-paragons.txt, Combat, Attacks (special effects' pages): retracting the stun re-decides the pages
    that followed; every sheet and the tracker equal those of a ledger that never had the stun."""
    fight(cli)
    number = stun(cli, "6,6,1,1")["ruling"]
    for _ in range(3):
        cli.ok("encounter", "next")
    cli.ok("retract", str(number), "--yes")
    without = Cli(str(tmp_path / "without.ledger"))
    fight(without)
    for _ in range(3):
        without.ok("encounter", "next")
    assert states(cli) == states(without)


def test_pages_reaching_health_defeat_for_the_rest_of_the_scene(cli: Cli) -> None:
    """prowlers-and-paragons.txt, Combat, Attacks ("If the duration of a special effect ever equals or exceeds the
    target's current Health, the target is "defeated" by the special effect, which then lasts for the rest of the
    scene"): 3 pages against Health 3 defeat Boss; the stun and the defeat show `scene` and outlast the pages; the
    encounter's end (the scene's) ends both, saying why; undo brings them back exactly."""
    fight(cli)
    stun(cli, "6,6,6,1")
    assert "defeated" in boss(cli)["conditions"] and boss(cli)["effects"] == {"stun": "scene"}
    assert row(cli, "Boss")["left"] == {"stunned": "scene", "defeated": "scene"}
    for _ in range(6):  # three pages: the defeated Boss is passed over, the stun runs on
        cli.ok("encounter", "next")
    assert set(boss(cli)["conditions"]) == {"stunned", "defeated"}
    before = states(cli)
    end = cli.json("encounter", "end")
    assert end["scene_ended_for"] == ["Boss"]
    assert removed(end, "defeated")["expired"] == "the encounter ended"
    assert "Boss: no longer defeated and stunned (the encounter ended)" in cli.ok("log", "-n", "1").stdout
    cli.ok("undo")
    assert "Boss: no longer defeated and stunned (the encounter ended)" in cli.ok("encounter", "end").stdout
    assert boss(cli)["conditions"] == [] and boss(cli)["counters"] == {}
    cli.ok("undo")
    assert states(cli) == before


def test_damage_that_brings_health_down_to_the_pages_defeats_by_the_effect(cli: Cli, tmp_path: Path) -> None:
    """prowlers-and-paragons.txt, Combat, Attacks ("If the duration of a special effect ever equals or exceeds the
    target's current Health"): a 2-page stun, then 1 damage (Health 3 -> 2) defeats Boss by the stun for the rest of
    the scene (`stunned scene`); retracting the damage leaves a 2-page stun, as a ledger without the damage."""
    fight(cli)
    stun(cli, "6,6,1,1")
    r = cli.json("damage", "Boss", "--amount", "1")
    assert "defeated" in boss(cli)["conditions"] and boss(cli)["effects"] == {"stun": "scene"}
    assert row(cli, "Boss")["left"] == {"stunned": "scene", "defeated": "scene"}
    cli.ok("encounter", "next")
    cli.ok("retract", str(r["ruling"]), "--yes")
    assert row(cli, "Boss")["left"] == {"stunned": "2"}
    without = Cli(str(tmp_path / "without.ledger"))
    fight(without)
    stun(without, "6,6,1,1")
    without.ok("encounter", "next")
    assert states(cli) == states(without)


def test_defeat_at_zero_health_outlasts_the_scene_the_effect_does_not(cli: Cli) -> None:
    """prowlers-and-paragons.txt, Combat, Attacks (Damage: at 0 Health "defeated and out of the fight"; a special
    effect's defeat "lasts for the rest of the scene"): defeated by the stun, then brought to 0 Health, Boss stays
    defeated when the encounter ends; the stun ends, saying why."""
    fight(cli)
    stun(cli, "6,6,6,1")
    cli.ok("damage", "Boss", "--amount", "3")
    end = cli.json("encounter", "end")
    assert removed(end, "stunned")["expired"] == "the encounter ended"
    assert boss(cli)["conditions"] == ["defeated"] and boss(cli)["hp"] == 0 and boss(cli)["counters"] == {}


def test_a_stun_ends_through_the_cli_in_a_subprocess(cli: Cli) -> None:
    """prowlers-and-paragons.txt, Combat, Attacks ("last 1 page for every 2 net successes"): a 1-page stun (2 net
    successes), recorded and run out by separate `ledger` processes, says `1 page ran out`."""
    if cli.db.startswith("postgresql"):
        pytest.skip("the subprocess test runs on a SQLite file")
    fight(cli)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "commands", "--db", cli.db, "--as", "tester", *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True)

    assert "now stunned" in run("attack", "Mara", "Boss", *STUN, "--roll", "attack=6,1,1,1").stdout
    assert "stunned 1" in run("encounter", "show").stdout
    run("encounter", "next")
    assert "Boss: no longer stunned (1 page ran out)" in run("encounter", "next").stdout
