"""Humans & Heroes area effects through the real CLI: one power check, per-target Dodge and resistance rolls."""

from __future__ import annotations

from typing import Any

import pytest

from tests.cli.hnh_helpers import show
from tests.conftest import Cli, Recorded, event_count

AREA = ("--with", "dexterity", "--rank", "4", "--range", "area")


def _record_hnh(cli: Cli) -> None:
    """Ann (the attacker), Bob (Dodge 2, Toughness 2), Cy (Dodge 1, Toughness 1), Thugs (5 minions)."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "dexterity=5", "--pc")
    cli.ok("character", "add", "Bob", "--trait", "dodge=2", "--trait", "toughness=2")
    cli.ok("character", "add", "Cy", "--trait", "dodge=1", "--trait", "toughness=1")
    cli.ok("character", "add", "Thugs", "--minion", "--count", "5", "--trait", "dodge=0", "--trait", "toughness=0")


@pytest.fixture
def hnh(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_hnh records, recorded once and copied for this test."""
    return recorded(cli, _record_hnh)


def resolved(r: Any, kind: str) -> list[dict[str, Any]]:
    """Every event of a kind in a ruling's output, in order."""
    return [e["data"] for e in r["events"] if e["type"] == kind]


def dice(r: Any) -> dict[str, dict[str, Any]]:
    """The ruling's dice by name."""
    return {e["data"]["name"]: e["data"] for e in r["events"] if e["type"] == "DiceRolled"}


def test_one_power_check_and_per_target_dodge_and_toughness(hnh: Cli) -> None:
    """gameplay.txt, Perception And Area Effects ("automatically affect a given target or area", no attack check)
    and Cover ("Dodge defense checks against area effects"): one `power` roll; `Bob.dodge`, `Bob.toughness`,
    `Cy.dodge`, `Cy.toughness` each rolled for its target."""
    r = hnh.json(
        "attack",
        "Ann",
        "Bob",
        "Cy",
        *AREA,
        "--roll",
        "power=0,0,0",
        "--roll",
        "Bob.dodge=+,+,0",
        "--roll",
        "Bob.toughness=0,0,0",
        "--roll",
        "Cy.dodge=-,0,0",
        "--roll",
        "Cy.toughness=0,0,0",
    )
    rolled = dice(r)
    assert [n for n in rolled if "power" in n] == ["power"]
    assert rolled["Bob.dodge"]["for"] == "Bob" and rolled["Cy.toughness"]["for"] == "Cy"
    bob, cy = resolved(r, "AttackResolved")
    assert bob["dodged"] is True and bob["rank"] == 2  # Dodge 4 meets the power check 4: half the effect
    assert cy["dodged"] is False and cy["rank"] == 4
    assert "attack" not in rolled and "attack" not in bob  # no attack check
    assert show(hnh, "Bob")["hp"] == 6 and show(hnh, "Cy")["hp"] == 3


def test_cover_adds_to_the_dodge_against_an_area(hnh: Cli) -> None:
    """gameplay.txt, Cover: "someone behind total cover also gains a +2 to Dodge checks against area effects"."""
    rolls = ("--roll", "power=0,0,0", "--roll", "Bob.dodge=0,0,0", "--roll", "Cy.dodge=0,0,0")
    plain = resolved(hnh.json("attack", "Ann", "Bob", "Cy", *AREA, *rolls), "AttackResolved")[0]
    hnh.ok("undo")
    covered = resolved(hnh.json("attack", "Ann", "Bob", "Cy", *AREA, "--cover", "total", *rolls), "AttackResolved")[0]
    assert covered["dodge_check"]["total"] == plain["dodge_check"]["total"] + 2


def test_the_immobile_cannot_dodge_an_area(hnh: Cli) -> None:
    """conditions.txt, Immobile: "These characters can't Dodge area attacks" -- no Dodge roll, the full effect."""
    hnh.ok("condition", "add", "Bob", "immobile")
    r = hnh.json("attack", "Ann", "Bob", "Cy", *AREA, "--roll", "power=0,0,0", "--roll", "Bob.dodge=+,+,+")
    bob = resolved(r, "AttackResolved")[0]
    assert bob["dodged"] is False and bob["rank"] == 4
    assert dice(r)["Bob.dodge"]["used"] is False


def test_in_area_catches_n_members_of_a_group_with_one_roll_each(hnh: Cli) -> None:
    """gameplay.txt, Minion Rules ("the minion suffers the worst degree"): `--in-area Thugs=3` -- one `Thugs.dodge`
    and one `Thugs.toughness` roll for the group, the result applied to each of the 3 caught."""
    before = show(hnh, "Thugs")
    r = hnh.json(
        "attack",
        "Ann",
        "Thugs",
        *AREA,
        "--in-area",
        "Thugs=3",
        "--roll",
        "power=0,0,0",
        "--roll",
        "Thugs.dodge=0,0,0",
        "--roll",
        "Thugs.toughness=0,0,0",
    )
    assert [n for n in dice(r) if n.startswith("Thugs.")] == ["Thugs.dodge", "Thugs.toughness"]
    assert show(hnh, "Thugs")["count"] == before["count"] - 3
    hnh.ok("undo")
    assert show(hnh, "Thugs") == before


def test_an_area_attack_undone_redone_and_retracted_restores_every_sheet(hnh: Cli) -> None:
    """DESIGN.md, exactness, for the area ruling kind: undo, redo and retract give back `--json character show`
    of every target exactly."""
    names = ("Ann", "Bob", "Cy", "Thugs")
    before = [show(hnh, n) for n in names]
    args = ("attack", "Ann", "Bob", "Cy", "Thugs", *AREA, "--in-area", "Thugs=2", "--roll", "power=+,+,0")
    n = hnh.json(*args)["ruling"]  # type: ignore[index]
    after = [show(hnh, x) for x in names]
    assert after != before
    hnh.ok("undo")
    assert [show(hnh, x) for x in names] == before
    hnh.ok("redo")
    assert [show(hnh, x) for x in names] == after
    hnh.ok("retract", str(n), "--yes")
    assert [show(hnh, x) for x in names] == before


def test_one_target_in_an_area_keeps_the_plain_roll_names(hnh: Cli) -> None:
    """gameplay.txt, Cover, for one target: `--roll toughness=FACES` and `--roll dodge=FACES` still name its rolls
    (old rulings and scripts use them); `Bob.toughness` is accepted too."""
    r = hnh.json("attack", "Ann", "Bob", *AREA, "--roll", "dodge=-,-,0", "--roll", "toughness=+,+,+")
    assert {"dodge", "toughness"} <= set(dice(r))
    hnh.ok("undo")
    r = hnh.json("attack", "Ann", "Bob", *AREA, "--roll", "Bob.dodge=-,-,0", "--roll", "Bob.toughness=+,+,+")
    assert dice(r)["toughness"]["faces"] == [1, 1, 1]


@pytest.mark.parametrize(
    "args,says",
    [
        (("attack", "Ann", "Bob", "Cy", "--with", "dexterity", "--rank", "4"), "not an area"),
        (("attack", "Ann", "Bob", "Cy", "--range", "area"), "always close"),
        (("attack", "Ann", "Bob", "--in-area", "Bob=2", *AREA), "not a minion group"),
        (("attack", "Ann", "Thugs", "--in-area", "Thugs=9", *AREA), "standing"),
        (("attack", "Ann", "Bob", "Bob", *AREA), "twice"),
    ],
)
def test_an_area_the_attack_does_not_have_is_refused(hnh: Cli, args: tuple[str, ...], says: str) -> None:
    """gameplay.txt, Attack Check ("An unarmed attack is always close range") and Perception And Area Effects: several
    targets need an area effect; refused with the reason, exit 2, nothing appended."""
    before = event_count(hnh.db)
    r = hnh(*args)
    assert r.exit_code == 2 and says in r.stderr
    assert event_count(hnh.db) == before


def test_a_power_without_the_area_extra_is_refused_as_an_area(hnh: Cli) -> None:
    """gameplay.txt, Perception And Area Effects ("see the Area extra in Powers"): `--range area` on a power without
    Area is refused with the reason; one with Area (the Powerhouse's Shockwave) catches several targets."""
    import pathlib

    fixtures = pathlib.Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "hnh-characters"
    hnh.ok("character", "import", str(fixtures / "energy-controller.json"))
    hnh.ok("character", "import", str(fixtures / "powerhouse.json"))
    shown = show(hnh, "Energy Controller")
    blast = next(k for k, p in shown["powers"].items() if p.get("effect") == "Damage" and not p.get("area"))
    r = hnh("attack", "Energy Controller", "Bob", "Cy", "--with", blast, "--range", "area")
    assert r.exit_code == 2 and "no Area extra" in r.stderr
    hnh.ok("attack", "Powerhouse", "Bob", "Cy", "--with", "shockwave")


def test_d20_has_no_area_attack_on_several_targets(cli: Cli) -> None:
    """d20-supers.txt, Attacks: one attack, one target -- several targets are refused with the reason."""
    cli.ok("init", "--system", "d20")
    for n in ("Zip", "Thug", "Goon"):
        cli.ok("character", "add", n, "--trait", "hp=10")
    before = event_count(cli.db)
    r = cli("attack", "Zip", "Thug", "Goon")
    assert r.exit_code == 2 and "not in the rules of" in r.stderr
    assert event_count(cli.db) == before


def test_the_power_line_shows_the_check_the_dodges_were_against(hnh: Cli) -> None:
    """hnh-site/gameplay.txt, Perception And Area Effects (one power check; a Dodge check that meets it halves the
    effect for that target): Bob, named first, dodges and takes the halved rank, Cy fails; the power's die line reads
    the check as rolled, `+4 rank = 4` (the total both Dodges were made against), not Bob's halved rank."""
    out = hnh.ok(
        "attack", "Ann", "Bob", "Cy", *AREA, "--roll", "power=0,0,0", "--roll", "Bob.dodge=+,+,+",
        "--roll", "Cy.dodge=-,-,-",
    ).stdout  # fmt: skip
    assert "Ann power: 3dF [0 0 0] +4 rank = 4" in out, out
    assert "vs 4, dodges: half effect" in out and "vs 4, fails to dodge" in out
