"""`ledger export` and `ledger import`: share a history (JSONL, CSV, Markdown, HTML) and restore a ledger from JSONL."""

from __future__ import annotations

import contextlib
import html
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from typing import IO, Any

import click

from commands.context import AppContext, pass_app
from commands.registry import command
from ledger import catalog as C
from ledger.errors import BadInput

KINDS = ("jsonl", "csv", "md", "html")  # the export formats; jsonl is the lossless one, the others are made from views
FORMATS = {**{k: k for k in KINDS}, "markdown": "md", "htm": "html"}  # a --format or -o extension -> its kind


def pick_format(fmt: str | None, output: str | None) -> str:
    """The format asked for, or the one -o's extension names."""
    if fmt is None:
        ext = os.path.splitext(output or "")[1].lstrip(".").lower()
        if ext in FORMATS:
            return FORMATS[ext]
        raise BadInput(
            f"give --format: {', '.join(KINDS[:-1])} or {KINDS[-1]}", "e.g. ledger export --format html -o session.html"
        )
    found = FORMATS.get(fmt.strip().lower())
    if found is None:
        raise BadInput(f"unknown format '{fmt}'", f"choose one of: {', '.join(KINDS)}")
    return found


SQLITE_MAGIC = b"SQLite format 3\x00"


def check_output(path: str, ledger_path: str | None, force: bool) -> None:
    """Refuse to replace the ledger's own file, any SQLite database, or (without --force) any existing file."""
    if os.path.isdir(path):
        raise BadInput(f"can't write {path}: it is a folder", "give -o a file name")
    real = os.path.realpath(path)
    if ledger_path:
        own = os.path.realpath(ledger_path)
        if real == own or real in (own + "-wal", own + "-shm", own + "-journal"):
            raise BadInput(
                f"{path} is this ledger's own database: exporting onto it would destroy it", "give -o a new file name"
            )
    if not os.path.isfile(path):
        return  # new, or a device or pipe (/dev/null, a FIFO) written into, never replaced
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except OSError:
        head = b""
    if head == SQLITE_MAGIC:
        raise BadInput(
            f"{path} is a SQLite database (a ledger?): an export never replaces one", "give -o a new file name"
        )
    if not force:
        raise BadInput(f"{path} already exists", "give -o a new file name, or add --force to replace it")


@contextlib.contextmanager
def output_file(path: str | None) -> Iterator[IO[bytes]]:
    """Stdout, or a file written whole or not at all (a temporary file beside it, renamed at the end)."""
    if path is None or path == "-":
        yield sys.stdout.buffer if hasattr(sys.stdout, "buffer") else sys.stdout  # type: ignore[misc]
        sys.stdout.flush()
        return
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise BadInput(f"can't write {path}: it is a folder", "give -o a file name")
    if os.path.exists(path) and not os.path.isfile(
        path
    ):  # a device or a pipe (/dev/null, a FIFO): write into it, never replace it
        try:
            with open(path, "wb") as f:
                yield f
        except OSError as e:
            raise BadInput(f"can't write {path}: {e.strerror or e}", "pick another -o path") from None
        return
    try:
        fd, tmp = tempfile.mkstemp(prefix=".ledger-export-", dir=folder)
    except OSError as e:
        raise BadInput(f"can't write {path}: {e.strerror or e}", "pick another -o path") from None
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
        os.chmod(tmp, shared_mode(path))  # mkstemp makes 0600: an export is for sharing, like any file the user writes
        os.replace(tmp, path)
    except OSError as e:
        raise BadInput(f"can't write {path}: {e.strerror or e}", "pick another -o path") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def shared_mode(path: str) -> int:
    """The mode a new file gets under the user's umask (0644 under 022), or the mode of the file it replaces."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


@contextlib.contextmanager
def bar(app: AppContext, show: bool, length: int, label: str) -> Iterator[Callable[[int], None]]:
    """A progress bar on a terminal's stderr (not with --json, not into a pipe or log), as a step function."""
    if not show or app.as_json or length <= 0 or not sys.stderr.isatty():
        yield lambda n: None
        return
    with click.progressbar(length=length, label=label, file=sys.stderr) as b:
        yield b.update


@command(C.EXPORT)
@click.option(
    "--format",
    "fmt",
    default=None,
    metavar="FORMAT",
    help="jsonl (lossless, for import), csv, md (Markdown) or html; default: from -o's extension.",
)
@click.option(
    "--session",
    default=None,
    metavar="N|current",
    help="Only play session N, or `current` for the open one (csv, md, html).",
)
@click.option(
    "-o", "--output", default=None, metavar="FILE", help="Write to FILE (whole or not at all) instead of stdout."
)
@click.option("--force", is_flag=True, help="Replace FILE if it exists (never a SQLite database, never the ledger).")
@pass_app
def export(app: AppContext, fmt: str | None, session: str | None, output: str | None, force: bool) -> None:
    """Export the history: every event as lossless JSONL, a CSV for spreadsheets, Markdown, or an HTML report.

    The HTML page is self-contained (inline styles and SVG HP charts, no scripts, no network). JSONL is the
    whole ledger, byte for byte, and is what `ledger import` reads.

    Example: ledger export --format html --session 3 -o session3.html
    """
    kind = pick_format(fmt, output)
    if kind == "jsonl" and session is not None:
        raise BadInput(
            "JSONL exports the whole ledger (an import needs every ruling)",
            "leave out --session, or use --format csv/md/html",
        )
    to_file = output not in (None, "-")
    if to_file:
        assert output is not None
        target = app.ledger.target
        check_output(output, target.path if target.kind == "sqlite" else None, force)
    if kind == "jsonl":
        summary = _export_jsonl(app, output, to_file)
        counts = {
            "events": summary.events,
            "rulings": summary.rulings,
            "final_hash": summary.final_hash,
            "head": summary.final_hash,
        }
    else:
        counts = _export_view(app, kind, session, output, to_file)
    if to_file:
        app.emit(
            {"format": kind, "file": output, **counts},
            f"exported {counts['rulings']} rulings, {counts['events']} events to {output}\nhead: {counts['head']}",
        )


def _export_jsonl(app: AppContext, output: str | None, to_file: bool) -> Any:
    app.ledger.campaign()  # refuses an empty ledger before any file is made
    with output_file(output) as out, bar(app, to_file, app.ledger.log_size(), "exporting") as step:
        return app.ledger.export_jsonl(out, step=step)


def _export_view(app: AppContext, kind: str, session: str | None, output: str | None, to_file: bool) -> dict[str, Any]:
    # lazy: the read side (SQLAlchemy); kept out of a one-shot write
    from projections import history, queries, report

    h = history.load(app.read, queries.session_number(app.read, session))
    h.head = app.ledger.campaign().last_hash
    render = {"csv": history.to_csv, "md": history.to_markdown, "html": report.to_html}[kind]
    with output_file(output) as out:
        with bar(app, to_file, h.events, "exporting") as step:
            text = render(h, step)
        if kind in ("md", "html"):
            text = with_calibration(app, kind, text)
        out.write(text.encode())
    return {"events": h.events, "rulings": len(h.rulings), "head": h.head}


CALIBRATION_TRIALS = 200  # each ended encounter's forecast in an export (seed 0: the same file every time)


def with_calibration(app: AppContext, kind: str, text: str) -> str:
    """The Markdown or HTML export with how the forecasts did (`ledger odds --calibrate`), when an encounter ended."""
    # lazy: the simulator, for a ledger with an ended encounter only
    from ledger.odds import calibrate as cal

    if not cal.ended_encounters(app.ledger):
        return text
    found = cal.calibrate(app.ledger, trials=CALIBRATION_TRIALS, seed=0, policy="focus-weakest", max_rounds=20)
    body = cal.text(found)
    if kind == "md":
        return text.rstrip("\n") + "\n\n## Forecasts\n\n```\n" + body + "\n```\n"
    section = f"<section><h2>Forecasts</h2><pre>{html.escape(body)}</pre></section>\n"
    at = text.rfind("</body>")
    return text[:at] + section + text[at:] if at >= 0 else text + section


@command(C.IMPORT)
@click.argument("file", metavar="FILE.jsonl")
@pass_app
def import_(app: AppContext, file: str) -> None:
    """Recreate a ledger from `ledger export --format jsonl` into an empty --db: same events, same views.

    The whole file is checked first (header, counts, every hash link); a changed or truncated file is
    refused and nothing is written.

    Example: ledger --db restored.ledger import campaign.jsonl && ledger --db restored.ledger verify
    """
    ledger = app.ledger
    where = ledger.target.describe()
    size = os.path.getsize(file) if os.path.isfile(file) else 0
    with bar(app, True, size, "checking ") as step:
        checked = ledger.check_import(file, step=step)
    with bar(app, True, checked.summary.events, "importing") as step:
        summary = ledger.write_import(checked, step=step)
    _build_views(app, summary.events)
    counts = {"events": summary.events, "rulings": summary.rulings, "final_hash": summary.final_hash}
    app.emit({"imported": file, **counts}, f"imported {summary.rulings} rulings, {summary.events} events into {where}")


def _build_views(app: AppContext, total: int) -> None:
    # lazy: the read side (SQLAlchemy); kept out of `ledger --help`
    from projections.db import ReadSide
    from projections.views import rebuild

    read = ReadSide(app.target())
    try:  # rebuild, not catch up: a database that kept view tables from an earlier ledger must not collide with them
        with bar(app, True, total, "views    ") as step:
            rebuild(read, lambda done, n: step(n))
    finally:
        read.close()
