"""Rulings recorded before the rules' version 4 are decided again as they were recorded: a retraction of an earlier
ruling re-derives them under today's code with yesterday's rules (RuleSystem.at). Recorded as the previous release
did (`tracker: 3` in an encounter, no version out of one), then retracted here: the sheets equal those of the same
old ledger without the retracted ruling, and each case keeps what version 4 would decide differently."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ledger.app import core
from tests.cli.hnh_helpers import show
from tests.conftest import Cli


def as_previous(monkeypatch: pytest.MonkeyPatch) -> None:
    """Record as the previous release did: `tracker: 3` in an encounter, no rules' version out of one."""
    monkeypatch.setattr(core, "TRACKER", 3)
    monkeypatch.setattr(core, "RULED", frozenset())


def d20(cli: Cli) -> None:
    """d20-supers.txt, Charge: the previous release's GM-imposed charge had no -2 DR."""
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Ann", "--pc", "--trait", "hp=10")
    cli.ok("character", "add", "Bob", "--trait", "hp=10")


def d20_play(cli: Cli) -> None:
    cli.ok("condition", "add", "Ann", "charging")


def hnh(cli: Cli) -> None:
    """hnh-site/gameplay.txt, Aim: the previous release recorded the aimed attack of the aim's own turn with +2 (a
    campaign that only warns about the action budget)."""
    cli.ok("init", "--system", "hnh", "-o", "action-economy=warn")
    cli.ok("character", "add", "Ann", "--pc", "--trait", "fighting=5", "--trait", "strength=6")
    cli.ok("character", "add", "Bob", "--trait", "fighting=2")


def hnh_play(cli: Cli) -> None:
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=9", "--init", "Bob=1")
    cli.ok("act", "Ann", "aim", "--against", "Bob")
    cli.ok("attack", "Ann", "Bob", "--roll", "attack=0,0,0", "--roll", "defense=0,0,0", "--roll", "toughness=0,0,0")


def pnp(cli: Cli) -> None:
    """prowlers-and-paragons.txt, Combat, Attacks: the previous release's recovery in an encounter lifted a defeat
    for the rest of the scene."""
    cli.ok("init", "--system", "pnp")
    cli.ok("character", "add", "Mara", "--trait", "might=4", "--trait", "agility=3", "--trait", "toughness=4", "--pc")
    cli.ok("character", "add", "Boss", "--trait", "might=3", "--trait", "toughness=3", "--trait", "agility=2")


def pnp_play(cli: Cli) -> None:
    cli.ok("encounter", "start", "Mara", "Boss")
    cli.ok("damage", "Boss", "--amount", "2")
    cli.ok(
        "attack", "Mara", "Boss", "--with", "might", "--effect", "stun", "--roll", "attack=6,1,1,1",
        "--roll", "defense=1,1",
    )  # fmt: skip
    cli.ok("recover", "Boss", "--amount", "2")


def kept(system: str, cli: Cli) -> bool:
    """What the previous release decided, still so."""
    if system == "d20":
        return "charge-dr" not in show(cli, "Ann")["counters"]
    if system == "hnh":  # the aimed attack stands (version 4 would refuse it): Bob took its damage
        bob = show(cli, "Bob")
        return bool(bob["hp"] < 6 or bob["counters"].get("bruises"))
    return "defeated" not in show(cli, "Boss")["conditions"]


CASES: dict[str, tuple[Callable[[Cli], None], Callable[[Cli], None], tuple[str, ...]]] = {
    "d20": (d20, d20_play, ("Ann", "Bob")),
    "hnh": (hnh, hnh_play, ("Ann", "Bob")),
    "pnp": (pnp, pnp_play, ("Mara", "Boss")),
}


def states(cli: Cli, names: tuple[str, ...]) -> list[Any]:
    return [show(cli, n) for n in names]


@pytest.mark.parametrize("system", list(CASES))
def test_a_previous_releases_ruling_is_decided_again_as_it_was(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, system: str
) -> None:
    """Each case's passage (see its setup): recorded by the previous release, retracting an earlier ruling under
    today's rules re-decides the later ones as they were recorded."""
    setup, play, names = CASES[system]
    as_previous(monkeypatch)
    setup(cli)
    first = cli.json("damage", names[0], "--amount", "1")["ruling"]  # type: ignore[index]
    play(cli)
    assert kept(system, cli)
    monkeypatch.undo()  # today's release decides the retraction
    cli.ok("retract", str(first), "--yes")
    assert kept(system, cli)
    without = Cli(str(tmp_path / "without.ledger"))
    as_previous(monkeypatch)
    setup(without)
    without.ok("roll", "1d6")  # the retracted ruling's number, taken by a ruling that changes no sheet
    play(without)
    assert states(cli, names) == states(without, names)
