"""Exports people share (docs/export-format.md, Markdown and HTML): usual permissions, one count, grouped by session,
encounter and round, recaps."""

from __future__ import annotations

import csv
import io
import os
import re
import stat
from pathlib import Path

import pytest

from tests.conftest import Cli, Recorded


def _record_fight(cli: Cli) -> None:
    """An hnh session: an encounter of Ann, Bruiser and three Grunts; Boss joins in round 2; a retraction."""
    # two attacks by Ann in one turn below: the exports are the subject here, not the action budget
    cli.ok("init", "--system", "hnh", "--name", "Bay City", "-o", "action-economy=off")
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
    cli.ok("character", "add", "Boss", "--trait", "toughness=5", "--trait", "parry=4")
    cli.ok("session", "start", "Harbour brawl")
    cli.ok(
        "encounter",
        "start",
        "Ann",
        "Bruiser",
        "Grunts",
        "--roll",
        "Ann=+,0,0",
        "--roll",
        "Bruiser=0,0,-",
        "--roll",
        "Grunts=0,0,0",
    )
    hit = (
        "--rank",
        "6",
        "--bonus",
        "6",
        "--roll",
        "attack=+,+,+",
        "--roll",
        "defense=0,0,0",
        "--roll",
        "power=+,0,0",
        "--roll",
        "toughness=-,-,0",
    )
    cli.ok("attack", "Ann", "Bruiser", *hit)  # ruling 8: a natural +++ is a critical hit
    cli.ok("attack", "Ann", "Grunts", *hit)  # ruling 9: one of the group falls
    cli.ok("damage", "Ann", "--amount", "2")  # ruling 10, retracted by 11
    cli.ok("undo")
    cli.ok("encounter", "next")
    cli.ok("encounter", "next")
    cli.ok("encounter", "next")  # round 2
    cli.ok("encounter", "join", "Boss", "--roll", "Boss=0,0,0")
    cli.ok("encounter", "end")
    cli.ok("session", "end")


@pytest.fixture
def fight(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_fight records, recorded once and copied for this test."""
    return recorded(cli, _record_fight)


def test_export_files_get_the_usual_permissions(fight: Cli, tmp_path: Path) -> None:
    """docs/export-format.md, Markdown and HTML: an export is written 0644 under umask 022 (not mkstemp's 0600), in
    every format."""
    old = os.umask(0o022)
    try:
        for fmt in ("jsonl", "csv", "md", "html"):
            out = tmp_path / f"share.{fmt}"
            fight.ok("export", "-o", str(out))
            assert stat.S_IMODE(out.stat().st_mode) == 0o644, fmt
    finally:
        os.umask(old)


def test_every_format_counts_rulings_and_events_the_same_way(fight: Cli, tmp_path: Path) -> None:
    """docs/export-format.md, Markdown and HTML: the summary line, --json, the Markdown and HTML headers and the CSV
    rows give the same counts."""
    for fmt in ("md", "html", "csv"):
        out = tmp_path / f"s.{fmt}"
        doc = fight.json("export", "-o", str(out))
        said = fight.ok("export", "-o", str(out), "--force").stdout.splitlines()[0]
        assert said == f"exported {doc['rulings']} rulings, {doc['events']} events to {out}"  # type: ignore[index]
        text = out.read_text()
        if fmt == "csv":
            rows = list(csv.DictReader(io.StringIO(text)))
            assert (len({r["ruling"] for r in rows}), len(rows)) == (doc["rulings"], doc["events"])  # type: ignore[index]
        else:
            assert f"{doc['rulings']} rulings, {doc['events']} events" in text  # type: ignore[index]
    jsonl = fight.json("export", "-o", str(tmp_path / "all.jsonl"))
    assert fight.ok("verify").stdout.startswith(f"ok: {jsonl['rulings']} rulings, ")  # type: ignore[index]


def test_markdown_groups_by_session_encounter_and_round_with_a_recap(fight: Cli) -> None:
    """docs/export-format.md, Markdown and HTML: session, then encounter, then round; a recap of who fell, who was hurt
    most (and how and when each fell), criticals, retractions and undos apart."""
    md = fight.ok("export", "--format", "md").stdout
    session = md.index("## Session 1: Harbour brawl")
    recap = next(line for line in md.splitlines() if line.startswith("> **Recap.**"))
    assert recap == (
        "> **Recap.** Fell: Bruiser (dying, #8, Ann's attack), Grunts (1 of 3). Hurt most: Bruiser (lost 8 HP). "
        "Criticals: Ann on Bruiser (#8), Ann on Grunts (#9). Undone: #10 (damage)."
    )
    enc, r1, r2 = md.index("### Encounter 1"), md.index("#### Round 1"), md.index("#### Round 2")
    assert session < md.index(recap) < enc < r1 < md.index("- **#8**") < r2 < md.index("- **#15**")
    assert "Joined mid-fight: Boss (round 2, #15)." in md
    assert "| Grunts (minions) | 3 left (#4) → 2 left (#9) |" in md


def test_html_groups_the_same_way_and_charts_minion_losses(fight: Cli) -> None:
    """docs/export-format.md, Markdown and HTML: the HTML report has the same recap and grouping, and a chart of the
    minions left."""
    html = fight.ok("export", "--format", "html").stdout
    assert '<section class="session"><h2>Session 1: Harbour brawl</h2>\n<div class="recap">' in html
    assert (
        "<li>Criticals: Ann on Bruiser (#8), Ann on Grunts (#9)</li>" in html
        and "Joined mid-fight: Boss (round 2, #15)" in html
    )
    assert re.search(r"<h4 class=\"round\">Round 2</h4>.*<h4>#15</h4>.*Boss joins the encounter", html, re.S)
    assert "<figcaption>Grunts: 2 of 3 left</figcaption>" in html
    assert "Ann critically hits Bruiser (9 vs 3)" in html


def test_export_of_the_current_session(fight: Cli) -> None:
    """CLI.md, Additions agreed in the second round: `--session current` names the open session; with none open it is
    refused (exit 2)."""
    r = fight("export", "--format", "md", "--session", "current")
    assert r.exit_code == 2 and r.stderr.startswith("error: no play session is open")
    fight.ok("session", "start", "Aftermath")
    fight.ok("condition", "add", "Ann", "dazed")
    md = fight.ok("export", "--format", "md", "--session", "current").stdout
    assert md.startswith("# Bay City: session 2, Aftermath") and "Ann: now dazed." in md and "Harbour brawl" not in md
