"""Verifiable dice through the CLI: commit at session start, derive every rolled die, reveal at the end, verify
--dice."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from sqlalchemy import text

from ledger.model.dice_scheme import commit, derive_faces_v3
from ledger.storage.target import parse_target
from projections.db import ReadSide
from tests.conftest import Cli


def raw_log(db: str) -> list[tuple[int, str, bytes]]:
    """Every stored event: position, topic and its exact stored bytes."""
    read = ReadSide(parse_target(db))
    try:
        with read.engine.connect() as conn:
            rows = conn.execute(
                text(f"SELECT {read.id_column}, topic, state FROM {read.events_table} ORDER BY {read.id_column}")
            ).all()
    finally:
        read.close()
    return [(int(r[0]), str(r[1]), bytes(r[2])) for r in rows]


def dice(db: str) -> list[tuple[int, int, dict]]:
    """Every DiceRolled event: position, ruling, data."""
    out = []
    for seq, topic, state in raw_log(db):
        if topic.endswith("DiceRolled"):
            st = orjson.loads(state)
            out.append((seq, st["ruling"], st["data"]))
    return out


def secrets_kept(db: str) -> int:
    """How many secrets wait in the side table."""
    read = ReadSide(parse_target(db))
    try:
        with read.engine.connect() as conn:
            return int(conn.execute(text("SELECT COUNT(*) FROM ledger_dice_secrets")).scalar_one())
    finally:
        read.close()


def committed_session(cli: Cli) -> str:
    """An hnh session with committed dice, an attack the ledger rolls and one roll entered by hand; its commitment."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "fighting=4", "--pc")
    cli.ok("character", "add", "Bob", "--trait", "toughness=2")
    out = cli.ok("session", "start", "Night one", "--commit-dice").stdout
    line = next(ln for ln in out.splitlines() if ln.startswith("dice commitment (SHA-256): "))
    cli.ok("attack", "Ann", "Bob", "--rank", "3")
    cli.ok("roll", "3dF", "--roll", "roll=+,+,+")
    cli.ok("roll", "1d20")
    return line.rsplit(" ", 1)[1]


def test_the_commitment_is_printed_and_the_secret_stays_out_of_the_log_until_the_end(cli: Cli, db: str):
    """docs/verifiable-dice.md, The scheme: only the SHA-256 commitment is recorded at session start; `session end`
    reveals the secret into the log."""
    commitment = committed_session(cli)
    assert len(commitment) == 64 and all(c in "0123456789abcdef" for c in commitment)
    refused = cli("session", "start", "--commit-dice")  # one is open: refused, and its fresh secret not kept
    assert refused.exit_code == 2 and secrets_kept(db) == 1
    end = cli.json("session", "end")
    secret = bytes.fromhex(end["revealed"])
    assert commit(secret, 3) == commitment == end["commitment"]  # scheme 3: the tag, then the secret
    stored = raw_log(db)
    ending = end["ruling"]  # the secret is in the log from `session end`'s ruling on, never before
    assert all(
        secret.hex().encode() not in state for _, _, state in stored if orjson.loads(state).get("ruling", 0) < ending
    )
    assert any(secret.hex().encode() in state for _, topic, state in stored if topic.endswith("DiceRevealed"))
    assert secrets_kept(db) == 1  # kept (public now): an undone `session end` reopens a session that rolls from it


def test_every_die_the_ledger_rolls_derives_from_the_revealed_secret(cli: Cli, db: str):
    """docs/verifiable-dice.md (scheme 2): each rolled die is HMAC(secret, [session, counter, roll name, index]), the
    counter numbering the session's committed rolls 0, 1, 2, ...; entered dice stay entered."""
    committed_session(cli)
    secret = bytes.fromhex(cli.json("session", "end")["revealed"])
    rolled = [(r, d) for _, r, d in dice(db) if d["source"] != "entered"]
    assert len(rolled) >= 3
    assert [d["counter"] for _, d in rolled] == list(range(len(rolled)))
    for _, d in rolled:
        lo, hi = (-1, 1) if d["kind"] == "fudge" else (1, d["sides"])
        assert d["faces"] == list(derive_faces_v3(secret, d["counter"], d["name"], len(d["faces"]), lo, hi)), d
    entered = [d for _, _, d in dice(db) if d["source"] == "entered"]
    assert [d["faces"] for d in entered] == [[1, 1, 1]] and "commitment" not in entered[0]


def test_verify_dice_counts_single_dice_and_passes(cli: Cli, db: str):
    """CLI.md, second round: `verify --dice` says how many dice it checked (--json: dice_checked, counting single
    dice)."""
    committed_session(cli)
    cli.ok("session", "end")
    expected = sum(len(d["faces"]) for _, _, d in dice(db) if d["source"] != "entered")
    doc = cli.json("verify", "--dice")
    assert doc["ok"] is True and doc["dice_checked"] == expected and doc["sessions_revealed"] == 1
    assert f"{expected} dice checked in 1 revealed session" in cli.ok("verify", "--dice").stdout


def test_a_tampered_die_in_a_revealed_session_fails_verify_dice(cli: Cli, db: str):
    """docs/verifiable-dice.md, What it proves, and what it doesn't: a tampered die in a revealed session makes `verify
    --dice` exit 1, naming the roll."""
    committed_session(cli)
    cli.ok("session", "end")
    seq, _, d = next(x for x in dice(db) if x[2]["kind"] == "d20")
    read = ReadSide(parse_target(db))
    try:
        with read.engine.begin() as conn:
            state = bytes(
                conn.execute(
                    text(f"SELECT state FROM {read.events_table} WHERE {read.id_column} = :i"), {"i": seq}
                ).scalar_one()
            )
            forged = d["faces"][0] % 20 + 1
            state = state.replace(f'"faces":[{d["faces"][0]}]'.encode(), f'"faces":[{forged}]'.encode())
            conn.execute(
                text(f"UPDATE {read.events_table} SET state = :s WHERE {read.id_column} = :i"), {"s": state, "i": seq}
            )
    finally:
        read.close()
    r = cli("verify", "--dice")
    assert r.exit_code == 1
    assert (
        f"event {seq}" in r.stdout
        and f"roll 'roll' shows [{forged}] but the revealed secret gives [{d['faces'][0]}]" in r.stdout
    )


def test_an_exported_file_is_checked_by_anyone_and_a_tampered_one_fails(cli: Cli, tmp_path: Path):
    """docs/verifiable-dice.md, The scheme: the exported JSONL is enough to recompute the dice (no ledger needed); a
    changed die fails (exit 1)."""
    committed_session(cli)
    cli.ok("session", "end")
    path = tmp_path / "night.jsonl"
    cli.ok("export", "--format", "jsonl", "-o", str(path))
    nobody = Cli(str(tmp_path / "no-such.ledger"))
    doc = nobody.json("verify", "--dice", "--file", str(path))
    assert doc["ok"] is True and doc["dice_checked"] > 0
    lines = path.read_bytes().splitlines()
    at = next(i for i, ln in enumerate(lines) if b'"kind":"d20"' in ln and b"DiceRolled" in ln)
    d = orjson.loads(lines[at])["state"]["data"]
    forged = d["faces"][0] % 20 + 1
    lines[at] = lines[at].replace(f'"faces":[{d["faces"][0]}]'.encode(), f'"faces":[{forged}]'.encode())
    path.write_bytes(b"\n".join(lines) + b"\n")
    r = nobody("verify", "--dice", "--file", str(path))
    assert r.exit_code == 1 and "but the revealed secret gives" in r.stdout and "hash mismatch" in r.stdout


def test_a_session_without_commit_dice_rolls_as_before(cli: Cli, db: str):
    """docs/verifiable-dice.md, The scheme: without --commit-dice nothing changes: seeded dice, no commitment, nothing
    to check."""
    cli.ok("init", "--system", "hnh")
    cli.ok("session", "start")
    cli.ok("roll", "3dF")
    cli.ok("session", "end")
    assert [d["source"] for _, _, d in dice(db)] == ["seeded"] and "commitment" not in dice(db)[0][2]
    assert cli.json("verify", "--dice")["dice_checked"] == 0


def test_a_revealed_session_end_is_never_taken_back(cli: Cli, db: str):
    """docs/verifiable-dice.md, The scheme: once `session end` has revealed the secret, undoing or retracting it is
    refused in one line (exit 2, nothing appended): a reopened session would roll dice anyone can foresee."""
    committed_session(cli)
    end = cli.json("session", "end")["ruling"]
    before = len(raw_log(db))
    for args in (("undo",), ("retract", str(end), "--yes")):
        r = cli(*args)
        assert r.exit_code == 2, r.output
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "revealed its dice secret" in lines[0], r.stderr
        assert len(raw_log(db)) == before
    cli.ok("session", "start", "--commit-dice")  # the way on: a new commitment
    cli.ok("roll", "2d6")
    cli.ok("session", "end")
    doc = cli.json("verify", "--dice")
    assert doc["ok"] is True and doc["problems"] == []


def test_a_session_end_that_revealed_nothing_can_be_undone(cli: Cli):
    """CLI.md, undo: a session that committed no dice has no secret to protect; its end is undone like any ruling."""
    cli.ok("init", "--system", "hnh")
    cli.ok("session", "start")
    cli.ok("session", "end")
    assert cli.json("session", "show", "1")["ended"] is not None
    cli.ok("undo")
    assert cli.json("session", "show", "1")["ended"] is None


def test_a_lost_secret_refuses_ledger_rolls_but_takes_entered_dice(cli: Cli, db: str):
    """Errors: if the database lost the session's secret, a roll the ledger would make is one error line (exit 2),
    nothing appended."""
    committed_session(cli)
    read = ReadSide(parse_target(db))
    try:
        with read.engine.begin() as conn:
            conn.execute(text("DELETE FROM ledger_dice_secrets"))
    finally:
        read.close()
    before = len(raw_log(db))
    r = cli("roll", "1d20")
    assert (
        r.exit_code == 2
        and r.stderr.startswith("error: this session committed its dice")
        and len(raw_log(db)) == before
    )
    cli.ok("roll", "1d20", "--roll", "roll=12")
    assert "warning: this session's dice secret was lost" in cli.ok("session", "end").stdout  # it still ends
    r = cli("--json", "verify", "--dice")  # but a committed session that never revealed can't be trusted
    doc = orjson.loads(r.stdout)
    assert (
        r.exit_code == 1
        and doc["ok"] is False
        and any("ended without revealing its secret" in p["message"] for p in doc["problems"])
    )


@pytest.mark.parametrize("flag", ["--commit-dice", "--player-dice"])
def test_session_start_help_documents_the_flag(cli: Cli, flag: str):
    """CLI.md, second round: `session start --commit-dice` is documented in --help."""
    assert flag in cli.ok("session", "start", "--help").stdout


def test_dice_a_retraction_rolls_derive_from_the_secret_and_verify(cli: Cli, db: str):
    """docs/verifiable-dice.md: rolls a retraction makes (named N.NAME) derive from the secret with the session's
    counter."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "fighting=4")
    cli.ok("character", "add", "Bob", "--trait", "parry=4", "--trait", "toughness=2")
    cli.ok("session", "start", "--commit-dice")
    cli.ok("condition", "add", "Ann", "impaired")  # 5: the penalty that makes the attack miss
    cli.ok("attack", "Ann", "Bob", "--rank", "3", "--roll", "attack=0,0,0", "--roll", "defense=0,0,0")  # 6: a miss
    plan = cli.json("retract", "5", "--yes")  # 7: without the penalty it hits: power and toughness are rolled now
    assert {r["name"] for r in plan["new_rolls"]} == {"power", "toughness"}
    secret = bytes.fromhex(cli.json("session", "end")["revealed"])
    for r in plan["new_rolls"]:
        assert r["faces"] == list(derive_faces_v3(secret, r["counter"], f"6.{r['name']}", 3, -1, 1))
    doc = cli.json("verify", "--dice")
    assert doc["ok"] is True and doc["dice_checked"] == 6  # the two new 3dF rolls; the entered ones are not recomputed


def test_verify_file_without_dice_checks_the_chain(cli: Cli, tmp_path: Path):
    """verify --file: an export's hash chain is checked with no ledger; a changed line is a problem (exit 1)."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann")
    cli.ok("damage", "Ann", "--amount", "2")
    path = tmp_path / "x.jsonl"
    cli.ok("export", "--format", "jsonl", "-o", str(path))
    nobody = Cli(str(tmp_path / "none.ledger"))
    assert nobody.ok("verify", "--file", str(path)).stdout.startswith("ok: 3 rulings")
    path.write_bytes(path.read_bytes().replace(b'"amount":2', b'"amount":1'))
    r = nobody("verify", "--file", str(path))
    assert r.exit_code == 1 and "hash mismatch" in r.stdout


def test_an_expression_s_dice_derive_from_the_secret_die_by_die_and_verify(cli: Cli, db: str):
    """docs/verifiable-dice.md with the third round's notation: each die of an expression (a d20, a d4, a Fudge
    die, rerolls and explosions) derives from the secret by its place in the roll and its own size; verify checks
    every one."""
    committed_session(cli)
    out = cli.json("roll", "1d20+1d4+1dF+1d6e6")
    cli.ok("session", "end")
    rolled = out["roll"]  # type: ignore[index]
    assert rolled["sizes"][:2] == [20, 4] and rolled["commitment"]
    doc = cli.json("verify", "--dice")
    expected = sum(len(d["faces"]) for _, _, d in dice(db) if d["source"] != "entered")
    assert doc["ok"] is True and doc["dice_checked"] == expected
