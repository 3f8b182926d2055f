"""A hero's page follows the turn (docs/serve.md, "Whose turn"): the round and who is up stay on screen however far
the page is scrolled, "You're up" shows on the hero's page when its turn comes and "Up next" one turn before,
live, with no reload (the turn order is the tracker's: rules/hnh gameplay.txt, Initiative)."""

from __future__ import annotations

from pathlib import Path

from tests.browser.cdp import Browser
from tests.conftest import Cli
from tests.players import table
from tests.serving import ledger, serving

START = ("--roll", "Ann=+,+,+", "--roll", "Bob=0,0,0", "--roll", "Cat=-,-,-")  # initiative 4, 0, -4
YOU = "(e => e && !e.hidden ? e.textContent.trim() : '')(document.getElementById('you'))"


def test_the_heros_page_says_up_next_then_youre_up_and_keeps_the_round_in_view(sqlite_db: str, tmp_path: Path):
    """Order Ann, Bob, Cat (initiative 4, 0, -4): on Cat's phone-sized page nothing is flagged while Ann is up,
    "Up next" once Bob is up, "You're up" once Cat is; the turn bar names the round and who is up and stays in the
    viewport after scrolling to the bottom of the page."""
    cli = Cli(sqlite_db)
    paths = table(cli)
    cli.ok("encounter", "start", "Ann", "Bob", "Cat", *START)
    with serving(sqlite_db) as server:
        status, html = server.get(paths["Ann"])  # a fresh load, no script: the server says it too
        assert status == 200 and "You're up" in html
        browser = Browser(tmp_path / "phone", (390, 844))
        try:
            browser.open(server.url + paths["Cat"].lstrip("/"))
            browser.wait_for("document.getElementById('live').textContent.startsWith('live')")
            assert browser.js(YOU) == ""
            assert "Round 1" in browser.js("document.getElementById('turnbar').textContent")
            browser.js("window.notReloaded = true")
            ledger(sqlite_db, "encounter", "next")
            assert browser.wait_for(f"{YOU} === 'Up next'")
            ledger(sqlite_db, "encounter", "next")
            assert browser.wait_for(f"{YOU} === 'You\\'re up'")
            assert "Cat" in browser.js("document.querySelector('#turnbar b').textContent")
            at_top = browser.js("document.getElementById('turnbar').getBoundingClientRect().top")
            assert at_top < 60, f"the turn bar is not at the top of a fresh page: {at_top}"
            browser.js("window.scrollTo(0, document.body.scrollHeight)")
            top = browser.wait_for(
                "(r => r.top >= 0 && r.bottom <= innerHeight ? [r.top, scrollY] : null)"
                "(document.getElementById('turnbar').getBoundingClientRect())"
            )
            assert top[1] > 0, "the page did not scroll: the test proves nothing about staying in view"
            assert browser.js("window.notReloaded") is True
        finally:
            browser.close()


def test_up_next_passes_over_who_gets_no_turn(cli: Cli, db: str):
    """rules/hnh gameplay.txt, Initiative, and the tracker's pass-over (CLI.md, encounter next): a dead participant
    gets no turn, so the one after it is up next, in `encounter show --json` (`next`) as on the page."""
    table(cli)
    cli.ok("encounter", "start", "Ann", "Bob", "Cat", *START)
    assert cli.json("encounter", "show")["next"] == "Bob"  # type: ignore[index]
    cli.ok("damage", "Bob", "--amount", "30")  # below 0 HP: dead (rules/hnh, Damage)
    assert cli.json("encounter", "show")["next"] == "Cat"  # type: ignore[index]
