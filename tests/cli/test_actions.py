"""The rules engines through the real CLI: entered and rolled dice, outcomes recorded, refusals append nothing."""

from __future__ import annotations

import pytest

from tests.conftest import FIXTURES, Cli, Recorded, event_count


def types(result: dict) -> list[str]:
    return [e["type"] for e in result["events"]]


def event(result: dict, kind: str) -> dict:
    return next(e["data"] for e in result["events"] if e["type"] == kind)


def _record_hnh(cli: Cli) -> None:
    """The ledger the hnh fixture starts from."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "fighting=6", "--trait", "parry=5", "--trait", "toughness=4", "--pc")
    cli.ok("character", "add", "Thug", "--trait", "parry=2", "--trait", "dodge=2", "--trait", "toughness=2")


@pytest.fixture
def hnh(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_hnh records, recorded once and copied for this test."""
    return recorded(cli, _record_hnh)


def test_hnh_attack_with_entered_dice_hits_and_the_toughness_failure_costs_hp(hnh: Cli):
    """humans-and-heroes.txt, Attack Check and Health Points: a failed Toughness check loses HP equal to the
    difference."""
    r = hnh.json(
        "attack",
        "Ann",
        "Thug",
        "--rank",
        "6",
        "--bonus",
        "6",
        "--roll",
        "attack=+,0,0",
        "--roll",
        "defense=0,0,0",
        "--roll",
        "power=0,0,0",
        "--roll",
        "toughness=0,0,0",
    )
    assert event(r, "AttackResolved")["hit"] is True
    # power 6 vs toughness 2: difference 4, HP 6 -> 2, and a bruise
    assert r["target"]["hp"] == 2 and r["target"]["counters"]["bruises"] == 1
    assert [e["data"]["source"] for e in r["events"] if e["type"] == "DiceRolled"] == ["entered"] * 4


def test_hnh_all_minus_attack_misses_and_its_unused_damage_dice_are_kept(hnh: Cli):
    """hnh-site/the-basics.txt, Critical failure: all three dice -1 on an attack is an automatic miss; CLI.md: unused
    entered rolls are kept, marked unused."""
    r = hnh.json(
        "attack", "Ann", "Thug", "--rank", "6", "--bonus", "20", "--roll", "attack=-,-,-", "--roll", "power=+,+,+"
    )
    assert event(r, "AttackResolved")["hit"] is False
    dice = {e["data"]["name"]: e["data"] for e in r["events"] if e["type"] == "DiceRolled"}
    assert dice["power"]["used"] is False and dice["attack"]["used"] is True
    assert r["target"]["hp"] == 6


def test_hnh_attack_with_the_ledgers_own_dice_is_recorded_as_seeded(hnh: Cli):
    """CLI.md, Entering dice: a roll not given is rolled by the ledger (seeded with --seed)."""
    r = hnh.json("attack", "Ann", "Thug", "--rank", "4", seed=12)
    assert {e["data"]["source"] for e in r["events"] if e["type"] == "DiceRolled"} == {"seeded"}


def test_hnh_damage_rank_tie_gives_a_bruise_only(hnh: Cli):
    """hnh-site/effect-damage.txt, Damage: a tie on the Toughness check gives a bruise (-1 Toughness), no HP lost."""
    r = hnh.json("damage", "Thug", "--rank", "2", "--roll", "power=0,0,0", "--roll", "toughness=0,0,0")
    assert r["character"]["hp"] == 6 and r["character"]["counters"]["bruises"] == 1


def test_hnh_fudge_faces_that_are_not_fudge_faces_are_refused(hnh: Cli, db: str):
    """CLI.md, Entering dice: faces of the wrong kind are bad input, nothing appended."""
    before = event_count(db)
    r = hnh("attack", "Ann", "Thug", "--rank", "4", "--roll", "attack=3,0,0")
    assert r.exit_code == 2 and event_count(db) == before


def test_hnh_the_dead_cannot_recover(hnh: Cli, db: str):
    """humans-and-heroes.txt, Recovery and Death: the dead don't recover; only Healing or Immortality lift Dead."""
    hnh.ok("damage", "Thug", "--amount", "20")
    before = event_count(db)
    r = hnh("recover", "Thug", "--hours", "8")
    assert r.exit_code == 2 and event_count(db) == before
    r = hnh.json("revive", "Thug", "--means", "healing")
    assert "dead" not in r["character"]["conditions"]


def test_hnh_recovery_restful_and_treated_stack(hnh: Cli):
    """humans-and-heroes.txt, Recovery: 1 HP per 8 hours; restful doubles; treatment doubles; both stack (4 HP in 8
    hours)."""
    hnh.ok("damage", "Ann", "--amount", "5")
    r = hnh.json("recover", "Ann", "--hours", "8", "--restful", "--treated")
    assert r["character"]["hp"] == 5


def test_hnh_victory_points_cannot_be_overspent(hnh: Cli, db: str):
    """hnh-site/the-basics.txt, Victory Points: a spend beyond what is left is refused."""
    hnh.ok("spend", "Ann", "victory-points", "2")
    before = event_count(db)
    assert hnh("spend", "Ann", "victory-points", "1").exit_code == 2
    assert event_count(db) == before


def test_hnh_falling_hazard_damages_by_distance(hnh: Cli):
    """humans-and-heroes.txt, Falling: damage rank (distance rank - size) x 2, prone after an accidental fall."""
    r = hnh.json(
        "hazard",
        "Thug",
        "falling",
        "-o",
        "distance-rank=2",
        "-o",
        "accidental=yes",
        "--roll",
        "power=0,0,0",
        "--roll",
        "toughness=0,0,0",
    )
    assert "prone" in r["character"]["conditions"]
    assert r["character"]["hp"] == 4  # rank 4 vs Toughness 2: lose 2


def test_hnh_character_import_and_attack_with_an_imported_power(cli: Cli):
    """CLI.md, Commands (`character import`): imported powers (Damage ranks) are usable in attacks by name."""
    cli.ok("init", "--system", "hnh")
    r = cli.json("character", "import", str(FIXTURES / "energy-controller.json"))
    assert r["character"]["traits"]["toughness"] == 10  # fixtures/README.md: the best Protection rank (Force Field 10)
    cli.ok("character", "add", "Thug", "--trait", "dodge=0", "--trait", "toughness=0")
    r = cli.json(
        "attack",
        "Energy Controller",
        "Thug",
        "--with",
        "energy-creation",
        "--range",
        "ranged",
        "--roll",
        "attack=0,0,0",
        "--roll",
        "defense=0,0,0",
        "--roll",
        "power=0,0,0",
        "--roll",
        "toughness=0,0,0",
    )
    assert event(r, "ResistanceResolved")["rank"] == 10 and r["target"]["hp"] == -3


def _record_d20(cli: Cli) -> None:
    """The ledger the d20 fixture starts from."""
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Blaze", "--trait", "str=14", "--trait", "attack=2", "--trait", "hp=12")
    cli.ok("character", "add", "Thug", "--trait", "dex=12", "--trait", "hp=8", "--trait", "dn=1")


@pytest.fixture
def d20(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_d20 records, recorded once and copied for this test."""
    return recorded(cli, _record_d20)


def test_d20_hit_when_the_total_reaches_dr_and_damage_minus_dn(d20: Cli):
    """d20-supers.txt, DR and To Attack: 1d20 + attack bonus + Str modifier at or above DR hits; damage + Str - DN."""
    # DR = 10 + 1 (Dex 12) = 11; 9 + 2 + 2 = 13 hits; 1d8 -> 5 + 2 (Str) - 1 (DN) = 6
    r = d20.json("attack", "Blaze", "Thug", "--damage", "1d8", "--roll", "attack=9", "--roll", "damage=5")
    assert event(r, "AttackResolved")["hit"] is True
    assert r["target"]["hp"] == 2


def test_d20_natural_one_misses_and_damage_dice_are_unused(d20: Cli):
    """d20-supers.txt, Collosal Failures and Spectacular Success: a natural 1 is a colossal failure."""
    r = d20.json("attack", "Blaze", "Thug", "--damage", "1d8", "--roll", "attack=1", "--roll", "damage=8")
    assert event(r, "AttackResolved")["hit"] is False
    assert [e["data"]["used"] for e in r["events"] if e["type"] == "DiceRolled" and e["data"]["name"] == "damage"] == [
        False
    ]


def test_d20_natural_twenty_chain_kills_outright(d20: Cli):
    """d20-supers.txt: a 20, then two more rolls that break the DR: the enemy dies instantly."""
    r = d20.json(
        "attack",
        "Blaze",
        "Thug",
        "--damage",
        "1d8",
        "--roll",
        "attack=20",
        "--roll",
        "confirm=15",
        "--roll",
        "death=12",
    )
    assert "dead" in r["target"]["conditions"]


@pytest.mark.parametrize("face", ["0", "21"])
def test_d20_faces_outside_the_die_are_refused(d20: Cli, db: str, face: str):
    """CLI.md, Entering dice: a d20 face of 0 or 21 is refused with exit 2 and nothing appended."""
    before = event_count(db)
    assert d20("attack", "Blaze", "Thug", "--roll", f"attack={face}").exit_code == 2
    assert event_count(db) == before


def test_d20_unknown_weapon_expression_is_refused(d20: Cli, db: str):
    """DESIGN.md, Errors and bad input: an unknown weapon expression is refused with exit 2."""
    before = event_count(db)
    assert d20("attack", "Blaze", "Thug", "--damage", "sword").exit_code == 2
    assert event_count(db) == before


def test_d20_dead_attacker_is_refused(d20: Cli, db: str):
    """d20-supers.txt, Damage: at -10 or below the character is dead; the dead don't attack."""
    d20.ok("damage", "Thug", "--amount", "30")
    before = event_count(db)
    assert d20("attack", "Thug", "Blaze").exit_code == 2
    assert event_count(db) == before


def test_d20_fists_are_subdual_and_knock_out_when_subdual_exceeds_hp(d20: Cli):
    """d20-supers.txt, Types of Damage: fists are 1d4 subdual; subdual beyond current HP is unconscious
    (docs/interpretations.md)."""
    d20.ok("damage", "Thug", "--amount", "5")  # HP 3
    r = d20.json("attack", "Blaze", "Thug", "--roll", "attack=15", "--roll", "damage=3")
    assert r["target"]["hp"] == 3 and "unconscious" in r["target"]["conditions"]


def test_d20_check_against_a_dc(d20: Cli):
    """d20-supers.txt, Collosal Failures and Spectacular Success: a skill check is 1d20 + modifier."""
    r = d20.json("check", "Blaze", "str", "--dc", "15", "--roll", "check=13")
    assert event(r, "CheckResolved")["success"] is True  # 13 + 2 = 15


def test_d20_charge_then_the_charge_bonus(d20: Cli):
    """d20-supers.txt, Charge: +2 to attack rolls and -2 to DR."""
    r = d20.json("act", "Blaze", "charge")
    assert r["character"]["counters"]["charge-dr"] == -2 and "charging" in r["character"]["conditions"]


def _record_pnp(cli: Cli) -> None:
    """The ledger the pnp fixture starts from."""
    cli.ok("init", "--system", "pnp")
    cli.ok(
        "character",
        "add",
        "Mara",
        "--trait",
        "might=4",
        "--trait",
        "agility=3",
        "--trait",
        "toughness=4",
        "--trait",
        "willpower=4",
        "--pc",
    )
    cli.ok(
        "character",
        "add",
        "Brute",
        "--trait",
        "might=3",
        "--trait",
        "agility=2",
        "--trait",
        "toughness=3",
        "--trait",
        "willpower=1",
    )
    cli.ok("character", "add", "Goons", "--minion", "--count", "5", "--trait", "threat=2")


@pytest.fixture
def pnp(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_pnp records, recorded once and copied for this test."""
    return recorded(cli, _record_pnp)


def test_pnp_damage_is_net_successes_against_health(pnp: Cli):
    """prowlers-and-paragons.txt, Attacks and Defenses: 1 point of damage per net success; Health = ceil((T+M)/2)."""
    # Brute Health = max(ceil(6/2), ceil(4/2)) = 3; attack 6,6,4,1 = 5 successes; defense (Agility 2) 2,1 = 1 -> 4 net
    r = pnp.json("attack", "Mara", "Brute", "--with", "might", "--roll", "attack=6,6,4,1", "--roll", "defense=2,1")
    assert r["target"]["hp"] == 0 and "defeated" in r["target"]["conditions"]


def test_pnp_each_net_success_defeats_one_minion(pnp: Cli):
    """prowlers-and-paragons.txt, Attacks and Defenses: you defeat 1 Minion per net success."""
    r = pnp.json("attack", "Mara", "Goons", "--with", "might", "--roll", "attack=6,4,3,1", "--roll", "defense=1,3")
    assert r["target"]["count"] == 2


def test_pnp_pool_with_a_wrong_face_count_or_a_seven_is_refused(pnp: Cli, db: str):
    """CLI.md, Entering dice: a pool given the wrong number of faces (or a face outside 1-6) is refused with exit 2,
    nothing appended."""
    before = event_count(db)
    assert pnp("attack", "Mara", "Brute", "--with", "might", "--roll", "attack=6,6").exit_code == 2
    assert pnp("attack", "Mara", "Brute", "--with", "might", "--roll", "attack=7,6,4,1").exit_code == 2
    assert event_count(db) == before


def test_pnp_check_against_a_named_threshold(pnp: Cli):
    """prowlers-and-paragons.txt, Net Successes: successes minus the threshold (named steps:
    docs/interpretations.md)."""
    r = pnp.json("check", "Mara", "agility", "--threshold", "hard", "--roll", "check=6,6,2")
    data = event(r, "CheckResolved")
    assert (data["successes"], data["threshold"], data["net"]) == (5, 4, 1)


def test_pnp_resolve_spend_beyond_what_is_left_is_refused(pnp: Cli, db: str):
    """prowlers-and-paragons.txt, Resolve and Adversity: a spend beyond what is left is refused."""
    pnp.ok("gain", "Mara", "resolve", "1", "--reason", "heroics")
    pnp.ok("spend", "Mara", "resolve", "1", "--purpose", "lucky-break")
    before = event_count(db)
    assert pnp("spend", "Mara", "resolve", "1").exit_code == 2
    assert event_count(db) == before


def test_undo_of_an_attack_restores_the_target_exactly(hnh: Cli):
    """DESIGN.md, The ruling: undo restores by refolding, so bruises and HP conditions come back exactly."""
    before = hnh.json("character", "show", "Thug")
    hnh.ok("attack", "Ann", "Thug", "--rank", "9", "--bonus", "9")
    hnh.ok("undo")
    assert hnh.json("character", "show", "Thug") == before


def test_pnp_a_new_issue_sets_resolve_from_the_trait_and_one_adversity_per_hero(cli: Cli):
    """prowlers-and-paragons.txt, Resolve and Adversity: heroes begin every issue with their Resolve; the GM with 1
    Adversity per Hero."""
    cli.ok("init", "--system", "pnp")
    cli.ok("character", "add", "Mara", "--trait", "might=3", "--trait", "resolve=3", "--pc")
    cli.ok("character", "add", "Vex", "--trait", "might=3", "--trait", "resolve=2", "--pc")
    cli.ok("character", "add", "Brute", "--trait", "might=3")
    cli.ok("session", "start", "Issue 1")
    assert cli.json("character", "show", "Mara")["resources"]["resolve"] == 3
    assert cli.json("character", "show", "GM")["adversity"] == 2
    assert "GM" not in [c["name"] for c in cli.json("character", "list")]
    assert (
        cli.json("spend", "GM", "adversity", "2", "--purpose", "lucky-break")["character"]["resources"]["adversity"]
        == 0
    )
    cli.ok("session", "end")
    cli.ok("session", "start", "Issue 2")
    assert cli.json("character", "show", "GM")["adversity"] == 2  # "whatever was left over": reset to 1 per hero


def test_pnp_moving_a_range_class_takes_two_pages_or_one_with_a_travel_power(pnp: Cli):
    """prowlers-and-paragons.txt, Range and Movement: one range class takes 2 pages, 1 with a Travel Power."""
    r = pnp.json("act", "Mara", "move", "-o", "from=close", "-o", "to=distant")
    assert event(r, "EffectResolved")["pages"] == 2
    pnp.ok("character", "add", "Swift", "--trait", "flight=3", "--trait", "agility=2")
    r = pnp.json("act", "Swift", "move", "-o", "from=close", "-o", "to=distant", "-o", "travel-power=yes")
    assert event(r, "EffectResolved")["pages"] == 1
