"""What the GM types is what the ledger means: ASCII numbers only, names that print alike refused, no self-targeting,
traits bounded like the rolls that use them, empty texts refused (DESIGN.md, Errors and bad input)."""

from __future__ import annotations

import pytest

from tests.conftest import Cli, Recorded, event_count


def _record_table(cli: Cli) -> None:
    """An hnh campaign with Ann and Bob."""
    cli.ok("init", "--system", "hnh", "--name", "Bay City")
    cli.ok("character", "add", "Ann", "--trait", "agility=3", "--trait", "toughness=3", "--trait", "fighting=3")
    cli.ok("character", "add", "Bob", "--trait", "agility=2", "--trait", "toughness=2")


@pytest.fixture
def table(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_table records, recorded once and copied for this test."""
    return recorded(cli, _record_table)


def refused(cli: Cli, *args: str, says: str) -> None:
    """One `error:` line (and a hint), exit 2, nothing appended."""
    n = event_count(cli.db)
    r = cli(*args)
    assert r.exit_code == 2, (args, r.stdout, r.stderr)
    assert r.stderr.startswith("error: ") and says in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert event_count(cli.db) == n


@pytest.mark.parametrize(
    "args",
    [
        ("attack", "Ann", "Bob", "--rank", "٣٢"),  # Arabic-Indic 32
        ("attack", "Ann", "Bob", "--rank", "５"),  # fullwidth 5
        ("attack", "Ann", "Bob", "--rank", "1_0"),
        ("damage", "Bob", "--amount", "1_000"),
        ("character", "add", "Cy", "--trait", "agility=٥"),
        ("log", "-n", "٥٠٠٠٠٠٠"),
        ("roll", "1d６"),
        ("roll", "٣d6"),
        ("roll", "1d6", "--roll", "roll=٣"),
        ("gain", "Ann", "hero-points", "٣"),
        ("retract", "٣"),
    ],
)
def test_numbers_are_ascii_digits_with_an_optional_sign(table: Cli, args: tuple[str, ...]) -> None:
    """DESIGN.md, Errors and bad input: a number is ASCII digits with an optional sign; other scripts' digits,
    fullwidth digits and underscores are refused in one line, nothing appended."""
    refused(table, *args, says="")


def test_a_signed_ascii_number_still_works(table: Cli) -> None:
    """DESIGN.md, Errors and bad input: '+3' is still the number 3."""
    assert "HP 6 -> 3" in table.ok("damage", "Ann", "--amount", "+3").stdout


@pytest.mark.parametrize(
    "name,says",
    [
        ("Ann\u200b", "invisible character U+200B"),
        ("\u200dAnn", "invisible character U+200D"),
        ("An\u200en", "invisible character U+200E"),
        ("\u202eAnn", "control character"),
        ("\uff21nn", "looks just like the existing character 'Ann'"),  # fullwidth A
        ("\u0410nn", "looks just like the existing character 'Ann'"),  # Cyrillic A
        ("B\u03bfb", "looks just like the existing character 'Bob'"),  # Greek omicron
    ],
)
def test_names_that_print_alike_are_refused(table: Cli, name: str, says: str) -> None:
    """DESIGN.md, Errors and bad input: a name with invisible characters, or one printing like an existing name
    (Unicode TR39 confusable skeleton), is refused and the existing name suggested."""
    refused(table, "character", "add", name, "--trait", "agility=1", says=says)


def test_a_decomposed_accent_is_the_same_name(table: Cli) -> None:
    """DESIGN.md, Errors and bad input: names are NFC-normalised, so 'e' + combining acute is 'é'."""
    table.ok("character", "add", "Jos\u00e9", "--trait", "agility=1")
    refused(table, "character", "add", "Jose\u0301", "--trait", "agility=1", says="already a character")
    assert "takes 1 damage" in table.ok("damage", "Jose\u0301", "--amount", "1").stdout
    names = [c["name"] for c in table.json("character", "list")]  # type: ignore[index, union-attr]
    assert names.count("Jos\u00e9") == 1


def test_a_name_that_only_reads_alike_to_difflib_is_still_allowed(table: Cli) -> None:
    """DESIGN.md, Errors and bad input: only look-alike characters are refused, not a different name ('Anne')."""
    table.ok("character", "add", "Anne", "--trait", "agility=1")


@pytest.mark.parametrize(
    "args",
    [
        ("attack", "Ann", "Ann"),
        ("attack", "Ann", "ann"),
        ("act", "Ann", "grab", "--against", "Ann"),
        ("check", "Ann", "agility", "--against", "Ann", "agility"),
    ],
)
def test_no_character_targets_itself(table: Cli, args: tuple[str, ...]) -> None:
    """humans-and-heroes.txt, Actions, Grab ("You attempt to grab a target ... an opponent"): an attack, grab or
    opposed check names another character; the character itself is refused (docs/interpretations.md)."""
    refused(table, *args, says="themselves")


def test_traits_are_bounded_at_character_add_like_the_rolls_that_use_them(table: Cli) -> None:
    """DESIGN.md, Errors and bad input: a trait beyond the bound every roll of it uses (a roll's modifier) is
    refused at `character add`, not accepted and then refused at every roll."""
    refused(table, "character", "add", "Cy", "--trait", "agility=9007199254740991", says="can't be above")
    table.ok("character", "add", "Cy", "--trait", "agility=1000000")
    assert "agility check" in table.ok("check", "Cy", "agility", "--dc", "5").stdout


def test_a_pnp_trait_is_bounded_by_the_dice_a_pool_may_roll(cli: Cli) -> None:
    """prowlers-and-paragons.txt: traits are dice; a pool beyond the dice one roll may hold (100) is refused."""
    cli.ok("init", "--system", "pnp")
    refused(cli, "character", "add", "Cy", "--trait", "might=101", says="can't be above 100")


@pytest.mark.parametrize(
    "args",
    [
        ("recover", "Ann", "--cause", ""),
        ("session", "start", "   "),
        ("spend", "Ann", "hero-points", "--purpose", ""),
    ],
)
def test_empty_texts_are_refused(table: Cli, args: tuple[str, ...]) -> None:
    """DESIGN.md, Errors and bad input: a text given empty where one is required is refused."""
    refused(table, *args, says="")


def test_init_refuses_an_empty_name(cli: Cli) -> None:
    """CLI.md, init: `--name ""` is refused and no ledger is created."""
    r = cli("init", "--system", "hnh", "--name", "")
    assert r.exit_code == 2 and "empty" in r.stderr
