"""Every roll a command may need of one player asked on one card, and every hero's initiative at once, over real HTTP.

docs/serve.md, "Players roll their own dice": the GM's command asks the roll the rules need first and, on the same
card, the rest of that hero's rolls the command may take (a d20 Supers attack's confirm, instant death and damage:
d20-supers.txt, "Critical Hits"); one tap answers them all, and a roll the rules end up not needing is never made.
At the start of an encounter every linked hero's initiative is asked at the same time (rules/hnh gameplay.txt,
"Initiative": everyone rolls). docs/verifiable-dice.md, "Player dice": each roll of the card is derived at the ask's
counter under its own name, and `verify --dice` checks every one.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from ledger.model.dice_scheme import derive_faces_v3
from tests.conftest import Cli, event_count
from tests.integration.test_dice_forgeries import decoded
from tests.integration.test_player_dice import commands_since
from tests.players import SEED, asked, finish, post, state, table, waiting
from tests.serving import serving


def d20_table(cli: Cli) -> str:
    """d20: hero Blaze (linked) against the NPC Thug, in a --player-dice session; Blaze's page path."""
    cli.ok("init", "--system", "d20", "--name", "Rooftops")
    cli.ok("character", "add", "Blaze", "--trait", "str=14", "--trait", "dex=12", "--trait", "attack=3",
           "--trait", "hp=20", "--pc")  # fmt: skip
    cli.ok("character", "add", "Thug", "--trait", "str=12", "--trait", "dex=12", "--trait", "attack=2",
           "--trait", "hp=12")  # fmt: skip
    cli.ok("session", "start", "--player-dice")
    url = cli.json("player", "link", "Blaze")["url"]  # type: ignore[index]
    return "/p/" + url.rsplit("/p/", 1)[1]


def secret_of(db: str) -> bytes:
    """The open session's dice secret, read from the GM's own database (as the GM's ledger reads it)."""
    with sqlite3.connect(db) as conn:
        (hexed,) = conn.execute("SELECT secret FROM ledger_dice_secrets").fetchone()
    return bytes.fromhex(hexed)


def natural_20_seed(secret: bytes, counter: int) -> str:
    """A player seed whose attack die at `counter` is a natural 20."""
    for i in range(10_000):
        seed = f"{i:032x}"
        if derive_faces_v3(secret, counter, "attack", 1, 1, 20, seed) == (20,):
            return seed
    raise AssertionError("no seed gives a natural 20")


def answer_the_rest(server: Any, paths: list[str], proc: Any) -> int:
    """Answer whatever else the command asks until it ends (a tie's roll-off, gameplay.txt Initiative); how many."""
    answered: set[str] = set()
    while proc.poll() is None:
        for path in paths:
            doc = state(server, path)
            request = doc["request"]
            if request is not None and request["id"] not in answered and doc["nonce"]:
                answered.add(request["id"])
                post(server, path, {"request": request["id"], "nonce": doc["nonce"], "seed": f"{len(answered):032x}"})
        time.sleep(0.2)
    return len(answered)


def player_dice(db: str, ruling: int) -> list[dict]:
    """The dice of one ruling whose source is a player."""
    return [
        st["data"]
        for _, t, st in decoded(db)
        if t.endswith("DiceRolled") and st.get("ruling") == ruling and st["data"].get("source") == "player"
    ]


def test_a_natural_20_confirm_and_damage_come_from_the_one_tap(sqlite_db: str):
    """d20-supers.txt, Critical Hits (a natural 20 is a threat, rolled again to confirm): the card asks the attack and
    names the rest (confirm, instant death, damage); one seed answers; the attack, the confirm roll and the damage are
    all that player's dice of the one ask, each under its own name at the ask's counter; one ask in the log; verify
    --dice passes. (SQLite: the test reads the session's secret from the file to find a seed that rolls a 20.)"""
    cli = Cli(sqlite_db)
    path = d20_table(cli)
    before = event_count(sqlite_db)
    with serving(sqlite_db) as server:
        proc = waiting(sqlite_db, "attack", "Blaze", "Thug", "--damage", "1d8", "--wait", "60")
        doc = asked(server, path)
        request = doc["request"]
        assert request["what"] == "Blaze's attack roll" and set(request["also"]) >= {"confirm", "damage"}
        seed = natural_20_seed(secret_of(sqlite_db), request["counter"])
        status, body = post(server, path, {"request": request["id"], "nonce": doc["nonce"], "seed": seed})
        assert status == 200, body
        code, out, err = finish(proc)
    assert code == 0, err
    assert err.count("waiting for") == 1  # one card, one wait
    assert [c for c, _ in commands_since(sqlite_db, before)] == ["ask", "attack"]
    ruling = int(out.split(":", 1)[0].rsplit(" ", 1)[1])
    dice = {d["name"]: d for d in player_dice(sqlite_db, ruling)}
    assert dice["attack"]["faces"] == [20] and "confirm" in dice
    assert {d["ask"] for d in dice.values()} == {request["ask"]}
    assert {d["player_seed"] for d in dice.values()} == {seed}
    assert {d["counter"] for d in dice.values()} == {request["counter"]}
    secret = bytes.fromhex(cli.json("session", "end")["revealed"])  # type: ignore[index]
    confirm = dice["confirm"]
    assert tuple(confirm["faces"]) == derive_faces_v3(secret, request["counter"], "confirm", 1, 1, 20, seed)
    report = cli.json("verify", "--dice")
    assert report["ok"] is True, report


def test_every_linked_heros_initiative_is_asked_at_the_same_time(cli: Cli, db: str):
    """gameplay.txt, Initiative (everyone rolls at the encounter's start): with two linked heroes, both pages show
    their initiative roll before either answers; one wait; the encounter starts with both players' dice, each its
    own ask; verify --dice passes."""
    paths = table(cli)
    before = event_count(db)
    with serving(db) as server:
        proc = waiting(db, "encounter", "start", "Ann", "Cat", "Bob", "--wait", "60")
        ann = asked(server, paths["Ann"])
        deadline = time.monotonic() + 10
        while state(server, paths["Cat"])["request"] is None and time.monotonic() < deadline:
            time.sleep(0.1)
        cat = state(server, paths["Cat"])
        assert cat["request"] is not None, "Cat's page was not asked while Ann's waited"
        assert ann["request"]["what"] == "Ann's initiative roll" and cat["request"]["what"] == "Cat's initiative roll"
        for path, doc, seed in ((paths["Ann"], ann, SEED), (paths["Cat"], cat, SEED[::-1])):
            status, body = post(server, path, {"request": doc["request"]["id"], "nonce": doc["nonce"], "seed": seed})
            assert status == 200, body
        roll_offs = answer_the_rest(server, [paths["Ann"], paths["Cat"]], proc)
        code, out, err = finish(proc)
    assert code == 0, err
    assert err.count("waiting for") == 1 + roll_offs and "Ann's initiative roll and Cat's initiative roll" in err
    assert [c for c, _ in commands_since(db, before)] == ["ask", "ask", *["ask"] * roll_offs, "encounter start"]
    ruling = int(out.split(":", 1)[0].rsplit(" ", 1)[1])
    dice = {d["name"]: d for d in player_dice(db, ruling)}
    assert {"Ann", "Cat"} <= set(dice) and dice["Ann"]["ask"] != dice["Cat"]["ask"]  # (and a tie's roll-off)
    cli.ok("session", "end")
    assert cli.json("verify", "--dice")["ok"] is True  # type: ignore[index]


def test_an_unanswered_page_closes_every_ask_of_the_wait(cli: Cli, db: str):
    """docs/serve.md: `--wait` running out while one hero answered and the other did not: exit 2, nothing of the
    command recorded, and both asks closed in the log (the unanswered one expired, the answered one cancelled as
    not used)."""
    paths = table(cli)
    before = event_count(db)
    with serving(db) as server:
        proc = waiting(db, "encounter", "start", "Ann", "Cat", "Bob", "--wait", "3")
        ann = asked(server, paths["Ann"])
        status, _ = post(server, paths["Ann"], {"request": ann["request"]["id"], "nonce": ann["nonce"], "seed": SEED})
        assert status == 200
        code, _, err = finish(proc)
    assert code == 2 and "error: no answer from Cat's page" in err and "Traceback" not in err
    assert "encounter start" not in [c for c, _ in commands_since(db, before)]
    closed = {st["ask"]: st["fate"] for _, t, st in decoded(db) if t.endswith("AskClosed")}
    assert sorted(closed.values()) == ["cancelled", "expired"]
    cli.ok("session", "end")
    assert cli.json("verify", "--dice")["ok"] is True  # type: ignore[index]


def test_a_tie_asks_its_roll_off_and_keeps_the_initiatives_already_answered(cli: Cli, db: str):
    """gameplay.txt, Initiative (ties: the rules' keys, then a roll-off): two identical linked heroes type the same
    faces on their pages, so their initiatives tie and a roll-off is asked of them after; the initiatives they
    answered stay theirs (their asks are not superseded by the roll-off's) and the encounter starts with all of
    them; verify --dice passes."""
    cli.ok("init", "--system", "hnh", "--name", "Twins")
    for hero in ("Ann", "Cat"):
        cli.ok("character", "add", hero, "--trait", "agility=1", "--pc")
    cli.ok("character", "add", "Bob", "--trait", "toughness=9")
    cli.ok("session", "start", "--player-dice")
    paths = {h: "/p/" + cli.json("player", "link", h)["url"].rsplit("/p/", 1)[1] for h in ("Ann", "Cat")}  # type: ignore[index]
    before = event_count(db)
    with serving(db) as server:
        proc = waiting(db, "encounter", "start", "Ann", "Cat", "Bob", "--roll", "Bob=-,-,-", "--wait", "60")
        for hero in ("Ann", "Cat"):
            doc = asked(server, paths[hero])
            status, body = post(
                server, paths[hero], {"request": doc["request"]["id"], "nonce": doc["nonce"], "faces": "0,0,0"}
            )
            assert status == 200, body
        roll_offs = answer_the_rest(server, list(paths.values()), proc)
        code, out, err = finish(proc)
    assert code == 0, err
    assert roll_offs >= 1 and "roll-off" in err
    closed = [st for seq, t, st in decoded(db) if seq > before and t.endswith("AskClosed")]
    assert closed and {st["fate"] for st in closed} == {"answered"}  # none re-asked, none cancelled
    cli.ok("session", "end")
    assert cli.json("verify", "--dice")["ok"] is True  # type: ignore[index]
