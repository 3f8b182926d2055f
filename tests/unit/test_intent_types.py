"""A recorded command's intent is typed by its catalog declaration (ledger/catalog.py): mypy rejects a bare dict, or
another command's intent, where the catalog names a TypedDict (ledger/intents.py)."""

from __future__ import annotations

import re
from pathlib import Path

from mypy import api

from tests.conftest import REPO

SNIPPET = """\
from __future__ import annotations

from ledger import catalog as C
from ledger.application import Ledger
from ledger.intents import NameIntent, RollIntent


def calls(led: Ledger, loose: dict[str, object]) -> None:
    fine: RollIntent = {"expr": "3dF"}
    led.record(C.ROLL, fine)
    led.record(C.ROLL, loose)  # line 11: a bare dict
    retire: NameIntent = {"name": "Ann"}
    led.record(C.ROLL, retire)  # line 13: another command's intent
    wrong: RollIntent = {"exp": "3dF"}  # line 14: a key the intent does not have
"""


def _errors(tmp_path: Path) -> dict[int, str]:
    path = tmp_path / "intent_calls.py"
    path.write_text(SNIPPET)
    out, _, _ = api.run(
        ["--config-file", str(REPO / "pyproject.toml"), "--cache-dir", str(REPO / ".mypy_cache"), str(path)]
    )
    found: dict[int, str] = {}
    for line in out.splitlines():
        # by the file's name: mypy's cache may name the module's file as an earlier run wrote it (another tmp_path)
        m = re.match(rf".*/{re.escape(path.name)}:(\d+): error: (.*)", line)
        if m:
            found[int(m[1])] = m[2]
    return found


def test_mypy_rejects_a_bare_dict_or_another_commands_intent_where_the_catalog_names_one(tmp_path: Path) -> None:
    """ledger/catalog.py: `Ledger.record(C.ROLL, intent)` takes only the RollIntent the catalog names for `roll`."""
    errors = _errors(tmp_path)
    assert sorted(errors) == [11, 13, 14], errors
