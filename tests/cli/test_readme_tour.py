"""The README's tour runs as written (README.md, A short tour): every command in its code block, one-shot, then the
shell script."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[2]
LEDGER = [sys.executable, "-m", "commands"]


def tour_lines() -> list[str]:
    """The command lines of the README's "A short tour" code block (comments and blank lines left out)."""
    text = (ROOT / "README.md").read_text()
    found = re.search(r"## A short tour\s+```sh\n(.*?)```", text, re.S)
    assert found, "the README has no tour code block"
    return [ln for ln in found.group(1).splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def test_the_readme_tour_runs_as_written(tmp_path: Path) -> None:
    """README.md, A short tour: each line succeeds in a fresh folder beside the shared fixtures; the shell script too.

    A line sent to the background (`ledger serve ... &`) is a long-running server and is left out here.
    """
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "shared").symlink_to((ROOT.parent / "shared").resolve())  # the tour reads ../shared/fixtures
    (work / "examples").symlink_to(ROOT / "examples")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LEDGER_ACTOR": "gm"}
    env.pop("LEDGER_DB", None)
    ran = []
    for line in tour_lines():
        words = shlex.split(line, comments=True)
        if words[-1] == "&":
            continue  # a server in the background (`ledger serve`): tests/integration/test_serve.py runs it
        if words[0] == "export":
            key, _, value = words[1].partition("=")
            env[key] = value
            continue
        assert words[0] == "ledger", line
        stdin = None
        if "<" in words:
            at = words.index("<")
            stdin, words = (work / words[at + 1]).open(), words[:at]
        r = subprocess.run(
            [*LEDGER, *words[1:]],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            stdin=stdin or subprocess.DEVNULL,
            timeout=300,
        )
        assert r.returncode == 0, f"{line}\n{r.stdout}\n{r.stderr}"
        assert "Traceback" not in r.stderr, r.stderr
        ran.append((words[1:], r))
    commands = [w[0] for w, _ in ran]
    assert {"init", "attack", "encounter", "undo", "retract", "play", "export", "verify"} <= set(commands)
    log = orjson.loads(
        subprocess.run([*LEDGER, "--json", "log"], cwd=work, env=env, capture_output=True, timeout=120).stdout
    )
    recorded = {e["ruling"]: e["data"]["command"] for e in log if e["type"] == "RulingRecorded"}
    retracted = {int(w[1]) for w, _ in ran if w[0] == "retract"}
    assert retracted and all(
        recorded[n] == "attack" for n in retracted
    )  # "that hit should have missed" names an attack
    assert "encounter remove" in recorded.values() and "encounter end" in recorded.values()  # examples/tour.txt ran
    assert (work / "heist.html").stat().st_size > 0
