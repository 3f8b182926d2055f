"""`ledger play`, the session shell, as real processes (CLI.md, Commands: play; docs/shell.md)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from commands.main import cli as ledger_cli
from commands.shell import Completer
from tests.conftest import Cli, _pg_database, _pg_drop

LEDGER = [sys.executable, "-m", "commands"]
SETUP = [
    "init --system hnh --name Test",
    "character add Ann --trait agility=3 --trait toughness=4 --pc",
    "character add 'Big Bo' --trait toughness=2",
]
TABLE = [
    "damage Ann --amount 2",
    "roll 3dF+3 --for Ann",
    "condition add Ann dazed",
    "attack 'Big Bo' Ann --rank 4",
    "undo",
    "character show Ann",
    "--json timeline Ann",
]


def play(
    db: str, script: str, *pre: str, args: tuple[str, ...] = (), env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`ledger --db DB PRE... play ARGS...` fed `script` on stdin."""
    cmd = [*LEDGER, "--db", db, "--as", "tester", *pre, "play", *args]
    return subprocess.run(cmd, input=script, capture_output=True, text=True, timeout=120, env=env)


def lines(*cmds: str) -> str:
    return "".join(c + "\n" for c in cmds)


def test_a_piped_script_prints_what_the_same_commands_print_one_shot(cli: Cli, tmp_path: Path) -> None:
    """CLI.md, play: one command a line, the same commands; with --seed the same rolls as one-shot (docs/shell.md,
    Lines)."""
    for c in SETUP:
        cli.ok(*shlex.split(c), seed=5)
    one_shot = "".join(cli.ok(*shlex.split(c), seed=5).stdout for c in TABLE)
    pg = _pg_database() if cli.db.startswith("postgresql") else None
    db = pg[0] if pg else str(tmp_path / "piped.ledger")
    try:
        r = play(db, lines(*SETUP, *TABLE), "--seed", "5")
    finally:
        if pg:
            _pg_drop(pg[1])
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines(keepends=True)
    assert out[-1] == f"({len(SETUP) + len(TABLE)} commands ran)\n"  # and the count of lines that ran, last
    assert _untimed("".join(out[3:-1])) == _untimed(one_shot)


def _untimed(text: str) -> str:
    """Outputs with their clock times blanked (the commands ran seconds apart)."""
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?", "TIME", text)


def test_blank_lines_and_comments_are_skipped_and_with_keep_going_an_error_does_not_stop_the_script(db: str) -> None:
    """CLI.md, Commands: play, and the fourth round's `ledger play --keep-going`; docs/shell.md, From a pipe or a file
    (scripts): blank lines and # comments skipped; with --keep-going a failing line reports one error and the script
    goes on; exit 2."""
    script = lines(
        *SETUP,
        "",
        "# the fight begins",
        "   ",
        "damage Nobody --amount 1",
        "damage Ann --amount 1  # a trailing comment",
        "character show Ann",
    )
    r = play(db, script, args=("--keep-going",))
    assert r.returncode == 2
    assert "error: no character called 'Nobody'\nhint: see: ledger character list\n" in r.stderr
    assert "ruling 4: Ann takes 1 damage: HP 6 -> 5." in r.stdout  # the line after the error ran
    assert "HP: 5/6" in r.stdout
    assert r.stderr.strip().splitlines()[-1] == "error: 1 of 6 commands failed (line 7)"
    assert "Traceback" not in r.stderr


def test_a_script_whose_every_line_succeeds_exits_0(db: str) -> None:
    """docs/shell.md, From a pipe or a file (scripts): the exit status of a piped script is 0 if every line
    succeeded, and it says how many lines ran."""
    r = play(db, lines(*SETUP, "ledger damage Ann --amount 1"))  # a copied one-shot line keeps its `ledger`
    assert (r.returncode, r.stderr) == (0, "")
    assert "ruling 4: Ann takes 1 damage: HP 6 -> 5." in r.stdout
    assert r.stdout.splitlines()[-1] == f"({len(SETUP) + 1} commands ran)"


@pytest.mark.parametrize("args", [(), ("--stop-on-error",)])
def test_a_script_stops_at_its_first_failing_line_by_default(db: str, args: tuple[str, ...]) -> None:
    """CLI.md, Additions agreed in the fourth round: `ledger play` stops at the first failed line of a piped script
    unless --keep-going (a later line would land one turn off), and says how many lines ran."""
    r = play(db, lines(*SETUP, "condition add Ann nosuchthing", "damage Ann --amount 1"), args=args)
    assert r.returncode == 2
    assert "ruling 4" not in r.stdout
    assert (
        f"error: the script stopped at line {len(SETUP) + 1}, which failed ({len(SETUP) + 1} commands ran)" in r.stderr
    )
    assert "--keep-going" in r.stderr


def test_a_usage_error_in_a_line_is_the_one_shot_usage_error(db: str) -> None:
    """docs/shell.md, Lines: each line behaves exactly as one-shot, errors included (one line + hint, no traceback)."""
    r = play(db, lines(*SETUP, "damage Ann --amont 1", "frobnicate", "damage Ann --amount 1"), args=("--keep-going",))
    one = subprocess.run([*LEDGER, "--db", db, "damage", "Ann", "--amont", "1"], capture_output=True, text=True)
    assert one.returncode == 2 and one.stderr in r.stderr
    assert "error: No such command 'frobnicate'." in r.stderr
    assert "ruling 4: Ann takes 1 damage: HP 6 -> 5." in r.stdout


def test_unclosed_quotes_are_reported_and_the_script_goes_on(db: str) -> None:
    """docs/shell.md, Lines: an error in one line is reported and the shell goes on (here: a line shlex can't split)."""
    r = play(db, lines(*SETUP, 'character add "Ann', "damage Ann --amount 1"), args=("--keep-going",))
    assert "error: can't read the line: No closing quotation" in r.stderr
    assert "ruling 4" in r.stdout and r.returncode == 2


def test_global_options_before_play_apply_to_every_line(db: str) -> None:
    """docs/shell.md, Lines: --json and --as given before `play` apply to every line."""
    r = play(db, lines(*SETUP[:2], "damage Ann --amount 1", "character show Ann"), "--json", "--as", "carol")
    assert r.returncode == 0, r.stderr
    dec, text, docs, i = __import__("json").JSONDecoder(), r.stdout, [], 0
    while i < len(text.rstrip()):
        doc, i = dec.raw_decode(text, i)
        docs.append(doc)
        while i < len(text) and text[i].isspace():
            i += 1
    assert [d.get("ruling") for d in docs[:3]] == [1, 2, 3]
    assert docs[3]["hp"] == 5
    log = orjson.loads(subprocess.run([*LEDGER, "--db", db, "--json", "log"], capture_output=True).stdout)
    assert {e["actor"] for e in log} == {"carol"}


def test_exit_leaves_before_the_lines_after_it(db: str) -> None:
    """docs/shell.md, Lines: exit / quit leave the shell."""
    r = play(db, lines(*SETUP, "exit", "damage Ann --amount 1"))
    assert r.returncode == 0 and "ruling 4" not in r.stdout


def test_a_command_that_would_ask_gets_no_answer_from_the_script(db: str) -> None:
    """CLI.md, play: no prompts from a pipe; a confirmation never swallows the next script line."""
    r = play(db, lines(*SETUP, "damage Ann --amount 1", "retract 4", "damage Ann --amount 2"), args=("--keep-going",))
    assert "error: retract needs confirmation" in r.stderr
    assert "ruling 5: Ann takes 2 damage: HP 5 -> 3." in r.stdout


def test_a_script_file_argument_runs_like_a_pipe(db: str, tmp_path: Path) -> None:
    """play --help: `ledger play SCRIPT` reads the script from a file."""
    script = tmp_path / "session.txt"
    script.write_text(lines(*SETUP, "damage Ann --amount 1"))
    r = subprocess.run(
        [*LEDGER, "--db", db, "play", str(script)], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    assert r.returncode == 0, r.stderr
    assert "ruling 4: Ann takes 1 damage: HP 6 -> 5." in r.stdout


def test_a_shell_sees_what_another_process_wrote_between_its_lines(db: str) -> None:
    """docs/shell.md, What the session keeps open, and what it does not: the open shell reloads the campaign and catches
    the views up for every line."""
    p = subprocess.Popen(
        [*LEDGER, "--db", db, "play"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert p.stdin and p.stdout
    p.stdin.write(lines(*SETUP, "damage Ann --amount 1"))
    p.stdin.flush()
    got = [p.stdout.readline() for _ in range(4)]
    assert got[-1].startswith("ruling 4: Ann takes 1 damage: HP 6 -> 5."), got
    one = subprocess.run([*LEDGER, "--db", db, "damage", "Ann", "--amount", "2"], capture_output=True, text=True)
    assert one.stdout.startswith("ruling 5: Ann takes 2 damage: HP 5 -> 3."), one.stderr
    out, err = p.communicate(lines("character show Ann", "damage Ann --amount 1"), timeout=60)
    assert "HP: 3/6" in out and "ruling 6: Ann takes 1 damage: HP 3 -> 2." in out, err


def test_the_shell_inside_the_shell_is_refused(db: str) -> None:
    """docs/shell.md, Safety: one shell per process; `play` typed in the shell is an error line, and the shell goes
    on."""
    r = play(db, lines(*SETUP, "play", "damage Ann --amount 1"), args=("--keep-going",))
    assert "error: already in a session shell" in r.stderr and "ruling 4" in r.stdout


# -- completion --------------------------------------------------------------------------------
@pytest.fixture
def completer() -> Completer:
    return Completer(ledger_cli, lambda: ["Ann", "Big Bo", "Cy"], lambda: ["dazed", "hindered", "stunned"])


@pytest.mark.parametrize(
    ("before", "text", "expected"),
    [
        ("", "char", ["character"]),
        ("", "exi", ["exit"]),
        ("character ", "sh", ["show"]),
        ("character show ", "", ["Ann", "'Big Bo'", "Cy"]),
        ("damage ", "a", ["Ann"]),
        ("attack Ann ", "b", ["'Big Bo'"]),
        ("condition add Ann ", "d", ["dazed"]),
        ("condition remove ", "C", ["Cy"]),
        ("roll 1d20 --for ", "", ["Ann", "'Big Bo'", "Cy"]),
        ("--json --db x.ledger character show ", "c", ["Cy"]),
        ("damage Ann ", "--am", ["--amount"]),
        ("roll ", "", []),
    ],
)
def test_tab_completes_commands_character_and_condition_names(
    completer: Completer, before: str, text: str, expected: list[str]
) -> None:
    """docs/shell.md, On a terminal: completion of command, character and condition names."""
    assert completer.candidates(before, text) == expected
