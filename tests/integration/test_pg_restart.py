"""A PostgreSQL restart while the GM's command waits for a player's roll (docs/serve.md, "Players roll their own
dice"; docs/verifiable-dice.md, "Player dice: the ask").

A private PostgreSQL server (Debian's packages, as CI installs them; its own data folder and port, so the suite's
server is never touched) is restarted while `attack` waits for Ann's page. The waiting command keeps waiting (it
says the database does not answer while it is away), `ledger serve` reconnects, the page's tap after the restart
answers the ask recorded before it, and the ruling is recorded with the player's die, which verifies. Nothing is
lost and nothing is recorded twice.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator

import pytest

from tests.conftest import Cli
from tests.integration.test_dice_forgeries import decoded
from tests.players import SEED, asked, finish, post, state, table, waiting
from tests.serving import free_port, serving

BINS = sorted(glob.glob("/usr/lib/postgresql/*/bin"))


def _as_postgres(*cmd: str) -> None:
    subprocess.run(
        ["su", "postgres", "-s", "/bin/sh", "-c", " ".join(cmd)], check=True, capture_output=True, timeout=120
    )


@pytest.fixture
def private_pg() -> Iterator[tuple[str, str, str]]:
    """A throw-away PostgreSQL server: (URL, pg_ctl, data folder)."""
    if not os.environ.get("LEDGER_TEST_POSTGRES") or not BINS or os.geteuid() != 0 or not shutil.which("su"):
        pytest.skip("needs PostgreSQL's server binaries and root (CI: .ci/postgres.sh installs them)")
    bin_dir, port = BINS[-1], free_port()
    data = tempfile.mkdtemp(prefix="ledger-pg-restart.")
    shutil.chown(data, "postgres")
    _as_postgres(f"{bin_dir}/initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync")
    opts = f"'-c listen_addresses=127.0.0.1 -p {port} -k {data} -c fsync=off'"
    pg_ctl = f"{bin_dir}/pg_ctl -D {data} -l {data}/server.log -w -o {opts}"
    _as_postgres(pg_ctl, "start")
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres", pg_ctl, data
    finally:
        subprocess.run(["su", "postgres", "-s", "/bin/sh", "-c", f"{bin_dir}/pg_ctl -D {data} -m immediate stop"],
                       capture_output=True, timeout=60)  # fmt: skip
        shutil.rmtree(data, ignore_errors=True)


def test_a_restart_while_waiting_loses_nothing(private_pg: tuple[str, str, str]):
    """docs/serve.md: the waiting command needs no terminal and holds no lock while it waits; a database restart
    mid-wait: the command says the database does not answer and waits on, the page asks again once the server is
    back, the tap answers the ask recorded before the restart, and `verify --dice` passes."""
    url, pg_ctl, _ = private_pg
    cli = Cli(url)
    paths = table(cli)
    with serving(url) as server:
        proc = waiting(url, "attack", "Ann", "Bob", "--rank", "3", "--roll", "power=0,0,0", "--wait", "120")
        first = asked(server, paths["Ann"])
        _as_postgres(pg_ctl, "-m", "fast", "restart")  # every connection dropped; the server back on the same port
        time.sleep(1.5)  # longer than the command's look at the request: it meets the restart
        deadline = time.monotonic() + 60
        doc = None
        while time.monotonic() < deadline:  # the page, served again once the server reconnects, asks the same ask
            try:
                doc = state(server, paths["Ann"])
            except AssertionError:  # the server's own reads still failing: not yet back
                doc = None
            if doc and doc["request"] is not None:
                break
            time.sleep(0.2)
        assert doc and doc["request"] is not None, "the page never asked again after the restart"
        assert doc["request"]["ask"] == first["request"]["ask"]  # the ask recorded before the restart
        status, body = post(
            server, paths["Ann"], {"request": doc["request"]["id"], "nonce": doc["nonce"], "seed": SEED}
        )
        assert status == 200, body
        code, out, err = finish(proc)
    assert code == 0, err
    assert "Traceback" not in err and "(player)" in out
    rolled = [st["data"] for _, t, st in decoded(url) if t.endswith("DiceRolled") and st["data"]["name"] == "attack"]
    assert len(rolled) == 1 and rolled[0]["player_seed"] == SEED and rolled[0]["ask"] == first["request"]["ask"]
    cli.ok("session", "end")
    assert cli.json("verify", "--dice")["ok"] is True  # type: ignore[index]
