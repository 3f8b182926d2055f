"""`verify --dice` against a whole-chain rewrite that keeps the players' noted commitment (docs/verifiable-dice.md,
"What verify --dice catches"): one test per forgery. As in test_dice_forgeries.py, the decoded log of a real ledger
is forged and the dice check run on it: a forger who rewrites the whole log keeps its hash chain valid, so only the
dice check stands between the forgery and `ok`. Rolls are from the H&H text (rules/hnh: attack 3dF + bonus against
defense 3dF, Toughness 3dF)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from ledger.model.dice_scheme import derive_faces_v3
from tests.conftest import Cli, figures_seen
from tests.integration.test_dice_forgeries import Log, decoded, first_die, played, problems
from tests.players import SEED

FIGURES: dict[str, int] = {}  # forgery -> problems found (test_dice_rewrite_figures adds them up; one xdist worker)
pytestmark = pytest.mark.xdist_group("dice-rewrites")


def secret_of(log: Log) -> bytes:
    return bytes.fromhex(next(st["secret"] for _, t, st in log if t.endswith("DiceRevealed")))


def dice(log: Log) -> list[dict[str, Any]]:
    return [st["data"] for _, t, st in log if t.endswith("DiceRolled")]


def caught(log: Log, says: str) -> None:
    found = problems(log)
    FIGURES[says] = FIGURES.get(says, 0) + any(says in p for p in found)
    assert any(says in p for p in found), found


def test_the_sessions_last_roll_relabelled_entered_fails(cli: Cli, db: str):
    """The session's last committed roll relabelled `entered` with its ruling's intent rewritten to list it: no later
    roll's counter moves, but the ruling's own note of the next counter no longer matches its dice."""
    played(cli)
    log = copy.deepcopy(decoded(db))
    last = [st for _, t, st in log if t.endswith("DiceRolled") and "counter" in st["data"]][-1]
    data = last["data"]
    data.update(source="entered", faces=[1, 1, 1])
    for key in ("commitment", "counter"):
        data.pop(key)
    ruling = next(st for _, t, st in log if t.endswith("RulingRecorded") and st["ruling"] == last["ruling"])
    ruling["intent"]["entered"] = {data["name"]: "+,+,+"}
    caught(log, "a committed roll was dropped, added or relabelled")


def test_a_removed_end_and_reveal_while_a_later_session_exists_fails(cli: Cli, db: str):
    """Session 1's end and reveal taken out, so its dice would count as waiting: session 2 started after it, so it
    must have ended, and revealed."""
    played(cli)
    cli.ok("session", "start", "--commit-dice")
    cli.ok("roll", "3dF")
    cli.ok("session", "end")
    log = decoded(db)
    first_end = next(st["ruling"] for _, t, st in log if t.endswith("SessionEnded"))
    forged = [e for e in log if not (e[2].get("ruling") == first_end and e[1].endswith(("SessionEnded", "Revealed")))]
    caught(forged, "a later session started, but no end or reveal of it is in the log")


def test_a_per_target_roll_for_no_target_of_the_ruling_fails(cli: Cli, db: str):
    """`X12.defense`: a per-target roll named after someone the ruling's intent does not name."""
    played(cli)
    log = copy.deepcopy(decoded(db))
    first_die(log, "defense")["name"] = "X12.defense"
    caught(log, "takes no roll named 'X12.defense'")


def test_a_retractions_own_roll_fails(cli: Cli, db: str):
    """`7.q50`: a retraction rolls nothing of its own; its re-derived rolls are checked against the ruling they
    re-derive."""
    played(cli)
    log = copy.deepcopy(decoded(db))
    die = first_die(log)
    ruling = next(st for _, t, st in log if t.endswith("RulingRecorded") and st["ruling"] == die_ruling(log, die))
    ruling["command"] = "retract"
    die["name"] = "7.q50"
    caught(log, "'retract' takes no roll named '7.q50'")


def die_ruling(log: Log, data: dict[str, Any]) -> int:
    return next(st["ruling"] for _, t, st in log if t.endswith("DiceRolled") and st["data"] is data)


def test_a_roll_off_beyond_the_rules_rounds_fails(cli: Cli, db: str):
    """`rolloff-Ann-21`: a tie's roll-offs run rolloff-NAME, rolloff-NAME-2, rolloff-NAME-3 (the rules' rounds)."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "agility=1")
    cli.ok("character", "add", "Bob", "--trait", "agility=1")
    cli.ok("session", "start", "--commit-dice")
    cli.ok("encounter", "start", "Ann", "Bob")
    cli.ok("session", "end")
    log = copy.deepcopy(decoded(db))
    first_die(log, "Ann")["name"] = "rolloff-Ann-21"
    caught(log, "takes no roll named 'rolloff-Ann-21'")


def test_an_npcs_die_relabelled_player_fails(cli: Cli, db: str):
    """An NPC's committed die relabelled a player's, with a seed ground for + + +: no ask fixed it, and the session
    has no player dice."""
    played(cli)
    log = copy.deepcopy(decoded(db))
    die = first_die(log, "defense")  # Bob's: an NPC
    secret = secret_of(log)
    die.update(source="player", player_seed=SEED)
    die["faces"] = list(derive_faces_v3(secret, die["counter"], "defense", 3, -1, 1, SEED))
    caught(log, "a player's die in a session without player dice")


def test_a_players_die_relabelled_rolled_fails(cli: Cli, db: str):
    """A player's die (answering an ask) relabelled as the ledger's, its faces recomputed at its counter: the ask
    took that counter, and the ask's answer is gone."""
    from tests.integration.test_player_asks import ATTACK
    from tests.players import asked, finish, post, table, waiting
    from tests.serving import serving

    paths = table(cli)
    with serving(db) as server:
        proc = waiting(db, *ATTACK, "--wait", "60")
        doc = asked(server, paths["Ann"])
        post(server, paths["Ann"], {"request": doc["request"]["id"], "nonce": doc["nonce"], "seed": SEED})
        assert finish(proc)[0] == 0
    cli.ok("session", "end")
    log = copy.deepcopy(decoded(db))
    assert problems(log) == []
    die = next(d for d in dice(log) if d["source"] == "player")
    secret = secret_of(log)
    for key in ("player_seed", "ask"):
        die.pop(key)
    die.update(source="rolled", faces=list(derive_faces_v3(secret, die["counter"], "attack", 3, -1, 1)))
    caught(log, "a committed roll was dropped, added or moved")


def test_two_counters_swapped_within_a_ruling_fail(cli: Cli, db: str):
    """Two dice of one ruling given each other's counters (faces recomputed to match, events left in place): the
    counters no longer run in the order the rules took the rolls."""
    played(cli)
    log = copy.deepcopy(decoded(db))
    secret = secret_of(log)
    attack, defense = first_die(log, "attack"), first_die(log, "defense")
    attack["counter"], defense["counter"] = defense["counter"], attack["counter"]
    for d in (attack, defense):
        d["faces"] = list(derive_faces_v3(secret, d["counter"], d["name"], 3, -1, 1))
    caught(log, "a committed roll was dropped, added or moved")


def test_a_deleted_scheme_event_downgrading_the_session_fails(cli: Cli, db: str):
    """The session's DiceScheme event deleted (scheme 1, the first release's) and every die recomputed by scheme 1's
    message: the commitment was made for scheme 3, so the revealed secret no longer matches it."""
    from ledger.model.dice_scheme import derive_faces

    played(cli)
    log = [e for e in copy.deepcopy(decoded(db)) if not e[1].endswith("DiceScheme")]
    secret = secret_of(log)
    for _, t, st in log:
        if t.endswith("DiceRolled") and "counter" in st["data"]:
            d = st["data"]
            d.pop("counter")
            d["faces"] = list(derive_faces(secret, st["ruling"], d["name"], len(d["faces"]), -1, 1))
    caught(log, "does not match its commitment under scheme 1")


def test_a_player_dice_claim_added_to_a_session_fails(cli: Cli, db: str):
    """A session that committed without player dice rewritten to claim them (its DiceScheme says player_dice): the
    commitment binds the setting, so the reveal fails."""
    played(cli)
    log = copy.deepcopy(decoded(db))
    next(st for _, t, st in log if t.endswith("DiceScheme"))["player_dice"] = True
    caught(log, "does not match its commitment under scheme 3 with player dice")


def test_a_seed_with_spaces_or_capitals_fails(cli: Cli, db: str):
    """docs/verifiable-dice.md: a player's seed is lowercase hex, nothing else; bytes.fromhex would read `00 11` or
    `AABB` as the same bytes, so a forged spelling must not verify."""
    from ledger.model.dice_scheme import seed_ok

    assert seed_ok(SEED)
    for bad in ("00 11" + SEED[4:], SEED.upper(), "0x" + SEED, SEED[:-1], "", None, 7):
        assert not seed_ok(bad), bad


def test_dice_rewrite_figures() -> None:
    """The figures (`-s` prints them): each forgery tried (per backend) and caught by `verify --dice`."""
    tried = len(FIGURES)
    figures_seen(tried, "forgery")
    print(f"\ndice rewrites: {tried} kinds of forgery tried, {sum(FIGURES.values())} forged logs caught, 0 passed")
    assert tried == 0 or all(FIGURES.values())
