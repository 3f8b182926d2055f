"""`retract --yes` commits the plan it showed (DESIGN.md, The ruling: "shows what changes ... and on confirmation
appends the retraction and the amended outcomes"): planned once while the log head stays put, planned again
under the writer lock only when another writer moved the head."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger.application import Ledger
from ledger.history import rederive
from tests.conftest import Cli


@pytest.fixture
def plans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts every re-derivation planned (the real planner runs; only the count is taken)."""
    made: list[int] = []
    real = rederive.Rederiver.plan

    def counted(self: rederive.Rederiver) -> rederive.Plan:
        made.append(self.target)
        return real(self)

    monkeypatch.setattr(rederive.Rederiver, "plan", counted)
    return made


def _hnh(db: str) -> Ledger:
    led = Ledger(db, actor="gm", seed=1)
    led.init("hnh")
    led.add_character("Ann", {"toughness": "2"}, pc=True)
    led.damage("Ann", 4)  # 3: 6 -> 2
    led.damage("Ann", 3)  # 4: 2 -> -1, dying (humans-and-heroes.txt, Health Points)
    led.damage("Ann", 1)  # 5: -1 -> -2
    return led


def test_the_plan_shown_is_the_plan_committed_when_the_head_has_not_moved(tmp_path: Path, plans: list[int]):
    """With no other writer, committing a shown plan decides nothing again: one plan, and it is what is appended."""
    led = _hnh(str(tmp_path / "a.ledger"))
    try:
        shown = led.plan_retraction(4)
        result = led.retract(4, plan=shown)
        assert plans == [4] and result["replanned"] is False
        assert result["rederived"] == shown.summary()["rederived"]
        assert led.sheet("Ann").hp == 1  # 6 - 4 - 1: the history without ruling 4
    finally:
        led.close()


def test_a_plan_is_made_again_when_another_writer_moved_the_head(tmp_path: Path, plans: list[int]):
    """Another writer's ruling after the plan was shown: the retraction is planned again there, and re-derives it
    too."""
    db = str(tmp_path / "a.ledger")
    led = _hnh(db)
    other = Ledger(db, actor="other", seed=2)
    try:
        shown = led.plan_retraction(4)
        other.damage("Ann", 2)  # 6: after the plan was shown
        result = led.retract(4, plan=shown)
        assert plans == [4, 4] and result["replanned"] is True
        assert [c["ruling"] for c in result["rederived"]] == [5, 6]
        assert led.sheet("Ann").hp == -1  # 6 - 4 - 1 - 2
    finally:
        other.close()
        led.close()


def test_retract_yes_plans_once_through_the_cli(cli: Cli, plans: list[int]):
    """`ledger retract N --yes` decides the later rulings once, for the diff it prints and appends."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "toughness=2", "--pc")
    cli.ok("damage", "Ann", "--amount", "4")
    cli.ok("damage", "Ann", "--amount", "3")
    r = cli.ok("retract", "3", "--yes")
    assert plans == [3] and "note:" not in r.stderr
    assert cli.json("character", "show", "Ann")["hp"] == 3
