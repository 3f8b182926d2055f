"""The players' screen in a real headless browser (docs/serve.md): it shows the tracker and follows another process's
command live."""

from __future__ import annotations

from pathlib import Path

from tests.browser.cdp import Browser
from tests.conftest import Cli
from tests.serving import ledger, serving

HP_OF = (
    "(n => { const e = document.querySelector(`li.fighter[data-name='${n}'] .hp`); return e && e.textContent.trim(); })"
)


def test_the_page_shows_the_tracker_and_follows_a_damage_without_reload(db: str, tmp_path: Path):
    """docs/serve.md, Live updates: the page shows the tracker; after `ledger damage` from another process the shown HP
    changes, no reload."""
    cli = Cli(db)
    cli.ok("init", "--system", "hnh", "--name", "Screen test")
    cli.ok("character", "add", "Ann", "--trait", "agility=2", "--pc")
    cli.ok("character", "add", "Bob")
    cli.ok("encounter", "start", "Ann", "Bob", "--roll", "Ann=0,0,0", "--roll", "Bob=0,0,0")
    with serving(db) as server:
        browser = Browser(tmp_path / "profile")
        try:
            browser.open(server.url)
            assert browser.wait_for(f"{HP_OF}('Ann')") == "6/6"
            assert browser.js(f"{HP_OF}('Bob')") == "unhurt"  # an NPC's HP is a word
            assert browser.js("document.querySelector('li.fighter.up').dataset.name") == "Ann"
            assert browser.js("document.querySelectorAll('ol.order > li').length") == 2
            browser.wait_for("document.getElementById('live').textContent.startsWith('live')")
            browser.js("window.notReloaded = true")
            ledger(db, "damage", "Ann", "--amount", "2")
            ledger(db, "damage", "Bob", "--amount", "4")
            assert (
                browser.wait_for(f"{HP_OF}('Ann') === '4/6' && {HP_OF}('Bob') === 'bloodied'") is True
            )  # both commands shown
            assert browser.js("document.querySelector(\"li.fighter[data-name='Ann'] .fill\").style.width") == "67%"
            assert browser.js("window.notReloaded") is True  # the same document: updated in place
            ledger(db, "encounter", "next")
            assert browser.wait_for("document.querySelector('li.fighter.up')?.dataset.name === 'Bob'")
        finally:
            browser.close()


def test_the_page_fits_a_phone_and_a_tv(sqlite_db: str, tmp_path: Path):
    """docs/serve.md, Layouts and accessibility: a narrow layout for a phone (no sideways scrolling) and a large one for
    a TV (bigger type, two columns)."""
    cli = Cli(sqlite_db)
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--pc")
    cli.ok("character", "add", "Bob")
    cli.ok("encounter", "start", "Ann", "Bob")
    sizes = {}
    with serving(sqlite_db) as server:
        for name, size in (("phone", (390, 844)), ("tv", (1920, 1080))):
            browser = Browser(tmp_path / name, size)
            try:
                browser.open(server.url)
                browser.wait_for(f"{HP_OF}('Ann')")
                sizes[name] = browser.js(
                    "[document.documentElement.scrollWidth, innerWidth, "
                    "parseFloat(getComputedStyle(document.body).fontSize),"
                    " getComputedStyle(document.getElementById('screen')).display]"
                )
            finally:
                browser.close()
    phone, tv = sizes["phone"], sizes["tv"]
    assert phone[0] <= phone[1], f"the phone layout scrolls sideways: {phone}"
    assert tv[2] > phone[2] * 1.4 and tv[3] == "grid", (phone, tv)
