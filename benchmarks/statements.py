"""What one-shot commands say to the database: SQL statements, round trips and connections, on SQLite and PostgreSQL.

Run: python benchmarks/statements.py [--pg URL] [--src DIR] [--show]
Each backend gets a fresh small ledger (hnh, two characters, the views made); then every measured command is a fresh
process, in this order: `roll 3dF`, `attack` (entered dice), `character show Ann` (which catches the views up with the
two rulings first) and `log -n 5`. PostgreSQL comes from --pg or LEDGER_TEST_POSTGRES (a database this script may
create others from; it makes one of its own and drops it); without either only SQLite is measured. --src runs the
commands from another source tree (e.g. an export of main, `git archive main`), to compare. --show lists every
statement.

Counted by the drivers themselves, in the command's process:
- SQLite: `sqlite3.Connection.set_trace_callback` on every connection the process opens (Python's implicit BEGIN and
  COMMIT included). SQLite runs in the process: a statement is a call into the library, not a trip to a server.
- PostgreSQL: libpq's own protocol trace (`PQtrace`, psycopg's `pgconn.trace`) on every connection the process opens.
  Statements are the Query and Execute messages sent (BEGIN, COMMIT and SET included); round trips are the times the
  client waited for the server's answer (statements sent together in a pipeline count once, a statement prepared
  first counts twice). Opening a connection costs its handshake on top (about two round trips over TCP, plus the
  TLS negotiation where the server offers it), counted in the connections column.
The counts are deterministic: the same ledger and the same commands give the same numbers on every run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import uuid
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

SETUP = [
    ["init", "--system", "hnh", "--name", "Bench"],
    ["character", "add", "Ann", "--trait", "agility=3", "--trait", "fighting=6", "--trait", "parry=5", "--pc"],
    ["character", "add", "Bob", "--trait", "parry=2", "--trait", "toughness=9"],
    ["character", "show", "Ann"],  # the views made and caught up: the measured reads start from a ledger in use
]
MEASURED = [
    ("roll 3dF", ["roll", "3dF"]),
    (
        "attack (entered dice)",
        ["attack", "Ann", "Bob", "--rank", "2", "--roll", "attack=+,0,0", "--roll", "defense=0,0,0"],
    ),
    ("character show Ann", ["character", "show", "Ann"]),
    ("log -n 5", ["log", "-n", "5"]),
]

CHILD = r"""
import atexit, json, os, sys
out, src, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
if src:
    sys.path.insert(0, src)
import sqlite3, sqlite3.dbapi2

seen = []  # one entry per connection: {"kind": ..., "statements": [...] or "trace": path}

def traced_sqlite(real):
    def connect(*a, **k):
        con = real(*a, **k)
        entry = {"kind": "sqlite", "statements": []}
        seen.append(entry)
        con.set_trace_callback(entry["statements"].append)
        return con
    return connect

sqlite3.connect = traced_sqlite(sqlite3.connect)
sqlite3.dbapi2.connect = traced_sqlite(sqlite3.dbapi2.connect)
live = []
try:
    import psycopg
    from psycopg import pq
except ImportError:
    psycopg = None
if psycopg is not None:
    real_connect = psycopg.Connection.connect.__func__

    def pg_connect(cls, *a, **k):
        conn = real_connect(cls, *a, **k)
        path = os.path.join(out + ".d", f"pg-{len(seen)}.trace")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        conn.pgconn.trace(fd)  # libpq owns the descriptor from here (fdopen): never closed by Python
        conn.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        seen.append({"kind": "postgres", "trace": path})
        live.append(conn)
        return conn

    psycopg.Connection.connect = classmethod(pg_connect)
    psycopg.connect = psycopg.Connection.connect  # psycopg's own alias, bound at its import

def flush():
    for conn in live:
        try:
            conn.pgconn.untrace()  # libpq flushes the trace file here
        except Exception:
            pass
    with open(out, "w") as f:
        json.dump(seen, f)

atexit.register(flush)
os.makedirs(out + ".d", exist_ok=True)
from commands.main import cli
sys.argv = ["ledger", *argv]
cli.main(args=argv, prog_name="ledger")
"""


MESSAGE = re.compile(r"^([FB])\t\S+\t(\w+)\t?(.*)$")  # REGRESS_MODE prints some lengths as NN


def count_trace(path: str) -> tuple[list[str], int]:
    """(statements sent, round trips) from one libpq trace file (a message's SQL text may run over several lines)."""
    messages: list[list[str]] = []  # [direction, message, text]
    with open(path, errors="replace") as f:
        for line in f:
            m = MESSAGE.match(line.rstrip("\n"))
            if m:
                messages.append([m[1], m[2], m[3]])
            elif messages:
                messages[-1][2] += " " + line.strip()
    statements: list[str] = []
    parsed: dict[str, str] = {}  # prepared statement name -> its text
    bound = ""
    trips = 0
    waiting = False  # the client has sent something the server has not answered yet
    for direction, message, body in messages:
        if direction == "F":
            waiting = waiting or message != "Terminate"
            if message == "Query":
                statements.append(body.strip().strip('"'))
            elif message == "Parse":
                name, _, rest = body.strip().partition(" ")
                parsed[name] = rest.rsplit('"', 1)[0].lstrip('"')
                bound = parsed[name]
            elif message == "Bind":
                bound = parsed.get(body.strip().split(" ")[1], bound) if " " in body.strip() else bound
            elif message == "Execute":
                statements.append(bound)
        elif waiting:
            trips += 1
            waiting = False
    return statements, trips


def run(args: list[str], env: dict[str, str], src: str, folder: str) -> dict[str, Any]:
    """One command in a fresh process, counted."""
    out = os.path.join(folder, f"count-{uuid.uuid4().hex[:8]}.json")
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, out, src, *args], env=env, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        sys.exit(f"ledger {' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()}")
    with open(out) as f:
        seen = json.load(f)
    statements: list[str] = []
    trips = 0
    for n, entry in enumerate(seen, 1):
        if entry["kind"] == "sqlite":
            sent, t = entry["statements"], len(entry["statements"])  # in process: each a call into the library
        else:
            sent, t = count_trace(entry["trace"])
        statements += [f"[connection {n}] {s}" for s in sent]
        trips += t
    return {"statements": statements, "trips": trips, "connections": len(seen)}


def measure(db: str, src: str, folder: str) -> dict[str, dict[str, Any]]:
    """The setup, then every measured command, on one fresh ledger."""
    env = {**os.environ, "LEDGER_DB": db, "LEDGER_SEED": "1", "NO_COLOR": "1"}
    for step in SETUP:
        run(step, env, src, folder)
    return {label: run(args, env, src, folder) for label, args in MEASURED}


def pg_database(admin_url: str) -> tuple[str, Any]:
    """A fresh database on the server (its URL) and a function that drops it."""
    import psycopg  # noqa: PLC0415 - only with --pg

    admin = admin_url.replace("postgresql+psycopg://", "postgresql://")
    name = f"ledger_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = admin_url.rsplit("/", 1)[0]

    def drop() -> None:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return f"{base}/{name}", drop


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pg", default=os.environ.get("LEDGER_TEST_POSTGRES", ""), help="a PostgreSQL admin URL")
    ap.add_argument("--src", default="", help="a source tree to run the commands from (default: this checkout)")
    ap.add_argument("--show", action="store_true", help="list every statement of every measured command")
    args = ap.parse_args()
    src = os.path.abspath(args.src) if args.src else ROOT
    folder = tempfile.mkdtemp(prefix="ledger-bench-sql-")
    results: dict[str, dict[str, dict[str, Any]]] = {}
    try:
        results["SQLite"] = measure(os.path.join(folder, "bench.ledger"), src, folder)
        if args.pg:
            url, drop = pg_database(args.pg)
            try:
                results["PostgreSQL"] = measure(url, src, folder)
            finally:
                drop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"statements / round trips / connections per one-shot command ({'this checkout' if not args.src else src})")
    backends = list(results)
    width = max(len(label) for label, _ in MEASURED)
    print(f"{'command':<{width}}  " + "  ".join(f"{b:>26}" for b in backends))
    for label, _ in MEASURED:
        cells = []
        for b in backends:
            r = results[b][label]
            trips = "-" if b == "SQLite" else str(r["trips"])
            cells.append(f"{len(r['statements']):>6} stmts {trips:>3} trips {r['connections']:>2} conn")
        print(f"{label:<{width}}  " + "  ".join(f"{c:>26}" for c in cells))
    if args.show:
        for b in backends:
            for label, _ in MEASURED:
                print(f"\n-- {b}: {label}")
                for s in results[b][label]["statements"]:
                    print("   " + " ".join(s.split())[:160])


if __name__ == "__main__":
    main()
