"""Drive Debian's headless chromium over the DevTools protocol on a pipe (--remote-debugging-pipe): stdlib only."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
]  # fmt: skip


def chromium_path() -> str:
    """Debian's chromium, or a skip on a developer's machine without it (CI installs it and must run these)."""
    found = shutil.which("chromium")
    if not found and os.environ.get("CI") != "true":
        pytest.skip(
            "Debian's chromium is not installed here (apt-get install -y chromium); CI installs it and runs this"
        )
    assert found, "chromium is missing: apt-get install -y chromium (CI does it in .ci/chromium.sh)"
    return found


class Browser:
    """One headless chromium with one page, spoken to as JSON messages separated by NUL bytes on fds 3 and 4."""

    def __init__(self, profile: Path, size: tuple[int, int] = (1000, 1400)) -> None:
        to_r, self._to = os.pipe()
        self._from, from_w = os.pipe()
        cmd = [
            chromium_path(),
            *FLAGS,
            "--remote-debugging-pipe",
            f"--user-data-dir={profile}",
            f"--window-size={size[0]},{size[1]}",
            "about:blank",
        ]

        def on_3_and_4() -> None:  # chromium reads commands on fd 3 and answers on fd 4
            high_r, high_w = fcntl.fcntl(to_r, fcntl.F_DUPFD, 10), fcntl.fcntl(from_w, fcntl.F_DUPFD, 10)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=on_3_and_4, close_fds=False
        )
        os.close(to_r)
        os.close(from_w)
        self._buffer = b""
        self._next = 0
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        if size[0] < 600:  # a phone: its viewport exactly (headless windows are never narrower than 500 px)
            self.call(
                "Emulation.setDeviceMetricsOverride",
                self.session,
                width=size[0],
                height=size[1],
                deviceScaleFactor=1,
                mobile=True,
            )

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send one command and wait for its answer (events in between are dropped)."""
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._to, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise AssertionError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._from, 65536)
            if not chunk:
                raise AssertionError("chromium closed the pipe")
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(raw)  # type: ignore[no-any-return]

    def open(self, url: str) -> None:
        """Load a page in the tab."""
        self.call("Page.navigate", self.session, url=url)

    def js(self, expression: str) -> Any:
        """Evaluate JavaScript in the page; its value."""
        r = self.call("Runtime.evaluate", self.session, expression=expression, returnByValue=True)
        return r.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout: float = 20.0) -> Any:
        """Poll a JavaScript expression until it is truthy; its value (AssertionError after the timeout)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"never true in the page: {expression}")

    def close(self) -> None:
        """Close the browser (this process only)."""
        try:
            self.call("Browser.close")
        except AssertionError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to)
        os.close(self._from)
