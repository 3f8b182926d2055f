"""`--note TEXT` on any ruling and `retract N --reason TEXT`: kept in the ruling's intent, shown where rulings are."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Cli, event_count


def d20(cli: Cli) -> None:
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Ann", "--trait", "hp=10", "--pc")


def intent(cli: Cli, ruling: int) -> dict[str, Any]:
    log: Any = cli.json("log")
    return next(e["data"]["intent"] for e in log if e["ruling"] == ruling and e["type"] == "RulingRecorded")


def test_a_note_before_or_after_the_command_is_kept_in_the_intent_and_shown(cli: Cli, tmp_path: Any) -> None:
    """d20-supers.txt, Damage: the GM's reason for a ruling (a fall, cover) travels with it into log, why and exports;
    HTML escapes it."""
    d20(cli)
    a: Any = cli.json("damage", "Ann", "--amount", "3", "--note", "fell off the <roof>")
    b: Any = cli.json("--note", "a ricochet", "damage", "Ann", "--amount", "1")
    assert intent(cli, a["ruling"])["note"] == "fell off the <roof>"
    assert intent(cli, b["ruling"])["note"] == "a ricochet"
    assert "(note: fell off the <roof>)" in cli.ok("log").stdout
    assert "(note: a ricochet)" in cli.ok("why", "Ann", "hp").stdout
    page = tmp_path / "s.html"
    cli.ok("export", "--format", "html", "-o", str(page))
    html = page.read_text()
    assert "fell off the &lt;roof&gt;" in html and "<roof>" not in html
    md = tmp_path / "s.md"
    cli.ok("export", "--format", "md", "-o", str(md))
    assert "(note: a ricochet)" in md.read_text()


def test_a_note_does_not_change_what_is_decided(cli: Cli, tmp_path: Any) -> None:
    """Rules are pure functions of state, intent and dice: a note changes no outcome (the same sheet without it)."""
    other = Cli(str(tmp_path / "plain.ledger"))
    for c in (cli, other):
        d20(c)
    cli.ok("damage", "Ann", "--amount", "3", "--note", "trap")
    other.ok("damage", "Ann", "--amount", "3")
    assert cli.json("character", "show", "Ann") == other.json("character", "show", "Ann")


def test_retract_keeps_its_reason(cli: Cli) -> None:
    """The record keeps why a contested ruling was retracted (`retract N --reason TEXT`), shown in `log`."""
    d20(cli)
    cli.ok("damage", "Ann", "--amount", "3")
    r: Any = cli.json("retract", "3", "--yes", "--reason", "misread the map")
    assert intent(cli, r["ruling"]) == {"target": 3, "reason": "misread the map"}
    assert "(reason: misread the map)" in cli.ok("log").stdout


@pytest.mark.parametrize("text", ["", "x" * 501, "bell\x07"])
def test_a_bad_note_is_refused_and_nothing_appended(cli: Cli, db: str, text: str) -> None:
    """A note is printable text of at most 500 characters: anything else is bad input (exit 2, nothing appended)."""
    d20(cli)
    before = event_count(db)
    r = cli("damage", "Ann", "--amount", "1", "--note", text)
    assert r.exit_code == 2 and r.stderr.startswith("error: ")
    assert event_count(db) == before


def test_a_note_in_the_session_shell_belongs_to_its_line_only(cli: Cli) -> None:
    """`ledger play`: each line is its own command; a note given on one line is not kept for the next."""
    d20(cli)
    script = 'damage Ann --amount 1 --note "first"\ndamage Ann --amount 1\n'
    r = cli("play", input=script)
    assert r.exit_code == 0, r.stderr
    assert intent(cli, 3).get("note") == "first"
    assert "note" not in intent(cli, 4)
