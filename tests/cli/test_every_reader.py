"""Every ruling kind of every system reads clean and the same through every reader.

README.md, "What a ruling prints ... is meant to be read out at the table" and "ledger/words/describe.py is the one
describer ... shared by the terminal, `log`, and the CSV, Markdown and HTML exports". Each system's fight
(tests/integration/test_reads_quiet.py: every ruling command of ledger/catalog.py and every `act` its rules declare,
sessions with committed dice, encounters, timed conditions, minion groups, copies, undo, redo, a retraction) is
played through the real CLI, and each ruling's words are read back from the terminal (as the command printed them),
`log`, `session show`, `encounter log`, the CSV, Markdown and HTML exports, and the players' screen (as the GM sees
it). No reader may show the ledger's bookkeeping (a dice counter, a version, a raw intent, a counter's stored name,
True/False/None), a doubled name, a plural that disagrees with its number (`1 successes`, `Thugs fails`); and the
numbers a ruling's sentence says (HP before and after, a check against its defense) are the same in every reader.
"""

from __future__ import annotations

import csv
import html
import io
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

from ledger.storage.target import parse_target
from projections.db import ReadSide
from tests.conftest import Cli
from tests.integration.test_reads_quiet import EXTRA, INIT, fight

# -- what no reader may show ----------------------------------------------------------------------------------------
BOOKKEEPING = [
    (re.compile(r"\bnumber \d+, (next|commitment|version)\b"), "a dice counter or scheme"),
    (re.compile(r"\bversion \d+\b|\btracker \d\b|\bpass[ _]over\b|\bplayer dice (yes|no)\b"), "a version or flag"),
    (re.compile(r"\b[a-z][a-z_-]*=[^\s=]"), "a raw intent (key=value)"),
    (re.compile(r"\b(until-(start|end)|[a-z-]+-at):[^\s]"), "a counter's stored name"),
    (re.compile(r"\b(True|False|None)\b"), "True/False/None"),
    (re.compile(r"\b[A-Z][a-z]+(Resolved|Applied|Imposed|Removed|Changed|Recorded|Rolled|Counted|Scheme)\b"), "an "
     "event type"),
    (re.compile(r"\b([A-Z][\w]*(?: \d+)?) \1\b"), "a doubled name"),
    (re.compile(r"\b1 (successes|degrees|rounds|pages|hours|rulings)\b|\b([02-9]|\d\d+) (success|degree|round|page)\b"),
     "a plural that disagrees with its number"),
    (re.compile(r"\bcrawlses\b|\b\w+eses\b"), "a verb conjugated twice"),
]  # fmt: skip
GROUPS = {"hnh": ("Goons", "Mob"), "d20": (), "pnp": ("Goons", "Mob")}  # minion groups of several in the fights
SINGULAR = r" (fails|resists|hits|misses|is|tries|takes|falls|joins)\b"

# -- the numbers a sentence says ------------------------------------------------------------------------------------
NUMBERS = re.compile(r"(?:HP|Health) -?\d+ -> -?\d+|\(-?\d+ vs (?:DR )?-?\d+|by \d+ degrees?")


def wrong(text: str, system: str) -> list[str]:
    """What a line a person reads must not show."""
    found = [f"{why}: {m.group(0)!r}" for rx, why in BOOKKEEPING for m in rx.finditer(text)]
    found += [f"a group said as one: {m.group(0)!r}" for g in GROUPS[system] for m in re.finditer(g + SINGULAR, text)]
    return found


def numbers(sentence: str) -> list[str]:
    """The numbers a ruling's sentence says, in order."""
    return NUMBERS.findall(sentence)


# -- the readers ----------------------------------------------------------------------------------------------------
Said = dict[int, str]  # ruling number -> its sentence (die lines apart)


def live(outputs: Iterable[str]) -> Said:
    """What each command printed first: `ruling 7: Ann hits Bob (8 vs 3); ...`."""
    out: Said = {}
    for text in outputs:
        m = re.match(r"ruling (\d+): (.*)", text)
        if m:
            out[int(m[1])] = m[2]
    return out


def indented(text: str, heading: str, indent: str) -> Said:
    """`log`, `session show`, `encounter log`: a heading per ruling, its sentence on the next line at `indent`."""
    out: Said = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(heading, line)
        if m and i + 1 < len(lines) and lines[i + 1].startswith(indent) and not lines[i + 1][len(indent)].isspace():
            out.setdefault(int(m[1]), lines[i + 1].strip())
    return out


def markdown(text: str) -> Said:
    """The Markdown export: `- **#7** · ...` then `  - sentence`."""
    out: Said = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"- (?:\*\*|~~)#(\d+)", line)
        if (
            m
            and i + 1 < len(lines)
            and lines[i + 1].startswith("  - ")
            and not re.match(r"  - \*\*(Retracted|Undone)\*\*", lines[i + 1])
        ):
            out[int(m[1])] = re.sub(r"\\(.)", r"\1", lines[i + 1][4:])
    return out


def page(text: str) -> Said:
    """The HTML export: each ruling an <article id="rN">, its sentence in <p class="sentence">."""
    out: Said = {}
    for m in re.finditer(r'<article[^>]* id="r(\d+)".*?</article>', text, re.S):
        s = re.search(r'<p class="sentence">(.*?)</p>', m[0], re.S)
        if s:
            out[int(m[1])] = html.unescape(re.sub(r"<[^>]+>", "", s[1]))
    return out


def screen(db: str, system: str) -> Said:
    """The players' screen as the GM sees it, for every ruling (projections/screen.py's words)."""
    from projections.screen import Visibility, last_rulings

    read = ReadSide(parse_target(db))
    try:
        rows = last_rulings(read, Visibility(gm=True), {}, system, limit=10_000)
    finally:
        read.close()
    return {int(r["number"]): str(r["sentence"]) for r in rows}


def played(cli: Cli, system: str) -> list[str]:
    """Play the fight; every command's output."""
    cli.ok("init", "--system", system, "--name", "Readers", *INIT[system])
    steps = fight(system)
    extra = len(steps) - len(EXTRA[system])
    found: dict[str, str] = {}
    outputs = []
    for i, step in enumerate(steps):
        args = [re.sub(r"\{(\w+)\}", lambda m: found[m.group(1)], a) for a in step]
        out = cli.ok(*args).stdout
        outputs.append(out)
        if step[0] == "attack":
            found.setdefault("attack" if i < extra else "A", out.split(":", 1)[0].rpartition(" ")[2])
    return outputs


@pytest.mark.parametrize("system", ["hnh", "d20", "pnp"])
def test_every_reader_says_every_ruling_clean_and_alike(tmp_path: Path, system: str) -> None:
    """Every reader of every ruling kind: no bookkeeping, no raw intent, no True/False/None, no doubled name, no plural
    that disagrees with its number; the numbers of each ruling's sentence alike in the terminal, `log`, `session show`,
    the Markdown and HTML exports and the players' screen."""
    cli = Cli(str(tmp_path / "readers.ledger"))
    outputs = played(cli, system)
    log = cli.ok("log").stdout
    sessions = "\n".join(cli.ok("session", "show", str(n)).stdout for n in (1, 2, 3))
    encounters = "\n".join(cli.ok("encounter", "log", str(n)).stdout for n in (1, 2))
    md = cli.ok("export", "--format", "md").stdout
    page_html = cli.ok("export", "--format", "html").stdout
    rows = list(csv.reader(io.StringIO(cli.ok("export", "--format", "csv").stdout)))
    tv = screen(cli.db, system)
    readers: dict[str, Said] = {
        "terminal": live(line for out in outputs for line in out.splitlines()[:1]),
        "log": indented(log, r"#(\d+) ", "    "),
        "session show": indented(sessions, r"#(\d+) ", "    "),
        "encounter log": indented(encounters, r"  #(\d+)\b", "      "),
        "md": markdown(md),
        "html": page(page_html),
        "screen": tv,
    }
    problems = []
    texts = {
        "terminal": "\n".join(outputs),
        "log": log,
        "session show": sessions,
        "encounter log": encounters,
        "md": md,
        "html": "\n".join(readers["html"].values()),
        "csv": "\n".join(r[rows[0].index("summary")] for r in rows[1:]),  # (its data column is for programs)
        "screen": "\n".join(tv.values()),
    }
    for name, text in texts.items():
        for line in text.splitlines():
            if re.match(r"\s*(head|dice (commitment|secret revealed)|Chain head)\b", line) or "refused: " in line:
                continue  # the hashes the GM is meant to note, said as such, once; a refusal is the rules' own words
            problems += [f"{name}: {p} in {line.strip()!r}" for p in wrong(line, system)]
    assert len(readers["log"]) > 40 and set(readers["log"]) <= set(tv), set(readers["log"]) - set(tv)
    # a ruling a retraction re-derived: `log`, `session show` and `encounter log` tell the history as it stands (its
    # amended outcome, the heading naming the retraction), the terminal, the exports and the screen as recorded, with
    # the retraction's own sentence saying which rulings it re-derived; each is compared with its own kind
    amended = {int(n) for n in re.findall(r"re-derives ruling (\d+)", log, re.I)}
    standing = ("log", "session show", "encounter log")
    for number, said in readers["log"].items():
        recorded = readers["md"].get(number, said) if number in amended else said
        for name, reader in readers.items():
            if name == "log" or number not in reader:
                continue
            if name == "terminal" and reader[number].startswith("retracted ruling"):
                continue  # `retract` prints the ruling it retracts and the plan; its ruling's sentence is the log's
            want = said if name in standing else recorded
            if numbers(reader[number]) != numbers(want):
                problems.append(f"ruling {number}: {name} says {reader[number]!r}, expected {want!r}")
    assert not problems, "\n".join(problems)
