"""Prowlers & Paragons, second pass (prowlers-and-paragons.txt), through the real CLI; each test cites its passage."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Cli, Recorded, event_count


def event(result: Any, kind: str) -> dict[str, Any]:
    return next(e["data"] for e in result["events"] if e["type"] == kind)


def events(result: Any, kind: str) -> list[dict[str, Any]]:
    return [e["data"] for e in result["events"] if e["type"] == kind]


def state(cli: Cli, *names: str) -> list[Any]:
    """Every named sheet as `character show --json` prints it."""
    return [cli.json("character", "show", n) for n in names]


def refused(cli: Cli, db: str, *args: str) -> Any:
    """Run a command that must be refused: exit 2, one error line, nothing appended."""
    before = event_count(db)
    r = cli(*args)
    assert r.exit_code == 2, r.stdout + r.stderr
    assert r.stderr.startswith("error: ") and "Traceback" not in r.stderr
    assert event_count(db) == before
    return r


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
        "--trait",
        "resolve=3",
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
    cli.ok("character", "add", "Goons", "--minion", "--count", "3", "--trait", "threat=2")


@pytest.fixture
def pnp(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_pnp records, recorded once and copied for this test."""
    return recorded(cli, _record_pnp)


# -- item 12: no ruling for a no-op; overkill recorded as the damage taken ---------------------------------
def test_damage_to_a_group_already_all_defeated_records_nothing(pnp: Cli, db: str):
    """prowlers-and-paragons.txt, Attacks and Defenses ("you ordinarily defeat 1 Minion per net success"): none left,
    nothing to record."""
    pnp.ok("damage", "Goons", "--amount", "3")
    r = refused(pnp, db, "damage", "Goons", "--amount", "2")
    assert "already defeated" in r.stderr


def test_damage_to_a_character_at_zero_health_records_nothing(pnp: Cli, db: str):
    """prowlers-and-paragons.txt, Attacks and Defenses: "Once a target's Health has falls to 0, they're defeated": more
    changes nothing."""
    pnp.ok("damage", "Brute", "--amount", "3")
    refused(pnp, db, "damage", "Brute", "--amount", "1")


def test_overkill_is_recorded_as_the_damage_actually_taken(pnp: Cli):
    """prowlers-and-paragons.txt, Attacks and Defenses: damage reduces Health, which stops at 0; the rest is
    overkill."""
    before = state(pnp, "Brute", "Goons")
    r = pnp.json("damage", "Brute", "--amount", "7")  # Health 3
    assert event(r, "DamageApplied") == {"amount": 3, "hp": 0, "overkill": 4}
    g = pnp.json("damage", "Goons", "--amount", "5")
    assert event(g, "DamageApplied")["amount"] == 3 and event(g, "MinionsDefeated")["defeated"] == 3
    pnp.ok("undo")
    pnp.ok("undo")
    assert state(pnp, "Brute", "Goons") == before


# -- item 11: a trait the sheet lacks ----------------------------------------------------------------
def test_a_talent_the_sheet_does_not_list_is_zero_dice_in_a_check(pnp: Cli):
    """prowlers-and-paragons.txt, Characteristics: every character has the Talents; one not listed rolls 0 dice, like
    Health and Edge."""
    r = pnp.json("check", "Mara", "medicine", "--threshold", "1", "--roll", "check=")
    data = event(r, "CheckResolved")
    assert (data["trait"], data["dice"], data["successes"], data["net"]) == ("medicine", 0, 0, -1)


def test_an_ability_the_opponent_lacks_is_zero_dice_in_an_opposed_check(pnp: Cli):
    """prowlers-and-paragons.txt, Thresholds: the opponent's successes are the threshold; an unlisted Ability is 0
    dice."""
    r = pnp.json(
        "check", "Mara", "might", "--against", "Brute", "intellect", "--roll", "against=", "--roll", "check=2,1,1,1"
    )
    data = event(r, "CheckResolved")
    assert (data["opponent_dice"], data["threshold"], data["net"]) == (0, 0, 1)


@pytest.mark.parametrize(
    "args",
    [
        ("check", "Mara", "flight", "--threshold", "1"),
        ("attack", "Mara", "Brute", "--with", "blast"),
        ("attack", "Mara", "Brute", "--with", "might", "-o", "defend-with=force-field"),
        ("act", "Mara", "chase", "--against", "Brute", "-o", "with=flight"),
        ("check", "Mara", "might", "--against", "Brute", "telepathy"),
    ],
)
def test_a_power_the_sheet_lacks_is_refused_with_its_name_everywhere(pnp: Cli, db: str, args: tuple[str, ...]):
    """prowlers-and-paragons.txt, Characteristics ("Powers: unusual or truly superhuman abilities"): a power is the
    character's own."""
    r = refused(pnp, db, *args)
    assert "has no power '" in r.stderr or "not a defense" in r.stderr


# -- item 10: the GM's hidden sheet is not a character ---------------------------------------------------
@pytest.fixture
def issue(pnp: Cli) -> Cli:
    pnp.ok("session", "start")  # a new issue: the GM's Adversity, 1 per Hero
    return pnp


@pytest.mark.parametrize(
    "args",
    [
        ("damage", "GM", "--amount", "1"),
        ("condition", "add", "GM", "stunned"),
        ("attack", "Mara", "GM", "--with", "might"),
        ("attack", "GM", "Mara", "--with", "might"),
        ("check", "GM", "might", "--threshold", "1"),
        ("recover", "GM", "--amount", "1"),
        ("encounter", "start", "Mara", "GM"),
        ("act", "Mara", "chase", "--against", "GM"),
    ],
)
def test_the_gm_pool_takes_no_damage_conditions_or_rolls(issue: Cli, db: str, args: tuple[str, ...]):
    """prowlers-and-paragons.txt, Resolve and Adversity: "the GM has something called Adversity": a pool, not a
    character."""
    r = refused(issue, db, *args)
    assert "not a character" in r.stderr


def test_the_gm_pool_never_shows_among_characters(issue: Cli, db: str):
    """prowlers-and-paragons.txt, Resolve and Adversity: the GM's Adversity is no character: not listed, charted or
    exported as one; `character show GM` shows the GM the pool, as the pool."""
    assert [c["name"] for c in issue.json("character", "list")] == ["Mara", "Brute", "Goons"]
    shown = issue.json("character", "show", "GM")
    assert shown["gm_pool"] is True and shown["adversity"] == 1 and "hp" not in shown
    assert "hp" not in issue.json("timeline", "GM")[0]
    assert issue("character", "show", "GM", "--at", "4").exit_code == 2
    for fmt in ("md", "html", "csv"):
        out = issue.ok("export", "--format", fmt).stdout
        assert "GM joins" not in out and "| GM |" not in out, fmt
    spent = issue.json("spend", "GM", "adversity", "1")  # the pool itself still works
    assert spent["character"]["resources"]["adversity"] == 0


# -- item 7: scenes --------------------------------------------------------------------------------------
@pytest.fixture
def webbed(pnp: Cli) -> Cli:
    """Mara webs Brute for the rest of the scene (6 net successes >= Health 3) and stuns Goons' ally Thug for 1 page."""
    pnp.ok("character", "add", "Spinner", "--trait", "webs=4", "--trait", "agility=3", "--pc")
    pnp.ok("character", "add", "Thug", "--trait", "might=2", "--trait", "toughness=2", "--trait", "agility=1")
    return web(pnp)


def web(cli: Cli) -> Cli:
    cli.ok(
        "attack",
        "Spinner",
        "Brute",
        "--with",
        "webs",
        "--effect",
        "ensnare",
        "--roll",
        "attack=6,6,6,1",
        "--roll",
        "defense=1,1",
    )
    cli.ok(
        "attack",
        "Spinner",
        "Thug",
        "--with",
        "webs",
        "--effect",
        "stun",
        "--roll",
        "attack=2,1,1,1",
        "--roll",
        "defense=1",
    )
    return cli


def test_encounter_end_ends_the_scene_its_effects_and_the_defeats_they_caused(pnp: Cli):
    """prowlers-and-paragons.txt, Attacks and Defenses: defeated by a special effect, "which then lasts for the rest of
    the scene"."""
    pnp.ok("character", "add", "Spinner", "--trait", "webs=4", "--trait", "agility=3", "--pc")
    pnp.ok("character", "add", "Thug", "--trait", "might=2", "--trait", "toughness=2", "--trait", "agility=1")
    pnp.ok("encounter", "start", "Spinner", "Brute", "Thug")
    webbed = web(pnp)
    brute = webbed.json("character", "show", "Brute")
    assert "defeated" in brute["conditions"] and brute["effects"] == {"ensnare": "scene"}
    before = state(webbed, "Brute", "Thug", "Spinner")
    r = webbed.json("encounter", "end")
    assert r["scene_ended_for"] == ["Brute", "Thug"]
    brute, thug = state(webbed, "Brute", "Thug")
    assert brute["conditions"] == [] and brute["effects"] == {}
    assert thug["conditions"] == [] and thug["effects"] == {}  # the timed stun, still running, ends too
    webbed.ok("undo")
    assert state(webbed, "Brute", "Thug", "Spinner") == before


def test_defeat_at_zero_health_outlasts_the_scene(webbed: Cli):
    """prowlers-and-paragons.txt, Attacks and Defenses: at 0 Health a target is "defeated and out of the fight", scene
    or not."""
    webbed.ok("damage", "Thug", "--amount", "2")
    webbed.ok("scene", "end")
    thug = webbed.json("character", "show", "Thug")
    assert thug["hp"] == 0 and "defeated" in thug["conditions"] and "stunned" not in thug["conditions"]


def test_scene_end_outside_encounters_does_the_same_and_undo_restores(webbed: Cli):
    """prowlers-and-paragons.txt, Attacks and Defenses ("for the rest of the scene"): a scene can end without an
    encounter."""
    before = state(webbed, "Brute", "Thug")
    r = webbed.json("scene", "end")
    assert r["scene_ended_for"] == ["Brute", "Thug"]
    assert [c["conditions"] for c in state(webbed, "Brute", "Thug")] == [[], []]
    webbed.ok("undo")
    assert state(webbed, "Brute", "Thug") == before
    webbed.ok("redo")
    assert [c["conditions"] for c in state(webbed, "Brute", "Thug")] == [[], []]


def test_retracting_the_attack_before_a_scene_end_re_derives_the_scene_end(webbed: Cli):
    """prowlers-and-paragons.txt, Attacks and Defenses: the scene's end ends what the live history holds, no more."""
    webbed.ok("damage", "Mara", "--amount", "1")
    end = webbed.json("scene", "end")["ruling"]
    web_thug = end - 2  # the stun on Thug (ruling before the damage)
    r = webbed.json("retract", str(web_thug), "--yes")
    assert [x["ruling"] for x in r["rederived"]] == [end] and r["rederived"][0]["refused"] is None
    thug = webbed.json("character", "show", "Thug")
    assert thug["conditions"] == [] and thug["effects"] == {}
    webbed.ok("undo")  # the retraction undone: the stun is back, and the scene's end ended it again
    assert webbed.json("character", "show", "Thug")["conditions"] == []


def test_scene_end_is_refused_while_an_encounter_runs(webbed: Cli, db: str):
    """prowlers-and-paragons.txt, Combat: the encounter is the scene; `encounter end` ends it."""
    webbed.ok("encounter", "start", "Spinner", "Mara")
    r = refused(webbed, db, "scene", "end")
    assert "encounter end" in r.stderr


@pytest.mark.parametrize("system", ["hnh", "d20"])
def test_scene_end_is_refused_where_the_text_has_no_scenes(cli: Cli, db: str, system: str):
    """d20-supers.txt and the H&H texts have no scene-long effects: `scene end` is not in their rules."""
    cli.ok("init", "--system", system)
    r = refused(cli, db, "scene", "end")
    assert "not in the rules of" in r.stderr


def test_scene_end_in_the_session_shell(webbed: Cli, tmp_path: Any):
    """CLI.md, play: the shell runs the same commands; `scene end` there ends the scene as one-shot does."""
    import subprocess
    import sys

    if webbed.db.startswith("postgresql"):
        pytest.skip("the shell test runs on a SQLite file")
    r = subprocess.run(
        [sys.executable, "-m", "commands", "--db", webbed.db, "--as", "tester", "play"],
        input="scene end\n--json character show Brute\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert "the scene ends (effects ended for Brute, Thug)" in r.stdout
    assert '"conditions": []' in r.stdout or '"conditions":[]' in r.stdout


# -- item 9: powers with their parts, set from the command line ---------------------------------------------
@pytest.fixture
def powered(pnp: Cli) -> Cli:
    pnp.ok(
        "character",
        "add",
        "Webber",
        "--trait",
        "webs=4",
        "--trait",
        "bark-skin=5",
        "--trait",
        "rocket-boots=3",
        "--trait",
        "agility=4",
        "--trait",
        "toughness=3",
        "--trait",
        "might=3",
        "--pc",
        "--power",
        "webs:effect=ensnare,resist=Agility",
        "--power",
        "bark-skin:defense=passive",
        "--power",
        "rocket-boots:travel=yes",
    )
    return pnp


def test_power_parts_are_kept_on_the_sheet(powered: Cli):
    """prowlers-and-paragons.txt, Attacks and Defenses and Range and Movement: a power's parts, kept with the
    character."""
    sheet = powered.json("character", "show", "Webber")
    assert sheet["powers"] == {
        "webs": {"effect": "ensnare", "resist": "agility"},
        "bark-skin": {"defense": "passive"},
        "rocket-boots": {"travel": True},
    }
    assert sheet["defense"] == {"trait": "bark-skin", "rank": 5, "kind": "passive"}


def test_a_power_that_defends_is_the_best_defense_and_can_be_named(powered: Cli):
    """prowlers-and-paragons.txt, Attacks and Defenses: "a passive defense like Armor ... always use the option that
    provides the best defense"."""
    r = powered.json(
        "attack", "Brute", "Webber", "--with", "might", "--roll", "attack=2,2,2", "--roll", "defense=2,2,2,1,1"
    )
    assert (event(r, "AttackResolved")["defense"], event(r, "AttackResolved")["defense_kind"]) == (
        "bark-skin",
        "passive",
    )
    r = powered.json(
        "attack",
        "Brute",
        "Webber",
        "--with",
        "might",
        "-o",
        "defend-with=agility",
        "--roll",
        "attack=2,2,2",
        "--roll",
        "defense=2,2,2,1",
    )
    assert event(r, "AttackResolved")["defense"] == "agility"


def test_a_power_carries_its_effect_and_the_trait_that_resists_it(powered: Cli):
    """prowlers-and-paragons.txt, Attacks and Defenses: "These Powers always specify the Traits used to resist them"."""
    before = state(powered, "Brute")
    r = powered.json("attack", "Webber", "Brute", "--with", "webs", "--roll", "attack=6,2,2,1", "--roll", "defense=2,1")
    hit = event(r, "AttackResolved")
    assert (hit["outcome"], hit["effect"], hit["defense"], hit["defense_kind"]) == (
        "effect",
        "ensnare",
        "agility",
        "resist",
    )
    assert "ensnared" in r["target"]["conditions"]
    powered.ok("undo")
    assert state(powered, "Brute") == before


def test_a_travel_power_from_the_sheet_speeds_a_move_and_halves_agility_in_a_chase(powered: Cli):
    """prowlers-and-paragons.txt, Range and Movement: a Travel Power crosses a range class per page; on foot, half
    Agility against it."""
    r = powered.json("act", "Webber", "move", "-o", "from=close", "-o", "to=extreme", "-o", "with=rocket-boots")
    assert event(r, "EffectResolved")["pages"] == 2
    r = powered.json(
        "act", "Webber", "chase", "--against", "Mara", "--roll", "against=2,2,2", "--roll", "chase=2,2,2,2"
    )
    data = event(r, "CheckResolved")
    assert (data["trait"], data["opponent_trait"], data["opponent_halved"], data["opponent_dice"]) == (
        "agility",
        "agility",
        False,
        3,
    )
    r = powered.json(
        "act",
        "Webber",
        "chase",
        "--against",
        "Mara",
        "-o",
        "with=rocket-boots",
        "--roll",
        "against=2,2",
        "--roll",
        "chase=2,2,2",
    )
    data = event(r, "CheckResolved")
    assert (data["trait"], data["opponent_halved"], data["opponent_dice"]) == ("rocket-boots", True, 2)


@pytest.mark.parametrize(
    "power, says",
    [
        ("webs:colour=red", "no part 'colour'"),
        ("webs:effect=melt", "not a special effect"),
        ("webs:resist=agility", "give effect="),
        ("webs:defense=sometimes", "active or passive"),
        ("gadgets:travel=yes", "has no rank"),
        ("agility:defense=active", "not a power"),
        ("webs", "NAME:PART=VALUE"),
    ],
)
def test_bad_power_parts_are_refused(pnp: Cli, db: str, power: str, says: str):
    """prowlers-and-paragons.txt, Attacks and Defenses: a power's parts are a defense, travel, an effect and what
    resists it."""
    r = refused(pnp, db, "character", "add", "Webber", "--trait", "webs=4", "--power", power)
    assert says in r.stderr


def test_power_parts_are_refused_where_the_text_has_none(cli: Cli, db: str):
    """d20-supers.txt has no powers with parts (only "Any bonus from armor or powers" to DR)."""
    cli.ok("init", "--system", "d20")
    r = refused(cli, db, "character", "add", "Zip", "--trait", "hp=5", "--power", "blast:effect=stun")
    assert "not in the rules of d20 Supers" in r.stderr


# -- item 8: Resolve and Adversity on every roll the text allows ----------------------------------------------
def resources(cli: Cli, name: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in cli.json("log"):
        if e["type"] == "ResourceChanged" and e["character"] == name and not e["retracted"]:
            out[e["data"]["resource"]] = e["data"]["value"]
    return out


def test_a_hero_adds_dice_to_their_defense_roll_with_resolve(issue: Cli):
    """prowlers-and-paragons.txt, Resolve and Adversity: Resolve "can be spent to ... add extra dice to challenge rolls"
    (a defense roll is one)."""
    before = state(issue, "Mara", "Brute")
    r = issue.json(
        "attack",
        "Brute",
        "Mara",
        "--with",
        "might",
        "-o",
        "defense-extra-dice=2",
        "--roll",
        "attack=2,2,6",
        "--roll",
        "defense=2,2,1,1,1",
    )
    hit = event(r, "AttackResolved")
    assert (hit["defense_dice"], hit["threshold"], hit["opponent_extra_dice"], hit["hit"]) == (5, 2, 2, True)
    assert r["target"]["resources"]["resolve"] == 1  # 3 - 2
    issue.ok("undo")
    assert state(issue, "Mara", "Brute") == before


def test_a_hero_rerolls_their_defense_with_resolve(issue: Cli):
    """prowlers-and-paragons.txt, Resolve and Adversity: Resolve can "reroll them completely" (roll
    'defense-reroll')."""
    r = issue.json(
        "attack",
        "Brute",
        "Mara",
        "--with",
        "might",
        "-o",
        "defense-reroll=yes",
        "--roll",
        "attack=2,2,2",
        "--roll",
        "defense=1,1,1",
        "--roll",
        "defense-reroll=6,6,1",
    )
    hit = event(r, "AttackResolved")
    assert (hit["threshold"], hit["defense_successes_before_reroll"], hit["hit"]) == (4, 0, False)
    assert r["target"]["resources"]["resolve"] == 2


def test_the_gm_spends_adversity_on_an_npcs_defense(issue: Cli, db: str):
    """prowlers-and-paragons.txt, Resolve and Adversity: "the GM has something called Adversity that works much the same
    way"."""
    assert resources(issue, "GM") == {"adversity": 1}  # one hero, one Adversity
    r = issue.json(
        "attack",
        "Mara",
        "Brute",
        "--with",
        "might",
        "-o",
        "defense-extra-dice=1",
        "--roll",
        "attack=2,2,1,1",
        "--roll",
        "defense=2,2,2",
    )
    assert event(r, "AttackResolved")["adversity_due"] == 1
    assert resources(issue, "GM") == {"adversity": 0}
    refused(
        issue,
        db,
        "attack",
        "Mara",
        "Brute",
        "--with",
        "might",
        "-o",
        "defense-extra-dice=1",
        "--roll",
        "attack=2,2,1,1",
        "--roll",
        "defense=2,2,2",
    )
    issue.ok("undo")
    assert resources(issue, "GM") == {"adversity": 1}


def test_the_other_side_of_an_opposed_check_can_be_boosted(issue: Cli):
    """prowlers-and-paragons.txt, Thresholds: the opponent "makes a challenge roll to resist your efforts": Resolve can
    boost it."""
    issue.ok("character", "add", "Kid", "--trait", "willpower=2", "--pc")
    issue.ok("gain", "Kid", "resolve", "2")
    r = issue.json(
        "check",
        "Mara",
        "willpower",
        "--against",
        "Kid",
        "willpower",
        "-o",
        "against-extra-dice=1",
        "-o",
        "against-reroll=yes",
        "--roll",
        "against=1,1,1",
        "--roll",
        "against-reroll=6,2,1",
        "--roll",
        "check=2,2,1,1",
    )
    data = event(r, "CheckResolved")
    assert (data["opponent_dice"], data["threshold"], data["opponent_successes_before_reroll"], data["net"]) == (
        3,
        3,
        0,
        -1,
    )
    assert issue.json("character", "show", "Kid")["resources"]["resolve"] == 0


def test_the_chased_side_can_be_boosted_too(issue: Cli):
    """prowlers-and-paragons.txt, Range and Movement: "Chases are resolved with challenge rolls": both sides may
    spend."""
    r = issue.json(
        "act",
        "Mara",
        "chase",
        "--against",
        "Brute",
        "-o",
        "against-extra-dice=1",
        "--roll",
        "against=2,2,2",
        "--roll",
        "chase=2,2,2",
    )
    data = event(r, "CheckResolved")
    assert (data["opponent_dice"], data["threshold"], data["adversity_due"]) == (3, 3, 1)
    assert resources(issue, "GM") == {"adversity": 0}


def test_boosting_an_opponent_that_is_not_there_is_refused(issue: Cli, db: str):
    """prowlers-and-paragons.txt, Thresholds: a threshold the GM sets has no roll to boost."""
    refused(issue, db, "check", "Mara", "might", "--threshold", "2", "-o", "against-extra-dice=1")
