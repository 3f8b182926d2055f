"""The tracker runs the dull parts (CLI.md, Additions agreed in the fourth round, Tracker).

`init -o pass-over=no-action` (the default) passes over a turn the text gives the character nothing to do in: H&H
conditions.txt, Stunned ("Stunned characters cannot take any actions, including free actions") and Incapacitated;
the durations that turn counts still tick, and the passing is said in one line. `encounter next` prints the order
with HP and conditions; `every foe is down` whatever made it so, `encounter remove` too; copies tied on initiative
sort by their numbers; the shell's toolbar previews the same turns `encounter next` gives.
"""

from __future__ import annotations

from typing import Any

from commands.shell import turn_line
from tests.conftest import Cli


def hnh(cli: Cli, *settings: str) -> None:
    cli.ok("init", "--system", "hnh", "-o", "action-economy=off", *settings)
    cli.ok("character", "add", "Ann", "--pc", "--trait", "fighting=6")
    cli.ok("character", "add", "Boss", "--trait", "toughness=2")
    cli.ok("character", "add", "Thugs", "--minion", "--count", "3")
    cli.ok("encounter", "start", "Ann", "Boss", "Thugs", "--init", "Ann=9", "--init", "Boss=5", "--init", "Thugs=3")


def test_a_stunned_hnh_foes_turn_is_passed_over_and_its_duration_still_ticks(cli: Cli) -> None:
    """conditions.txt, Stunned: the stunned take no actions, so the turn is passed over (one line says so) and the
    stun's rounds still run out at that turn's end (gameplay.txt, Ending Your Turn)."""
    hnh(cli)
    cli.ok("condition", "add", "Boss", "stunned", "--rounds", "1")
    r = cli.ok("encounter", "next")
    first = r.stdout.splitlines()[0]
    assert first.startswith("ruling ") and "Boss' turn passes (stunned)" in first
    assert "no longer stunned (1 round ran out)" in first and first.endswith("round 1: Thugs' turn.")
    doc: Any = cli.json("encounter", "show")
    assert doc["current"] == "Thugs"
    assert "every foe is down" not in r.stdout
    assert "Boss' turn passes (stunned)" in cli.ok("log", "-n", "1").stdout  # recorded, so every reader says it


def test_pass_over_never_keeps_the_stunned_turn(cli: Cli) -> None:
    """`init -o pass-over=never`: the stunned one's turn comes, named as one without action (conditions.txt,
    Stunned), and nothing is passed over."""
    hnh(cli, "-o", "pass-over=never")
    cli.ok("condition", "add", "Boss", "stunned", "--rounds", "1")
    r = cli.ok("encounter", "next")
    assert "passes" not in r.stdout.splitlines()[0]
    assert r.stdout.splitlines()[1].startswith("up: Boss") and "no action" in r.stdout.splitlines()[1]


def test_a_bad_pass_over_value_is_refused(cli: Cli) -> None:
    """CLI.md, Additions agreed in the second round: an unknown `-o` value is bad input (exit 2), with the choices."""
    r = cli("init", "--system", "hnh", "-o", "pass-over=sometimes")
    assert r.exit_code == 2 and "no-action" in r.stderr


def test_encounter_next_prints_the_order_with_hp_and_conditions(cli: Cli) -> None:
    """The tracker after a turn passes: one line per participant with initiative, HP and conditions (the table
    `encounter show` prints), the one who is up marked."""
    hnh(cli)
    cli.ok("condition", "add", "Ann", "dazed", "--rounds", "2")
    out = cli.ok("encounter", "next").stdout.splitlines()
    shown = cli.ok("encounter", "show").stdout.splitlines()
    at = out.index(shown[0])
    assert out[at : at + len(shown)] == shown
    rows = [ln.split()[:4] for ln in shown[2:]]
    assert rows == [["Ann", "9", "6/6", "dazed"], [">", "Boss", "5", "6/6"], ["Thugs", "x3", "3", "1/1"]]


def test_every_foe_is_down_when_the_last_foe_leaves_the_fight(cli: Cli) -> None:
    """`encounter remove` of the last foe still standing leaves every foe down (or gone): the ruling says so."""
    hnh(cli)
    r = cli.ok("encounter", "remove", "Boss")
    assert "every foe is down" not in r.stdout  # the Thugs still stand
    r = cli.ok("encounter", "remove", "Thugs")
    assert r.stdout.splitlines()[0].endswith("every foe is down.")
    assert "every foe is down" in cli.ok("log", "-n", "1").stdout


def test_copies_tied_on_initiative_sort_by_their_numbers(cli: Cli) -> None:
    """A tie the text's keys leave open is broken by name (P&P rolls no initiative): `Goon 2` before `Goon 10`."""
    cli.ok("init", "--system", "pnp")
    cli.ok("character", "add", "Goon", "--trait", "agility=2", "--copies", "11")
    names = [f"Goon {n}" for n in range(1, 12)]
    cli.ok("encounter", "start", *names, *[a for n in names for a in ("--init", f"{n}=3")])
    doc: Any = cli.json("encounter", "show")
    assert [e["name"] for e in doc["order"]] == names


def test_the_toolbar_previews_the_turns_encounter_next_gives() -> None:
    """docs/shell.md, the toolbar: `next:` names the two whose turns `encounter next` will give, passing over the
    stunned H&H foe as it does (and keeping it with pass-over=never)."""
    order = [{"name": "Ann"}, {"name": "Boss"}, {"name": "Thugs"}]
    roster = [
        {"name": "Ann", "system": "hnh", "hp": 6, "max_hp": 6, "conditions": [], "pc": True},
        {"name": "Boss", "system": "hnh", "hp": 6, "max_hp": 6, "conditions": ["stunned"]},
        {"name": "Thugs", "system": "hnh", "hp": 1, "max_hp": 1, "conditions": [], "minion": True, "count": 3},
    ]
    assert turn_line(order, "Ann", 1, "hnh", roster).endswith("| next: Thugs x3 HP 1/1")
    assert "next: Boss" in turn_line(order, "Ann", 1, "hnh", roster, idle=False)


def test_a_hazard_takes_a_turn_slot_with_no_sheet_and_says_its_note(cli: Cli) -> None:
    """CLI.md, fourth round: `encounter join NAME --hazard --init N`: a turn slot for a hazard or a timed event, with
    no sheet and no roll; its turn comes at its initiative and says its note, in the log too; it deals and takes
    nothing in the summary, and no character may share its name."""
    hnh(cli)
    r = cli.ok("encounter", "join", "Falling Debris", "--hazard", "--init", "7", "--note", "the ceiling gives way")
    assert r.stdout.splitlines()[0] == "ruling 6: Falling Debris joins the encounter at initiative 7."
    r = cli.ok("encounter", "next")
    assert r.stdout.splitlines()[0] == "ruling 7: Round 1: Falling Debris' turn; the ceiling gives way."
    assert r.stdout.splitlines()[1] == "up: Falling Debris (hazard): the ceiling gives way"
    assert "the ceiling gives way" in cli.ok("log", "-n", "1").stdout
    assert cli.ok("encounter", "next").stdout.splitlines()[0].endswith("Boss' turn.")
    assert cli("encounter", "join", "Boss", "--hazard", "--init", "2").exit_code == 2  # a character's name
    assert cli("encounter", "join", "Fire", "--hazard").exit_code == 2  # no --init
    ended: Any = cli.json("encounter", "end")
    assert "Falling Debris" not in [c["name"] for c in ended["summary"]["combatants"]]


def test_d20_initiative_rolled_again_each_round(cli: Cli) -> None:
    """d20-supers.txt, Initiative ("1d20+Dexterity Modifier"; the text does not say it is rolled once): `init -o
    reroll-initiative=each-round` rolls everyone again as a round starts, and the new round follows the new order."""
    cli.ok("init", "--system", "d20", "-o", "reroll-initiative=each-round")
    for name in ("Ann", "Bob", "Cy"):
        cli.ok("character", "add", name)
    cli.ok("encounter", "start", "Ann", "Bob", "Cy", "--roll", "Ann=15", "--roll", "Bob=10", "--roll", "Cy=5")
    cli.ok("encounter", "next")
    cli.ok("encounter", "next")
    r = cli.ok("encounter", "next", "--roll", "Ann=2", "--roll", "Bob=3", "--roll", "Cy=20")
    doc: Any = cli.json("encounter", "show")
    assert doc["round"] == 2 and [e["name"] for e in doc["order"]] == ["Cy", "Bob", "Ann"] and doc["current"] == "Cy"
    assert "Cy rolls initiative 20" in r.stdout.splitlines()[0]


def test_initiative_is_rolled_once_where_the_text_says_so(cli: Cli) -> None:
    """H&H rolls initiative once at the start of combat (gameplay.txt, Initiative): the option is not its own."""
    r = cli("init", "--system", "hnh", "-o", "reroll-initiative=each-round")
    assert r.exit_code == 2 and "reroll-initiative" in r.stderr


def test_group_init_gives_identical_foes_one_roll_and_adjacent_turns(cli: Cli) -> None:
    """CLI.md, fourth round: `encounter start --group-init NAME`: the copies NAME 1 .. NAME N (`character add NAME
    --copies N`) share one initiative roll, named after the group, and take their turns one after another in their
    numbers' order (d20-supers.txt, Initiative: 1d20 + Dex modifier, rolled once for the group)."""
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Ann", "--pc")
    cli.ok("character", "add", "Goon", "--copies", "11")
    doc: Any = cli.json("encounter", "start", "Ann", "Goon", "--group-init", "Goon", "--roll", "Goon=12", "--roll",
                        "Ann=15")  # fmt: skip
    dice = [e for e in doc["events"] if e["type"] == "DiceRolled"]
    assert sorted(e["data"]["name"] for e in dice) == ["Ann", "Goon"]  # one roll for the eleven
    shown: Any = cli.json("encounter", "show")
    assert [(e["name"], e["initiative"]) for e in shown["order"]] == [("Ann", 15)] + [
        (f"Goon {n}", 12) for n in range(1, 12)
    ]
    assert cli("encounter", "end").exit_code == 0
    refused = cli("encounter", "start", "Ann", "Goon 1", "--group-init", "Ann")
    assert refused.exit_code == 2 and "--group-init Ann" in refused.stderr


def test_group_init_on_join_gives_the_newcomers_one_roll_and_adjacent_turns(cli: Cli) -> None:
    """CLI.md, fourth round: `encounter join NAME --group-init NAME`, as at the start: the copies who join mid-fight
    share one initiative roll (d20-supers.txt, Initiative: 1d20 + Dex modifier) and take their turns one after
    another in their numbers' order, slotted by that roll; the die line names the group's roll."""
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Ann", "--pc")
    cli.ok("character", "add", "Goon", "--copies", "3")
    cli.ok("encounter", "start", "Ann", "--init", "Ann=15")
    out = cli.ok("encounter", "join", "Goon", "--group-init", "Goon", "--roll", "Goon=12").stdout
    assert "Goon (group initiative): 1d20 [12]" in out, out
    shown: Any = cli.json("encounter", "show")
    assert [(e["name"], e["initiative"]) for e in shown["order"]] == [("Ann", 15)] + [
        (f"Goon {n}", 12) for n in range(1, 4)
    ]
    refused = cli("encounter", "join", "Ann", "--group-init", "Ann")
    assert refused.exit_code == 2 and "--group-init Ann" in refused.stderr


def test_the_attack_of_opportunity_is_ready_again_at_the_bearers_own_turn(cli: Cli) -> None:
    """d20-supers.txt, Attack of Opportunity: "an extra attack per round": once used, it is ready again when the
    bearer's own turn starts (not when the round does): Bob, who used his after his turn in round 1, has none while
    Ann opens round 2, and has it again from his own turn on."""
    cli.ok("init", "--system", "d20")
    for name in ("Ann", "Bob", "Cy"):
        cli.ok("character", "add", name, "--trait", "hp=30")
    cli.ok("encounter", "start", "Ann", "Bob", "Cy", "--init", "Ann=15", "--init", "Bob=10", "--init", "Cy=5")
    hit = ("--roll", "attack=15", "--roll", "damage=1")
    cli.ok("encounter", "next")
    cli.ok("encounter", "next")  # Cy's turn, round 1
    cli.ok("attack", "Bob", "Cy", "-o", "free-attack=unaware", *hit)
    cli.ok("encounter", "next")  # round 2: Ann's turn
    r = cli("attack", "Bob", "Cy", "-o", "free-attack=unaware", *hit)
    assert r.exit_code == 2 and "already made their Attack of Opportunity" in r.stderr
    cli.ok("encounter", "next")  # Bob's own turn: ready again
    cli.ok("attack", "Bob", "Cy", "-o", "free-attack=unaware", *hit)
