"""A player acts from their phone (docs/serve.md, "Players act"), in headless chromium at 390x844: on the hero's turn
the page offers its choices, one is picked and asked of the GM, the GM's `pending accept` records it (asking the
hero's dice of the same page, tapped once each) and the page reads "accepted"; a refused request reads "refused"."""

from __future__ import annotations

import re
from pathlib import Path

from tests.browser.cdp import Browser
from tests.browser.test_player_page import IMG, shoot, tap
from tests.conftest import Cli
from tests.players import finish, table, waiting
from tests.serving import ledger, serving

START = ("--roll", "Ann=+,+,+", "--roll", "Bob=0,0,0", "--roll", "Cat=-,-,-")
ASKED = "(e => e ? e.textContent : '')(document.getElementById('asked'))"


def pick(browser: Browser, label: str, shot: Path | None = None) -> None:
    """Choose the option with this label in the action list (a screenshot then, if asked) and tap Ask the GM."""
    browser.wait_for("!!document.getElementById('choice')")
    found = browser.js(
        f"(s => {{ const o = [...s.options].find(o => o.textContent === {label!r}); if (o) s.value = o.value; "
        "return !!o; })(document.getElementById('choice'))"
    )
    assert found, f"{label} is not offered"
    browser.js("document.querySelector('.ask-gm').scrollIntoView({block: 'center'})")  # a finger taps what it sees
    if shot is not None:
        shoot(browser, shot)
    tap(browser, ".ask-gm")


def test_a_player_asks_for_an_attack_the_gm_accepts_it_and_the_page_follows(sqlite_db: str, tmp_path: Path):
    """rules/hnh gameplay.txt, Taking Your Turn: Ann's phone offers "Ann attacks Bob" on her turn; the GM accepts
    it (`pending accept`, another process), the attack asks Ann's dice of the same page, she taps Roll, the ruling
    records who asked, and the page says the request was accepted and offers no second attack (Standard Action: "you
    can only use 1 standard action during your turn"); her next request, refused, reads "refused"."""
    cli = Cli(sqlite_db)
    paths = table(cli)
    cli.ok("encounter", "start", "Ann", "Bob", "Cat", *START)
    with serving(sqlite_db) as server:
        browser = Browser(tmp_path / "phone", (390, 844))
        try:
            browser.open(server.url + paths["Ann"].lstrip("/"))
            browser.wait_for("document.getElementById('live').textContent.startsWith('live')")
            pick(browser, "Ann attacks Bob", IMG / "player-act.png")
            assert browser.wait_for(f"{ASKED}.includes('waiting for the GM')")
            listed = cli.ok("pending").stdout
            assert re.search(r"1  Ann asks: Ann attacks Bob", listed), listed
            gm = waiting(sqlite_db, "pending", "accept", "1")
            while gm.poll() is None:  # each of Ann's rolls the attack needs, tapped on her phone
                if browser.js("!document.getElementById('pending').hidden"):
                    browser.js("document.getElementById('roll').scrollIntoView({block: 'center'})")
                    tap(browser, "#roll")
                    browser.wait_for("document.getElementById('pending').hidden")
                browser.js("1")
            code, out, err = finish(gm)
            assert code == 0, err
            assert browser.wait_for(f"{ASKED}.includes('accepted')")
            assert browser.wait_for("!!document.querySelector('#card .roll-line.fresh')")  # her dice on the card
            intent = cli.json("log", "-n", "1")[0]["data"]["intent"]  # type: ignore[index]
            assert intent["asked_by"] == "Ann" and intent["attacker"] == "Ann" and intent["target"] == "Bob"
            # gameplay.txt, Standard Action: her one standard action is spent, so the list the page is pushed offers
            # no attack now (nor a delay, Delay), and still the turn's end
            offered = "[...document.getElementById('choice').options].map(o => o.textContent)"
            assert browser.wait_for(f"!{offered}.some(t => t.startsWith('Ann attacks'))")
            assert browser.js(f"{offered}.includes('Ann ends the turn') && !{offered}.includes('Ann delays the turn')")
            pick(browser, "Ann ends the turn")
            assert browser.wait_for(f"{ASKED}.includes('waiting for the GM')")
            ledger(sqlite_db, "pending", "refuse", "2")
            assert browser.wait_for(f"{ASKED}.includes('refused by the GM')")
        finally:
            browser.close()
