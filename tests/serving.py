"""A real `ledger serve` in a subprocess on a free loopback port, for the HTTP and browser tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

from tests.conftest import REPO

pytest.importorskip("starlette", reason="ledger serve needs the `serve` extra (the `test` extra installs it)")
pytest.importorskip("uvicorn")
pytest.importorskip("jinja2")


def free_port() -> int:
    """A port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ledger(db: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run one `ledger` command in its own process (another writer, as at the table)."""
    cmd = [sys.executable, "-m", "commands", "--db", db, "--as", "tester", *args]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=60)
    assert r.returncode == 0, f"ledger {' '.join(args)} -> {r.returncode}: {r.stderr}"
    return r


@dataclass
class Server:
    """A running server: its base URL and process."""

    url: str
    port: int
    proc: subprocess.Popen[str]

    def get(self, path: str = "/", method: str = "GET") -> tuple[int, str]:
        """(status, body) of one request."""
        req = urllib.request.Request(self.url + path.lstrip("/"), method=method)
        try:
            with urllib.request.urlopen(req, timeout=20) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()


@contextmanager
def serving(db: str, *options: str) -> Iterator[Server]:
    """Start `ledger serve` on a free port, wait until it answers, stop it (this process only) afterwards."""
    port = free_port()
    host = options[options.index("--host") + 1] if "--host" in options else "127.0.0.1"
    cmd = [sys.executable, "-m", "commands", "--db", db, "serve", "--port", str(port), *options]
    proc = subprocess.Popen(
        cmd,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=ctrl_c_as_at_a_terminal,
    )
    server = Server(f"http://{host}:{port}/", port, proc)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise AssertionError(
                    f"ledger serve exited {proc.returncode}: {proc.stderr.read() if proc.stderr else ''}"
                )
            try:
                with socket.create_connection((host, port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise AssertionError("ledger serve never started listening") from None
                time.sleep(0.1)
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class EventStream:
    """An open Server-Sent Events stream, read event by event."""

    def __init__(self, server: Server, path: str, timeout: float = 20.0) -> None:
        self.response = urllib.request.urlopen(server.url + path.lstrip("/"), timeout=timeout)
        self.timeout = timeout
        assert self.response.headers["Content-Type"].startswith("text/event-stream")

    def next(self) -> tuple[str, str]:
        """The next event: (id, data)."""
        data: list[str] = []
        ident = ""
        while True:
            line = self.response.readline().decode()
            if not line:
                raise AssertionError("the stream ended")
            if line.startswith("data: "):
                data.append(line[6:].rstrip("\n"))
            elif line.startswith("id: "):
                ident = line[4:].strip()
            elif line == "\n" and data:
                return ident, "\n".join(data)

    def until(self, text: str) -> tuple[str, str]:
        """Read events until one whose data contains `text` (AssertionError after the timeout)."""
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            ident, data = self.next()
            if text in data:
                return ident, data
        raise AssertionError(f"no event with {text!r} within {self.timeout} s")

    def close(self) -> None:
        """Hang up."""
        self.response.close()


def ctrl_c_as_at_a_terminal() -> None:
    """SIGINT handled as a GM's terminal would (a suite started in the background inherits it ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
