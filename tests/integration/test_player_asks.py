"""A player's die fixed when it is asked, over real HTTP (docs/verifiable-dice.md, "Player dice: the ask";
docs/serve.md, "Players roll their own dice"): each steering attack a GM with the whole database could try,
played against it.

A real `ledger serve` process, the GM's command waiting in another process, the player's answer posted as the
page's script posts it, the GM's tampering done on the database's side tables directly. Rolls are H&H's (rules/hnh:
an attack check is 3dF + bonus).
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import text

from ledger.model.dice_scheme import derive_faces_v3
from ledger.storage.target import parse_target
from projections.db import ReadSide
from tests.conftest import Cli, event_count, figures_seen
from tests.integration.test_dice_forgeries import decoded, side_table
from tests.players import SEED, asked, finish, post, state, table, waiting
from tests.serving import ledger, serving

ATTACK = ("attack", "Ann", "Bob", "--rank", "3", "--roll", "power=0,0,0")
OTHER_SEED = "ffeeddccbbaa99887766554433221100"
PLAYED: list[str] = []  # the steering attacks played here (test_steering_figures adds them up; one xdist worker)
pytestmark = pytest.mark.xdist_group("player-asks")


@contextmanager
def paused(proc: subprocess.Popen[str], db: str) -> Iterator[None]:
    """Stop the waiting command (SIGSTOP) between two of its looks, never while it holds a lock on the side table (a
    harmless write must go through at once), and let it go on afterwards."""
    try:
        for _ in range(100):
            proc.send_signal(signal.SIGSTOP)
            try:
                side_table(db, "UPDATE ledger_player_asks SET why = why WHERE 1 = 0", quick=True)
                break
            except Exception:  # it was stopped inside a statement: let it finish that one
                proc.send_signal(signal.SIGCONT)
                time.sleep(0.03)
        yield
    finally:
        proc.send_signal(signal.SIGCONT)


def asks(db: str) -> dict[int, dict]:
    """Each ask the log records (by its ruling), with its fate once closed."""
    out: dict[int, dict] = {}
    for _, t, st in decoded(db):
        if t.endswith("DiceAsked"):
            for n in st["supersedes"]:
                out[n].update(fate="re-asked", by=st["ruling"])
            out[st["ruling"]] = {**st, "fate": None}
        elif t.endswith("AskClosed"):
            out[st["ask"]].update(fate=st["fate"], why=st["why"], by=st["ruling"])
    return out


def player_die(db: str) -> dict:
    """The last `player` die recorded."""
    return [st["data"] for _, t, st in decoded(db) if t.endswith("DiceRolled") and st["data"]["source"] == "player"][-1]


def answer(server, path: str, seed: str = SEED) -> tuple[int, object]:
    doc = asked(server, path)
    return post(server, path, {"request": doc["request"]["id"], "nonce": doc["nonce"], "seed": seed})


def verify_ok(cli: Cli) -> dict:
    cli.ok("session", "end")
    report = cli.json("verify", "--dice")
    assert report["ok"] is True, report  # type: ignore[index]
    return report  # type: ignore[return-value]


def test_the_ask_is_in_the_log_before_the_page_shows_it(cli: Cli, db: str):
    """docs/verifiable-dice.md, the ask: the log holds the ask (hero, roll name, committed-roll counter) when the page
    first shows the roll, and the page names that ask and counter."""
    paths = table(cli)
    with serving(db) as server:
        proc = waiting(db, *ATTACK, "--wait", "60")
        doc = asked(server, paths["Ann"])
        logged = asks(db)
        assert len(logged) == 1
        ((n, ask),) = logged.items()
        assert (ask["hero"], ask["name"], ask["counter"], ask["fate"]) == ("Ann", "attack", 0, None)
        assert (doc["request"]["ask"], doc["request"]["counter"]) == (n, 0)
        post(server, paths["Ann"], {"request": doc["request"]["id"], "nonce": doc["nonce"], "seed": SEED})
        code, _, err = finish(proc)
    assert code == 0, err
    assert asks(db)[n]["fate"] == "answered"
    die = player_die(db)
    assert (die["ask"], die["counter"], die["player_seed"]) == (n, 0, SEED)
    verify_ok(cli)


def test_filler_rolls_while_waiting_do_not_move_the_players_die(cli: Cli, db: str):
    """Padding: the GM makes committed filler rolls while the answer waits, hoping to move the die to a better
    counter. The die is derived at the ask's counter, so it is the same whatever was rolled meanwhile, and verifies."""
    paths = table(cli)
    with serving(db) as server:
        proc = waiting(db, *ATTACK, "--wait", "60")
        asked(server, paths["Ann"])
        for _ in range(3):
            ledger(db, "roll", "1d2")  # filler rolls take counters 1, 2, 3
        assert answer(server, paths["Ann"])[0] == 200
        code, _, err = finish(proc)
    assert code == 0, err
    die = player_die(db)
    assert die["counter"] == 0
    secret = bytes.fromhex(cli.json("session", "end")["revealed"])  # type: ignore[index]
    assert die["faces"] == list(derive_faces_v3(secret, 0, "attack", 3, -1, 1, SEED))
    report = cli.json("verify", "--dice")
    assert report["ok"] is True and report["asks"] == {"answered": 1}  # type: ignore[index]
    PLAYED.append("filler_rolls_while_waiting_do_not_move_the_players_die")


def test_a_vetoed_answer_asked_again_shows_in_the_log_and_to_the_player(cli: Cli, db: str):
    """Veto: the GM reads the player's seed in the side table, dislikes the die, and sets the request back to open
    so the page asks again. The page sends the seed it sent for that ask again (player.js keeps one seed per ask);
    a new seed for it shows on the page's list of asks against the seed the player noted."""
    paths = table(cli)
    with serving(db) as server:
        proc = waiting(db, *ATTACK, "--wait", "60")
        first = asked(server, paths["Ann"])
        with paused(proc, db):  # the GM's tampering races the waiting command: stop it reading the answer first
            post(server, paths["Ann"], {"request": first["request"]["id"], "nonce": first["nonce"], "seed": SEED})
            side_table(db, "UPDATE ledger_player_asks SET state = 'open', answer = NULL, alive = 1e12")
            again = asked(server, paths["Ann"])
            assert again["request"]["ask"] == first["request"]["ask"]  # the same ask, the same counter
            post(server, paths["Ann"], {"request": again["request"]["id"], "nonce": again["nonce"], "seed": OTHER_SEED})
        code, _, err = finish(proc)
        assert code == 0, err
        listed = state(server, paths["Ann"])["asks"]
    (shown,) = listed
    assert shown["fate"] == "answered" and shown["seed"] == OTHER_SEED  # not the seed the player noted
    verify_ok(cli)
    PLAYED.append("a_vetoed_answer_asked_again_shows_in_the_log_and_to_the_player")


def test_revoking_the_link_ends_the_wait_at_once_with_one_line(cli: Cli, db: str):
    """docs/serve.md: `player revoke` while a command waits for that hero: the command ends within a second or so,
    one error line, exit 2; the ask's fate is cancelled in the log; the page's link is gone."""
    paths = table(cli)
    with serving(db) as server:
        proc = waiting(db, *ATTACK, "--wait", "120")
        asked(server, paths["Ann"])
        start = time.monotonic()
        ledger(db, "player", "revoke", "Ann")
        code, out, err = finish(proc)
        took = time.monotonic() - start
        assert server.get(paths["Ann"])[0] == 404
    assert code == 2 and out == "" and "Traceback" not in err and took < 10
    errors = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "revoked" in errors[0]
    assert [a["fate"] for a in asks(db).values()] == ["cancelled"]
    PLAYED.append("revoking_the_link_ends_the_wait_at_once_with_one_line")


def test_ending_the_session_ends_the_wait_and_records_no_plain_die(cli: Cli, db: str):
    """docs/verifiable-dice.md: `session end` from another shell while a command waits: the session's end closes the
    ask (cancelled), the command stops with one line, and no ruling with plain dice follows the session."""
    paths = table(cli)
    with serving(db) as server:
        proc = waiting(db, *ATTACK, "--wait", "120")
        asked(server, paths["Ann"])
        ledger(db, "session", "end")
        code, out, err = finish(proc)
        assert state(server, paths["Ann"])["request"] is None
    assert code == 2 and out == "" and "Traceback" not in err
    assert "session ended" in err
    assert not [st for _, t, st in decoded(db) if t.endswith("RulingRecorded") and st["command"] == "attack"]
    assert [a["fate"] for a in asks(db).values()] == ["cancelled"]
    assert cli.json("verify", "--dice")["ok"] is True  # type: ignore[index]
    PLAYED.append("ending_the_session_ends_the_wait_and_records_no_plain_die")


def test_a_killed_command_is_no_longer_offered_on_the_page(cli: Cli, db: str):
    """The page never lies: once the waiting command is gone (SIGKILL: it can record nothing), the page stops offering
    the roll and says nothing will be recorded; an answer posted anyway gets 410. The next ask of the hero closes
    the orphaned one as re-asked."""
    paths = table(cli)
    with serving(db) as server:
        proc = waiting(db, *ATTACK, "--wait", "120")
        doc = asked(server, paths["Ann"])
        proc.kill()
        proc.wait()
        time.sleep(3.5)  # the command's last look is older than the page's patience (ALIVE)
        status, body = post(
            server, paths["Ann"], {"request": doc["request"]["id"], "nonce": doc["nonce"], "seed": SEED}
        )
        assert status == 410, body
        now = state(server, paths["Ann"])
        assert now["request"] is None and "no longer waiting" in now["status"]["text"]
        proc = waiting(db, *ATTACK, "--wait", "60")
        assert answer(server, paths["Ann"])[0] == 200
        code, _, err = finish(proc)
    assert code == 0, err
    assert [a["fate"] for a in asks(db).values()] == ["re-asked", "answered"]
    verify_ok(cli)
    PLAYED.append("a_killed_command_is_no_longer_offered_on_the_page")


def test_sigterm_while_waiting_records_the_ask_cancelled(cli: Cli, db: str):
    """A waiting command told to stop (SIGTERM, as a closing terminal or a supervisor does) records its ask's fate and
    exits without a traceback; the page stops offering the roll."""
    paths = table(cli)
    with serving(db) as server:
        proc = waiting(db, *ATTACK, "--wait", "120")
        asked(server, paths["Ann"])
        proc.send_signal(signal.SIGTERM)
        code, _, err = finish(proc)
        assert state(server, paths["Ann"])["request"] is None
    assert code == 130 and "Traceback" not in err
    assert [(a["fate"], "SIGTERM" in a["why"]) for a in asks(db).values()] == [("cancelled", True)]
    PLAYED.append("sigterm_while_waiting_records_the_ask_cancelled")


@contextmanager
def held(db: str) -> Iterator[None]:
    """Hold a write lock on the players' side table (another connection in the middle of a long write), so that the
    waiting command's next look waits inside the database until the block ends."""
    if "://" not in db:
        conn = sqlite3.connect(db, isolation_level=None)
        try:
            conn.execute("BEGIN EXCLUSIVE")
            yield
        finally:
            conn.rollback()
            conn.close()
        return
    read = ReadSide(parse_target(db))
    try:
        with read.engine.begin() as pg:
            pg.execute(text("LOCK TABLE ledger_player_asks IN ACCESS EXCLUSIVE MODE"))
            yield
    finally:
        read.close()


def test_sigterm_while_a_look_waits_on_the_database_still_stops_the_wait(cli: Cli, db: str):
    """SIGTERM that lands while the waiting command's look at its request is held up in the database (another
    connection writing) stops the wait as it would between looks: the ask recorded cancelled, exit 130, at once
    after the database answers. (Not read as the database being away, which would keep waiting for --wait.)"""
    paths = table(cli)
    with serving(db) as server:
        proc = waiting(db, *ATTACK, "--wait", "120")
        asked(server, paths["Ann"])
        with held(db):
            time.sleep(0.6)  # its next look (every POLL seconds) is waiting on the lock now
            proc.send_signal(signal.SIGTERM)
            time.sleep(0.6)
        code, _, err = finish(proc, timeout=30)
    assert code == 130 and "Traceback" not in err, err
    assert "does not answer" not in err, err
    assert [(a["fate"], "SIGTERM" in a["why"]) for a in asks(db).values()] == [("cancelled", True)]


def test_an_answer_moved_from_another_ask_is_refused(cli: Cli, db: str):
    """A seed answered for another ask is refused: the GM copies a player's answer to ask A into the request of ask
    B (the side table); B's command refuses it and records B cancelled, nothing else."""
    paths = table(cli)
    with serving(db) as server:
        proc = waiting(db, *ATTACK, "--wait", "60")
        asked(server, paths["Ann"])
        with paused(proc, db):
            ask = next(iter(asks(db)))
            moved = f'{{"seed": "{SEED}", "ask": {ask - 1}}}'
            side_table(db, f"UPDATE ledger_player_asks SET state = 'answered', answer = '{moved}'")
        code, _, err = finish(proc)
    assert code == 2 and "another ask" in err
    assert [a["fate"] for a in asks(db).values()] == ["cancelled"]
    assert event_count(db) > 0 and not [t for _, t, _ in decoded(db) if t.endswith("DiceRolled")]
    PLAYED.append("an_answer_moved_from_another_ask_is_refused")


def test_steering_figures() -> None:
    """The figures (`-s` prints them): each steering attack played against the ask, and what it gained (nothing)."""
    figures_seen(len(PLAYED), "steering attack")
    print(f"\nsteering attacks: {len(PLAYED)} played, 0 changed a player's die unseen: {', '.join(sorted(PLAYED))}")
