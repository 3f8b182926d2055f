"""`ledger serve` built carefully: URLs encoded, --host checked and warned about, a clean stop (CLI.md, serve)."""

from __future__ import annotations

import html as htmllib
import re
import signal
import subprocess
import sys
import time
import urllib.parse

import pytest

from tests.conftest import REPO, Cli, Recorded
from tests.serving import EventStream, serving


def _record_campaign(cli: Cli) -> None:
    """An hnh campaign with one hero."""
    cli.ok("init", "--system", "hnh", "--name", "Bay City")
    cli.ok("character", "add", "Ann", "--trait", "agility=2", "--pc")


@pytest.fixture
def campaign(cli: Cli, recorded: Recorded) -> Cli:
    """What _record_campaign records, recorded once and copied for this test."""
    return recorded(cli, _record_campaign)


@pytest.mark.parametrize("token", ["a&b", "a#b", "a+b", "100%", "x y/?=&#+%"])
def test_the_gm_view_streams_with_any_token(campaign: Cli, token: str) -> None:
    """CLI.md, serve (--gm-token T: /?gm=T shows everything, live): the page's stream URL carries the token encoded,
    so a token with &, #, + or % still opens the GM's live stream (not 403)."""
    with serving(campaign.db, "--gm-token", token) as server:
        status, page = server.get("/?gm=" + urllib.parse.quote(token, safe=""))
        assert status == 200
        found = re.search(r'data-events="([^"]*)"', page)
        assert found
        url = htmllib.unescape(found.group(1))
        assert urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["gm"] == [token]
        stream = EventStream(server, url.lstrip("/"))
        assert stream.next()[1]  # the GM's page arrives on the stream
        stream.response.close()


@pytest.mark.parametrize("host", ["", "   ", "0", "999.1.1.1", "a b", "-lan"])
def test_host_must_be_an_address_or_a_name(campaign: Cli, host: str) -> None:
    """CLI.md, serve --host: an IP address or a host name; '' or '0' would listen on every interface: refused."""
    r = campaign("serve", "--host", host, "--port", "1")
    assert r.exit_code == 2 and r.stderr.startswith("error: --host") and "Traceback" not in r.stderr


def test_a_non_loopback_host_is_warned_about(campaign: Cli) -> None:
    """CLI.md, serve --host ("anything but loopback lets other machines in"): said on stderr when it starts."""
    with serving(campaign.db, "--host", "0.0.0.0") as server:
        assert server.get("/")[0] == 200
        proc = server.proc
    err = proc.stderr.read() if proc.stderr else ""
    assert "warning: --host 0.0.0.0 is not a loopback address" in err


def test_a_loopback_host_has_no_warning(campaign: Cli) -> None:
    """CLI.md, serve: the default loopback address starts without a warning."""
    with serving(campaign.db) as server:
        proc = server.proc
    assert "warning" not in (proc.stderr.read() if proc.stderr else "")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_stopping_with_open_streams_prints_no_traceback(campaign: Cli, sig: int) -> None:
    """CLI.md, serve ("press Ctrl+C to stop"): with 50 streams open, Ctrl+C or SIGTERM stops the server within
    seconds, each stream ended cleanly, nothing but the start lines printed."""
    with serving(campaign.db) as server:
        streams = [EventStream(server, "events") for _ in range(50)]
        for s in streams:
            s.next()
        server.proc.send_signal(sig)
        deadline = time.monotonic() + 20
        while server.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert server.proc.poll() is not None, "the server did not stop"
        err = server.proc.stderr.read() if server.proc.stderr else ""
        for s in streams:
            s.response.close()
    assert "Traceback" not in err and "Error" not in err, err


def test_serve_help_still_lists_host(campaign: Cli) -> None:
    """CLI.md, serve: --host stays an option with its default."""
    out = subprocess.run(
        [sys.executable, "-m", "commands", "serve", "--help"], capture_output=True, text=True, cwd=REPO, timeout=60
    ).stdout
    assert "--host" in out and "127.0.0.1" in out
