"""Hostile input through the CLI (../shared/STYLE.md: bad input is one clear line on stderr, exit code 2, nothing
appended): `player link --base`, look-alike names in `character copy`, `serve --host`, empty reasons, zero-dice
rolls; and refusals that name what they found (a view in the log's place, an immutable folder)."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from ledger.storage.players import Players
from ledger.storage.target import parse_target
from tests.conftest import Cli, event_count

BAD_BASES = [
    "javascript:alert(1)",
    "",
    "//evil.example/",
    "http://192.168.1.20:8080/#frag",
    "http://192.168.1.20:8080/\n",
    "http://192.168.1.20:8080/ x",
    "http://user@evil.example/",
    "ftp://192.168.1.20/",
    "http://" + "a" * 3000 + "/",
    "http://bad_host!/",
]


def _linked(cli: Cli) -> str:
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "fighting=4", "--pc")
    url = cli.json("player", "link", "Ann")["url"]  # type: ignore[index]
    return str(url).rsplit("/p/", 1)[1]


def one_error(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


@pytest.mark.parametrize("base", BAD_BASES)
def test_a_bad_base_is_refused_in_one_line_and_the_old_link_stays(sqlite_db: str, base: str):
    """docs/serve.md, player link: --base must be an http(s) URL with a host, no fragment, no whitespace, at most 200
    characters; a refused link changes nothing (the hero's old link still opens the page)."""
    cli = Cli(sqlite_db)
    old = _linked(cli)
    r = cli("player", "link", "Ann", "--qr", "--base", base)
    assert r.exit_code == 2 and r.stdout == ""
    one_error(r.stderr)
    assert Players(parse_target(sqlite_db)).hero_of(old) is not None


def test_a_new_link_replaces_the_old_one_once_printed(sqlite_db: str):
    """docs/serve.md, player link: a new link ends the old one."""
    cli = Cli(sqlite_db)
    old = _linked(cli)
    url = str(cli.json("player", "link", "Ann", "--base", "http://192.168.1.20:8080/")["url"])  # type: ignore[index]
    players = Players(parse_target(sqlite_db))
    assert url.startswith("http://192.168.1.20:8080/p/")
    assert players.hero_of(old) is None and players.hero_of(url.rsplit("/p/", 1)[1]) is not None


def test_character_copy_refuses_a_look_alike_of_a_name_on_the_roster(cli: Cli):
    """CLI.md, character add: a name that prints like an existing one (Cyrillic А) is refused; copy checks the same."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "fighting=4")
    cli.ok("character", "add", "Bob", "--trait", "fighting=3")
    before = event_count(cli.db)
    r = cli("character", "copy", "Bob", "\u0410nn")
    assert r.exit_code == 2 and "looks just like" in one_error(r.stderr)
    assert event_count(cli.db) == before


def test_serve_on_a_host_it_cant_bind_exits_2_in_one_line(sqlite_db: str):
    """docs/serve.md: `serve --host` naming no address of this machine is one line, exit 2, before any server."""
    pytest.importorskip("uvicorn")
    cli = Cli(sqlite_db)
    cli.ok("init", "--system", "hnh")
    r = cli("serve", "--host", "evil.example")
    assert r.exit_code == 2 and "can't listen on evil.example" in one_error(r.stderr)


def test_an_empty_reason_and_a_zero_dice_roll_are_refused(cli: Cli):
    """CLI.md: `retract N --reason TEXT` keeps a reason: an empty one is bad input; `roll 0d6` rolls nothing and is
    refused; neither appends anything."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "fighting=4")
    before = event_count(cli.db)
    for args in (("retract", "2", "--yes", "--reason", ""), ("roll", "0d6"), ("roll", "0d6+2"), ("roll", "(0d4)")):
        r = cli(*args)
        assert r.exit_code == 2, args
        one_error(r.stderr)
    assert event_count(cli.db) == before
    cli.ok("roll", "10d6")  # ten dice: not a zero term


def test_log_character_after_retire_and_copy_gives_no_false_note(cli: Cli):
    """CLI.md, log --character: a retired Ann and a new ANN copied from Bob are two characters; the log of ANN shows
    ANN's rows without a note that the read models differ."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "fighting=2")
    cli.ok("character", "add", "Bob", "--trait", "fighting=3")
    cli.ok("damage", "Ann", "--amount", "1")
    cli.ok("character", "retire", "Ann")
    cli.ok("character", "copy", "Bob", "ANN")
    r = cli.ok("log", "--character", "ANN")
    assert "note:" not in r.stderr and "ANN joins the campaign" in r.stdout


def test_a_view_in_the_logs_place_is_named(sqlite_db: str):
    """DESIGN.md (the log is the ledger's own table): a view standing in for it is named by reads and writes alike,
    never taken for a ledger without a campaign."""
    cli = Cli(sqlite_db)
    cli.ok("init", "--system", "hnh")
    con = sqlite3.connect(sqlite_db)
    con.executescript(
        "ALTER TABLE stored_events RENAME TO real_events; CREATE VIEW stored_events AS SELECT * FROM real_events;"
    )
    con.close()
    for args in (("log",), ("character", "list"), ("roll", "1d6")):
        r = cli(*args)
        assert r.exit_code == 2 and "view 'stored_events'" in one_error(r.stderr), args


def test_an_immutable_folder_is_named_not_called_a_failing_disk(tmp_path: Path):
    """A write refused because the ledger's folder is immutable (chattr +i) says so, not that the disk failed."""
    chattr = shutil.which("chattr")
    folder = tmp_path / "locked"
    folder.mkdir()
    db = str(folder / "campaign.ledger")
    cli = Cli(db)
    cli.ok("init", "--system", "hnh")
    if chattr is None or subprocess.run([chattr, "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i needs root and a file system that keeps inode flags")
    try:
        r = cli("roll", "1d6")
        assert r.exit_code == 2 and "immutable" in one_error(r.stderr)
        assert cli.ok("log").stdout
    finally:
        subprocess.run([chattr, "-i", str(folder)], check=True)


def test_a_pnp_health_trait_is_refused_not_ignored(cli: Cli):
    """prowlers-and-paragons.txt, Attacks and Defenses: "Damage reduces the target's Health, which usually equals the
    average of their Toughness and Might or ... Toughness and Willpower": Health is derived, so `--trait health=6`
    (which the sheet would ignore) is bad input, one line, exit 2, nothing appended; the derived Health stands."""
    cli.ok("init", "--system", "pnp")
    before = event_count(cli.db)
    r = cli("character", "add", "Tank", "--trait", "might=3", "--trait", "health=6")
    assert r.exit_code == 2 and r.stderr.startswith("error: health is not a trait") and "Traceback" not in r.stderr
    assert event_count(cli.db) == before
    cli.ok("character", "add", "Tank", "--trait", "might=4", "--trait", "toughness=2")
    assert cli.json("character", "show", "Tank")["max_hp"] == 3  # type: ignore[index]
    r = cli("character", "set", "Tank", "--trait", "health=9")
    assert r.exit_code == 2 and "Health is derived" in r.stderr
