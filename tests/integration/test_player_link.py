"""Where a player's page link points (docs/serve.md, "Players roll their own dice"): `player link` uses the address
and port the running `ledger serve` listens on, `--base` overrides it, and a link only this machine can open is
printed with a one-line warning naming `serve --host`."""

from __future__ import annotations

from tests.conftest import Cli
from tests.players import table
from tests.serving import ledger, serving


def test_the_link_follows_the_running_servers_port_and_warns_about_localhost(cli: Cli, db: str):
    """docs/serve.md: with `serve --port P` running on loopback, the link is http://localhost:P/p/TOKEN, and stderr
    has one line saying a phone can't open it, naming `ledger serve --host`; once the server stops, the link falls
    back to serve's defaults."""
    table(cli)
    with serving(db) as server:
        r = ledger(db, "player", "link", "Ann")
        assert r.stdout.startswith(f"Ann's page: http://localhost:{server.port}/p/"), r.stdout
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("warning: a phone can't open"), r.stderr
        assert "ledger serve --host" in lines[0]
    after = ledger(db, "player", "link", "Ann")
    assert after.stdout.startswith("Ann's page: http://localhost:8080/p/"), after.stdout


def test_a_server_on_every_interface_links_the_machines_network_address(cli: Cli, db: str):
    """docs/serve.md: `serve --host 0.0.0.0` is reached at this machine's address on the network: the link names
    that address (never 0.0.0.0 or localhost) and prints no warning, unless the machine has no network at all."""
    table(cli)
    with serving(db, "--host", "0.0.0.0") as server:
        r = ledger(db, "player", "link", "Ann")
    url = r.stdout.split("Ann's page: ", 1)[1].split()[0]
    assert f":{server.port}/p/" in url
    if "0.0.0.0" in url:  # no route off this machine: the one case the link can't name a reachable address
        assert "ledger serve --host" in r.stderr
    else:
        assert "localhost" not in url and "127.0.0.1" not in url and r.stderr == "", (url, r.stderr)


def test_base_overrides_the_recorded_address_and_bad_bases_are_refused(cli: Cli, db: str):
    """CLI.md, player link: `--base URL` wins over where serve listens; an address that is no http(s) URL of a
    server is one line on stderr, exit 2, and no link is made (the old one still works)."""
    table(cli)
    with serving(db):
        doc = cli.json("player", "link", "Ann", "--base", "http://192.168.1.20:9000/")
        assert doc["url"].startswith("http://192.168.1.20:9000/p/")  # type: ignore[index]
    for bad in ("ftp://192.168.1.20/", "192.168.1.20:9000", "http://:9000/", "http://host:99999/"):
        r = cli("player", "link", "Ann", "--base", bad)
        assert r.exit_code == 2 and r.stderr.startswith("error: --base"), (bad, r.stderr)
