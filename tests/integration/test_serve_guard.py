"""`ledger serve` under attack, over real HTTP against a server process (docs/serve.md, "Under attack";
commands/guard.py): the Host header, memory whatever tokens are tried, deadlines for headers and bodies, and the
answer rate counting only accepted answers. The web server is the same whatever the ledger's backend: SQLite only."""

from __future__ import annotations

import http.client
import secrets
import socket
import time

import pytest

from commands.guard import HEADER_SECONDS
from tests.conftest import Cli, figures_seen
from tests.players import SEED, asked, finish, post, table, waiting
from tests.serving import Server, serving

ATTACK = ("attack", "Ann", "Bob", "--rank", "3", "--roll", "power=0,0,0")
FIGURES: dict[str, object] = {}  # test_guard_figures prints them (`-s`); one xdist worker
pytestmark = pytest.mark.xdist_group("serve-guard")


def get(server: Server, path: str, host: str | None) -> int:
    """A GET with the Host header given (None: the server's own address)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
    try:
        conn.putrequest("GET", path, skip_host=True)
        conn.putheader("Host", host if host is not None else f"127.0.0.1:{server.port}")
        conn.endheaders()
        return conn.getresponse().status
    finally:
        conn.close()


def rss_kb(pid: int) -> int:
    """The server process's resident memory (Linux /proc)."""
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def test_a_foreign_host_header_is_refused(sqlite_db: str):
    """DNS rebinding: a page on another site whose name now points at this server sends its own name as Host; the
    server answers only to its own address (IP literals, localhost, `--host`'s name) and port, with 421 otherwise."""
    cli, db = Cli(sqlite_db), sqlite_db
    paths = table(cli)
    with serving(db) as server:
        port = server.port
        for host, want in (
            (None, 200),
            (f"localhost:{port}", 200),
            (f"[::1]:{port}", 200),
            ("127.0.0.1", 200),
            (f"evil.example:{port}", 421),
            ("evil.example", 421),
            (f"127.0.0.1:{port + 1}", 421),
            ("", 421),
            ("a" * 400, 421),
        ):
            for path in ("/", paths["Ann"], paths["Ann"] + "/request", "/events?x=1" if want == 421 else "/screen.js"):
                assert get(server, path, host) == want, (host, path)


def test_serve_host_names_the_host_it_answers_to(sqlite_db: str):
    """`serve --host NAME`: the name the players' phones use is answered; another name is not."""
    cli, db = Cli(sqlite_db), sqlite_db
    table(cli)
    with serving(db, "--host", "localhost") as server:
        assert get(server, "/", f"localhost:{server.port}") == 200
        assert get(server, "/", f"attacker.example:{server.port}") == 421


def test_memory_stays_bounded_whatever_tokens_are_tried(sqlite_db: str):
    """Every random token is answered 404 (or 429 once the shared slot of unknown tokens is spent) and none of them
    grows the server: the rate table has a fixed size."""
    cli, db = Cli(sqlite_db), sqlite_db
    table(cli)
    with serving(db) as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)

        def tries(n: int) -> set[int]:
            seen = set()
            for _ in range(n):
                conn.request("GET", "/p/" + secrets.token_urlsafe(24))
                response = conn.getresponse()
                response.read()
                seen.add(response.status)
            return seen

        tries(300)  # warm up: every code path has run once
        before = rss_kb(server.proc.pid)
        statuses = tries(3000)
        grown = rss_kb(server.proc.pid) - before
        conn.close()
    FIGURES["memory grown by 3000 random tokens (KB)"] = grown
    assert statuses <= {404, 429}
    assert grown < 1024, f"{grown} KB for 3000 tokens"  # one entry per token would be ~3 MB


def test_half_open_connections_and_slow_bodies_are_closed(sqlite_db: str):
    """A connection that never finishes its headers is closed after HEADER_SECONDS; a body that never arrives gets
    408 (BODY_SECONDS); many such connections don't keep the page from answering."""
    cli, db = Cli(sqlite_db), sqlite_db
    paths = table(cli)
    with serving(db) as server:
        half = []
        for _ in range(40):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=30)
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            half.append(s)
        slow = socket.create_connection(("127.0.0.1", server.port), timeout=30)
        slow.sendall(
            f"POST {paths['Ann']}/roll HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nOrigin: "
            f"http://127.0.0.1:{server.port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
            '{"a"'.encode()
        )
        assert get(server, "/", None) == 200  # the page answers meanwhile
        start = time.monotonic()
        for s in half:
            assert s.recv(100) == b"", "a half-open connection was left open"
        took = time.monotonic() - start
        answer = slow.recv(200)
        for s in [*half, slow]:
            s.close()
    assert took < HEADER_SECONDS + 5
    assert answer.startswith(b"HTTP/1.1 408"), answer


def test_malformed_answers_do_not_lock_a_page_out(sqlite_db: str):
    """The answer rate counts accepted answers only: a dozen malformed posts (400) leave the page free to answer."""
    cli, db = Cli(sqlite_db), sqlite_db
    paths = table(cli)
    with serving(db) as server:
        proc = waiting(db, *ATTACK, "--wait", "60")
        doc = asked(server, paths["Ann"])
        for _ in range(12):
            status, _ = post(server, paths["Ann"], {"request": doc["request"]["id"], "seed": "not hex"})
            assert status in (400, 403)
        doc = asked(server, paths["Ann"])
        status, body = post(
            server, paths["Ann"], {"request": doc["request"]["id"], "nonce": doc["nonce"], "seed": SEED}
        )
        assert status == 200, body
        code, _, err = finish(proc)
    assert code == 0, err


def test_seeds_are_canonical_lowercase_hex(sqlite_db: str):
    """docs/verifiable-dice.md: a seed with spaces, capitals or a 0x prefix is refused (400): the bytes the HMAC takes
    are exactly the text the log holds."""
    cli, db = Cli(sqlite_db), sqlite_db
    paths = table(cli)
    with serving(db) as server:
        proc = waiting(db, *ATTACK, "--wait", "60")
        for bad in (" ".join([SEED[:16], SEED[16:]]), SEED.upper(), "0x" + SEED, SEED + "0"):
            doc = asked(server, paths["Ann"])
            status, _ = post(
                server, paths["Ann"], {"request": doc["request"]["id"], "nonce": doc["nonce"], "seed": bad}
            )
            assert status == 400, bad
        doc = asked(server, paths["Ann"])
        assert (
            post(server, paths["Ann"], {"request": doc["request"]["id"], "nonce": doc["nonce"], "seed": SEED})[0] == 200
        )
        code, _, err = finish(proc)
    assert code == 0, err


def test_guard_figures() -> None:
    """The figures (`-s` prints them): the page probes and what they cost the server."""
    figures_seen(len(FIGURES), "guard test")
    print(f"\nserve guard: {FIGURES}")
