"""What every command shares: the write side and the read side, built lazily, and the output renderer."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

import click
import orjson

from ledger.errors import MediumError, NotInitialised, StoreError
from ledger.model.bounds import safe_tree

if TYPE_CHECKING:
    from ledger.application import Ledger
    from ledger.storage.store import LogReader
    from ledger.storage.target import Target
    from projections.db import ReadSide

R = TypeVar("R", bound=Mapping[str, Any])  # a ruling's result (ledger/intents.py)
POSTGRES_EXTRA = ("psycopg", "psycopg_pool")  # pyproject.toml's `postgres` extra: none of it in a plain install
NOTE = "note: the read models differ from the log ({}): shown from the log; run: ledger rebuild"
CHANGED = (  # a fresh fold of the log's events differs from the aggregates as loaded from their checked snapshots
    "note: the log's events differ from its snapshots ({}): shown from the events; ledger rebuild can't repair the "
    "log; run: ledger verify"
)


_HOST: ContextVar[AppContext | None] = ContextVar("ledger_shell_host", default=None)


class AppContext:
    """Lazily opened ledger (write side) and read side for one CLI invocation or one shell."""

    def __init__(
        self,
        *,
        db: str | None,
        seed: int | None,
        actor: str | None,
        as_json: bool,
        verbose: bool = False,
        note: str | None = None,
        secret: bool = False,
        asked_by: str | None = None,
    ) -> None:
        self.asked_by = asked_by  # the hero whose player asked for the ruling this command records
        self.note = note  # `--note TEXT`: kept in the intent of the ruling this command records
        self.secret = secret  # `--secret`: that ruling kept off the players' screen until revealed
        self.db = db
        self.seed = seed
        self.actor = actor
        self.as_json = as_json
        self.verbose = verbose
        self._ledger: Ledger | None = None
        self._log: LogReader | None = None  # the store and campaign alone, for a read's checks (until a Ledger is made)
        self._read: ReadSide | None = None
        self._source: ReadSide | None = None  # the database's own read models, when _read is a fresh fold instead
        self.check_views = True  # verify compares the read models itself: it reads them unchecked
        host = _HOST.get()
        self._host: AppContext | None = host if host is not None and host.store_key == self.store_key else None
        self._synced = False
        self._behind = False

    @property
    def store_key(self) -> tuple[str | None, int | None, str | None]:
        """What the open ledger depends on: two contexts with the same key may share it."""
        return (self.db, self.seed, self.actor)

    @contextmanager
    def hosting(self) -> Iterator[None]:
        """While active, each AppContext built with the same --db/--seed/--as borrows this one's open ledger and read
        side."""
        token = _HOST.set(self)
        try:
            yield
        finally:
            _HOST.reset(token)

    def settle(self) -> None:
        """Fold into the views what a shell wrote since they last caught up."""
        if self._behind:
            self.caught_up()

    @staticmethod
    def hosted() -> bool:
        """Whether a session shell is hosting this process's commands."""
        return _HOST.get() is not None

    def reset(self) -> None:
        """Drop open connections after a failure; they reopen on next use."""
        try:
            self.close()
        except Exception:  # a broken connection may fail to close: it is dropped either way
            self._ledger = self._read = self._log = None

    def target(self) -> Target:
        """Where --db points; a PostgreSQL URL without the `postgres` extra installed is refused in one line."""
        # lazy: the --db parser; kept out of `ledger --version`
        from ledger.storage.target import parse_target

        found = parse_target(self.db)
        if found.kind == "postgres" and not all(importlib.util.find_spec(m) for m in POSTGRES_EXTRA):
            raise StoreError("a PostgreSQL ledger needs the postgres extra (psycopg): pip install -e '.[postgres]'")
        return found

    @property
    def ledger(self) -> Ledger:
        """The write side (imports eventsourcing only when a command needs it)."""
        if self._host is not None:
            return self._host.ledger.with_note(self.note).with_secret(self.secret).with_asker(self.asked_by)
        if self._ledger is None:
            self.target()  # a PostgreSQL URL without its driver: one line, before the write side is even imported
            # lazy: the write side (eventsourcing); kept out of the read commands, `--help` and completion
            from ledger.application import Ledger

            self._ledger = (
                Ledger(self.db, actor=self.actor, seed=self.seed, note=self.note)
                .with_secret(self.secret)
                .with_asker(self.asked_by)
            )
            self._ledger.notify = lambda line: click.echo(line, err=True)  # "waiting for Ann's attack roll ..."
            if self._log is not None:  # the store a read opened goes on serving: one store, one set of connections
                self._ledger._store = self._log.adopt()
                self._log = None
        return self._ledger

    @property
    def log(self) -> Ledger | LogReader:
        """The log's store and campaign: the Ledger once one is made, else a LogReader (a read checks its views
        against the log without importing the write side's rulings and rules)."""
        if self._host is not None:
            return self._host.log
        if self._ledger is not None:
            return self._ledger
        if self._log is None:
            target = self.target()  # a PostgreSQL URL without its driver: one line
            # lazy: the event store (eventsourcing); kept out of `ledger --help`
            from ledger.storage.store import LogReader

            self._log = LogReader(target)
        return self._log

    @property
    def read(self) -> ReadSide:
        """The read side, caught up with the log before it answers (so every query sees every write before it)."""
        try:
            return self._read_side()
        except NotInitialised:
            _foreign_log(self.target())  # a view or trigger in the log's place is named, not taken for no campaign
            raise

    def _read_side(self) -> ReadSide:
        if self._host is not None:
            if not self._synced:
                self._host.caught_up()
                self._synced = True
            return self._host.read
        if self._read is None:
            target = self.target()
            # lazy: the read side (SQLAlchemy); kept out of `ledger --help`
            from projections.db import ReadSide
            from projections.views import catch_up

            if target.kind == "sqlite" and not os.path.exists(target.path):
                raise NotInitialised(f"no campaign in {target.describe()}", "start one: ledger init --system hnh")
            read = ReadSide(target)
            try:
                seen = read.look()  # one query: the log's head, the views' position, their tables and folds current?
                if seen is None:
                    _require_campaign(read)
                elif seen.head == 0:
                    raise NotInitialised(f"no campaign in {target.describe()}", "start one: ledger init --system hnh")
                if seen is None or seen.views != seen.head or not read.folds_checked:
                    read.ensure_tables()
                    catch_up(read)
            except Exception as e:
                if target.kind != "sqlite" or not _immutable(e):
                    raise
                # a read-only file whose views are behind: answer from a private copy caught up from its log
                # lazy: the read side (SQLAlchemy); kept out of a one-shot write
                from projections.db import private_copy

                read.close()
                read = ReadSide(private_copy(target))
                read.ensure_tables()
                catch_up(read)
            self._read = read
            self._read = self._trusted(read)
            self._behind = False
        elif self._behind:
            self.caught_up()
        return self._read

    def caught_up(self) -> None:
        """Fold every event the views don't include yet into them, now."""
        # lazy: the read side (SQLAlchemy); kept out of a one-shot write
        from projections.views import catch_up

        self._behind = False
        if self._read is None:
            _ = self.read
        else:
            source = self._source or self._read
            catch_up(source)
            fresh = self._trusted(source)
            if self._read is not source and self._read is not fresh:
                self._read.close()
            self._read = fresh

    def _trusted(self, read: ReadSide) -> ReadSide:
        """The read side, or, where its read models don't parse or differ from the log, a fresh fold of the log (with
        a note on stderr): an edited row is never shown."""
        self._source = None
        if not self.check_views:
            return read
        # lazy: the read side (SQLAlchemy); kept out of a one-shot write
        from projections.trust import fold_from_log, mismatch

        found = mismatch(read, self.log)
        if found is None:
            read.on_forged = self._forged  # rows a reader finds differing from their events (projections/shown.py)
            return read
        fresh = fold_from_log(self.log.target)  # first: a log that can't be folded says so in its own error only
        again = mismatch(fresh, self.log)
        if again is None:
            click.echo(NOTE.format(found), err=True)
        else:  # the events themselves differ from the checked snapshots the ledger loads: rebuild can't repair that
            click.echo(CHANGED.format(again), err=True)
        self._source = read
        return fresh

    def _forged(self, found: str) -> ReadSide:
        """A reader found rows differing from the events they are made from: say so once, and answer from a fresh
        fold of the log from now on (until the views next catch up)."""
        # lazy: the read side (SQLAlchemy); kept out of a one-shot write
        from projections.trust import fold_from_log

        host = self._host if self._host is not None else self
        if host._read is not None and host._read.trusted:
            return host._read
        fresh = fold_from_log(self.log.target)  # first: a log that can't be folded says so in its own error only
        click.echo(NOTE.format(found), err=True)
        host._source = host._read
        host._read = fresh
        return host._read

    def _written(self) -> None:
        """A ruling was appended: the views catch up before the next read (in this process or any other), not now.

        A one-shot write thus never imports the read side (SQLAlchemy); the views' tracking position says what they
        still lack, and whichever command reads them next folds it in first.
        """
        if self._host is not None:
            self._host._behind = True
            self._synced = False
        else:
            self._behind = True

    def close(self) -> None:
        """Release connections (a borrowing context leaves its host's open)."""
        self._host = None
        if self._ledger is not None:
            self._ledger.close()
            self._ledger = None
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._read is not None:
            self._read.close()
            self._read = None
        if self._source is not None:
            self._source.close()
            self._source = None

    # -- output ------------------------------------------------------------------------------
    def emit(self, data: Any, text: Callable[[Any], str] | str | None = None, *, page: bool = False) -> None:
        """One JSON document with --json, else the text rendering (a long `page` through the pager at a terminal)."""
        if self.as_json:
            click.echo(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode())
            return
        if text is None:
            return
        out = text(safe_tree(data)) if callable(text) else text
        if out:
            # lazy: the sentences (commands.output, ledger.words.describe); kept out of `--version` and the reads
            from commands.output import show

            show(out, page=page)

    def wrote(self, result: R, text: Callable[[R], str] | str) -> None:
        """After a ruling: print the ruling's number and its outcome, from the ruling's own result (no view read),
        and, on stderr, a note when the one acting is not the one up."""
        self._written()
        note = result.get("not_up")
        if note:
            where = "" if note["in_encounter"] else f"; {note['name']} is not in the encounter"
            # lazy: the log's sentences (~6 ms); kept out of `ledger --version`
            from ledger.words.describe import possessive

            click.echo(
                f"note: it is {possessive(str(note['up']))} turn, not {possessive(str(note['name']))}{where}"
                " (recorded all the same)",
                err=True,
            )
        if self.as_json:
            self.emit(result)
            return
        # lazy: the sentences (commands.output, ledger.words.describe); kept out of `--version` and the reads
        from commands.output import colour_on, paint, raw_events

        shown: R = safe_tree(result)  # names and text as typed, made safe for a terminal (the same shape)
        body = text(shown) if callable(text) else text
        if result.get("side_down") and not _said(result):
            body += "\n" + ("Every foe is down." if result["side_down"] == "foes" else "Every hero is down.")
        first, nl, rest = f"ruling {result['ruling']}: {body}".partition("\n")
        click.echo((paint(first) if colour_on() else first) + nl + rest)
        if self.verbose and result.get("events"):
            click.echo(raw_events(shown))


def _said(result: Mapping[str, Any]) -> bool:
    """Whether the ruling recorded that a side is all down (its sentence says so) rather than only finding it."""
    return any((e.get("data") or {}).get("side_down") for e in result.get("events") or ())


def _foreign_log(target: Any) -> None:
    """Where reads found no campaign: if the database holds what the ledger never makes (a view in the log's place,
    a trigger), say that in one line instead (StoreError)."""
    if target.kind == "sqlite" and not os.path.exists(target.path):
        return
    # lazy: the store and its schema check, for this refusal only
    from ledger.storage.schema import foreign_objects
    from ledger.storage.store import open_store

    try:
        store = open_store(target)
        try:
            found = foreign_objects(store.recorder)
        finally:
            store.close()
    except Exception:  # noqa: BLE001 - nothing more to say than "no campaign"
        return
    if found:
        raise StoreError(
            f"the ledger's database holds {found[0]}, which the ledger never makes: its log can't be read",
            "remove it, then run: ledger verify",
        )


def _immutable(e: Exception) -> bool:
    """Whether a failure was the medium refusing writes (a read-only or immutable file, a full or failing disk)."""
    if isinstance(e, MediumError):
        return True
    text = str(getattr(e, "orig", None) or e).lower()
    return any(
        s in text
        for s in ("read-only", "readonly", "disk is full", "disk i/o error", "no space left", "unable to open database")
    )


def _require_campaign(read: ReadSide) -> None:
    """Reads on a database with no events say so, instead of showing empty views."""
    # lazy: SQLAlchemy, the read side's; kept out of a one-shot write
    from sqlalchemy.exc import SQLAlchemyError

    try:
        with read.engine.connect() as conn:
            empty = read.max_seq(conn) == 0
    except SQLAlchemyError as e:
        msg = str(e.orig if hasattr(e, "orig") else e).splitlines()[0]
        raise StoreError(
            f"can't open the ledger at {read.target.describe()}: {msg}", "check --db / LEDGER_DB"
        ) from None
    if empty:
        raise NotInitialised(f"no campaign in {read.target.describe()}", "start one: ledger init --system hnh")


def get(ctx: click.Context) -> AppContext:
    """The AppContext of the running command."""
    found = ctx.find_object(AppContext)
    assert found is not None, "the ledger group always sets an AppContext"
    return found


pass_app = click.make_pass_decorator(AppContext)
