"""A player's page in headless chromium (docs/serve.md, "Players roll their own dice"): a phone-sized page, one tap
on Roll, and the GM's waiting command (another process, stdin a pipe) completes with the player's die."""

from __future__ import annotations

from pathlib import Path

from tests.browser.cdp import Browser
from tests.conftest import Cli
from tests.integration.test_player_dice import ATTACK, attack_die
from tests.players import finish, table, waiting
from tests.serving import serving

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
SHOT = IMG / "player-page.png"
CARD = IMG / "player-card.png"


def shoot(browser: Browser, where: Path) -> None:
    """A screenshot for docs/serve.md, made once (delete the file to make it again)."""
    if where.parent.is_dir() and not where.exists():
        import base64

        shot = browser.call("Page.captureScreenshot", browser.session, format="png")
        where.write_bytes(base64.b64decode(shot["data"]))


def tap(browser: Browser, selector: str) -> None:
    """A touch on the middle of an element, as a finger makes it (Input.dispatchTouchEvent)."""
    box = browser.js(
        "(r => [r.left + r.width / 2, r.top + r.height / "
        f"2])(document.querySelector({selector!r}).getBoundingClientRect())"
    )
    browser.call("Emulation.setTouchEmulationEnabled", browser.session, enabled=True)
    for kind, points in (("touchStart", [{"x": box[0], "y": box[1]}]), ("touchEnd", [])):
        browser.call("Input.dispatchTouchEvent", browser.session, type=kind, touchPoints=points)


def test_a_tap_on_roll_answers_the_gms_waiting_command(sqlite_db: str, tmp_path: Path):
    """The pending roll shows live on an open page (no reload), fits a phone, and one tap on Roll (no second
    confirmation) completes the GM's command with a die of source `player`; the page's dice card then shows that
    die's line exactly as the GM's terminal printed it, and what it meant in the ruling's words, and the pending
    text is gone (docs/serve.md, "The dice card")."""
    cli = Cli(sqlite_db)
    paths = table(cli)
    with serving(sqlite_db) as server:
        browser = Browser(tmp_path / "phone", (390, 844))
        try:
            browser.open(server.url + paths["Ann"].lstrip("/"))
            browser.wait_for("document.getElementById('idle') && !document.getElementById('idle').hidden")
            browser.js("window.notReloaded = true")
            proc = waiting(sqlite_db, *ATTACK, "--wait", "60")
            browser.wait_for("!document.getElementById('pending').hidden")  # shown live, pushed on its stream
            assert "Ann's attack roll" in browser.js("document.getElementById('what').textContent")
            width = browser.js("[document.documentElement.scrollWidth, innerWidth]")
            assert width[0] <= width[1], f"the phone page scrolls sideways: {width}"
            shoot(browser, SHOT)
            tap(browser, "#roll")
            code, out, err = finish(proc)
            assert code == 0, err
            line = browser.wait_for(
                "(e => e && e.textContent.trim())"
                "(document.querySelector('#card .roll-line.fresh .dieline[data-roll=\"attack\"]'))"
            )
            terminal = [x.strip() for x in out.splitlines() if x.strip().startswith("Ann attack:")]
            assert terminal == [line], (terminal, line)  # the numbers the GM's terminal shows, to the character
            meant = browser.js("document.querySelector('#card .roll-line.fresh .meant').textContent")
            words = out.splitlines()[0].split(": ", 1)[1].rstrip(".")  # `ruling N: SENTENCE.`, the terminal's words
            assert meant.startswith(words), (meant, words)  # the ruling's sentence, in the describer's words
            said = browser.wait_for("document.getElementById('said').textContent.includes('your seed: ')")
            assert said and "rolling it now" not in browser.js("document.body.textContent")
            assert browser.js("window.notReloaded") is True
            seed = browser.js("document.getElementById('said').textContent.match(/your seed: ([0-9a-f]+)/)[1]")
            shoot(browser, CARD)
        finally:
            browser.close()
    die = attack_die(sqlite_db)
    assert die["source"] == "player" and die["player_seed"] == seed and len(bytes.fromhex(seed)) >= 16
