"""ledger/digest.py computes what hashlib and uuid compute (issue 17: a write does without hashlib's import).

The hash chain (docs/verify.md) and every aggregate id depend on these being exactly the standard digests.
"""

from __future__ import annotations

import hashlib
import uuid

from ledger import digest
from ledger.aggregates import CAMPAIGN_ID, NAMESPACE, character_id, ruling_id


def test_sha256_and_sha1_are_the_standard_digests():
    for data in (b"", b"ledger-chain/2\n" + b"0" * 64, bytes(range(256)) * 40):
        assert digest.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
        assert digest.sha1(data).digest() == hashlib.sha1(data).digest()
    h, g = digest.sha256(b"a"), hashlib.sha256(b"a")
    h.update(b"b")
    g.update(b"b")
    assert h.hexdigest() == g.hexdigest()


def test_uuid5_is_uuid_uuid5_so_ids_of_old_ledgers_still_match():
    for name in ("campaign", "encounter", "ruling/1", "character/ann/3", "character/zoë/12"):
        assert digest.uuid5(NAMESPACE, name) == uuid.uuid5(NAMESPACE, name)
    assert CAMPAIGN_ID == uuid.uuid5(NAMESPACE, "campaign")
    assert ruling_id(7) == uuid.uuid5(NAMESPACE, "ruling/7")
    assert character_id("ann", 2) == uuid.uuid5(NAMESPACE, "character/ann/2")
    assert digest.uuid5(NAMESPACE, "x").version == 5
