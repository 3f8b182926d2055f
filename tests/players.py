"""Helpers for the players' pages: a table with linked heroes, a GM command waiting in its own process, HTTP posts."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any

from tests.conftest import REPO, Cli
from tests.serving import Server, ctrl_c_as_at_a_terminal

SEED = "00112233445566778899aabbccddeeff"


def table(cli: Cli) -> dict[str, str]:
    """hnh: heroes Ann and Cat (linked), NPC Bob; a --player-dice session; each hero's page path (/p/TOKEN)."""
    cli.ok("init", "--system", "hnh", "--name", "The table")
    cli.ok("character", "add", "Ann", "--trait", "fighting=4", "--trait", "agility=1", "--pc")
    cli.ok("character", "add", "Cat", "--trait", "fighting=2", "--trait", "intellect=7", "--pc")
    cli.ok("character", "add", "Bob", "--trait", "toughness=9")
    cli.ok("session", "start", "--player-dice")
    paths = {}
    for hero in ("Ann", "Cat"):
        url = cli.json("player", "link", hero)["url"]  # type: ignore[index]
        paths[hero] = "/p/" + url.rsplit("/p/", 1)[1]
    return paths


def waiting(db: str, *args: str) -> subprocess.Popen[str]:
    """A GM's one-shot command in its own process, stdin a pipe (no terminal)."""
    cmd = [sys.executable, "-m", "commands", "--db", db, "--as", "tester", *args]
    return subprocess.Popen(
        cmd,
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_as_at_a_terminal,
    )


def state(server: Server, path: str) -> dict[str, Any]:
    """The page's pending-request document (GET PATH/request)."""
    status, body = server.get(path + "/request")
    assert status == 200, (status, body)
    return dict(json.loads(body))


def asked(server: Server, path: str, timeout: float = 30.0) -> dict[str, Any]:
    """Poll the page until a roll is asked for; its document."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        doc = state(server, path)
        if doc["request"] is not None:
            return doc
        time.sleep(0.1)
    raise AssertionError(f"no roll asked of {path} within {timeout} s")


def post(
    server: Server,
    path: str,
    body: Any,
    *,
    origin: str | None = "",
    headers: dict[str, str] | None = None,
    to: str = "/roll",
) -> tuple[int, dict[str, Any] | str]:
    """POST JSON to the page's roll endpoint (or `to`: /act), from the page's own origin unless told (None: no
    Origin header)."""
    own = server.url.rstrip("/")
    h = {"Content-Type": "application/json", **(headers or {})}
    if origin is not None:
        h["Origin"] = origin or own
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(server.url + path.lstrip("/") + to, data=data, headers=h, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        raw = e.read().decode()
        try:
            return e.code, json.loads(raw)
        except ValueError:
            return e.code, raw


def finish(proc: subprocess.Popen[str], timeout: float = 60.0) -> tuple[int, str, str]:
    """Wait for a command to end: (exit code, stdout, stderr)."""
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err
