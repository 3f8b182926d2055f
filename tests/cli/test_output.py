"""What a GM reads after each command (CLI.md, Additions agreed in the second round).

Each ruling's first line is one sentence (who, what, outcome, `HP 6 -> 1`, conditions), then one line per die;
the raw events only with -v. The dice are entered, so every line is pinned exactly.
"""

from __future__ import annotations

import orjson
import pytest

from tests.conftest import Cli, Recorded, event_count


def first(r: object) -> str:
    """The first line a command printed."""
    return str(r.stdout).splitlines()[0]  # type: ignore[attr-defined]


def _record_hnh(cli: Cli) -> None:
    """Ann (a PC) against Bruiser and a group of three Grunts."""
    cli.ok("init", "--system", "hnh")
    cli.ok(
        "character",
        "add",
        "Ann",
        "--trait",
        "fighting=6",
        "--trait",
        "parry=5",
        "--trait",
        "dodge=5",
        "--trait",
        "toughness=4",
        "--trait",
        "awareness=2",
        "--pc",
    )
    cli.ok(
        "character",
        "add",
        "Bruiser",
        "--trait",
        "fighting=4",
        "--trait",
        "parry=3",
        "--trait",
        "dodge=2",
        "--trait",
        "toughness=3",
    )
    cli.ok("character", "add", "Grunts", "--minion", "--count", "3", "--trait", "parry=1", "--trait", "toughness=1")


@pytest.fixture
def hnh(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_hnh records, recorded once and copied for this test."""
    return recorded(cli, _record_hnh)


HNH_HIT = (
    "--rank",
    "6",
    "--bonus",
    "6",
    "--roll",
    "attack=+,+,0",
    "--roll",
    "defense=0,0,0",
    "--roll",
    "power=+,0,0",
    "--roll",
    "toughness=-,-,0",
)


def test_hnh_attack_reads_as_a_sentence_then_its_dice(hnh: Cli) -> None:
    """CLI.md, Additions agreed in the second round: who hits whom, the resistance's degrees, `HP 6 -> 0` and the
    condition gained; then one line per die."""
    r = hnh.ok("attack", "Ann", "Bruiser", *HNH_HIT)
    assert r.stdout.splitlines() == [
        "ruling 5: Ann hits Bruiser (8 vs 3); Bruiser fails Toughness by 2 degrees: HP 6 -> 0, 1 bruise "
        "(Toughness -1), now battered.",
        "  Ann attack: 3dF+6 [+ + 0] = 8 (entered)",
        "  Bruiser defense: 3dF+3 [0 0 0] = 3 (entered)",
        "  Ann power: 3dF [+ 0 0] +6 rank = 7 (entered)",
        "  Bruiser toughness: 3dF+3 [- - 0] = 1 (entered)",
    ]
    assert first(hnh.ok("attack", "Ann", "Bruiser", *HNH_HIT)) == (
        "ruling 6: Ann hits Bruiser (8 vs 3); Bruiser fails Toughness by 3 degrees: HP 0 -> -3, no longer "
        "battered, now dead and prone."
    )


def test_hnh_miss_minion_loss_check_and_resisted_damage(hnh: Cli) -> None:
    """CLI.md, Additions agreed in the second round: a miss, a minion falling from its group, a check's degrees, a
    Damage effect resisted without an attack."""
    miss = hnh.ok("attack", "Bruiser", "Ann", "--rank", "3", "--roll", "attack=-,-,0", "--roll", "defense=+,+,0")
    assert first(miss) == "ruling 5: Bruiser misses Ann (2 vs 7)."
    assert (
        first(hnh.ok("attack", "Ann", "Grunts", *HNH_HIT))
        == "ruling 6: Ann hits Grunts (8 vs 1); Grunts fail Toughness by 3 degrees: 1 falls, 2 left."
    )
    assert (
        first(hnh.ok("check", "Ann", "awareness", "--dc", "10", "--roll", "check=+,0,0"))
        == "ruling 7: Ann's awareness check: 3 vs DC 10, failure by 3 degrees."
    )
    hurt = hnh.ok("damage", "Ann", "--rank", "6", "--roll", "power=+,0,0", "--roll", "toughness=-,-,0")
    assert hurt.stdout.splitlines() == [
        "ruling 8: Ann fails Toughness by 2 degrees: HP 6 -> 1, 1 bruise (Toughness -1).",
        "  power: 3dF [+ 0 0] +6 rank = 7 (entered)",
        "  Ann toughness: 3dF+4 [- - 0] = 2 (entered)",
    ]
    assert first(hnh.ok("recover", "Ann", "--hours", "8", "--restful")) == "ruling 9: Ann recovers 2: HP 1 -> 3."
    assert first(hnh.ok("spend", "Ann", "victory-points", "1")) == "ruling 10: Ann spends 1 victory-points (now 1)."
    assert first(hnh.ok("condition", "add", "Ann", "dazed")) == "ruling 11: Ann: now dazed."
    assert first(hnh.ok("condition", "remove", "Ann", "dazed")) == "ruling 12: Ann: no longer dazed."
    assert (
        first(hnh.ok("roll", "3dF+3", "--for", "Ann", "--roll", "roll=+,0,+"))
        == "ruling 13: Ann roll: 3dF+3 [+ 0 +] = 5 (entered)"
    )


def test_d20_critical_kill_miss_and_unused_damage(cli: Cli) -> None:
    """CLI.md, Additions agreed in the second round (d20): a confirmed critical, a kill by three rolls that break the
    DR, a miss with its unused damage die."""
    cli.ok("init", "--system", "d20")
    cli.ok(
        "character",
        "add",
        "Blaze",
        "--trait",
        "dex=14",
        "--trait",
        "str=14",
        "--trait",
        "attack=2",
        "--trait",
        "hp=12",
        "--trait",
        "armor=2",
        "--pc",
    )
    cli.ok("character", "add", "Thug", "--trait", "dex=10", "--trait", "hp=30", "--trait", "dn=1")
    crit = cli.ok(
        "attack",
        "Blaze",
        "Thug",
        "--damage",
        "1d8",
        "--roll",
        "attack=20",
        "--roll",
        "confirm=14",
        "--roll",
        "death=3",
        "--roll",
        "damage=6",
    )
    assert crit.stdout.splitlines() == [
        "ruling 4: Blaze critically hits Thug (24 vs DR 10): HP 30 -> 15.",
        "  Blaze attack: 1d20 [20] +2 attack +2 Str = 24 (entered)",
        "  Blaze confirm: 1d20 [14] +2 attack +2 Str = 18 (entered)",
        "  Blaze death: 1d20 [3] +2 attack +2 Str = 7 (entered)",
        "  Blaze damage: 1d8 [6] +2 Str x2 critical -1 DN = 15 (entered)",
    ]
    miss = cli.ok("attack", "Thug", "Blaze", "--roll", "attack=13", "--roll", "damage=3")
    assert miss.stdout.splitlines() == [
        "ruling 5: Thug misses Blaze (13 vs DR 14).",
        "  Thug attack: 1d20 [13] = 13 (entered)",
        "  Thug damage: 1d4 [3] = 3 (entered, unused)",
    ]
    kill = cli.ok(
        "attack",
        "Blaze",
        "Thug",
        "--damage",
        "1d8",
        "--roll",
        "attack=20",
        "--roll",
        "confirm=19",
        "--roll",
        "death=20",
        "--roll",
        "damage=6",
    )
    assert first(kill) == "ruling 6: Blaze kills Thug (24 vs DR 10): HP 15 -> -10, now dead."
    assert (
        first(cli.ok("check", "Blaze", "dex", "--dc", "12", "--roll", "check=15"))
        == "ruling 7: Blaze's dex check: 17 vs DC 12, success."
    )
    assert (
        first(cli.ok("damage", "Blaze", "--amount", "20"))
        == "ruling 8: Blaze takes 20 damage: HP 12 -> -8, now dying and unconscious."
    )


def test_pnp_minions_health_floor_resolve_and_pool_checks(cli: Cli) -> None:
    """CLI.md, Additions agreed in the second round (pnp): minions falling, Health floored at 0 shown from what it was,
    resolve spent, pool checks."""
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
        "willpower=5",
        "--trait",
        "perception=3",
        "--pc",
    )
    cli.ok("character", "add", "Goons", "--minion", "--count", "5", "--trait", "threat=2")
    cli.ok("character", "add", "Boss", "--trait", "might=3", "--trait", "toughness=3", "--trait", "agility=2")
    assert (
        first(cli.ok("gain", "Mara", "resolve", "2", "--reason", "heroics"))
        == "ruling 5: Mara gains 2 resolve (now 2)."
    )
    hit = cli.ok("attack", "Mara", "Goons", "--with", "might", "--roll", "attack=6,4,2,1", "--roll", "defense=3,4")
    assert hit.stdout.splitlines() == [
        "ruling 6: Mara hits Goons with might (4 successes vs 1): 3 fall, 2 left.",
        "  Mara attack: 4d6 pool [6 4 2 1] = 4 (entered)",
        "  Goons defense: 2d6 pool [3 4] = 1 (entered)",
    ]
    assert first(
        cli.ok("attack", "Boss", "Mara", "--with", "might", "--roll", "attack=6,6,6", "--roll", "defense=1,1,1")
    ) == ("ruling 7: Boss hits Mara with might (6 successes vs 0): Health 5 -> 0, now defeated.")
    assert (
        first(cli.ok("spend", "Mara", "resolve", "1", "--purpose", "recovery"))
        == "ruling 8: Mara spends 1 resolve (now 1): Health 0 -> 1, no longer defeated."
    )
    assert first(cli.ok("check", "Mara", "agility", "--threshold", "hard", "--roll", "check=6,5,4")) == (
        "ruling 9: Mara's agility check: 3 successes vs threshold 4, failure."
    )
    assert (
        first(cli.ok("damage", "Boss", "--amount", "20"))
        == "ruling 10: Boss takes 3 damage: Health 3 -> 0, now defeated."
    )


def test_verbose_adds_the_raw_events_before_or_after_the_command(hnh: Cli) -> None:
    """CLI.md, Additions agreed in the second round: raw events only with -v (a global flag, also accepted after the
    command)."""
    plain = hnh.ok("attack", "Ann", "Bruiser", *HNH_HIT)
    assert "AttackResolved" not in plain.stdout and "DamageApplied" not in plain.stdout
    for args in (("-v", "attack", "Ann", "Bruiser", *HNH_HIT), ("attack", "Ann", "Bruiser", *HNH_HIT, "--verbose")):
        r = hnh.ok(*args)
        raw = [line.strip() for line in r.stdout.splitlines() if line.startswith("    ")]
        assert any(x.startswith("DamageApplied Bruiser: amount=3, hp=-3") for x in raw) and any(
            x.startswith("AttackResolved Bruiser: attacker=Ann") for x in raw
        )
        assert r.stdout.splitlines()[0].endswith("HP 0 -> -3, no longer battered, now dead and prone.")
        hnh.ok("undo")


def test_json_after_the_command_and_errors_as_one_json_object(hnh: Cli) -> None:
    """CLI.md, Additions agreed in the second round: --json after the command works on every command; an error under
    --json is one JSON object."""
    before = orjson.loads(hnh.ok("--json", "character", "show", "Ann").stdout)
    assert orjson.loads(hnh.ok("character", "show", "Ann", "--json").stdout) == before
    ruling = orjson.loads(hnh.ok("condition", "add", "Ann", "dazed", "--json").stdout)
    assert ruling["ruling"] == 5 and [e["type"] for e in ruling["events"]] == ["ConditionImposed"]
    count = event_count(hnh.db)
    for args in (("character", "show", "Nobody", "--json"), ("--json", "character", "show", "Nobody")):
        r = hnh(*args)
        assert r.exit_code == 2 and r.stdout == ""
        assert orjson.loads(r.stderr) == {"error": "no character called 'Nobody'", "hint": "see: ledger character list"}
    usage = hnh("attack", "Ann", "--json")
    assert usage.exit_code == 2 and orjson.loads(usage.stderr)["error"].startswith("Missing argument")
    plain = hnh("character", "show", "Nobody")
    assert plain.stderr == "error: no character called 'Nobody'\nhint: see: ledger character list\n"
    assert event_count(hnh.db) == count


def test_log_tail_and_the_current_session(hnh: Cli) -> None:
    """CLI.md, Additions agreed in the second round: `log -n N` shows the last N rulings; `--session current` the open
    session, refused when none is open."""
    hnh.ok("session", "start", "Night one")
    hnh.ok("attack", "Ann", "Bruiser", *HNH_HIT)
    hnh.ok("condition", "add", "Ann", "dazed")
    tail = hnh.json("log", "-n", "2")
    assert sorted({e["ruling"] for e in tail}) == [6, 7]  # type: ignore[union-attr,index]
    text = hnh.ok("log", "--tail", "1").stdout
    assert text.splitlines()[0].startswith("#7 session 1 tester") and "    Ann: now dazed." in text
    assert "HP 6 -> 0" in hnh.ok("log", "--session", "current").stdout
    assert {e["session"] for e in hnh.json("log", "--session", "current")} == {1}  # type: ignore[union-attr,index]
    assert (
        "#6 " in hnh.ok("session", "show").stdout
        and "Ann hits Bruiser (8 vs 3)" in hnh.ok("session", "show", "1").stdout
    )
    hnh.ok("session", "end")
    r = hnh("log", "--session", "current")
    assert r.exit_code == 2 and r.stderr.startswith("error: no play session is open\nhint: ")
    assert hnh("log", "--session", "soon").exit_code == 2


def test_log_prints_sentences_and_die_lines_and_v_the_raw_events(hnh: Cli) -> None:
    """CLI.md third round: `ledger log` prints sentences with their die lines; `ledger log -v` the raw events."""
    hnh.ok("damage", "Ann", "--rank", "6", "--roll", "power=+,0,0", "--roll", "toughness=-,-,0")
    plain = hnh.ok("log", "-n", "1").stdout
    assert "Ann fails Toughness" in plain and "Ann toughness: 3dF+4 [- - 0] = 2 (entered)" in plain
    assert "DiceRolled" not in plain and "RulingRecorded" not in plain
    raw = hnh.ok("log", "-n", "1", "-v").stdout
    assert "DiceRolled" in raw and "DamageApplied Ann: amount=" in raw


def test_the_log_reads_forward_not_backwards(hnh: Cli) -> None:
    """CLI.md, Additions agreed in the second round: `HealthRecovered X: 2 -> HP 1` style lines are gone; a change reads
    `HP before -> after`."""
    hnh.ok("damage", "Ann", "--rank", "6", "--roll", "power=+,0,0", "--roll", "toughness=-,-,0")
    hnh.ok("recover", "Ann", "--hours", "8", "--restful")
    log = hnh.ok("log", "--character", "Ann").stdout
    assert "HP 6 -> 1" in log and "Ann recovers 2: HP 1 -> 3" in log
    assert "-> HP" not in log


def test_a_long_intent_is_one_line(cli: Cli) -> None:
    """README.md, A short tour: a `character import` with its powers is summarised in one line, in the log and the
    exports."""
    from tests.conftest import SHARED

    cli.ok("init", "--system", "hnh")
    cli.ok("character", "import", str(SHARED / "fixtures" / "hnh-characters" / "battlesuit.json"))
    log = cli.ok("log").stdout.splitlines()
    at = next(i for i, x in enumerate(log) if x.startswith("#2 "))
    assert "=" not in log[at] and log[at + 1].startswith("    Battlesuit joins the campaign: HP "), log[at : at + 2]
    assert len(log[at + 1]) < 120 and "=" not in log[at + 1] and "{" not in log[at + 1], log[at + 1]
    md = cli.ok("export", "--format", "md").stdout
    head = next(x for x in md.splitlines() if x.startswith("- **#2"))
    assert len(head) < 240 and "{" not in head, head


@pytest.mark.parametrize(
    "args",
    [
        ("character", "list"),
        ("character", "show", "Ann"),
        ("log", "-n", "2"),
        ("timeline", "Ann"),
        ("verify",),
        ("encounter", "show"),
        ("session", "show", "1"),
        ("why", "Ann", "hp"),
    ],
)
def test_json_after_any_reading_command_is_the_same_document(hnh: Cli, args: tuple[str, ...]) -> None:
    """CLI.md, second round: `--json` may come after the command; the document is the one `--json` before it gives."""
    hnh.ok("session", "start", "Night")
    hnh.ok("encounter", "start", "Ann", "Bruiser", "--roll", "Ann=+,0,0", "--roll", "Bruiser=0,0,0")
    hnh.ok("damage", "Ann", "--amount", "2")
    assert orjson.loads(hnh.ok(*args, "--json").stdout) == orjson.loads(hnh.ok("--json", *args).stdout)


def test_json_after_a_writing_command_prints_the_ruling(hnh: Cli) -> None:
    """CLI.md: every command that appends prints the ruling's number; with --json after it too."""
    for n, args in enumerate(
        [("roll", "3dF", "--roll", "roll=+,0,0"), ("session", "start", "Two"), ("undo",), ("redo",)], start=5
    ):
        assert orjson.loads(hnh.ok(*args, "--json").stdout)["ruling"] == n


def test_pnp_encounter_end_says_what_the_scene_took_away(cli: Cli) -> None:
    """CLI.md, Additions agreed in the second round (pnp `scene end`, also done by `encounter end`);
    prowlers-and-paragons.txt, Attacks and Defenses (special effects last "for the rest of the scene"): the end of the
    encounter ends its scene, in pages; the stun and the defeat it brought, durations (`--scene`), end saying why."""
    cli.ok("init", "--system", "pnp")
    cli.ok("character", "add", "Mara", "--trait", "might=4", "--trait", "agility=3", "--trait", "toughness=4", "--pc")
    cli.ok("character", "add", "Boss", "--trait", "might=3", "--trait", "toughness=3", "--trait", "agility=2")
    assert (
        first(cli.ok("encounter", "start", "Mara", "Boss"))
        == "ruling 4: Encounter 1 begins; initiative: Mara 3, Boss 2."
    )
    stun = cli.ok(
        "attack",
        "Mara",
        "Boss",
        "--with",
        "might",
        "--effect",
        "stun",
        "--roll",
        "attack=6,6,6,6",
        "--roll",
        "defense=1,1",
    )
    assert first(stun) == (
        "ruling 5: Mara hits Boss with might (8 successes vs 0, stun for 4 pages, at least Boss' Health: defeated): "
        "now stunned and defeated for the rest of the scene; every foe is down."
    )
    assert (
        first(cli.ok("encounter", "end"))
        == "ruling 6: Encounter 1 ends after 1 page; Boss: no longer defeated and stunned (the encounter ended)."
    )


def test_pnp_session_show_says_health_not_hp(cli: Cli) -> None:
    """prowlers-and-paragons.txt, Health: P&P's track is Health; `session show` uses the campaign's own word."""
    cli.ok("init", "--system", "pnp", "--name", "T")
    cli.ok("character", "add", "Mara", "--trait", "might=3", "--trait", "toughness=2", "--pc")
    cli.ok("character", "add", "Goon", "--trait", "might=2", "--trait", "toughness=1")
    cli.ok("session", "start")
    cli.ok("attack", "Mara", "Goon", "--with", "might", "--roll", "attack=6,6,6")
    shown = cli.ok("session", "show").stdout
    assert "Health 2 -> " in shown and "HP" not in shown


def test_a_join_names_each_newcomer_s_initiative_once(hnh: Cli) -> None:
    """hnh-site/gameplay.txt, Initiative ("3dF + Agility + Improved Initiative ranks + other modifiers"): a newcomer's
    initiative check is said once, in the sentence that places them in the order; its die line still adds up."""
    hnh.ok("encounter", "start", "Ann", "Bruiser", "--roll", "Ann=+,+,+", "--roll", "Bruiser=-,-,-")
    joined = hnh.ok("encounter", "join", "Grunts", "--roll", "Grunts=0,0,+")
    line = first(joined)
    assert line.count("initiative") == 1, line
    assert "rolls initiative" not in line
    total = orjson.loads(hnh.ok("--json", "encounter", "show").stdout)["order"]
    grunts = next(o for o in total if o["name"] == "Grunts")
    assert f"Grunts join the encounter at initiative {grunts['initiative']}." in line  # a group of several
    assert any(ln.strip().startswith("Grunts: 3dF") for ln in joined.stdout.splitlines()[1:])


def test_a_minion_group_resists_in_the_plural_and_an_all_minus_attack_says_why_it_missed(hnh: Cli) -> None:
    """hnh-site/gameplay.txt, Critical Hits ("if all 3 Fudge dice come up as -1 ... the attack to always miss,
    regardless of your total result"): the sentence says why a high total missed; a group of several minions
    resists in the plural (`Grunts resist`, `Grunts fail`)."""
    miss = hnh.ok("attack", "Ann", "Grunts", "--rank", "2", "--roll", "attack=-,-,-", "--roll", "defense=-,-,0")
    assert first(miss) == "ruling 5: Ann misses Grunts (3 vs -1, every die -1: an automatic miss)."
    resisted = hnh.ok(
        "attack", "Ann", "Grunts", *HNH_HIT[:4], "--roll", "attack=0,0,0", "--roll", "defense=-,-,-",
        "--roll", "power=-,-,-", "--roll", "toughness=+,+,+",
    )  # fmt: skip
    assert "Grunts resist with Toughness" in first(resisted)
    failed = hnh.ok("damage", "Grunts", "--rank", "6", "--roll", "power=+,+,0", "--roll", "toughness=-,-,-")
    assert first(failed).startswith("ruling 7: Grunts fail Toughness by ")
    alone = hnh.ok("damage", "Bruiser", "--rank", "1", "--roll", "power=-,-,-", "--roll", "toughness=+,+,+")
    assert "Bruiser resists with Toughness" in first(alone)


def test_pnp_log_tail_says_page_like_the_tracker(cli: Cli) -> None:
    """prowlers-and-paragons.txt, Combat ("In combat, time is broken down into pages"): `log -n` speaks of pages as
    `encounter next` does, though the tail holds no campaign event to name the system."""
    cli.ok("init", "--system", "pnp")
    cli.ok("character", "add", "Mara", "--trait", "might=4", "--trait", "agility=3", "--pc")
    cli.ok("character", "add", "Boss", "--trait", "might=3", "--trait", "agility=2")
    cli.ok("encounter", "start", "Mara", "Boss", "--init", "Mara=3", "--init", "Boss=2")
    said = first(cli.ok("encounter", "next")).split(": ", 1)[1]
    assert said == "Page 1: Boss' turn."
    tail = cli.ok("log", "-n", "1").stdout.splitlines()
    assert tail[1].strip() == said
    assert "Round" not in cli.ok("log").stdout
