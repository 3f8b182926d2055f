"""Help, refusals and completion in the campaign's own system.

CLI.md, Additions agreed in the second round: `-o KEY=VALUE` keys and values are declared per rule system; so is
what `--help` shows: inside a campaign, only its system's options, traits and examples (every system's outside one).
A retired character is refused as retired (CLI.md, third round: `character retire NAME`, `character list --all`);
d20-supers.txt has no minion groups, and the refusal points at `--copies` (third round: `character add NAME
--copies N`). Completion offers names with spaces quoted, `--init` included, and a sheet's attacks first for
`--with` (hnh-site/gameplay.txt, Attack Check: an attack uses a power whose effect attacks).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from commands.complete import Completer
from commands.main import cli as ledger_cli
from tests.conftest import Cli

ONLY = {  # what a command's help says only in one system
    ("attack",): {"hnh": "--in-area", "d20": "two-weapon=off", "pnp": "Mara Goons"},
    ("character", "add"): {"hnh": "fighting dexterity", "d20": "str dex con", "pnp": "might perception"},
    ("condition", "add"): {"pnp": "--scene"},
}


@pytest.mark.parametrize("system", ["hnh", "d20", "pnp"])
def test_help_inside_a_campaign_shows_only_its_own_systems_options_traits_and_examples(
    tmp_path: Path, system: str
) -> None:
    """Each command's --help in a campaign of `system` says what only that system has, and nothing only another
    system has; the generic help never points at a CLI.md the repository doesn't hold."""
    cli = Cli(str(tmp_path / f"{system}.ledger"))
    cli.ok("init", "--system", system)
    for command, only in ONLY.items():
        text = cli.ok(*command, "--help").stdout
        for other, said in only.items():
            assert (said in text) == (other == system), (command, other, said)
        assert "CLI.md" not in text


def test_help_outside_a_campaign_shows_every_system(tmp_path: Path) -> None:
    """Outside a campaign (no ledger yet) every system's options, traits and examples are shown."""
    cli = Cli(str(tmp_path / "none.ledger"))
    for command, only in ONLY.items():
        text = cli.ok(*command, "--help").stdout
        assert all(said in text for said in only.values()), command


def test_a_retired_character_is_refused_as_retired(cli: Cli) -> None:
    """CLI.md, third round: `character retire NAME` keeps the history; a ruling naming them says they are retired."""
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Cy")
    cli.ok("character", "retire", "Cy")
    r = cli("damage", "Cy", "--amount", "1")
    assert r.exit_code == 2 and r.stderr.startswith("error: Cy is retired\n") and "list --all" in r.stderr
    r = cli("damage", "Cyy", "--amount", "1")
    assert "no character called 'Cyy'" in r.stderr


def test_the_d20_minion_refusal_suggests_copies(cli: Cli) -> None:
    """d20-supers.txt has no minion groups: `--minion` is refused, pointing at `--copies N` (NAME 1 .. NAME N)."""
    cli.ok("init", "--system", "d20")
    r = cli("character", "add", "Mooks", "--minion", "--count", "4")
    assert r.exit_code == 2 and "ledger character add 'Mooks' --copies 4" in r.stderr


def test_init_completes_names_with_spaces_quoted_with_their_equals() -> None:
    """docs/shell.md, completion: `--init` offers each participant named on the line, a name with a space quoted
    with its `=` so the value typed after it joins it (`'Big Bo='2` is `Big Bo=2`)."""
    completer = Completer(ledger_cli, lambda: ["Ann", "Big Bo", "Cy"], lambda: [])
    assert completer.candidates("encounter start Ann 'Big Bo' --init ", "") == ["Ann=", "'Big Bo='"]
    assert "'Big Bo='" in completer.candidates("encounter start Ann 'Big Bo' --roll ", "")


def test_with_offers_a_sheets_attacks_first() -> None:
    """hnh-site/gameplay.txt, Attack Check: `attack --with` offers the attacker's attack powers (Damage, Affliction)
    before senses, features and traits."""
    sheet = {
        "name": "Blaze",
        "traits": {"fighting": 4},
        "powers": {
            "darkvision": {"effect": "Senses", "rank": 2},
            "armor": {"effect": "Feature", "rank": 1},
            "blast": {"effect": "Damage", "rank": 8},
            "daze": {"effect": "Affliction", "rank": 6},
        },
    }
    completer = Completer(ledger_cli, lambda: ["Blaze", "Bob"], lambda: [], system=lambda: "hnh", sheet=lambda n: sheet)
    offered = completer.candidates("attack Blaze Bob --with ", "")
    assert offered[:2] == ["blast", "daze"] and offered.index("darkvision") > 1 and "fighting" in offered
