"""Humans & Heroes hazards of the body (hnh-site/gameplay.txt: Disease, Forced Labor, Radiation, ...): sleep
deprivation, forced labor, disease, radiation."""

from __future__ import annotations

import pytest

from tests.cli.hnh_helpers import event, show, undo_and_retract_restore
from tests.conftest import Cli, Recorded


def _record_hnh(cli: Cli) -> None:
    """Ann: Stamina 2 (Fortitude 2)."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--pc", "--trait", "stamina=2")


@pytest.fixture
def hnh(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_hnh records, recorded once and copied for this test."""
    return recorded(cli, _record_hnh)


def conditions(cli: Cli) -> set[str]:
    """Ann's imposed conditions."""
    return set(show(cli, "Ann")["conditions"])


@pytest.mark.parametrize(
    ("days", "expected"),
    [(1, set()), (2, {"fatigued"}), (5, {"exhausted"}), (10, {"exhausted", "incapacitated", "prone"})],
)
def test_sleep_deprivation_by_days(hnh: Cli, days: int, expected: set[str]) -> None:
    """gameplay.txt, Sleep Deprivation: "1 day without side effect ... fatigued. After 5 days ... exhausted. After 10
    days ... incapacitated"."""
    for d in sorted({2, 5, days} & set(range(1, days + 1))) or [days]:
        hnh.ok("hazard", "Ann", "sleep-deprivation", "-o", f"days={d}")
    assert conditions(hnh) == expected


def test_forced_labor_wears_down_to_asleep_or_dazed_then_dying(hnh: Cli) -> None:
    """gameplay.txt, Forced Labor: "DC 1 and increasing by 1 each check ... fatigued ... exhausted, then asleep. If
    forced awake ... dazed (in addition to exhausted). The next failed Fortitude check after that you become dying and
    your HP becomes -1"."""
    r = hnh.json("hazard", "Ann", "forced-labor", "--roll", "fortitude=0,0,0")  # 2 >= DC 1
    assert event(r, "CheckResolved")["dc"] == 1 and conditions(hnh) == set()
    hnh.ok("hazard", "Ann", "forced-labor", "--roll", "fortitude=-,0,0")  # 1 < DC 2
    assert conditions(hnh) == {"fatigued"}
    hnh.ok("hazard", "Ann", "forced-labor", "--roll", "fortitude=-,0,0")
    assert conditions(hnh) == {"exhausted"}
    hnh.ok("hazard", "Ann", "forced-labor", "-o", "forced-awake=yes", "--roll", "fortitude=-,0,0")
    assert conditions(hnh) == {"exhausted", "dazed"}
    r = hnh.json("hazard", "Ann", "forced-labor", "--roll", "fortitude=-,0,0")
    assert r["character"]["hp"] == -1 and "dying" in r["character"]["conditions"]


def test_forced_labor_without_being_forced_awake_ends_asleep(hnh: Cli) -> None:
    """gameplay.txt, Forced Labor: "Fatigued characters who fail a check become exhausted, then asleep"."""
    for _ in range(3):
        hnh.ok("hazard", "Ann", "forced-labor", "-o", "previous-checks=5", "--roll", "fortitude=0,0,0")
    assert conditions(hnh) == {"exhausted", "asleep"}


def test_a_disease_infects_as_an_affliction_checked_each_day(hnh: Cli) -> None:
    """gameplay.txt, Disease: "a Fortitude check (DC of the disease's rank) to avoid becoming infected ... Diseases are
    generally Affliction"."""
    flu = ("-o", "rank=4", "-o", "name=flu", "-o", "conditions=impaired,disabled,incapacitated")
    hnh.ok("hazard", "Ann", "disease", *flu, "--roll", "fortitude=-,0,0")  # 1 vs 4: one degree
    assert conditions(hnh) == {"impaired"}
    hnh.ok("encounter", "start", "Ann", "--roll", "Ann=0,0,0")
    hnh.ok("encounter", "next")  # no end-of-turn check for a disease
    assert conditions(hnh) == {"impaired"}
    hnh.ok("hazard", "Ann", "disease", *flu, "--roll", "fortitude=+,+,+")  # the next day: 2 - 1 (impaired) + 3 + 1 >= 4
    assert conditions(hnh) == set() and not any(k.startswith("affliction:") for k in show(hnh, "Ann")["counters"])


def test_a_treatment_bonus_helps_against_disease(hnh: Cli) -> None:
    """gameplay.txt, Disease: "A Treatment skill check can provide a bonus on defense checks against disease"."""
    r = hnh.json(
        "hazard",
        "Ann",
        "disease",
        "-o",
        "rank=4",
        "-o",
        "conditions=impaired",
        "-o",
        "bonus=2",
        "--roll",
        "fortitude=0,0,0",
    )
    assert event(r, "CheckResolved")["success"] is True


def test_radiation_weakens_stamina_until_it_ends(hnh: Cli) -> None:
    """gameplay.txt, Radiation: "an initial Fortitude check against (DC of the radiation's rank) ... typically a Weaken
    Stamina effect"."""
    r = hnh.json("hazard", "Ann", "radiation", "-o", "rank=5", "--roll", "fortitude=0,0,0")  # 2 vs 5: 3 points
    assert r["character"]["traits"]["stamina"] == -1 and "weakened" in r["character"]["conditions"]
    hnh.ok("encounter", "start", "Ann", "--roll", "Ann=0,0,0")
    hnh.ok("encounter", "next")
    assert show(hnh, "Ann")["traits"]["stamina"] == -1  # held while exposed
    hnh.ok("hazard", "Ann", "radiation", "-o", "ended=yes")
    hnh.ok("encounter", "next")
    assert show(hnh, "Ann")["traits"]["stamina"] == 0


def test_stamina_drained_below_minus_five_is_death(hnh: Cli) -> None:
    """gameplay.txt, Disease: "the subject's Stamina may drop below -5, in which case death occurs"."""
    r = hnh.json("hazard", "Ann", "disease", "-o", "effect=weaken", "-o", "rank=12", "--roll", "fortitude=-,-,0")
    assert "dead" in r["character"]["conditions"]


def test_radiation_damage_is_resisted_by_fortitude(hnh: Cli) -> None:
    """gameplay.txt, Radiation: "may include other effects, including Damage resisted by Fortitude"."""
    r = hnh.json(
        "hazard",
        "Ann",
        "radiation",
        "-o",
        "rank=6",
        "-o",
        "effect=damage",
        "--roll",
        "power=0,0,0",
        "--roll",
        "toughness=0,0,0",
    )
    assert event(r, "ResistanceResolved")["defense"] == "fortitude" and r["character"]["hp"] == 2


@pytest.mark.parametrize(
    "args",
    [
        ("hazard", "Ann", "sleep-deprivation", "-o", "days=5"),
        ("hazard", "Ann", "forced-labor", "--roll", "fortitude=-,-,0"),
        ("hazard", "Ann", "disease", "-o", "rank=4", "-o", "conditions=impaired", "--roll", "fortitude=-,0,0"),
        ("hazard", "Ann", "radiation", "-o", "rank=5", "--roll", "fortitude=0,0,0"),
    ],
)
def test_each_hazard_undone_and_retracted_restores_the_sheet(hnh: Cli, args: tuple[str, ...]) -> None:
    """DESIGN.md, The ruling: undo and retraction restore the exact earlier state."""
    undo_and_retract_restore(hnh, ("Ann",), *args)


def test_a_cure_undone_and_retracted_restores_the_sheet(hnh: Cli) -> None:
    """DESIGN.md, The ruling: undo and retraction restore the exact earlier state (gameplay.txt, Disease)."""
    hnh.ok(
        "hazard",
        "Ann",
        "disease",
        "-o",
        "rank=4",
        "-o",
        "name=flu",
        "-o",
        "conditions=impaired",
        "--roll",
        "fortitude=-,0,0",
    )
    undo_and_retract_restore(hnh, ("Ann",), "hazard", "Ann", "disease", "-o", "name=flu", "-o", "ended=yes")
