"""`ledger serve` over plain HTTP against a real server process: what players see, what stays hidden, no writes, live
pushes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import Cli, event_count
from tests.serving import EventStream, ledger, serving


def fight(cli: Cli) -> None:
    """An hnh fight: a hero, a hurt NPC, a minion group."""
    cli.ok("init", "--system", "hnh", "--name", "Night <Watch>")
    cli.ok("character", "add", "Ann", "--trait", "agility=2", "--pc")
    cli.ok("character", "add", "Bob")
    cli.ok("character", "add", "Thugs", "--minion", "--count", "3")
    cli.ok(
        "encounter",
        "start",
        "Ann",
        "Bob",
        "Thugs",
        "--roll",
        "Ann=0,0,0",
        "--roll",
        "Bob=0,0,0",
        "--roll",
        "Thugs=-,-,-",
    )
    cli.ok("damage", "Bob", "--amount", "2")
    cli.ok("damage", "Ann", "--amount", "1")


def fighter(html: str, name: str) -> str:
    """The tracker entry of one participant."""
    m = re.search(rf'<li class="fighter[^"]*" data-name="{name}".*?</li>\s*(?=<li class="fighter|</ol>)', html, re.S)
    assert m, f"{name} is not on the page"
    return m.group(0)


def test_the_page_shows_the_tracker_with_npc_hp_as_a_word(cli: Cli, db: str):
    """docs/serve.md, What players see, and what stays hidden: order, who is up, round, HP bars for heroes; NPC HP as a
    word (unhurt, hurt, bloodied, down)."""
    fight(cli)
    with serving(db) as server:
        status, html = server.get("/")
    assert status == 200
    assert "Night &lt;Watch&gt;" in html and "<Watch>" not in html  # autoescaped
    assert 'Round <span class="round">1</span>' in html and '<span class="up-name">Ann</span> is up' in html
    ann, bob, thugs = fighter(html, "Ann"), fighter(html, "Bob"), fighter(html, "Thugs")
    assert 'aria-current="true"' in ann and "5/6" in ann and 'aria-valuenow="5"' in ann
    assert ">hurt<" in bob and "4/6" not in bob and 'role="meter"' not in bob
    assert "×3" in thugs and ">unhurt<" in thugs
    rulings = html[html.index('id="rulings"') :]
    bob_said = [ln for ln in rulings.splitlines() if "Bob takes" in ln]
    assert bob_said and all("Bob takes damage" in ln and "4" not in ln for ln in bob_said)  # the sentences hide it too
    assert re.search(r"Ann takes 1 damage.*5", rulings)
    assert "<figcaption>Ann: HP 5/6</figcaption><svg" in html  # the hero's chart


@pytest.mark.parametrize("option", ["Bob", "all"])
def test_the_gm_opts_in_to_show_npc_hp(cli: Cli, db: str, option: str):
    """docs/serve.md, What players see, and what stays hidden: NPC HP shown as numbers when the GM opts in per character
    (--show-hp NAME) or for all."""
    fight(cli)
    with serving(db, "--show-hp", option) as server:
        html = server.get("/")[1]
    assert "4/6" in fighter(html, "Bob") and re.search(r"Bob takes 2 damage.*HP.*4", html)


def test_the_gm_view_needs_the_token_and_shows_everything(cli: Cli, db: str):
    """docs/serve.md, What players see, and what stays hidden: a GM mode behind a token shows everything; a wrong token
    is refused."""
    fight(cli)
    with serving(db, "--gm-token", "s3cret") as server:
        assert server.get("/?gm=wrong")[0] == 403
        assert server.get("/events?gm=wrong")[0] == 403
        status, html = server.get("/?gm=s3cret")
    assert status == 200 and "GM view" in html and "4/6" in fighter(html, "Bob")
    assert 'data-events="/events?gm=s3cret"' in html


def test_without_a_gm_token_there_is_no_gm_view(cli: Cli, db: str):
    """docs/serve.md, What players see, and what stays hidden: with no --gm-token, no token opens the GM view."""
    fight(cli)
    with serving(db) as server:
        assert server.get("/?gm=")[0] == 403 and server.get("/?gm=x")[0] == 403


def test_the_pnp_adversity_pool_is_never_shown_to_players(cli: Cli, db: str):
    """docs/serve.md, What players see, and what stays hidden; prowlers-and-paragons.txt, Adversity: the GM's pool is
    hidden from players, shown in the GM view."""
    cli.ok("init", "--system", "pnp")
    cli.ok("character", "add", "Mara", "--trait", "perception=3", "--trait", "agility=4", "--pc")
    cli.ok("session", "start")  # gives the GM 1 Adversity per hero, on the hidden GM sheet
    cli.ok("gain", "GM", "adversity", "3")
    with serving(db, "--gm-token", "t") as server:
        players = server.get("/")[1]
        gm = server.get("/?gm=t")[1]
    assert "adversity" not in players.casefold() and 'data-name="GM"' not in players
    assert "The GM makes a ruling behind the screen." in players
    assert "Behind the screen" in gm and "adversity 4" in gm


def test_no_endpoint_writes(cli: Cli, db: str):
    """docs/serve.md, Read-only and local by default: read-only: every route refuses every writing method, and serving
    appends nothing."""
    fight(cli)
    before = event_count(db)
    with serving(db, "--gm-token", "t") as server:
        for path in ("/", "/events", "/screen.js", "/?gm=t"):
            for method in ("POST", "PUT", "PATCH", "DELETE"):
                assert server.get(path, method)[0] == 405, (path, method)
        assert server.get("/nothing-here")[0] == 404
        assert server.get("/")[0] == 200
    assert event_count(db) == before


def test_the_server_listens_on_loopback_unless_told(cli: Cli, db: str):
    """docs/serve.md, Read-only and local by default: bound to loopback unless --host says otherwise (read from the
    kernel's socket table)."""
    fight(cli)
    with serving(db) as server:
        listening = [ln.split() for ln in Path("/proc/net/tcp").read_text().splitlines()[1:] if ln.split()[3] == "0A"]
        mine = [local for _, local, *_ in listening if int(local.split(":")[1], 16) == server.port]
    assert mine == ["0100007F:" + format(server.port, "04X")]


def test_the_page_follows_a_command_from_another_process(cli: Cli, db: str):
    """docs/serve.md, Live updates: the server pushes the new page (SSE) after any writer's command, without a
    reload."""
    fight(cli)
    with serving(db) as server:
        stream = EventStream(server, "/events")
        try:
            first_id, first = stream.next()
            assert "5/6" in fighter(first, "Ann")
            ledger(db, "damage", "Ann", "--amount", "2")  # a one-shot writer in its own process
            ident, data = stream.until("3/6")
            assert int(ident) > int(first_id) and "3/6" in fighter(data, "Ann")
            ledger(db, "encounter", "next")
            assert '<span class="up-name">Bob</span>' in stream.until("Bob</span> is up")[1]
        finally:
            stream.close()


def test_serve_on_an_empty_folder_is_one_error_line(tmp_path: Path):
    """Errors: serving a ledger that doesn't exist is one error line, exit 2."""
    cli = Cli(str(tmp_path / "none.ledger"))
    r = cli("serve", "--port", "0")
    assert r.exit_code == 2 and r.stderr.startswith("error: no campaign")


def test_the_page_shows_the_sessions_dice_commitment(cli: Cli, db: str):
    """docs/verifiable-dice.md, The scheme; docs/serve.md, What players see, and what stays hidden: players can note the
    open session's dice commitment on the screen."""
    fight(cli)
    out = cli.ok("session", "start", "--commit-dice").stdout
    commitment = out.strip().rsplit(" ", 1)[1]
    with serving(db) as server:
        html = server.get("/")[1]
    assert f'<code aria-label="SHA-256 commitment">{commitment}</code>' in html


def test_host_moves_the_server_off_the_default_address(cli: Cli, db: str):
    """docs/serve.md, Read-only and local by default: `--host` says where to listen (here another loopback address,
    127.0.0.2)."""
    fight(cli)
    with serving(db, "--host", "127.0.0.2") as server:
        listening = [ln.split() for ln in Path("/proc/net/tcp").read_text().splitlines()[1:] if ln.split()[3] == "0A"]
        mine = [local for _, local, *_ in listening if int(local.split(":")[1], 16) == server.port]
    assert mine == ["0200007F:" + format(server.port, "04X")]


def test_the_page_shows_notes_escaped_and_no_round_after_the_end(cli: Cli, db: str):
    """Encounter lifecycle and notes on the players' screen: after `encounter end` no round and no one up (the roster
    instead); a ruling's `--note` shows beside its sentence, escaped; a duration shows what is left (`dazed 1`)."""
    fight(cli)
    cli.ok("condition", "add", "Bob", "dazed", "--rounds", "1", "--note", "a <b>bright</b> flash")
    with serving(db) as server:
        html = server.get("/")[1]
        assert "dazed 1" in fighter(html, "Bob")
        rulings = html[html.index('id="rulings"') :]
        assert "a &lt;b&gt;bright&lt;/b&gt; flash" in rulings and "<b>bright" not in rulings
    cli.ok("encounter", "end")
    with serving(db) as server:
        html = server.get("/")[1]
    assert '<span class="up-name">' not in html and '<span class="round">' not in html and "aria-current" not in html
    assert 'data-name="Ann"' in html.split('id="rulings"')[0]  # the roster instead


def test_the_page_shows_special_effects_pages_and_aims_as_durations(cli: Cli, db: str, tmp_path: Path):
    """prowlers-and-paragons.txt, Combat, Attacks ("last 1 page for every 2 net successes"), and gameplay.txt, Aim:
    the players' screen shows what is left of a stun (`stunned 2`) and of an aim (`aim until end of Ann`) as it shows
    the GM's durations."""
    cli.ok("init", "--system", "pnp")
    cli.ok("character", "add", "Mara", "--trait", "might=4", "--trait", "agility=3", "--trait", "toughness=4", "--pc")
    cli.ok("character", "add", "Boss", "--trait", "might=3", "--trait", "toughness=3", "--trait", "agility=2")
    cli.ok("encounter", "start", "Mara", "Boss")
    stun = ("--with", "might", "--effect", "stun", "--roll", "attack=6,6,1,1", "--roll", "defense=1,1")
    cli.ok("attack", "Mara", "Boss", *stun)
    with serving(db) as server:
        assert "stunned 2" in fighter(server.get("/")[1], "Boss")
    other = str(tmp_path / "hnh.ledger")
    h = Cli(other)
    h.ok("init", "--system", "hnh")
    h.ok("character", "add", "Ann", "--pc")
    h.ok("character", "add", "Bob")
    h.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=5", "--init", "Bob=3")
    h.ok("act", "Ann", "aim")
    with serving(other) as server:
        assert "aim until end of Ann" in fighter(server.get("/")[1], "Ann")


def test_the_page_says_when_every_foe_is_down(cli: Cli, db: str):
    """d20-supers.txt, Damage: a character below 0 Hitpoints is dying and takes no actions; the ruling that leaves
    every foe so says it on the players' screen too (the recorded sentence)."""
    cli.ok("init", "--system", "d20")
    cli.ok("character", "add", "Ann", "--trait", "hp=10", "--pc")
    cli.ok("character", "add", "Vil", "--trait", "hp=10")
    cli.ok("encounter", "start", "Ann", "Vil", "--init", "Ann=20", "--init", "Vil=10")
    cli.ok("damage", "Vil", "--amount", "12")
    with serving(db) as server:
        html = server.get("/")[1]
    assert "every foe is down" in html[html.index('id="rulings"') :]


def test_the_odds_are_the_gms_toggle_off_by_default_and_never_a_players(cli: Cli, db: str):
    """docs/odds.md and docs/serve.md: the GM's view can show the quick forecast (a toggle, off by default); the
    players' page never shows it, whatever its query says."""
    cli.ok("init", "--system", "hnh", "--name", "Short fight")  # one that ends in a round or two: a quick forecast
    cli.ok("character", "add", "Ann", "--trait", "fighting=9", "--trait", "strength=9", "--pc")
    cli.ok("character", "add", "Bob", "--trait", "toughness=0", "--trait", "parry=0")
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=9", "--init", "Bob=1")
    with serving(db, "--gm-token", "s3cret") as server:
        plain = server.get("/?gm=s3cret")[1]
        assert 'id="odds"' not in plain and 'href="/?gm=s3cret&amp;odds=1"' in plain and "Show the odds" in plain
        status, html = server.get("/?gm=s3cret&odds=1")
        assert status == 200
        assert re.search(r'id="odds">odds \(2,000 trials, seed \d+\): heroes \d+%, foes \d+%', html)
        assert 'data-events="/events?gm=s3cret&amp;odds=1"' in html and "Hide the odds" in html
        players = server.get("/?odds=1")[1]
        assert 'id="odds"' not in players and "the odds" not in players
        assert server.get("/?gm=wrong&odds=1")[0] == 403
