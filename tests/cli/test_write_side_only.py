"""A one-shot command that writes decides and appends its ruling with the write side alone (README.md, How it works).

Each command runs in its own process (`python -c` running the CLI), which then reports whether SQLAlchemy (the
read side's library) was imported: a write must not import it. The read models catch up on the next command
that reads them, in any process, so every query still sees every write before it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO, Cli

# One process per test imports the CLI as a fresh `ledger` process does (commands.main, nothing of the read side),
# then forks a child per command: each child starts from that fresh state, runs one command line and reports its exit
# code and whether SQLAlchemy got imported. The fork saves each command the interpreter's start and the CLI's imports.
DRIVER = """
import json, os, sys
import commands.main
assert "sqlalchemy" not in sys.modules, "the CLI's own imports load SQLAlchemy"
for line in sys.stdin:
    args, out = json.loads(line)
    pid = os.fork()
    if pid == 0:
        os.dup2(os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 1)
        os.dup2(os.open(out + ".err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)
        try:
            commands.main.cli.main(args=args, prog_name="ledger")
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
        sys.stdout.flush()
        sys.stderr.flush()
        with open(out + ".report", "w") as f:
            json.dump({"exit": code, "sqlalchemy": "sqlalchemy" in sys.modules}, f)
        os._exit(0)
    os.waitpid(pid, 0)
    print("done", flush=True)
"""


class OneShots:
    """Fresh one-shot `ledger` processes, forked from one that has imported only what `ledger` itself imports."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.n = folder, 0
        self.p = subprocess.Popen(
            [sys.executable, "-c", DRIVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO
        )

    def __call__(self, db: str, *args: str) -> tuple[dict[str, object], str]:
        """`ledger --db DB ARGS...` in a fresh process: (its exit code and whether it imported SQLAlchemy, output)."""
        assert self.p.stdin is not None and self.p.stdout is not None
        self.n += 1
        out = str(self.folder / f"command{self.n}.out")
        line = ["--db", db, "--as", "tester", "--seed", "7", *args]
        self.p.stdin.write(json.dumps([line, out]) + "\n")
        self.p.stdin.flush()
        assert self.p.stdout.readline() == "done\n", "the driver process died"
        report = json.loads(Path(out + ".report").read_text())
        text = Path(out).read_text()
        err = Path(out + ".err").read_text()
        assert report["exit"] == 0, f"ledger {' '.join(args)} -> {report['exit']}\n{text}\n{err}"
        return report, text

    def close(self) -> None:
        if self.p.stdin:
            self.p.stdin.close()
        self.p.wait(timeout=60)


@pytest.fixture
def one_shot(tmp_path: Path) -> Iterator[OneShots]:
    runner = OneShots(tmp_path)
    yield runner
    runner.close()


def writes_alone(one_shot: OneShots, db: str, commands: list[list[str]]) -> None:
    """Every command succeeds in its own process without importing SQLAlchemy."""
    imported = [" ".join(c) for c in commands if one_shot(db, *c)[0]["sqlalchemy"]]
    assert imported == [], f"these writes imported SQLAlchemy: {imported}"


def test_every_kind_of_hnh_write_appends_without_the_read_side(one_shot: OneShots, db: str):
    """README.md, How it works (a write never imports the read side): init, characters, sessions, table commands,
    actions, encounters, undo/redo, retract."""
    writes_alone(
        one_shot,
        db,
        [
            ["init", "--system", "hnh", "--name", "Bay City", "-o", "action-economy=off"],
            [
                "character",
                "add",
                "Ann",
                "--trait",
                "agility=3",
                "--trait",
                "fighting=6",
                "--trait",
                "toughness=4",
                "--pc",
            ],
            ["character", "add", "Thug", "--trait", "parry=2", "--trait", "toughness=2"],
            ["character", "add", "Goons", "--minion", "--count", "3", "--trait", "toughness=1"],
            ["character", "import", str(FIXTURES / "energy-controller.json")],
            ["session", "start", "The heist"],
            ["roll", "3dF"],
            ["damage", "Ann", "--amount", "1"],
            ["damage", "Thug", "--rank", "2", "--roll", "power=0,0,0", "--roll", "toughness=0,0,0"],
            ["condition", "add", "Ann", "dazed"],
            ["condition", "remove", "Ann", "dazed"],
            ["retract", "8", "--yes"],
            [
                "encounter",
                "start",
                "Ann",
                "Thug",
                "Energy Controller",
                "--roll",
                "Ann=+,+,+",
                "--roll",
                "Thug=-,-,-",
                "--roll",
                "Energy Controller=0,0,0",
            ],
            ["attack", "Ann", "Thug", "--rank", "4", "--roll", "attack=+,0,0"],
            ["check", "Ann", "agility", "--dc", "10"],
            [
                "act",
                "Ann",
                "affliction",
                "--against",
                "Thug",
                "-o",
                "rank=6",
                "-o",
                "conditions=dazed,stunned,incapacitated",
            ],
            ["encounter", "delay"],
            ["encounter", "next"],
            ["encounter", "act", "Ann"],
            ["encounter", "join", "Goons", "--roll", "Goons=0,0,0"],
            ["encounter", "end"],
            ["spend", "Ann", "victory-points", "1"],
            ["gain", "Ann", "victory-points", "1"],
            ["hazard", "Ann", "falling", "-o", "distance-rank=2"],
            ["recover", "Ann", "--hours", "8"],
            ["damage", "Thug", "--amount", "20"],
            ["revive", "Thug", "--means", "healing"],
            ["undo"],
            ["redo"],
            ["session", "end"],
        ],
    )


def test_d20_and_pnp_writes_append_without_the_read_side(one_shot: OneShots, tmp_path: Path):
    """README.md, How it works (a write never imports the read side): the other systems' actions (d20 charge, pnp chase,
    resolve) are write-side only too."""
    d20 = str(tmp_path / "d20.ledger")
    writes_alone(
        one_shot,
        d20,
        [
            ["init", "--system", "d20"],
            ["character", "add", "Blaze", "--trait", "dex=14", "--trait", "hp=20", "--pc"],
            ["character", "add", "Grunt", "--trait", "hp=8"],
            ["attack", "Blaze", "Grunt", "--damage", "1d8", "--roll", "attack=17", "--roll", "damage=5"],
            ["act", "Blaze", "charge"],
            ["check", "Blaze", "dex", "--dc", "12"],
        ],
    )
    pnp = str(tmp_path / "pnp.ledger")
    writes_alone(
        one_shot,
        pnp,
        [
            ["init", "--system", "pnp"],
            ["character", "add", "Mara", "--trait", "might=3", "--trait", "agility=2", "--trait", "resolve=3", "--pc"],
            ["character", "add", "Goons", "--minion", "--trait", "threat=2", "--count", "4"],
            ["attack", "Mara", "Goons", "--with", "might"],
            ["gain", "Mara", "resolve", "1", "--reason", "heroics"],
            ["spend", "Mara", "resolve", "1", "--purpose", "lucky-break"],
            ["act", "Mara", "chase", "--against", "Goons"],
        ],
    )


def test_a_read_in_the_next_process_sees_every_write_before_it(one_shot: OneShots, db: str):
    """README.md, How it works (a write never imports the read side): the views catch up from their tracking position on
    the next read, so no write is ever missed."""
    cli = Cli(db)
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "toughness=4", "--pc")
    cli.json("character", "show", "Ann")  # the views now exist and are up to date
    _, out = one_shot(db, "--json", "damage", "Ann", "--amount", "2")
    hp = json.loads(out)["character"]["hp"]
    one_shot(db, "condition", "add", "Ann", "dazed")
    report, out = one_shot(db, "--json", "character", "show", "Ann")
    assert report["sqlalchemy"] is True  # a read uses the read side
    sheet = json.loads(out)
    assert sheet["hp"] == hp == 4 and sheet["conditions"] == ["dazed"]
    rulings = {e["ruling"] for e in cli.json("log")}  # type: ignore[union-attr]
    assert rulings == {1, 2, 3, 4}


@pytest.mark.parametrize("command", [["roll", "3dF"], ["damage", "Ann", "--amount", "1"]])
def test_a_write_prints_its_outcome_from_the_ruling_not_the_views(
    one_shot: OneShots, sqlite_db: str, command: list[str]
):
    """README.md, How it works (a write never imports the read side): the printed outcome comes from the ruling's own
    events (the views have not caught up yet)."""
    cli = Cli(sqlite_db)
    cli.ok("init", "--system", "hnh")
    cli.ok("character", "add", "Ann", "--trait", "toughness=4", "--pc")
    report, out = one_shot(sqlite_db, *command)
    assert report["sqlalchemy"] is False and out.startswith("ruling 3")
