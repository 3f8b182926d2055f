"""The shape of the code (DESIGN.md, Layout): no import circle, and each part imports only what it may.

Imports are read from the source with `ast`, imports inside functions and under TYPE_CHECKING included.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO

PACKAGES = ("ledger", "projections", "commands")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((REPO / pkg).rglob("*.py"))}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules a module imports (a `from package import module` counts as the module)."""
    return _imports_of_source(name, path.read_text(), known, is_pkg=path.name == "__init__.py")


def _imports_of_source(name: str, src: str, known: set[str], *, is_pkg: bool = False) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_pkg else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    known = set(mods)
    return {name: _imports(name, path, known) for name, path in mods.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, if any (a package's own __init__ imported by its module counts)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return [*stack[stack.index(m) :], m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def test_no_import_circle_among_the_projects_modules() -> None:
    """DESIGN.md, Layout: there is no import circle among the project's modules (imports inside functions count)."""
    assert _cycle(_graph()) is None, " -> ".join(_cycle(_graph()) or [])


# The floor plan (docs/design.md, Layout), lowest first. A module may import its own floor and the floors below it,
# never one above: imports inside functions and under TYPE_CHECKING count. A name matches a module and everything under
# it (`ledger.model` holds `ledger.model.dice`).
FLOORS: tuple[tuple[str, ...], ...] = (
    ("ledger", "ledger.errors"),  # the package and the one error hierarchy
    ("ledger.model",),  # the domain's values: dice, sheet, bounds, names, the chain hash, the dice scheme
    ("ledger.rules",),  # pure rules, one package per system
    # the domain: the intents, the command catalog (it names each command's intent type for mypy alone), the aggregates
    ("ledger.intents", "ledger.catalog", "ledger.aggregates", "ledger.encounter", "ledger.snapshots"),
    ("ledger.storage",),  # where a ledger lives: target, store, schema, dice secrets, player requests
    ("ledger.audit",),  # what verify checks: the chain walk, the report, the dice check
    ("ledger.words",),  # rulings in words: the describer, die lines, summaries
    ("ledger.rulings",),  # deciding a ruling: the draft and the deciders
    ("ledger.history",),  # undo, redo, retraction (walk, plan, diff), why, export and import
    ("ledger.odds",),  # fight odds: the simulator over the rules and the domain, reading the ledger's aggregates
    ("ledger.app", "ledger.application"),  # the Ledger, the one way in
    ("projections",),  # the read side
    ("commands",),  # the CLI and the session shell
)


def floor_of(module: str) -> int:
    """The floor a module stands on: the longest floor name that is the module or a package holding it."""
    best, at = "", -1
    for i, names in enumerate(FLOORS):
        for n in names:
            if (module == n or module.startswith(n + ".")) and len(n) > len(best):
                best, at = n, i
    if at < 0:
        raise AssertionError(f"{module} stands on no floor of FLOORS: add it to one")
    return at


def upward(graph: dict[str, set[str]]) -> list[str]:
    """Every import that runs upward, as `a (floor) -> b (floor)`."""
    return sorted(
        f"{a} ({floor_of(a)}) -> {b} ({floor_of(b)})"
        for a, deps in graph.items()
        for b in deps
        if floor_of(b) > floor_of(a)
    )


def test_every_module_stands_on_a_floor_and_imports_only_its_own_floor_and_below() -> None:
    """docs/design.md, Layout: the floor order holds; no module imports a floor above its own (inside functions too)."""
    assert upward(_graph()) == []


def test_the_floor_check_finds_an_upward_import_inside_a_function() -> None:
    """docs/design.md, Layout: an import of a higher floor is found wherever it stands, a function's body included."""
    src = "def f():\n    # lazy: a test of the check\n    from ledger.history import undo\n    return undo\n"
    known = set(_modules())
    graph = {"ledger.model.dice": _imports_of_source("ledger.model.dice", src, known)}
    assert upward(graph) == ["ledger.model.dice (1) -> ledger.history.undo (8)"]


def test_no_floor_names_a_module_that_is_gone() -> None:
    """docs/design.md, Layout: each name on a floor is a module or package of the project."""
    known = set(_modules())
    assert [n for names in FLOORS for n in names if n not in known] == []


def test_the_write_side_never_imports_the_read_side_or_the_cli() -> None:
    """DESIGN.md, Layout: never ledger/ importing projections/ or commands/."""
    bad = {
        (a, b)
        for a, deps in _graph().items()
        if a.startswith("ledger")
        for b in deps
        if b.split(".")[0] in ("projections", "commands")
    }
    assert not bad


def test_projections_never_import_the_cli() -> None:
    """DESIGN.md, Layout: never projections/ importing commands/."""
    bad = {
        (a, b) for a, deps in _graph().items() if a.startswith("projections") for b in deps if b.startswith("commands")
    }
    assert not bad


def test_the_rules_import_only_dice_sheet_errors_and_themselves() -> None:
    """DESIGN.md, Layout: ledger/rules/ imports only ledger.model.dice, ledger.model.sheet, ledger.errors and
    ledger.rules.* (the rules are pure functions of state, intent and dice faces)."""
    allowed = ("ledger.model.dice", "ledger.model.sheet", "ledger.errors", "ledger.rules", "ledger")
    bad = {
        (a, b)
        for a, deps in _graph().items()
        if a.startswith("ledger.rules")
        for b in deps
        if not (b in allowed or b.startswith("ledger.rules."))
    }
    assert not bad


def test_the_catalog_imports_nothing_of_the_ledger_at_run_time() -> None:
    """ledger/catalog.py is read by every one-shot command to find its module: at run time it imports no project
    module; only mypy reads the intent types it names (under TYPE_CHECKING)."""
    tree = ast.parse((REPO / "ledger" / "catalog.py").read_text())
    guarded = {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
        for n in ast.walk(node)
    }
    at_run_time = [
        node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and id(node) not in guarded
    ] + [
        a.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import) and id(node) not in guarded
        for a in node.names
    ]
    assert not [m for m in at_run_time if m.split(".")[0] in ("ledger", "projections", "commands")]
    assert {b for b in _graph()["ledger.catalog"] if b.startswith("ledger")} <= {"ledger.intents", "ledger"}


def _unexplained(src: str) -> list[int]:
    """Lines of the imports inside functions that carry no `# lazy:` comment, on their own lines or on the comment
    and import lines right above them."""
    lines = src.splitlines()
    tree = ast.parse(src)
    spans: set[int] = set()
    found: list[ast.Import | ast.ImportFrom] = []
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    found.append(node)
                    spans.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    bad = []
    for node in found:
        own = lines[node.lineno - 1 : node.end_lineno or node.lineno]
        ok = any("# lazy:" in line for line in own)
        n = node.lineno - 1  # the line above, 1-based
        while not ok and n >= 1 and (lines[n - 1].strip().startswith("#") or n in spans):
            ok = "# lazy:" in lines[n - 1]
            n -= 1
        if not ok:
            bad.append(node.lineno)
    return sorted(set(bad))


def test_the_lazy_import_check_tells_an_explained_import_from_a_bare_one() -> None:
    """README.md, How it works: an import inside a function says why with a `# lazy:` comment (above it, above the
    run of imports it belongs to, or on its line); a bare one is found."""
    src = (
        "import os\n\n\n"
        "def f():\n"
        "    # lazy: json, for the export only; kept out of a one-shot write\n"
        "    import json\n"
        "    from csv import (\n"
        "        reader,\n"
        "    )\n\n"
        "    import zlib  # lazy: zlib; kept out of reads\n"
        "    x = 1\n"
        "    import shutil\n"
        "    return json, reader, zlib, shutil, x\n"
    )
    assert _unexplained(src) == [13]


def test_every_import_inside_a_function_says_why_it_is_there() -> None:
    """README.md, How it works: a module only some commands need is imported inside the function that needs it,
    each such import saying why with a `# lazy:` comment (what it keeps out of which command); every other import
    is at the top of its module."""
    bad = [
        f"{path.relative_to(REPO)}:{line}" for path in _modules().values() for line in _unexplained(path.read_text())
    ]
    assert bad == [], "imports inside functions without a `# lazy:` comment: " + ", ".join(bad)


def _design_listing() -> dict[str, int]:
    """docs/design.md's module list: each `- path.py:` line under its `### Floor N` heading."""
    out: dict[str, int] = {}
    floor = -1
    for line in (REPO / "docs" / "design.md").read_text().splitlines():
        if line.startswith("### Floor "):
            floor = int(line.split()[2].rstrip(":"))
        elif line.startswith("## "):
            floor = -1
        elif floor >= 0 and line.startswith("- ") and ".py:" in line:
            out[line[2:].split(":", 1)[0]] = floor
    return out


def test_design_md_lists_every_module_under_its_own_floor() -> None:
    """docs/design.md, Layout: every module of ledger/, projections/ and commands/ is listed, one line each, under
    the floor test_layout.py puts it on (package __init__ files without code of their own aside)."""
    listed = _design_listing()
    floors = {str(path.relative_to(REPO)): floor_of(name) for name, path in _modules().items()}
    want = {
        str(path.relative_to(REPO)): floor_of(name)
        for name, path in _modules().items()
        if not (path.name == "__init__.py" and len(path.read_text().splitlines()) <= 8)
    }
    assert {p: f for p, f in listed.items() if floors.get(p) != f} == {}, "listed under the wrong floor, or gone"
    assert sorted(set(want) - set(listed)) == [], "modules docs/design.md does not list"
