"""Read models are data the ledger checks before showing it: an edited or unparsable row is never shown; the reader
answers from a fresh fold of the log instead (DESIGN.md, layout: projections "rebuildable from zero")."""

from __future__ import annotations

import pytest

from tests.conftest import Cli, Recorded
from tests.integration.test_trust_record import sql


def _record_played(cli: Cli) -> None:
    """A session titled "The heist", a damage ruling undone (retracted by ruling 6), Ann at HP 4/6."""
    cli.ok("init", "--system", "hnh", "--name", "Bay City")
    cli.ok("character", "add", "Ann", "--trait", "agility=3", "--pc")
    cli.ok("session", "start", "The heist")
    cli.ok("damage", "Ann", "--amount", "2")
    cli.ok("damage", "Ann", "--amount", "1")
    cli.ok("undo")


@pytest.fixture
def played(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_played records, recorded once and copied for this test."""
    return recorded(cli, _record_played)


def shown(cli: Cli) -> dict[str, str]:
    """What the read commands print, by command."""
    return {
        "show": cli.ok("--json", "character", "show", "Ann").stdout,
        "list": cli.ok("--json", "character", "list").stdout,
        "log": cli.ok("log").stdout,
        "session": cli.ok("session", "show", "1").stdout,
        "md": cli.ok("export", "--format", "md").stdout,
        "csv": cli.ok("export", "--format", "csv").stdout,
    }


FORGERIES = [
    ("UPDATE ledger_sheets SET sheet = '{'", "a row can't be read"),
    ("UPDATE ledger_sheets SET hp = 99", "differs"),
    ("UPDATE ledger_sessions SET title = 'FORGED'", "ledger_sessions"),
    ("UPDATE ledger_rulings SET retracted_by = NULL", "retracted_by"),
    ("UPDATE ledger_rulings SET retracted_by = 3 WHERE number = 2", "retracted_by"),
    ("UPDATE ledger_rulings SET retracted_actor = 'mallory' WHERE retracted_by IS NOT NULL", "retraction"),
    ("DELETE FROM ledger_rulings WHERE number = 3", "ledger_rulings"),
    ("UPDATE ledger_log SET type = 'CharacterRevived' WHERE type = 'DamageApplied'", "ledger_log"),
    ("UPDATE ledger_log SET data = '{\"amount\": 99}' WHERE type = 'DamageApplied'", "ledger_log"),
    ("DELETE FROM ledger_log WHERE type = 'DamageApplied'", "ledger_log"),
]


@pytest.mark.parametrize("statement,says", FORGERIES)
def test_a_forged_read_model_is_never_shown(played: Cli, statement: str, says: str) -> None:
    """DESIGN.md, layout (projections rebuildable from zero) and CLI.md, log ("retracted rulings are marked with who
    retracted them"): after a read-model row is edited, every read command prints exactly what it printed before,
    folded from the log, with one note naming `ledger rebuild`; verify reports the edit (exit 1)."""
    before = shown(played)
    if "://" in played.db and "sheet = '{'" in statement:
        statement = "UPDATE ledger_sheets SET sheet = '{\"name\": 1}'"  # PostgreSQL's JSON column refuses '{'
        says = "differs"  # a sheet of another shape
    sql(played.db, statement)
    r = played("log")  # shows every table edited here: each is checked before it is shown
    assert r.exit_code == 0 and "run: ledger rebuild" in r.stderr and "Traceback" not in r.stderr
    assert says in r.stderr
    assert shown(played) == before
    assert played("verify").exit_code == 1
    played.ok("rebuild")
    for args in (("log",), ("character", "show", "Ann"), ("session", "show", "1"), ("export", "--format", "md")):
        assert "note:" not in played.ok(*args).stderr, args  # rebuild cleared what the note named


def test_an_untouched_ledger_shows_no_note(played: Cli) -> None:
    """DESIGN.md, layout: read models that agree with the log are shown as they are, without a note."""
    for args in (("log",), ("character", "list"), ("session", "show", "1"), ("export", "--format", "md")):
        assert "note:" not in played.ok(*args).stderr


def test_serve_answers_a_damaged_read_model_with_the_page_from_the_log(played: Cli) -> None:
    """CLI.md, serve (the players' screen): a sheet row that doesn't parse no longer makes every request a 500; the
    page is built from a fresh fold of the log and shows the true HP."""
    from tests.serving import serving

    played.ok("character", "list")  # the views are folded by the first read
    sql(played.db, "UPDATE ledger_sheets SET hp = 99, sheet = '{\"name\": 1}'")
    with serving(played.db) as server:
        status, html = server.get("/")
    assert status == 200 and "Ann" in html and "4/6" in html and "99/6" not in html and "HP 99" not in html


def _forge_hp(db: str) -> None:
    """Ann's sheet row says HP 99, in its column and in its JSON (each backend's own JSON function)."""
    if "://" in db:
        sql(db, "UPDATE ledger_sheets SET hp = 99, sheet = jsonb_set(sheet::jsonb, '{hp}', '99')::json")
    else:
        sql(db, "UPDATE ledger_sheets SET hp = 99, sheet = json_set(sheet, '$.hp', 99)")


def test_serve_never_shows_a_row_forged_while_it_runs(played: Cli) -> None:
    """DESIGN.md, layout (projections rebuildable from zero): a sheet row edited while `serve` runs, with no ruling
    after it (the log's head does not move), is refused as the one-shot readers refuse it: `/`, the GM's view and
    the hero's page show the HP the log gives, never the edited one."""
    from tests.serving import serving

    url = played.json("player", "link", "Ann")["url"]  # type: ignore[index]
    page = "/p/" + str(url).rsplit("/p/", 1)[1]
    with serving(played.db, "--gm-token", "s3cret") as server:
        assert "4/6" in server.get("/")[1]
        _forge_hp(played.db)
        for path in ("/", "/?gm=s3cret", page):
            status, html = server.get(path)
            assert status == 200 and "4/6" in html and "99/6" not in html and "HP 99" not in html, path
