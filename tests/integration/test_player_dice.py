"""Player dice over real HTTP (docs/serve.md, "Players roll their own dice"; docs/verifiable-dice.md, "Player dice").

A real `ledger serve` process, the GM's command in another process with stdin a pipe, the player's answer
posted to the page as its script posts it. Rolls are H&H's (rules/hnh: an attack check is 3dF + bonus).
"""

from __future__ import annotations

import signal
import time

import orjson

from ledger.model.dice_scheme import derive_faces_v3
from tests.conftest import Cli, event_count
from tests.integration.test_dice_forgeries import decoded
from tests.players import SEED, asked, finish, post, state, table, waiting
from tests.serving import ledger, serving

ATTACK = ("attack", "Ann", "Bob", "--rank", "3", "--roll", "power=0,0,0")


def attack_die(db: str) -> dict:
    """The last `attack` roll recorded."""
    return [st["data"] for _, t, st in decoded(db) if t.endswith("DiceRolled") and st["data"]["name"] == "attack"][-1]


def test_a_tap_on_the_page_completes_the_gms_waiting_command_and_verifies(cli: Cli, db: str):
    """docs/serve.md: the GM's command waits, saying so; the player's tap (a seed from the page) answers it; the
    die is HMAC-SHA256(secret, [session, counter, name, index, player_seed]), source `player`, and verifies."""
    paths = table(cli)
    with serving(db) as server:
        proc = waiting(db, *ATTACK, "--wait", "60")
        doc = asked(server, paths["Ann"])
        assert doc["request"]["what"] == "Ann's attack roll" and doc["request"]["notation"] == "3dF+4"
        status, body = post(
            server, paths["Ann"], {"request": doc["request"]["id"], "nonce": doc["nonce"], "seed": SEED}
        )
        assert status == 200, body
        code, out, err = finish(proc)
    assert code == 0, err
    assert err.startswith("waiting for Ann's attack roll (asked in ruling ") and "Ctrl-C to cancel" in err
    assert "Ann attack: 3dF+4" in out and "(player)" in out
    said = out.splitlines()[0]
    assert "ask" not in said and "fate" not in said, said  # the answered ask is bookkeeping: the die line says it
    die = attack_die(db)
    assert die["source"] == "player" and die["player_seed"] == SEED
    secret = bytes.fromhex(cli.json("session", "end")["revealed"])  # type: ignore[index]
    assert die["faces"] == list(derive_faces_v3(secret, die["counter"], "attack", 3, -1, 1, SEED))
    report = cli.json("verify", "--dice")
    assert report["ok"] is True and report["dice_checked"] >= 6  # type: ignore[index]


def test_faces_typed_on_the_page_are_entered_dice_in_the_intent(cli: Cli, db: str):
    """docs/serve.md: a player may type the faces of physical dice; they are checked (3dF takes three of + 0 -)
    and recorded as entered, listed in the ruling's intent."""
    paths = table(cli)
    with serving(db) as server:
        proc = waiting(db, *ATTACK, "--wait", "60")
        doc = asked(server, paths["Ann"])
        status, body = post(
            server, paths["Ann"], {"request": doc["request"]["id"], "nonce": doc["nonce"], "faces": "+,+"}
        )
        assert status == 400 and "needs 3 dice" in body["message"]  # type: ignore[index]
        doc = state(server, paths["Ann"])  # still asked: a fresh nonce
        status, _ = post(
            server, paths["Ann"], {"request": doc["request"]["id"], "nonce": doc["nonce"], "faces": "+,+,+"}
        )
        assert status == 200
        code, _, err = finish(proc)
    assert code == 0, err
    die = attack_die(db)
    assert die["source"] == "entered" and die["faces"] == [1, 1, 1]
    intent = [st["intent"] for _, t, st in decoded(db) if t.endswith("RulingRecorded")][-1]
    assert intent["entered"]["attack"] == "+,+,+"
    cli.ok("session", "end")
    assert cli.json("verify", "--dice")["ok"] is True  # type: ignore[index]


def commands_since(db: str, before: int) -> list[tuple[str, dict]]:
    """The rulings recorded after event `before`: (command, intent) each."""
    return [
        (st["command"], st["intent"]) for seq, t, st in decoded(db) if seq > before and t.endswith("RulingRecorded")
    ]


def fates(db: str) -> dict[int, tuple[str, str]]:
    """Each ask's fate as the log closes it: ask ruling -> (fate, why)."""
    return {st["ask"]: (st["fate"], st["why"]) for _, t, st in decoded(db) if t.endswith("AskClosed")}


def test_the_wait_running_out_exits_2_and_records_only_the_ask_and_its_fate(cli: Cli, db: str):
    """docs/serve.md: `--wait SECONDS` running out: one error line (and a hint), exit 2; the log holds the ask
    (recorded before any page could show it) and its fate, expired, and no ruling of the command."""
    table(cli)
    before = event_count(db)
    code, out, err = finish(waiting(db, *ATTACK, "--wait", "1"))
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert lines[0].startswith("waiting for Ann's attack roll") and lines[1].startswith(
        "error: no answer from Ann's page"
    )
    assert "Traceback" not in err
    assert [c for c, _ in commands_since(db, before)] == ["ask", "ask closed"]
    (ask,) = fates(db)
    assert fates(db)[ask][0] == "expired"


def test_ctrl_c_while_waiting_exits_130_and_records_the_ask_cancelled(cli: Cli, db: str):
    """docs/serve.md: Ctrl-C while waiting cancels: exit 130, no traceback, the page stops asking; the log holds the
    ask and its fate, cancelled, and no ruling of the command."""
    paths = table(cli)
    before = event_count(db)
    with serving(db) as server:
        proc = waiting(db, *ATTACK, "--wait", "60")
        asked(server, paths["Ann"])
        proc.send_signal(signal.SIGINT)
        code, _, err = finish(proc)
        assert code == 130 and "Traceback" not in err and "error: cancelled while waiting" in err
        assert state(server, paths["Ann"])["request"] is None
    assert [c for c, _ in commands_since(db, before)] == ["ask", "ask closed"]
    assert [f for f, _ in fates(db).values()] == ["cancelled"]


def test_the_gm_can_still_enter_the_dice(cli: Cli, db: str):
    """CLI.md: `--roll NAME=FACES` answers a hero's roll without asking the page (source entered); an NPC's
    roll (Bob's defense) is the ledger's, from the committed secret."""
    table(cli)
    r = cli("attack", "Ann", "Bob", "--rank", "3", "--roll", "attack=+,0,-", "--roll", "power=0,0,0", "--wait", "1")
    assert r.exit_code == 0, r.stderr
    sources = {st["data"]["name"]: st["data"]["source"] for _, t, st in decoded(db) if t.endswith("DiceRolled")}
    assert sources["attack"] == "entered" and sources["defense"] == "rolled"


def test_the_session_shell_waits_too(cli: Cli, db: str):
    """docs/serve.md: the session shell (`ledger play`, commands on a pipe) waits for the page the same way."""
    paths = table(cli)
    with serving(db) as server:
        proc = waiting(db, "play")
        assert proc.stdin is not None
        proc.stdin.write(" ".join(ATTACK) + " --wait 60\n")
        proc.stdin.flush()
        doc = asked(server, paths["Ann"])
        assert (
            post(server, paths["Ann"], {"request": doc["request"]["id"], "nonce": doc["nonce"], "seed": SEED})[0] == 200
        )
        code, out, err = finish(proc)
    assert code == 0, err
    assert attack_die(db)["source"] == "player"


def test_the_page_shows_its_hero_and_the_shared_screen_only(cli: Cli, db: str):
    """docs/serve.md: a page shows its hero's sheet and the players' screen: no other hero's sheet, NPC HP as a word."""
    paths = table(cli)
    cli.ok("damage", "Bob", "--amount", "2")
    with serving(db) as server:
        status, html = server.get(paths["Ann"])
    assert status == 200
    sheet = html.split('<section id="sheet"', 1)[1].split("</section>", 1)[0]
    assert "Ann" in sheet and "fighting" in sheet and "intellect" not in sheet  # Cat's trait is not Ann's to see
    assert "4/6" not in html and "hurt" in html  # Bob's HP is a word to players
    assert "No roll asked for right now." in html


def test_tokens_are_kept_only_as_hashes_never_in_the_log_or_exports(cli: Cli, db: str, tmp_path):
    """docs/serve.md: a token is random (192 bits), its SHA-256 alone is kept, in a side table; a new link
    replaces the old one and `player revoke` ends it."""
    import hashlib

    paths = table(cli)
    token = paths["Ann"].rsplit("/", 1)[1]
    assert len(token) >= 22  # >= 128 bits of URL-safe base64
    cli.ok("export", "--format", "jsonl", "-o", str(tmp_path / "x.jsonl"))
    digest = hashlib.sha256(token.encode()).hexdigest()
    logged = b"".join(orjson.dumps(st) for _, _, st in decoded(db)) + (tmp_path / "x.jsonl").read_bytes()
    assert token.encode() not in logged and digest.encode() not in logged
    with serving(db) as server:
        assert server.get(paths["Ann"])[0] == 200
        new = cli.json("player", "link", "Ann")["url"]  # type: ignore[index]
        assert server.get(paths["Ann"])[0] == 404 and server.get("/p/" + new.rsplit("/p/", 1)[1])[0] == 200
        cli.ok("player", "revoke", "Ann")
        assert server.get("/p/" + new.rsplit("/p/", 1)[1])[0] == 404


def test_a_qr_code_prints_without_a_terminal(cli: Cli, db: str):
    """CLI.md: `player link NAME --qr` prints the URL and a QR code (segno) with no terminal; only heroes get links."""
    table(cli)
    r = ledger(db, "player", "link", "Cat", "--qr")
    assert r.stdout.startswith("Cat's page: http://localhost:8080/p/") and "█" in r.stdout
    bad = cli("player", "link", "Bob")
    assert bad.exit_code == 2 and bad.stderr.startswith("error: Bob is not a hero")


def test_only_the_pages_own_pending_request_can_be_answered_once(cli: Cli, db: str):
    """docs/serve.md, security: another player's token, a wrong token, a replayed POST, a cross-origin POST, a
    POST without Origin or not JSON, and an expired request are all refused; answers are rate-bounded."""
    paths = table(cli)
    with serving(db) as server:
        proc = waiting(db, *ATTACK, "--wait", "60")
        doc = asked(server, paths["Ann"])
        rid, nonce = doc["request"]["id"], doc["nonce"]
        answer = {"request": rid, "nonce": nonce, "seed": SEED}
        assert state(server, paths["Cat"])["request"] is None  # Cat's page sees nothing of Ann's roll
        assert post(server, paths["Cat"], answer)[0] == 403  # Ann's request with Cat's token
        assert post(server, "/p/not-a-token", answer)[0] == 404
        assert server.get("/p/not-a-token")[0] == 404
        assert post(server, paths["Ann"], answer, origin="http://evil.example")[0] == 403
        assert post(server, paths["Ann"], answer, origin=None)[0] == 403
        assert post(server, paths["Ann"], answer, headers={"Sec-Fetch-Site": "cross-site"})[0] == 403
        form = post(server, paths["Ann"], b"seed=1", headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert form[0] == 415
        assert post(server, paths["Ann"], answer)[0] == 200
        assert post(server, paths["Ann"], answer)[0] == 403  # replayed: the nonce is spent
        code, _, err = finish(proc)
        assert code == 0, err
        # an expired request: the command gave up after a second; the page's nonce is no good any more
        proc = waiting(db, *ATTACK, "--wait", "1")
        doc = asked(server, paths["Ann"])
        finish(proc)
        late = post(server, paths["Ann"], {"request": doc["request"]["id"], "nonce": doc["nonce"], "seed": SEED})
        assert late[0] == 410
        statuses = [post(server, paths["Cat"], {"request": "x", "nonce": "y", "seed": SEED})[0] for _ in range(12)]
        # refused answers never lock a page out: the bound counts accepted answers only (docs/serve.md, Rates)
        assert set(statuses) == {403}


def test_the_link_names_the_address_the_phones_reach(cli: Cli, db: str):
    """CLI.md (repo docs): `player link NAME --base URL` prints the page under the address `serve` is reached at."""
    table(cli)
    doc = cli.json("player", "link", "Ann", "--base", "http://192.168.1.20:9000")
    assert doc["url"].startswith("http://192.168.1.20:9000/p/") and doc["name"] == "Ann"  # type: ignore[index]
    gone = cli.json("player", "revoke", "Ann")
    again = cli.json("player", "revoke", "Ann")
    assert gone["revoked"] is True and again["revoked"] is False  # type: ignore[index]


def test_a_heros_defense_against_an_npc_is_asked_of_their_page(cli: Cli, db: str):
    """docs/interpretations.md, Player dice (hnh-site/gameplay.txt: the target makes its defense checks): when an NPC
    attacks a linked hero, the hero's defense roll is asked of that hero's page; the NPC's attack is the ledger's."""
    paths = table(cli)
    with serving(db) as server:
        proc = waiting(db, "attack", "Bob", "Ann", "--rank", "2", "--roll", "attack=-,-,-", "--wait", "60")
        asked_for = []
        while proc.poll() is None:
            doc = state(server, paths["Ann"])
            if doc["request"] is None:
                time.sleep(0.1)
                continue
            asked_for.append(doc["request"]["roll"])
            post(server, paths["Ann"], {"request": doc["request"]["id"], "nonce": doc["nonce"], "seed": SEED})
        code, _, err = finish(proc)
    assert code == 0, err
    assert asked_for[0] == "defense" and "attack" not in asked_for
    sources = {st["data"]["name"]: st["data"]["source"] for _, t, st in decoded(db) if t.endswith("DiceRolled")}
    assert sources["defense"] == "player" and sources["attack"] == "entered"
