"""From the GM's Enter to the Roll button on a player's phone: a real `ledger serve`, a real headless chromium at
phone size (390x844) on the hero's page, and the GM's `ledger play` shell (stdin a pipe) in another process.

Run: python benchmarks/player_push.py [--db URL] [--trials N] [--src DIR]
Each trial sends one `attack` line to the shell; the page notes the moment its Roll button shows (a
requestAnimationFrame watch, so the time it is painted), the script taps Roll through the page and waits for the
ruling. It prints the median and range in seconds, and with --src DIR the same measured on another tree (e.g. the
main branch's checkout, /work/main) side by side with the ratio. Goal (docs/serve.md): a median of 0.3 s or less.
"""

from __future__ import annotations

import argparse
import os
import queue
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

from tests.browser.cdp import Browser  # noqa: E402 - the repository's own stdlib DevTools driver
from tests.serving import free_port  # noqa: E402

WATCH = """(() => { window.shownAt = null; const p = document.getElementById('pending');
  const look = () => { if (!p.hidden && document.getElementById('roll').offsetParent !== null) {
    window.shownAt = Date.now(); } else { requestAnimationFrame(look); } }; look(); })()"""
PACE = 6.5  # seconds a trial takes at least: serve lets one page send 10 answers a minute (docs/serve.md)
ATTACK = "attack Ann Bob --rank 3 --roll defense=0,0,0 --roll power=0,0,0 --roll toughness=+,+,+ --wait 60\n"


def ledger(src: Path, db: str, *args: str, **kw: object) -> subprocess.Popen[str]:
    """A `ledger` process of the tree `src`."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(src)}
    cmd = [sys.executable, "-m", "commands", "--db", db, "--as", "gm", *args]
    return subprocess.Popen(cmd, cwd=src, env=env, text=True, **kw)  # type: ignore[call-overload,no-any-return]


def run(src: Path, db: str, trials: int, profile: Path) -> list[float]:
    """Seconds from the GM's Enter to the Roll button shown, per trial."""
    for args in (
        ("init", "--system", "hnh", "--name", "Push"),
        ("character", "add", "Ann", "--trait", "fighting=4", "--pc"),
        ("character", "add", "Bob", "--trait", "toughness=40"),
        ("session", "start", "--player-dice"),
    ):
        assert ledger(src, db, *args, stdout=subprocess.DEVNULL).wait() == 0, args
    link = ledger(src, db, "player", "link", "Ann", "--base", "http://x/", stdout=subprocess.PIPE)
    page = "/p/" + link.communicate()[0].split("/p/", 1)[1].split()[0]
    port = free_port()
    server = ledger(src, db, "serve", "--port", str(port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shell = ledger(src, db, "play", stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    browser = None
    out: list[float] = []
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline and server.poll() is None, "ledger serve did not start"
                time.sleep(0.1)
        browser = Browser(profile, (390, 844))
        browser.open(f"http://127.0.0.1:{port}{page}")
        browser.wait_for("document.getElementById('idle') && !document.getElementById('idle').hidden", 30)
        time.sleep(1.0)
        assert shell.stdin is not None and shell.stdout is not None
        lines: queue.Queue[str] = queue.Queue()
        out_of = shell.stdout
        threading.Thread(target=lambda: [lines.put(x) for x in out_of], daemon=True).start()
        for _ in range(trials):
            began = time.monotonic()
            browser.js(WATCH)
            sent = time.time()
            shell.stdin.write(ATTACK)
            shell.stdin.flush()
            shown = browser.wait_for("window.shownAt", 60)
            out.append(shown / 1000 - sent)
            browser.js("document.getElementById('roll').click()")
            while True:  # the ruling's line on the shell's stdout: the GM's command is done
                line = lines.get(timeout=60)  # queue.Empty: the GM's command did not finish within 60 s of the tap
                if line.startswith("ruling"):
                    break
            browser.wait_for("document.getElementById('pending').hidden", 30)
            time.sleep(max(0.3, PACE - (time.monotonic() - began)))  # the page's rate: 10 answers a minute
    finally:
        if browser is not None:
            browser.close()
        for p in (shell, server):
            p.terminate()
            p.wait(timeout=20)
    return out


def sqlite_or(db: str | None, where: Path, name: str) -> str:
    """The ledger to use: a fresh SQLite file, or a fresh PostgreSQL database beside the URL given."""
    if db is None:
        return str(where / f"{name}.ledger")
    import psycopg

    base, _, _ = db.rpartition("/")
    fresh = f"bench_push_{name}_{os.getpid()}"
    with psycopg.connect(db.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {fresh}")
        conn.execute(f"CREATE DATABASE {fresh}")
    return f"{base}/{fresh}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", help="a PostgreSQL URL (a fresh database is made beside it); default: SQLite")
    ap.add_argument("--trials", type=int, default=15)
    ap.add_argument("--src", type=Path, help="another tree to measure side by side (the baseline)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        rows = [("this tree", run(HERE, sqlite_or(a.db, where, "this"), a.trials, where / "p1"))]
        if a.src:
            rows.append(("baseline", run(a.src.resolve(), sqlite_or(a.db, where, "base"), a.trials, where / "p2")))
    backend = "PostgreSQL" if a.db else "SQLite"
    print(f"GM's Enter -> Roll button on a 390x844 page, {backend}, {a.trials} trials")
    for label, times in rows:
        print(f"  {label:<10} median {statistics.median(times):.3f} s  range {min(times):.3f}-{max(times):.3f} s")
    if len(rows) == 2:
        print(f"  ratio (this / baseline): {statistics.median(rows[0][1]) / statistics.median(rows[1][1]):.2f}")


if __name__ == "__main__":
    main()
