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

    The line sent to the background (`ledger serve ... &`) runs as a real server (on a free port); a line that
    waits for a player's roll is answered from that player's page as its script does (docs/serve.md).
    """
    from contextlib import ExitStack

    with ExitStack() as stack:
        _tour(tmp_path, stack)


def _answer_from_the_page(server: object, page: str, proc: subprocess.Popen[str]) -> subprocess.CompletedProcess[str]:
    """Tap Roll on a player's page (a seed of 16 random bytes, as the page's script sends it); the command's result."""
    import secrets

    from tests.players import asked, finish, post

    doc = asked(server, page)  # type: ignore[arg-type]
    answer = {"request": doc["request"]["id"], "nonce": doc["nonce"], "seed": secrets.token_hex(16)}
    status, body = post(server, page, answer)  # type: ignore[arg-type]
    assert status == 200, body
    code, out, err = finish(proc)
    return subprocess.CompletedProcess(proc.args, code, out, err)


def _tour(tmp_path: Path, stack: object) -> None:
    from tests.serving import serving

    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "shared").symlink_to((ROOT.parent / "shared").resolve())  # the tour reads ../shared/fixtures
    (work / "examples").symlink_to(ROOT / "examples")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LEDGER_ACTOR": "gm"}
    env.pop("LEDGER_DB", None)
    ran = []
    server: object = None
    pages: dict[str, str] = {}
    for line in tour_lines():
        words = shlex.split(line, comments=True)
        if words[-1] == "&":  # the players' screen, in the background
            assert words[1] == "serve", line
            db = str(work / env["LEDGER_DB"])
            server = stack.enter_context(serving(db, *words[2:-1]))  # type: ignore[attr-defined]
            continue
        if words[0] == "export":
            key, _, value = words[1].partition("=")
            env[key] = value
            continue
        assert words[0] == "ledger", line
        stdin = None
        if "<" in words:
            at = words.index("<")
            stdin, words = (work / words[at + 1]).open(), words[:at]
        picked = re.search(r'her player picked "([^"]+)"', line.partition("#")[2])
        if picked:  # a player's action asked from the hero's page, as its form sends it (docs/serve.md, Players act)
            from tests.integration.test_players_act import ask

            hero = picked.group(1).split()[0]
            status, body = ask(server, pages[hero], picked.group(1))  # type: ignore[arg-type]
            assert status == 200, body
        if "waits" in line.partition("#")[2]:  # a roll asked of a player's page: answer it from the page
            hero = words[1 + 1] if words[1] != "pending" else next(iter(pages))  # a request names its hero's page
            proc = subprocess.Popen(
                [*LEDGER, *words[1:]], cwd=work, env=env, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )  # fmt: skip
            r = _answer_from_the_page(server, pages[hero], proc)
            assert "(player)" in r.stdout, r.stdout
        else:
            r = subprocess.run(
                [*LEDGER, *words[1:]],
                cwd=work,
                env=env,
                capture_output=True,
                text=True,
                stdin=stdin or subprocess.DEVNULL,
                timeout=300,
            )
        if words[1:3] == ["player", "link"]:
            pages[words[3]] = "/p/" + r.stdout.split("/p/", 1)[1].split()[0]
        assert r.returncode == 0, f"{line}\n{r.stdout}\n{r.stderr}"
        assert "Traceback" not in r.stderr, r.stderr
        assert "read models differ" not in r.stderr, f"{line}\n{r.stderr}"  # docs/verify.md: no note on a healthy log
        ran.append((words[1:], r))
    commands = [w[0] for w, _ in ran]
    assert {"init", "attack", "encounter", "undo", "retract", "play", "export", "verify"} <= set(commands)
    # every line the tour prints for a person is free of the ledger's bookkeeping (tests/cli/test_every_reader.py)
    from tests.cli.test_every_reader import wrong

    said = [
        f"ledger {' '.join(w)}: {problem} in {line!r}"
        for w, r in ran
        if "--json" not in w and "-v" not in w and w[0] not in ("verify", "player")
        for line in r.stdout.splitlines()
        for problem in wrong(line, "hnh")
    ]
    assert not said, "\n".join(said)
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
