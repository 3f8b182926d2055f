"""A page on another origin, in headless chromium, trying to read a player's page and to answer their roll
(docs/serve.md, "Under attack"): it reads nothing and answers nothing; the GM's command goes on waiting."""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path

from tests.browser.cdp import Browser
from tests.conftest import Cli
from tests.players import SEED, asked, finish, state, table, waiting
from tests.serving import free_port, serving

ATTACK = ("attack", "Ann", "Bob", "--rank", "3", "--roll", "power=0,0,0", "--wait", "60")

EVIL = """<!doctype html><meta charset="utf-8"><title>evil</title><script>
window.results = {};
const page = %(page)s, answer = %(answer)s;
fetch(page + "/request").then(r => r.text()).then(t => results.read = "read:" + t)
  .catch(e => results.read = "blocked");
fetch(page + "/roll", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(answer)})
  .then(r => results.post = "status:" + r.status).catch(e => results.post = "blocked");
fetch(page + "/roll", {method: "POST", mode: "no-cors", body: JSON.stringify(answer)})
  .then(r => results.simple = "sent").catch(e => results.simple = "blocked");
</script>"""


def test_another_origin_can_neither_read_a_players_page_nor_answer_their_roll(sqlite_db: str, tmp_path: Path):
    """The attacker's page (another port: another origin) fetches the hero's pending roll and posts answers, as JSON
    (CORS preflight) and as a simple no-cors POST. Chromium gives it nothing to read, the server accepts no answer,
    and the GM's command still waits for the player."""
    cli = Cli(sqlite_db)
    paths = table(cli)
    with serving(sqlite_db) as server:
        proc = waiting(sqlite_db, *ATTACK)
        doc = asked(server, paths["Ann"])
        page = server.url.rstrip("/") + paths["Ann"]
        answer = {"request": doc["request"]["id"], "nonce": doc["nonce"], "seed": SEED}
        html = EVIL % {"page": json.dumps(page), "answer": json.dumps(answer)}

        class Evil(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the standard library's name
                body = html.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        evil = http.server.HTTPServer(("127.0.0.1", free_port()), Evil)
        threading.Thread(target=evil.serve_forever, daemon=True).start()
        browser = Browser(tmp_path / "evil")
        try:
            browser.open(f"http://127.0.0.1:{evil.server_address[1]}/")
            results = browser.wait_for("results.read && results.post && results.simple && results")
        finally:
            browser.close()
            evil.shutdown()
        assert results["read"] == "blocked" and results["post"] == "blocked", results
        still = state(server, paths["Ann"])
        assert still["request"] is not None and still["request"]["id"] == doc["request"]["id"]  # still asked
        proc.kill()
        finish(proc)
