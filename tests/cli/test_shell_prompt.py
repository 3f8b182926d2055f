"""The interactive session shell on prompt_toolkit (docs/shell.md, On a terminal): completion with help, fuzzy matching,
the toolbar, history.

Tested for real: a `ledger play` on a pseudo-terminal typed into key by key (the terminal answers cursor
position requests as a real one does), and the prompt_toolkit session itself fed through a pipe.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import sys
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from commands.complete import Completer, rank, split_word
from commands.context import AppContext
from commands.main import cli as ledger_cli
from commands.shell import Session
from tests.cli.test_shell import LEDGER, SETUP, lines, play
from tests.conftest import Cli

ROWS, COLS = 30, 110
CPR = b"\x1b[6n"


def _pty_session(db: str, home: Path, ready: str, steps: list[tuple[bytes, str | None]]) -> tuple[str, int]:
    """Type into `ledger play` on a terminal: once the screen shows `ready`, each step's keys, the next step's once the
    screen has shown the text its step waits for since its keys were sent (None: the shell to leave). The screen, the
    exit status.

    The shell redraws its toolbar every second, so the screen is never still for long: what each step waits for is
    text the keys bring about (a completion, a command's output, the toolbar of the next prompt), with escape
    sequences left out."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the shell on a terminal
        os.environ.update({"HOME": str(home), "TERM": "xterm-256color"})
        os.execv(sys.executable, [*LEDGER, "--db", db, "play"])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    out = b""
    answered = 0  # cursor position requests answered so far

    def wait_for(text: str | None, cap: float = 60) -> None:
        """Read the screen until `text` shows after what was read so far (None: until the shell leaves), at most
        `cap` seconds."""
        nonlocal out, answered
        start, end = len(out), time.monotonic() + cap
        while time.monotonic() < end:
            if text is not None and text in _shown(out[start:]):
                return
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            out += chunk
            while out.count(CPR) > answered:  # a terminal answers where its cursor is
                os.write(fd, b"\x1b[1;1R")
                answered += 1

    wait_for(ready)
    for keys, shows in steps:
        os.write(fd, keys)
        wait_for(shows)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return out.decode(errors="replace"), os.waitstatus_to_exitcode(status)


def _shown(raw: bytes) -> str:
    """The text in a terminal's output, without its escape sequences."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw.decode(errors="replace"))


def typed(session: Session, keys: list[str], pause: float) -> None:
    """Run the session's prompt_toolkit application on a pipe, typing each chunk of keys after a pause."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from commands.shell import _interactive

    with create_pipe_input() as inp:

        def type_keys() -> None:
            for k in keys:
                time.sleep(pause)
                inp.send_text(k)

        feeder = threading.Thread(target=type_keys)
        feeder.start()
        _interactive(session, input=inp, output=DummyOutput())
        feeder.join()


def test_the_terminal_shell_completes_shows_the_turns_and_keeps_history(db: str, tmp_path: Path) -> None:
    """docs/shell.md, On a terminal: Tab completes names with their HP; the toolbar shows who is up and the next two;
    history."""
    setup = play(
        db,
        lines(*SETUP, "character add Cy", "encounter start Ann 'Big Bo' Cy --init Ann=3 --init 'Big Bo'=2 --init Cy=1"),
    )
    assert setup.returncode == 0, setup.stderr
    toolbar = "round 1 | up: Ann HP 6/6"
    steps: list[tuple[bytes, str | None]] = [
        (b"character show A", "HP 6/6"),  # the menu
        (b"\t", "nn"),  # the rest of the name
        (b"\r", toolbar),  # the next prompt
        (b"condition add Ann daz", "dazed"),
        (b"\t", "ed"),
        (b"\r", toolbar),
        (b"damage Nobody --amount 1\r", toolbar),
        (b"exit\r", None),
    ]
    screen, status = _pty_session(db, tmp_path, toolbar, steps)
    assert "round 1 | up: Ann HP 6/6 | next: Big Bo HP 6/6, Cy HP 6/6" in screen  # the toolbar
    assert "Ann (hnh, PC)" in screen  # `character show A` + Tab completed the name
    assert "HP 6/6" in screen.split("character show A", 1)[1]  # the menu showed each name with its HP
    assert "error: no character called 'Nobody'" in screen
    assert status == 2  # one command failed
    assert "dazed" in Cli(db).json("character", "show", "Ann")["conditions"]  # `condition add Ann daz` + Tab: dazed
    history = (tmp_path / ".ledger_history").read_text().splitlines()
    assert history == ["character show Ann", "condition add Ann dazed", "damage Nobody --amount 1", "exit"]


def test_ctrl_r_finds_a_command_in_history_and_runs_it_again(db: str, tmp_path: Path) -> None:
    """docs/shell.md, On a terminal: history search (Ctrl-R), over the history a readline shell left (plain lines)."""
    assert play(db, lines(*SETUP)).returncode == 0
    (tmp_path / ".ledger_history").write_text("damage Ann --amount 2\ncharacter show Ann\n")
    toolbar = "Test (hnh): no encounter running"
    steps: list[tuple[bytes, str | None]] = [
        (b"\x12", "reverse-i-search"),
        (b"damage A", "damage Ann --amount 2"),  # found
        (b"\r", "damage Ann --amount 2"),  # taken to the prompt
        (b"\r", toolbar),  # ran; the next prompt
        (b"exit\r", None),
    ]
    screen, status = _pty_session(db, tmp_path, toolbar, steps)
    assert status == 0, screen[-2000:]
    assert Cli(db).json("character", "show", "Ann")["hp"] == 4  # Ctrl-R `damage A` found `damage Ann --amount 2`


# -- the prompt_toolkit session itself, through a pipe -------------------------------------------
@pytest.fixture
def session(db: str) -> Iterator[Session]:
    assert (
        play(db, lines(*SETUP, "character import ../shared/fixtures/hnh-characters/energy-controller.json")).returncode
        == 0
    )
    app = AppContext(db=db, seed=None, actor="tester", as_json=False)
    ledger_cli.load_all()
    s = Session(app, ledger_cli, keep_going=True)
    with app.hosting():
        yield s
    app.close()


def completions(session: Session, text: str) -> list[tuple[str, str]]:
    """What the prompt offers at the end of `text`: (candidate, help)."""
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document
    from prompt_toolkit.output import DummyOutput

    from commands.prompt import prompt_session

    prompt = prompt_session(session, output=DummyOutput())
    assert prompt.completer is not None
    found = prompt.completer.get_completions(Document(text), CompleteEvent(completion_requested=True))
    return [(c.text, c.display_meta_text) for c in found]


def test_the_prompt_offers_the_campaigns_options_with_their_help(session: Session) -> None:
    """docs/shell.md, On a terminal: options from the declarations (ledger/rules/hnh/options.py), this system's only."""
    opts = dict(completions(session, "attack Ann 'Big Bo' --r"))
    assert "--rank" in opts and "--range" in opts and "--roll" in opts
    assert "--damage" not in dict(completions(session, "attack Ann 'Big Bo' --"))  # d20's, not this campaign's
    from ledger.rules.hnh.options import RANGES

    assert [c for c, _ in completions(session, "attack Ann 'Big Bo' --range ")] == list(RANGES)
    keys = dict(completions(session, "attack Ann 'Big Bo' -o "))
    assert "range=" in keys and all("=" in k for k in keys)
    rolls = dict(completions(session, "attack Ann 'Big Bo' --roll "))
    assert rolls["attack="] == "the acting character's roll" and rolls["toughness="] == "the other character's roll"


def test_the_prompt_offers_names_conditions_traits_and_powers_with_their_help(session: Session) -> None:
    """docs/shell.md, On a terminal: names with HP, conditions with what they bring (conditions.txt), a character's
    traits and powers."""
    names = dict(completions(session, "damage "))
    assert names["Ann"] == "HP 6/6" and names["'Big Bo'"] == "HP 6/6"
    conditions = dict(completions(session, "condition add Ann inc"))
    assert conditions["incapacitated"] == "is defenseless, stunned, unaware; supersedes dazed, stunned"
    powers = [c for c, _ in completions(session, "attack 'Energy Controller' Ann --with ")]
    # the attacks first (hnh-site/gameplay.txt, Attack Check), then the other powers: flight after them
    assert powers[:3] == ["energy-aura", "energy-creation", "energy-negation"] and "120-mph" in powers[3:]
    assert "unarmed" in powers  # hnh-site/gadgets-and-gear, Attack Check: the declarations' default, unarmed
    assert dict(completions(session, "check 'Energy Controller' dod"))["dodge"] == "trait 8"
    assert dict(completions(session, "act Ann "))["affliction"].startswith("an Affliction")


def test_a_check_is_completed_with_what_the_rules_let_the_character_check(db: str) -> None:
    """d20-supers.txt, Collosal Failures and Spectacular Success ("when doing skills"; docs/interpretations.md, d20
    Supers: "A check rolls a skill, never a number of the sheet"): `check NAME` offers the six abilities, a score
    not given at 10, then the sheet's skills; never hp or attack, which `ledger check` refuses."""
    setup = [
        "init --system d20 --name Test",
        "character add Ann --trait str=14 --trait hp=20 --trait attack=5 --trait climb=3",
    ]
    assert play(db, lines(*setup)).returncode == 0
    app = AppContext(db=db, seed=None, actor="tester", as_json=False)
    ledger_cli.load_all()
    s = Session(app, ledger_cli, keep_going=True)
    with app.hosting():
        offered = dict(completions(s, "check Ann "))
    app.close()
    assert list(offered) == ["str", "dex", "con", "int", "wis", "cha", "climb"]
    assert offered["str"] == "trait 14" and offered["wis"] == "10: not on the sheet" and offered["climb"] == "trait 3"
    for trait in ("wis", "hp"):
        done = play(db, lines(f"check Ann {trait} --dc 10"))
        assert (done.returncode == 0) == (trait in offered), (trait, done.stderr)


def test_the_prompt_matches_fuzzily(session: Session) -> None:
    """docs/shell.md, On a terminal: fuzzy matching: prefixes first, then substrings, then letters in order."""
    assert [c for c, _ in completions(session, "encounter nx")] == ["next"]
    assert [c for c, _ in completions(session, "damage bo")][0] == "'Big Bo'"
    assert [c for c, _ in completions(session, "condition add Ann stnd")] == [
        "stunned",
        "restrained",
    ]  # the tighter match first
    found = [c for c, _ in completions(session, "enc")]
    assert found[0] == "encounter"


def test_the_toolbar_names_who_is_up_and_the_next_two_who_take_turns(session: Session, db: str) -> None:
    """docs/shell.md, On a terminal; the dead are passed over there as `encounter next` passes over them (CLI.md,
    Additions agreed in the second round)."""
    assert session.toolbar().endswith("no encounter running")
    for line in (
        "character add Cy",
        "character add Dee",
        "encounter start Ann 'Big Bo' Cy Dee --init Ann=4 --init 'Big Bo'=3 --init Cy=2 --init Dee=1",
        "damage 'Big Bo' --amount 9",
    ):
        assert session.run(line, 1, script=True)
    assert session.toolbar() == " round 1 | up: Ann HP 6/6 | next: Cy HP 6/6, Dee HP 6/6"
    session.run("damage Cy --amount 2", 1, script=True)
    session.run("condition add Cy dazed", 1, script=True)
    session.run("encounter next", 1, script=True)
    assert session.toolbar() == " round 1 | up: Cy HP 4/6 [dazed] | next: Dee HP 6/6, Ann HP 6/6"


def test_an_interactive_session_through_a_pipe_completes_and_runs_commands(
    session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/shell.md, On a terminal: the prompt_toolkit application fed key by key: Tab completes, Enter runs, Ctrl-D
    leaves."""
    monkeypatch.setenv("HOME", str(tmp_path))
    typed(session, ["damage Bi", "\t", " --amount 1\r", "\x04"], 0.4)
    assert Cli(session.app.db or "").json("character", "show", "Big Bo")["hp"] == 5  # `damage Bi` + Tab ran on Big Bo
    assert (tmp_path / ".ledger_history").read_text().splitlines()[0] == "damage 'Big Bo' --amount 1"


def test_split_word_and_rank() -> None:
    """The word being completed starts after the last unquoted space (an open quote starts it)."""
    assert split_word("attack Ann 'Big B") == ("attack Ann ", "'Big B")
    assert split_word("attack 'Big Bo' ") == ("attack 'Big Bo' ", "")
    assert [c for c, _ in rank([("list", ""), ("show", ""), ("add", "")], "s")] == ["show", "list"]
    offline = Completer(ledger_cli, lambda: ["Ann"], lambda: [])  # before a campaign: every system's options
    assert offline.candidates("attack Ann Ann ", "--op") == ["--option"]
    assert "--damage" in offline.candidates("attack Ann Ann ", "--da")


def test_the_toolbar_shows_the_rules_own_timed_effects_as_durations(session: Session) -> None:
    """gameplay.txt, Defend - Standard Action ("until your next turn"): Cy's defend shows on the toolbar as a
    duration does (`defend (dodge) until start of Cy`), and is gone once Cy's next turn has started."""
    for line in (
        "character add Cy",
        "encounter start Ann Cy --init Ann=4 --init Cy=2",
        "encounter next",
        "act Cy defend -o defense=dodge",
        "encounter next",
    ):
        assert session.run(line, 1, script=True)
    assert session.toolbar() == " round 2 | up: Ann HP 6/6 | next: Cy HP 6/6 [defend (dodge) until start of Cy]"
    assert session.run("encounter next", 1, script=True)
    assert session.toolbar().startswith(" round 2 | up: Cy HP 6/6 |") and "defend" not in session.toolbar()


def test_the_toolbar_shows_durations_and_no_round_after_the_end(session: Session) -> None:
    """gameplay.txt, Ending Your Turn ("until the end of your turn"): what is left of a duration shows on the toolbar;
    after `encounter end` there is no round and no one up."""
    for line in (
        "character add Cy",
        "encounter start Ann Cy --init Ann=4 --init Cy=2",
        "condition add Cy dazed --rounds 2",
    ):
        assert session.run(line, 1, script=True)
    assert session.toolbar() == " round 1 | up: Ann HP 6/6 | next: Cy HP 6/6 [dazed 2]"
    assert session.run("encounter end", 1, script=True)
    assert session.toolbar().endswith("no encounter running") and "round" not in session.toolbar()


def test_a_players_request_shows_in_the_toolbar_and_f2_accepts_it(
    session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/serve.md, Players act: a request from a hero's page shows in the shell's toolbar as the ruling's sentence
    to be made; one key (F2) accepts it, recording exactly its command with who asked; nothing is pending after."""
    from ledger.storage.players import Players
    from ledger.storage.target import parse_target

    monkeypatch.setenv("HOME", str(tmp_path))
    assert session.run("character set Ann --trait toughness=2", 1, script=True)
    Players(parse_target(session.app.db)).propose(
        "ann", "Ann", ["damage", "Big Bo", "--amount", "1"], "Ann hurts Big Bo", 60
    )
    assert session.toolbar().endswith("| Ann asks: Ann hurts Big Bo  [F2 accepts #1]")
    typed(session, ["\x1bOQ", "\x04"], 0.6)  # F2, then Ctrl-D
    cli = Cli(session.app.db or "")
    assert cli.json("character", "show", "Big Bo")["hp"] == 5
    assert cli.json("log", "-n", "1")[0]["data"]["intent"]["asked_by"] == "Ann"  # type: ignore[index]
    assert cli.json("pending") == []
