"""The README's first install, `pip install -e .` with no extras (README.md, Quickstart): every command works.

CI also runs tests/plain/check_plain_install.py in a second venv with the plain install only (`.ci/run`); these
tests run the same checks in the main suite, where the extras are installed: through click's CliRunner, and in a
subprocess that must not import any module of an extra on the way.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO
from tests.plain import check_plain_install as plain

SCRIPT = REPO / "tests" / "plain" / "check_plain_install.py"


def test_every_help_in_the_command_tree_exits_0_without_a_traceback() -> None:
    """README.md, Quickstart: `ledger --help` and every group's and sub-command's --help, the tree walked from the
    click group itself."""
    paths = plain.command_paths()
    assert ("encounter", "start") in paths and ("serve",) in paths and ("play",) in paths  # the walk sees the tree
    assert plain.walk(plain.in_process(), paths) == []


def test_a_short_fight_plays_through_the_session_shell_from_a_pipe(db: str) -> None:
    """README.md, Quickstart and A short tour (`ledger play`): init, two characters, an encounter, an attack, next,
    undo and the log, one command a line on stdin; exit 0."""
    assert plain.fight(plain.in_process(), db) == []


def test_the_help_and_the_shell_import_nothing_an_extra_provides(tmp_path) -> None:
    """README.md, Quickstart: building every --help and the session shell (piped, and its terminal prompt) loads no
    module of the serve or postgres extras (jinja2, markupsafe, starlette, uvicorn, psycopg)."""
    p = subprocess.run(
        [sys.executable, str(SCRIPT), "--modules"], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert p.returncode == 0, p.stderr[-3000:]
    assert "plain install: 0 problems" in p.stdout


def test_serve_and_a_postgres_url_without_their_extras_say_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """README.md, A short tour (`ledger serve`, a PostgreSQL URL): without the serve or postgres extra, one `error:`
    line naming the extra to install, exit 2 (here the extras' modules are made unimportable)."""
    for name in plain.EXTRAS:
        monkeypatch.setitem(sys.modules, name, None)  # `import name` raises ImportError; find_spec finds nothing
    assert plain.refusals(plain.in_process()) == []
