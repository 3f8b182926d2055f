"""Rulings recorded by an older release keep the rules' own counting when they are decided again: intents without
`tracker` (the first releases) and with `tracker: 2` (before P&P's pages and H&H's aim and defend were durations).
A retraction of an earlier ruling re-decides them exactly as they were; the side-down notice of a ruling without
`tracker` is said and never recorded, with `tracker` recorded, by the one decision."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ledger.app import core
from ledger.app.core import LedgerCore
from tests.conftest import Cli

RELEASES = ["first", "tracker-2"]


def as_release(monkeypatch: pytest.MonkeyPatch, release: str) -> None:
    """Record as an older release did: no `tracker` in play intents, or `tracker: 2`."""
    if release == "first":
        monkeypatch.setattr(LedgerCore, "_fighting", lambda self: False)
        monkeypatch.setattr(core, "RULED", frozenset())  # nor the rules' version out of an encounter
    else:
        monkeypatch.setattr(core, "TRACKER", 2)


def pnp(cli: Cli) -> None:
    cli.ok("init", "--system", "pnp")
    cli.ok("character", "add", "Mara", "--trait", "might=4", "--trait", "agility=3", "--trait", "toughness=4", "--pc")
    cli.ok("character", "add", "Boss", "--trait", "might=3", "--trait", "toughness=3", "--trait", "agility=2")
    cli.ok("encounter", "start", "Mara", "Boss")


def pnp_stun(cli: Cli) -> int:
    """A 2-page stun on Boss (4 net successes), then four turns: the second end of Boss's page ends it."""
    n = cli.json(
        "attack",
        "Mara",
        "Boss",
        "--with",
        "might",
        "--effect",
        "stun",
        "--roll",
        "attack=6,6,1,1",
        "--roll",
        "defense=1,1",
    )
    for _ in range(4):
        cli.ok("encounter", "next")
    return int(n["ruling"])  # type: ignore[index]


def hnh(cli: Cli) -> None:
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--pc", "--trait", "fighting=5", "--trait", "dodge=4", "--trait", "parry=4")
    cli.ok("character", "add", "Bob", "--trait", "fighting=2", "--trait", "dodge=2", "--trait", "parry=2")
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=5", "--init", "Bob=3")


def hnh_aim_and_defend(cli: Cli) -> int:
    """Ann aims; on her next turn she defends; the turns that end both pass."""
    n = cli.json("act", "Ann", "aim")
    cli.ok("encounter", "next")
    cli.ok("encounter", "next")
    cli.ok("encounter", "next")  # the end of Ann's next turn: the aim is lost
    cli.ok("encounter", "next")
    cli.ok("act", "Ann", "defend", "-o", "defense=dodge")
    cli.ok("encounter", "next")
    cli.ok("encounter", "next")  # Ann's turn starts: the defend ends
    return int(n["ruling"])  # type: ignore[index]


def states(cli: Cli, names: tuple[str, ...]) -> list[Any]:
    return [*(cli.json("character", "show", n) for n in names), cli.json("encounter", "show")]


CASES: dict[str, tuple[Callable[[Cli], None], Callable[[Cli], int], tuple[str, ...], str, dict[str, int]]] = {
    "pnp": (pnp, pnp_stun, ("Mara", "Boss"), "Boss", {"effect:stun": 2}),
    "hnh": (hnh, hnh_aim_and_defend, ("Ann", "Bob"), "Ann", {"aim": 1}),
}


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("system", list(CASES))
def test_an_older_rulings_own_counting_is_decided_again_as_it_was(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, release: str, system: str
) -> None:
    """prowlers-and-paragons.txt, Combat, Attacks ("last 1 page for every 2 net successes"); gameplay.txt, Aim and
    Defend ("until your next turn"): recorded by an older release, the stun's pages and the aim are the rules' own
    counters (`effect:stun`, `aim`), counted and ended by the rules' own hooks; retracting an earlier ruling
    re-decides every later one as it was: the sheets and the tracker equal those of the same old ledger without it."""
    setup, play, names, bearer, own = CASES[system]
    as_release(monkeypatch, release)
    setup(cli)
    first = cli.json("damage", names[0], "--amount", "1")["ruling"]  # type: ignore[index]
    timed = play(cli)
    kept = cli.json("character", "show", bearer, "--at", str(timed))
    assert kept["counters"] == own  # type: ignore[index]
    monkeypatch.undo()  # the current release decides the retraction
    cli.ok("retract", str(first), "--yes")
    assert cli.json("character", "show", bearer, "--at", str(timed))["counters"] == own  # type: ignore[index]
    without = Cli(str(tmp_path / "without.ledger"))
    as_release(monkeypatch, release)
    setup(without)
    without.ok("roll", "1d6")  # the retracted ruling's number, taken by a ruling that changes no sheet
    play(without)
    assert states(cli, names) == states(without, names)


def side_events(cli: Cli, ruling: int) -> list[Any]:
    log = cli.json("log")
    assert isinstance(log, list)
    return [e for e in log if e["ruling"] == ruling and (e.get("data") or {}).get("side_down")]


@pytest.mark.parametrize("release", ["first", "current"])
def test_one_side_down_is_decided_once_said_always_and_recorded_from_tracker_2(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, release: str
) -> None:
    """prowlers-and-paragons.txt, Combat, Attacks (a special effect whose pages reach Health defeats the target): the
    stun that defeats the only foe says every foe is down; a ruling recorded without `tracker` says it and records
    nothing, one with it records it; retracting an earlier ruling re-decides the old one without adding a record."""
    if release == "first":
        as_release(monkeypatch, release)
    pnp(cli)
    first = cli.json("damage", "Mara", "--amount", "1")["ruling"]  # type: ignore[index]
    args = (
        "attack",
        "Mara",
        "Boss",
        "--with",
        "might",
        "--effect",
        "stun",
        "--roll",
        "attack=6,6,6,1",
        "--roll",
        "defense=1,1",
    )
    r = cli.json(*args)
    assert r["side_down"] == "foes"  # type: ignore[index]
    ruling = int(r["ruling"])  # type: ignore[index]
    assert len(side_events(cli, ruling)) == (0 if release == "first" else 1)
    cli.ok("undo")
    assert "every foe is down" in cli.ok(*args).stdout.lower()  # said either way
    monkeypatch.undo()
    cli.ok("retract", str(first), "--yes")
    assert len(side_events(cli, ruling + 2)) == (0 if release == "first" else 1)
