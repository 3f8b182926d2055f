"""Verifiable dice, the pure part (ledger/audit/dice_proof.py): the derivation and the check of a log's committed
dice."""

from __future__ import annotations

import hashlib
from collections import Counter

from ledger.audit.dice_proof import check
from ledger.model.dice import DiceBox, DiceSpec, fudge
from ledger.model.dice_scheme import commit, derive, derive_faces, message

SECRET = bytes(range(32))
TOPIC = "ledger.aggregates:"


def hmac_sha256_by_hand(key: bytes, msg: bytes) -> bytes:
    """RFC 2104 spelled out with two SHA-256 passes: an independent statement of the scheme in
    docs/verifiable-dice.md."""
    key = key.ljust(64, b"\0")
    inner = hashlib.sha256(bytes(k ^ 0x36 for k in key) + msg).digest()
    return hashlib.sha256(bytes(k ^ 0x5C for k in key) + inner).digest()


def test_a_die_is_the_hmac_of_ruling_name_and_index_modulo_its_faces():
    """docs/verifiable-dice.md, The scheme: every die derives from HMAC(secret, ruling + roll name + index); the message
    is the JSON array."""
    assert message(7, "attack", 2) == b'[7,"attack",2]'
    for ruling, name, index, lo, hi in [
        (7, "attack", 0, -1, 1),
        (7, "attack", 2, -1, 1),
        (12, "damage", 0, 1, 8),
        (3, "Ann", 0, 1, 20),
    ]:
        value = int.from_bytes(hmac_sha256_by_hand(SECRET, f'[{ruling},"{name}",{index}]'.encode()), "big")
        assert derive(SECRET, ruling, name, index, lo, hi) == lo + value % (hi - lo + 1)


def test_the_commitment_is_the_secrets_sha256():
    """docs/verifiable-dice.md, The scheme: only the secret's SHA-256 is recorded at session start."""
    assert commit(SECRET) == hashlib.sha256(SECRET).hexdigest() and len(commit(SECRET)) == 64


def test_derived_faces_cover_every_face_evenly():
    """Fair dice: 6,000 derived d6 faces (a fixed secret, so the same every run) spread evenly over 1..6."""
    counts = Counter(derive(SECRET, 5, "pool", i, 1, 6) for i in range(6000))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert all(900 < c < 1100 for c in counts.values()), counts
    fudge_counts = Counter(derive(SECRET, 5, "attack", i, -1, 1) for i in range(3000))
    assert set(fudge_counts) == {-1, 0, 1} and all(900 < c < 1100 for c in fudge_counts.values())


def test_a_dice_box_with_a_commitment_derives_instead_of_rolling():
    """docs/verifiable-dice.md, The scheme: in a committed session the ledger's dice come from the secret (seed or not);
    entered dice stay entered."""
    box = DiceBox(entered={"defense": "+,+,+"}, seed=1, salt="4", ruling=4, commitment=commit(SECRET), secret=SECRET)
    attack = box.take("attack", fudge(2))
    assert attack.faces == derive_faces(SECRET, 4, "attack", 3, -1, 1) and attack.source == "rolled"
    assert attack.to_data()["commitment"] == commit(SECRET)
    defense = box.take("defense", fudge())
    assert defense.source == "entered" and "commitment" not in defense.to_data()
    plain = DiceBox(seed=1, salt="4").take("attack", DiceSpec("d20", 1, 20))
    assert "commitment" not in plain.to_data()


def log(
    faces: list[int], *, source: str = "rolled", commitment: str | None = None, secret: bytes | None = SECRET
) -> list:
    """A small decoded log: session 1 commits, ruling 3 rolls 3dF named attack, session end reveals."""
    c = commit(SECRET)
    die = {"name": "attack", "kind": "fudge", "sides": 3, "faces": faces, "source": source}
    if commitment is not None:
        die["commitment"] = commitment
    events = [
        (1, TOPIC + "Ruling.RulingRecorded", {"ruling": 2, "session": 1}),
        (2, TOPIC + "Campaign.DiceCommitted", {"ruling": 2, "number": 1, "commitment": c}),
        (3, TOPIC + "Ruling.RulingRecorded", {"ruling": 3, "session": 1}),
        (4, TOPIC + "Ruling.DiceRolled", {"ruling": 3, "data": die}),
        (5, TOPIC + "Ruling.RulingRecorded", {"ruling": 4, "session": 1}),
    ]
    if secret is not None:
        events.append(
            (6, TOPIC + "Campaign.DiceRevealed", {"ruling": 4, "number": 1, "commitment": c, "secret": secret.hex()})
        )
    return events


def test_a_faithful_log_checks_every_single_die():
    """docs/verifiable-dice.md, The scheme: verify --dice recomputes every rolled die of revealed sessions; dice_checked
    counts single dice."""
    right = list(derive_faces(SECRET, 3, "attack", 3, -1, 1))
    result = check(log(right, commitment=commit(SECRET)))
    assert result.problems == [] and (result.dice_checked, result.sessions_revealed) == (3, 1)


def test_a_forged_die_fails_even_in_a_log_rewritten_consistently():
    """docs/verifiable-dice.md, What it proves, and what it doesn't: a tampered die in a revealed session fails,
    whatever else the forger rewrote."""
    right = list(derive_faces(SECRET, 3, "attack", 3, -1, 1))
    forged = [1, 1, 1] if right != [1, 1, 1] else [-1, -1, -1]
    result = check(log(forged, commitment=commit(SECRET)))
    assert (
        len(result.problems) == 1
        and result.problems[0].seq == 4
        and "revealed secret gives" in result.problems[0].message
    )


def test_a_rolled_die_stripped_of_its_commitment_fails():
    """docs/verifiable-dice.md, The scheme: in a committed session every ledger-rolled die must derive from the
    secret."""
    result = check(log([1, 0, -1]))
    assert len(result.problems) == 1 and "carries no commitment" in result.problems[0].message


def test_entered_dice_are_not_recomputed():
    """docs/verifiable-dice.md, The scheme: entered dice stay entered: nothing to recompute, nothing counted."""
    result = check(log([1, 1, 1], source="entered"))
    assert result.problems == [] and result.dice_checked == 0


def test_a_wrong_revealed_secret_fails_and_unrevealed_dice_wait():
    """docs/verifiable-dice.md, The scheme: the revealed secret must match the commitment; dice of a session not yet
    revealed are not checked yet."""
    bad = check(log([1, 0, -1], commitment=commit(SECRET), secret=b"x" * 32))
    assert any("does not match its commitment" in p.message for p in bad.problems)
    waiting = check(log([1, 0, -1], commitment=commit(SECRET), secret=None))
    assert waiting.problems == [] and (waiting.dice_checked, waiting.dice_unrevealed) == (0, 3)
