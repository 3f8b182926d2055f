"""`verify --dice` against forged dice (docs/verifiable-dice.md, "What verify --dice catches"): one test per kind.

A forger who can rewrite the whole log keeps its hash chain valid, so these tests forge the decoded log itself
(the events of a real ledger, changed) and run the dice check on it: only the dice check stands between the
forgery and `ok`. Rolls are from the H&H text (rules/hnh: attack check 3dF + bonus against defense 3dF).
"""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest
from sqlalchemy import text

from ledger.audit.dice_names import takes
from ledger.audit.dice_proof import check
from ledger.model.dice_scheme import commit, derive_faces, derive_faces_v3, message_v3
from ledger.storage.target import parse_target
from projections.db import ReadSide
from tests.conftest import Cli
from tests.integration.test_commit_dice import raw_log

Log = list[tuple[int, str, dict[str, Any]]]


def decoded(db: str) -> Log:
    """A ledger's events as the dice check reads them: position, topic, decoded state."""
    return [(seq, topic, orjson.loads(state)) for seq, topic, state in raw_log(db)]


def problems(log: Log) -> list[str]:
    """What the dice check finds in a log."""
    return [p.message for p in check(log, takes).problems]


def side_table(db: str, sql: str, *, quick: bool = False) -> None:
    """Change the dice secrets' side table behind the ledger's back (as anyone who reads the database can); `quick`:
    fail within half a second where another connection holds a lock."""
    read = ReadSide(parse_target(db))
    try:
        with read.engine.begin() as conn:
            if quick:
                wait = "SET LOCAL lock_timeout = '500ms'" if "://" in db else "PRAGMA busy_timeout = 500"
                conn.execute(text(wait))
            conn.execute(text(sql))
    finally:
        read.close()


def played(cli: Cli, *, end: bool = True) -> None:
    """hnh: a committed session with two attacks the ledger rolls and a free roll entered by hand."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "fighting=4", "--pc")
    cli.ok("character", "add", "Bob", "--trait", "toughness=9", "--trait", "parry=2")  # outlasts two rank-3 hits
    cli.ok("session", "start", "--commit-dice")
    cli.ok("attack", "Ann", "Bob", "--rank", "3")
    cli.ok("roll", "3dF", "--roll", "roll=+,+,+")
    cli.ok("attack", "Ann", "Bob", "--rank", "3")
    if end:
        cli.ok("session", "end")


def first_die(log: Log, name: str = "attack") -> dict[str, Any]:
    """The data of the first DiceRolled of that name (to forge in place)."""
    return next(st["data"] for _, topic, st in log if topic.endswith("DiceRolled") and st["data"]["name"] == name)


def test_a_faithful_session_passes_and_filler_rulings_do_not_move_dice(cli: Cli, db: str):
    """Scheme 2: a die's message is [session, counter, name, index]; rulings without dice (damage) do not move it."""
    played(cli)
    log = decoded(db)
    assert problems(log) == []
    attack = first_die(log)
    assert attack["counter"] == 0 and message_v3(0, "attack", 2) == b'[0,"attack",2]'
    other = Cli(db.replace("test.ledger", "other.ledger")) if db.endswith("test.ledger") else None
    if other is None:
        pytest.skip("the filler comparison needs a second SQLite file")
    other.ok("init", "--system", "hnh")
    other.ok("character", "add", "Ann", "--trait", "fighting=4", "--pc")
    other.ok("character", "add", "Bob", "--trait", "toughness=2", "--trait", "parry=2")
    other.ok("session", "start", "--commit-dice")
    for _ in range(5):
        other.ok("damage", "Bob", "--amount", "0")  # filler: no dice
    other.ok("attack", "Ann", "Bob", "--rank", "3")
    assert first_die(decoded(other.db))["counter"] == 0  # the same message as without the filler


def test_a_swapped_secret_refuses_the_roll_in_one_line(cli: Cli, db: str):
    """A secret changed in ledger_dice_secrets no longer matches the commitment: the roll is refused (exit 2), nothing
    appended."""
    played(cli, end=False)
    side_table(db, "UPDATE ledger_dice_secrets SET secret = '" + "ab" * 32 + "'")
    before = len(raw_log(db))
    r = cli("roll", "3dF")
    assert r.exit_code == 2 and r.stderr.startswith("error: the dice secret") and r.stderr.count("\n") <= 2
    assert len(raw_log(db)) == before
    out = cli.ok("session", "end").stdout  # the session still ends, with a warning, and fails verify --dice
    assert "warning: this session's dice secret was lost" in out
    r = cli("verify", "--dice")
    assert r.exit_code == 1 and "ended without revealing its secret" in r.stdout


def test_a_secret_that_is_not_hex_is_refused_without_a_traceback(cli: Cli, db: str):
    """A secret `zz` in the side table: `roll 3dF` and `session end` answer in one line each, no traceback."""
    played(cli, end=False)
    side_table(db, "UPDATE ledger_dice_secrets SET secret = 'zz'")
    r = cli("roll", "3dF")
    assert r.exit_code == 2 and r.stderr.startswith("error: the dice secret") and "Traceback" not in r.stderr
    r = cli("session", "end")
    assert r.exit_code == 0 and "warning: this session's dice secret was lost" in r.stdout


def test_a_committed_die_relabelled_entered_fails(cli: Cli, db: str):
    """A ledger die relabelled `entered` with new faces: the ruling's intent says it was not entered."""
    played(cli)
    log = copy.deepcopy(decoded(db))
    die = first_die(log)
    die.update(source="entered", faces=[1, 1, 1])
    del die["commitment"]
    assert any("has source 'entered' but its ruling's intent says rolled" in p for p in problems(log))


def test_an_entered_die_relabelled_rolled_fails(cli: Cli, db: str):
    """The other way: the intent lists the entered roll, so relabelling it as rolled fails."""
    played(cli)
    log = copy.deepcopy(decoded(db))
    die = first_die(log, "roll")
    die.update(source="rolled")
    assert any("its ruling's intent says entered" in p for p in problems(log))


def test_a_die_dropped_from_a_3df_roll_fails(cli: Cli, db: str):
    """rules/hnh: checks roll 3dF. A die dropped (with or without its notation rewritten) fails."""
    played(cli)
    log = copy.deepcopy(decoded(db))
    die = first_die(log)
    die["faces"] = die["faces"][:2]
    assert any("shows 2 dice but its notation" in p for p in problems(log))
    die["notation"] = "2dF+4"
    assert any("where 'attack' rolls 3dF" in p for p in problems(log))


def test_a_roll_renamed_to_a_name_its_command_does_not_take_fails(cli: Cli, db: str):
    """A roll renamed (to a name ground for + + +) that `attack` never takes."""
    played(cli)
    log = copy.deepcopy(decoded(db))
    first_die(log)["name"] = "attack-17"
    assert any("'attack' takes no roll named 'attack-17'" in p for p in problems(log))


def test_a_dropped_committed_roll_fails_on_the_counter(cli: Cli, db: str):
    """Scheme 2: counters run 0, 1, 2, ... through the session; a roll taken out of the log leaves a gap."""
    played(cli)
    log = [e for e in decoded(db) if not (e[1].endswith("DiceRolled") and e[2]["data"].get("counter") == 1)]
    assert any("a committed roll was dropped, added or moved" in p for p in problems(log))


def test_a_session_reusing_an_earlier_commitment_fails(cli: Cli, db: str):
    """Each session commits to a fresh secret: a second session with the first one's commitment is flagged."""
    played(cli)
    cli.ok("session", "start", "--commit-dice")
    cli.ok("session", "end")
    log = copy.deepcopy(decoded(db))
    commits = [st for _, topic, st in log if topic.endswith("DiceCommitted")]
    commits[1]["commitment"] = commits[0]["commitment"]
    assert any("re-uses the dice commitment of session 1" in p for p in problems(log))


def test_a_committed_session_ended_without_a_reveal_fails(cli: Cli, db: str):
    """A committed session must reveal its secret as it ends; one that ended without it fails."""
    played(cli)
    log = [e for e in decoded(db) if not e[1].endswith("DiceRevealed")]
    assert any("ended without revealing its secret" in p for p in problems(log))


def test_a_tampered_face_fails(cli: Cli, db: str):
    """A face changed in place, the counter kept: the revealed secret gives other faces."""
    played(cli)
    log = copy.deepcopy(decoded(db))
    die = first_die(log)
    die["faces"] = [1, 1, 1] if die["faces"] != [1, 1, 1] else [-1, -1, -1]
    assert any("but the revealed secret gives" in p for p in problems(log))


def test_an_old_scheme_1_session_still_verifies(cli: Cli, db: str):
    """Ledgers made before scheme 2 (no DiceScheme event): their dice derive from [ruling, name, index] and verify."""
    from ledger import catalog as C
    from ledger.application import Ledger
    from ledger.storage.secrets import new_secret

    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "fighting=4")
    cli.ok("character", "add", "Bob")
    ledger = Ledger(db, actor="tester")
    try:
        secret, commitment = new_secret()
        ledger.dice_secrets.put(commitment, secret)
        ledger.record(C.SESSION_START, {"title": None, "commitment": commitment})  # as the first release did
    finally:
        ledger.close()
    cli.ok("attack", "Ann", "Bob", "--rank", "3")
    cli.ok("session", "end")
    log = decoded(db)
    die = first_die(log)
    ruling = next(st["ruling"] for _, topic, st in log if topic.endswith("DiceRolled"))
    assert "counter" not in die and die["faces"] == list(derive_faces(secret, ruling, "attack", 3, -1, 1))
    assert commit(secret) == commitment
    doc = cli.json("verify", "--dice")
    assert doc["ok"] is True and doc["dice_checked"] >= 3


def test_v3_faces_are_what_the_formula_gives(cli: Cli, db: str):
    """docs/verifiable-dice.md: faces = HMAC-SHA256(secret, [counter, name, index]) mod faces (scheme 3)."""
    played(cli)
    secret = bytes.fromhex(next(st["secret"] for _, t, st in decoded(db) if t.endswith("DiceRevealed")))
    die = first_die(decoded(db))
    assert die["faces"] == list(derive_faces_v3(secret, die["counter"], "attack", 3, -1, 1))


@pytest.mark.parametrize(
    "field, value",
    [("final_hash", "0" * 64), ("events", 1), ("rulings", 2), ("snapshots", 3)],
)
def test_verify_file_refuses_what_import_refuses(cli: Cli, db: str, tmp_path, field: str, value: Any):
    """docs/export.md: an export whose header lies (zero final hash, wrong counts) is refused by import, and
    verify --file fails it too (exit 1), dice or not."""
    played(cli)
    path = tmp_path / "x.jsonl"
    cli.ok("export", "--format", "jsonl", "-o", str(path))
    lines = path.read_bytes().split(b"\n")
    header = orjson.loads(lines[0])
    header[field] = value
    path.write_bytes(b"\n".join([orjson.dumps(header), *lines[1:]]))
    fresh = Cli(str(tmp_path / "new.ledger"))
    assert fresh("import", str(path)).exit_code == 2
    for extra in ([], ["--dice"]):
        r = fresh("verify", "--file", str(path), *extra)
        assert r.exit_code == 1 and "problem(s)" in r.stdout, (field, r.stdout)


def fought(cli: Cli) -> None:
    """hnh: a committed session with an encounter whose initiative the ledger rolls for a hero and a --copies group
    (Thug 1 .. Thug 3), a newcomer joining, and a dying hero's turn, whose Fortitude check the turn hook rolls."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "agility=2", "--pc")
    cli.ok("character", "add", "Cy", "--trait", "agility=1", "--pc")
    cli.ok("character", "add", "Thug", "--copies", "3", "--trait", "agility=0")
    cli.ok("session", "start", "--commit-dice")
    cli.ok("encounter", "start", "Ann", "Thug")
    cli.ok("encounter", "join", "Cy")
    cli.ok("damage", "Ann", "--amount", "7")  # HP 6 -> -1: dying (conditions.txt, Dying)
    for _ in range(5):
        cli.ok("encounter", "next")
    cli.ok("session", "end")


def test_an_encounter_s_rolls_named_after_its_participants_verify(cli: Cli, db: str):
    """hnh-site/gameplay.txt, Initiative (each participant rolls) and Dying (the Fortitude check at the start of the
    turn): verify --dice holds each initiative roll to a participant the command named, and the turn hooks' rolls to
    the rules' turn rolls."""
    fought(cli)
    log = decoded(db)
    names = {st["data"]["name"] for _, topic, st in log if topic.endswith("DiceRolled")}
    assert {"Ann", "Thug 1", "Thug 3", "Cy", "fortitude"} <= names
    assert problems(log) == []
    assert "ok" in cli.ok("verify", "--dice").stdout


@pytest.mark.parametrize(("old", "new"), [("Thug 2", "Zed"), ("Cy", "Ann 2"), ("fortitude", "Thug 1")])
def test_an_encounter_roll_renamed_to_someone_its_command_did_not_name_fails(cli: Cli, db: str, old: str, new: str):
    """An initiative roll renamed to a character the command never named, or a turn hook's roll renamed to a
    participant: the command takes no roll of that name."""
    fought(cli)
    log = copy.deepcopy(decoded(db))
    first_die(log, old)["name"] = new
    assert any(f"takes no roll named '{new}'" in p for p in problems(log)), problems(log)
