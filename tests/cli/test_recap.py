"""The export's recap is right to the end of the session: every fall the log tells of, and the minions left.

A session is built from the demo's fights (commands/demo.py's P&P script: Mara against five Goons), played on
to the end: the rest of the Goons wiped out, then a Boss defeated in the last ruling. The recap in Markdown
and HTML is compared with what `ledger log` says happened.
"""

from __future__ import annotations

import re

from commands.demo import SCRIPTS


def _session(cli) -> None:
    cli.ok("init", "--system", "pnp", "--name", "Demo")
    for step in SCRIPTS["pnp"]:
        if step[:2] == ("session", "end"):
            break
        if step[:2] == ("encounter", "start"):
            cli.ok("character", "add", "Boss", "--trait", "might=2", "--trait", "toughness=1")
            step = (*step, "Boss")
        cli.ok(*step)
    cli.ok("encounter", "next")
    cli.ok("attack", "Mara", "Goons", "--with", "might", "--roll", "attack=6,6,6,6", "--roll", "defense=1,1")
    cli.ok("attack", "Mara", "Boss", "--with", "might", "--roll", "attack=6,6,6,6")
    cli.ok("session", "end")


def test_the_recap_names_every_fall_the_log_tells_of_to_the_session_s_end(cli):
    """pnp-core.txt, Minions (a group's members fall one success at a time) and Defeat (0 Health): the recap
    lists the wiped group and the Boss defeated in the session's last ruling, as the log says."""
    _session(cli)
    log = cli.ok("log").stdout
    said = {m[1] for m in re.finditer(r"hits (\w+)[^.]*now defeated", log)}
    assert said == {"Goons", "Boss"}  # the log: Goons wiped (now defeated), then the Boss
    assert "2 fall, 0 left" in log  # the rest of the Goons, as the log says
    md = cli.ok("export", "--format", "md").stdout
    recap = next(line for line in md.splitlines() if line.startswith("> **Recap.**"))
    assert "Boss (defeated, #" in recap
    assert "Goons (all 5, the last at #" in recap
    assert "| Goons (minions) | 5 left (#3) → 2 left (#8) → 0 left (#" in md
    html = cli.ok("export", "--format", "html").stdout
    assert "Boss (defeated, #" in html and "Goons (all 5, the last at #" in html
    assert "<figcaption>Goons: 0 of 5 left</figcaption>" in html


def test_a_wiped_hnh_group_ends_at_none_left(cli):
    """hnh minion rules (a minion that fails its resistance is out): when the last of a group falls, the recap
    says the group is wiped out and the chart ends at 0, not at 1."""
    cli.ok("init", "--system", "hnh", "--name", "T", "-o", "action-economy=off")  # two attacks in one turn
    cli.ok("character", "add", "Ann", "--trait", "fighting=6", "--trait", "parry=5", "--pc")
    cli.ok("character", "add", "Grunts", "--minion", "--count", "2", "--trait", "parry=1", "--trait", "toughness=1")
    cli.ok("session", "start", "One")
    cli.ok("encounter", "start", "Ann", "Grunts", "--roll", "Ann=+,0,0", "--roll", "Grunts=0,0,0")
    hit = ("--roll", "attack=+,0,0", "--roll", "defense=0,0,0", "--roll", "power=+,0,0", "--roll", "toughness=0,-,0")
    cli.ok("attack", "Ann", "Grunts", "--rank", "6", "--bonus", "6", *hit)
    assert "now dead" in cli.ok("attack", "Ann", "Grunts", "--rank", "6", "--bonus", "6", *hit).stdout
    md = cli.ok("export", "--format", "md").stdout
    assert "Grunts (all 2, the last at #" in md
    assert "| Grunts (minions) | 2 left (#3) → 1 left (#6) → 0 left (#7) |" in md
    assert "Grunts x0" in cli.ok("encounter", "show").stdout


def test_a_name_with_brackets_keeps_its_dice_line_whole(cli):
    """DESIGN.md, Dice (faces live in the events): `Guard [A]`'s die line shows its faces as code, the name
    intact, in Markdown and HTML."""
    cli.ok("init", "--system", "d20", "--name", "T")
    cli.ok("character", "add", "Guard [A]", "--trait", "attack=2")
    cli.ok("character", "add", "Bob", "--trait", "hp=30")
    cli.ok("attack", "Guard [A]", "Bob", "--roll", "attack=15", "--roll", "damage=2")
    md = cli.ok("export", "--format", "md").stdout
    assert "Guard \\[A\\] attack: 1d20+2 `[15]` = 17 (entered)" in md
    html = cli.ok("export", "--format", "html").stdout
    assert "<li>Guard [A] attack: 1d20+2 <code>[15]</code> = 17 (entered)</li>" in html
