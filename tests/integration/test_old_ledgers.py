"""Ledgers written by the first release (../shared/fixtures/ledgers/) keep loading, verifying, undoing, exporting and
importing.

Each test works on a copy: a command that writes changes the file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from tests.conftest import SHARED, Cli

LEDGERS = SHARED / "fixtures" / "ledgers"
FILES = sorted(p.name for p in LEDGERS.glob("*.ledger"))
SHOWN = ("name", "hp", "max_hp", "conditions", "resources", "count")


@pytest.fixture(params=FILES)
def old(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Cli, str]:
    """A copy of one first-release ledger, and its name."""
    name = request.param
    shutil.copy(LEDGERS / name, tmp_path / name)
    return Cli(str(tmp_path / name)), name


def _shown(characters: object) -> list[dict[str, object]]:
    assert isinstance(characters, list)
    return [{k: c.get(k) for k in SHOWN} for c in characters]


def test_old_ledger_verifies(old: tuple[Cli, str]) -> None:
    """`verify` passes on a ledger the first release wrote (fixtures/ledgers/README.md)."""
    cli, _ = old
    r = cli("verify")
    assert r.exit_code == 0, r.stdout + r.stderr
    assert r.stdout.startswith("ok")


def test_old_ledger_shows_the_states_the_first_release_showed(old: tuple[Cli, str]) -> None:
    """`character list` shows each character as the first release did (name, HP, conditions, resources, count)."""
    cli, name = old
    expected = orjson.loads((LEDGERS / name.replace(".ledger", ".characters.json")).read_bytes())
    assert _shown(cli.json("character", "list")) == _shown(expected)


def test_old_ledger_undoes_redoes_and_still_verifies(old: tuple[Cli, str]) -> None:
    """Undo and redo append to an old ledger; the chain still verifies and redo brings back the same states."""
    cli, name = old
    before = _shown(cli.json("character", "list"))
    cli.ok("undo")
    cli.ok("redo")
    assert cli("verify").exit_code == 0
    assert _shown(cli.json("character", "list")) == before


def test_old_ledger_exports_and_reimports_exactly(old: tuple[Cli, str], tmp_path: Path) -> None:
    """An old ledger exports to JSONL and imports into an empty ledger that verifies and shows the same states."""
    cli, _ = old
    out = tmp_path / "out.jsonl"
    cli.ok("export", "--format", "jsonl", "-o", str(out))
    fresh = Cli(str(tmp_path / "fresh.ledger"))
    fresh.ok("import", str(out))
    assert fresh("verify").exit_code == 0
    assert _shown(fresh.json("character", "list")) == _shown(cli.json("character", "list"))
    for fmt in ("md", "html", "csv"):
        cli.ok("export", "--format", fmt, "-o", str(tmp_path / f"out.{fmt}"))


def test_first_release_jsonl_export_imports(tmp_path: Path) -> None:
    """The first release's JSONL export of hnh-campaign imports, verifies and shows that ledger's states."""
    fresh = Cli(str(tmp_path / "fresh.ledger"))
    fresh.ok("import", str(LEDGERS / "hnh-campaign.jsonl"))
    assert fresh("verify").exit_code == 0
    expected = orjson.loads((LEDGERS / "hnh-campaign.characters.json").read_bytes())
    assert _shown(fresh.json("character", "list")) == _shown(expected)


def test_old_ledger_log_reads_the_same_after_a_rebuild_keeps_data_by_reference(old: tuple[Cli, str]) -> None:
    """README.md, How it works (the log view keeps each event's data by reference): the first release's views hold every
    event's data inline; rebuilt views keep it by reference and read bookkeeping events from the log itself: `log --all`
    and `log` show exactly the same either way."""
    cli, _ = old
    views = [("log", "--all"), ("log",), ("log", "--all", "--session", "1"), ("log", "--session", "1")]
    inline = [cli.json(*v) for v in views]
    assert isinstance(inline[0], list) and [e["seq"] for e in inline[0]] == list(range(1, len(inline[0]) + 1))
    cli.ok("rebuild")
    assert [cli.json(*v) for v in views] == inline
