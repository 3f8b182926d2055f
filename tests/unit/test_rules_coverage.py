"""docs/rules-coverage.md stays true: every section of the rules texts has its row, every function and test a row names
exists, and the counts it states are its rows' (Humans & Heroes at least 90% of the resolvable rules resolved, d20
Supers and Prowlers & Paragons all of them)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from tests.conftest import REPO, SHARED

DOC = REPO / "docs" / "rules-coverage.md"
RULES = SHARED / "rules"
SYSTEMS = {"Humans & Heroes": "hnh", "d20 Supers": "d20", "Prowlers & Paragons": "pnp"}
TEXTS_WITH_HEADINGS = {"hnh": "humans-and-heroes.txt", "pnp": "prowlers-and-paragons.txt"}


def rows() -> dict[str, list[list[str]]]:
    """Each system's table rows: [text, section, status, resolved in, shown by]."""
    out: dict[str, list[list[str]]] = {}
    system = None
    for line in DOC.read_text().splitlines():
        if line.startswith("## "):
            system = SYSTEMS.get(line[3:].strip())
            out.setdefault(system or "", [])
            continue
        if system and line.startswith("| ") and not line.startswith(("| text ", "|---")):
            out[system].append([c.strip() for c in line.strip().strip("|").split(" | ")])
    return out


def headings(path: Path) -> list[str]:
    """The section titles of a rules text: a short line on its own between blank lines, not a sentence, a list item
    or a table's row."""
    lines = path.read_text().splitlines()
    found = []
    for i, line in enumerate(lines):
        s = line.strip()
        if not s or len(s) > 48 or s.endswith((".", ":", ",", "|", ";")) or s.startswith(("•", "Table", "-", "(")):
            continue
        before = lines[i - 1].strip() if i else ""
        after = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if not before and not after and s[0].isupper() and not re.search(r"\d{2,}", s):
            found.append(s)
    return found


def names(cell: str) -> list[str]:
    """The `code` names of a cell."""
    return re.findall(r"`([^`]+)`", cell)


def resolve(dotted: str) -> object:
    """The module attribute a dotted name names (a module, then classes and functions inside it)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


TABLE = rows()


def test_every_system_has_its_table() -> None:
    """One table per rule system."""
    assert set(TABLE) >= set(SYSTEMS.values()) and all(TABLE[s] for s in SYSTEMS.values())


@pytest.mark.parametrize("system", sorted(TEXTS_WITH_HEADINGS))
def test_every_heading_of_the_text_has_its_row(system: str) -> None:
    """Each section title of the system's text is a row of its table."""
    text = TEXTS_WITH_HEADINGS[system]
    listed = {r[1] for r in TABLE[system] if r[0] == text}
    assert [h for h in headings(RULES / text) if h not in listed] == []


@pytest.mark.parametrize("system", sorted(SYSTEMS.values()))
def test_every_row_names_a_passage_of_its_text(system: str) -> None:
    """Each row's section is found in its text (d20-supers.txt: the words that open the rule)."""
    missing = [r[:2] for r in TABLE[system] if r[1].replace('\\"', '"') not in (RULES / r[0]).read_text()]
    assert missing == []


@pytest.mark.parametrize("system", sorted(SYSTEMS.values()))
def test_every_function_named_exists(system: str) -> None:
    """Each `module.function` in "resolved in" is importable: a rules module or function renamed or gone fails here."""
    for row in TABLE[system]:
        for dotted in names(row[3]):
            assert resolve(dotted) is not None, dotted


@pytest.mark.parametrize("system", sorted(SYSTEMS.values()))
def test_every_test_named_exists(system: str) -> None:
    """Each `tests/...py::test_name` in "shown by" is a test in that file: a cited test renamed or gone fails here."""
    for row in TABLE[system]:
        for cited in names(row[4]):
            path, _, name = cited.partition("::")
            assert re.search(rf"^def {re.escape(name)}\(", (REPO / path).read_text(), re.M), cited


@pytest.mark.parametrize("system", sorted(SYSTEMS.values()))
def test_a_resolved_row_names_where_and_its_test_and_the_others_say_why(system: str) -> None:
    """A resolved row names its function and its test; a row of the GM's or not yet says why."""
    for row in TABLE[system]:
        status = row[2]
        if status == "resolved":
            assert names(row[3]) and names(row[4]), row
        else:
            assert status == "heading" or re.match(r"(the GM's|not yet): \S", status), row


def test_the_counts_are_the_rows_and_meet_the_bar() -> None:
    """The summary is the rows' count; Humans & Heroes resolves at least 90% of what a ledger can resolve, d20 Supers
    and Prowlers & Paragons all of it."""
    summary = {
        SYSTEMS[m.group(1)]: tuple(int(m.group(i)) for i in range(2, 7))
        for m in re.finditer(r"^\| ([^|]+?) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|", DOC.read_text(), re.M)
        if m.group(1) in SYSTEMS
    }
    for system, table in TABLE.items():
        if system not in SYSTEMS.values():
            continue
        kinds = [r[2].split(":")[0] for r in table]
        counted = (len(table), kinds.count("resolved"), kinds.count("the GM's"), kinds.count("heading"))
        assert summary[system] == (*counted, kinds.count("not yet")), system
        resolved, not_yet = kinds.count("resolved"), kinds.count("not yet")
        share = resolved / (resolved + not_yet)
        assert share >= (0.9 if system == "hnh" else 1.0), (system, share)
