"""Two real processes writing one ledger at once (DESIGN.md, The ruling: the Campaign is the serialisation point)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from ledger.application import Ledger
from ledger.audit.chain import verify

WRITER = textwrap.dedent(
    """
    import sys
    from ledger.application import Ledger
    led = Ledger(sys.argv[1], actor=sys.argv[2])
    for i in range(int(sys.argv[3])):
        if i % 2:
            led.damage("Ann", 1)
        else:
            led.roll("1d20", for_name="Ann")
    led.close()
    """
)


def test_two_processes_at_once_lose_and_duplicate_nothing(db):
    """DESIGN.md, The ruling: the unit of play, of audit and of undo (two writers conflict on the campaign's version):
    both succeed (reload and retry on a version conflict); the chain still verifies."""
    led = Ledger(db, actor="gm")
    led.init("d20")
    led.add_character("Ann", {"hp": "1000"})
    n = 30
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, db, who, str(n)], stderr=subprocess.PIPE, text=True)
        for who in ("alice", "bob")
    ]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    camp = led.campaign()
    assert camp.rulings == 2 + 2 * n
    problems, counts = verify(led.store.recorder)
    assert problems == [] and counts["rulings"] == 2 + 2 * n
    assert led.sheet("Ann").hp == 1000 - n  # every damage ruling of both writers applied once
    led.close()
