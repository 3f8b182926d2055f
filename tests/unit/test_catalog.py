"""The catalog (ledger/catalog.py) declares every command once, and everything else agrees with it.

A command missing from the catalog is never found by the CLI and never decided again by a retraction: each
test here fails on one such gap (a click command, a stored command name, a decider, a `Ledger` method, or a
rule system's declaration).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import click
import orjson
import pytest

from ledger import catalog
from ledger.application import Ledger
from ledger.rules import declarations, system_keys
from ledger.rulings.deciders.table import decider, decider_of
from tests.conftest import SHARED


def _click_tree() -> dict[str, click.Command]:
    from commands.main import cli

    cli.load_all()  # type: ignore[attr-defined]
    found: dict[str, click.Command] = {}

    def walk(group: click.Group, prefix: str) -> None:
        for name, cmd in group.commands.items():
            words = f"{prefix} {name}".strip()
            found[words] = cmd
            if isinstance(cmd, click.Group):
                walk(cmd, words)

    walk(cli, "")
    return found


def test_every_click_command_is_declared_and_every_declaration_is_a_click_command() -> None:
    """The CLI's command table is the catalog: nothing reachable that is not declared, nothing declared unreachable."""
    tree = _click_tree()
    assert set(tree) == {c.name for c in catalog.COMMANDS}
    for c in catalog.COMMANDS:
        assert isinstance(tree[c.name], click.Group) == c.group, c.name


def test_help_lists_every_top_level_command_without_importing_its_module() -> None:
    """`ledger --help` lists commands from the catalog alone (each module is imported when its command runs)."""
    from commands.main import cli

    names = cli.list_commands(click.Context(cli))
    assert names == catalog.top_level()


def _stored_commands(path: Path) -> set[str]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT state FROM stored_events WHERE topic = 'ledger.aggregates:Ruling.RulingRecorded'")
        return {orjson.loads(state)["command"] for (state,) in rows}
    finally:
        conn.close()


@pytest.mark.parametrize("path", sorted((SHARED / "fixtures" / "ledgers").glob("*.ledger")), ids=lambda p: p.name)
def test_every_command_stored_by_the_first_release_is_declared(path: Path) -> None:
    """Stored command names never change: each one in the first release's ledgers is a declared stored name."""
    stored = _stored_commands(path)
    assert stored, "the fixture holds rulings"
    assert stored <= set(catalog.STORED)


def test_every_replayable_stored_command_has_a_decider_that_resolves() -> None:
    """Re-derivation decides any recorded play ruling again: each stored name but the log's own has a decider."""
    from_the_log = {catalog.INIT.name, catalog.UNDO.name, catalog.REDO.name, catalog.RETRACT.name}
    for name, spec in catalog.STORED.items():
        if name in from_the_log:
            assert spec.decider is None
            continue
        assert spec.decider is not None, name
        assert callable(decider(spec)) and decider_of(name) is decider(spec)


def test_every_declared_ledger_method_exists() -> None:
    """Each command that records a ruling names the `Ledger` method that records it."""
    for spec in catalog.COMMANDS:
        if spec.stored is not None:
            assert spec.method is not None and callable(getattr(Ledger, spec.method)), spec.name


@pytest.mark.parametrize("system", system_keys())
def test_every_rule_system_declaration_names_a_declared_command(system: str) -> None:
    """A rule system's options and rolls are keyed by declared commands that take rules options."""
    mod = declarations(system)
    for command in (*mod.OPTIONS, *mod.ROLLS):
        spec = catalog.BY_NAME.get(command)
        assert spec is not None and spec.rules, f"{system} declares '{command}'"
    if getattr(mod, "ACTIONS", None):
        assert catalog.ACT.rules


def test_a_stored_name_belongs_to_one_command() -> None:
    """Two commands may record the same ruling (`character import` records `character add`), but each stored
    name has one declaration that owns it."""
    owners = [c for c in catalog.COMMANDS if c.stored is not None and c.stored == c.name]
    assert len({c.name for c in owners}) == len(owners)
    for c in catalog.COMMANDS:
        if c.stored is not None:
            assert c.stored in catalog.STORED, c.name


def test_a_sub_command_made_before_its_group_joins_it_when_the_group_loads() -> None:
    """`ledger log` then `ledger session show` in one shell: `session show` lives in the module `log` loads first,
    and is still found under `session` once the group's own module is imported."""
    import subprocess
    import sys

    code = (
        "import click\n"
        "from commands.main import cli\n"
        "ctx = click.Context(cli)\n"
        "cli.get_command(ctx, 'log')\n"
        "session = cli.get_command(ctx, 'session')\n"
        "assert isinstance(session, click.Group)\n"
        "print(sorted(session.commands))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['end', 'show', 'start']"
