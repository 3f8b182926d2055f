"""Keep the read models up to date: sheets, rulings, the event log, HP timelines, sheet histories, sessions, encounters.

Each batch of new events (whole rulings only) is folded in memory and written with the tracking position in
one transaction, so a crash leaves either the old views or the new ones, and catching up again is idempotent.
Rows go in through one executemany per table (`bulk_insert`): a rebuild is bound by decoding, not by the ORM.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import orjson
from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from ledger.errors import StoreError
from ledger.model.event_names import (
    CHARACTER_ADDED,
    CHARACTER_RETIRED,
    OUTCOME_AMENDED,
    RULING_CHAINED,
    RULING_RECORDED,
    RULING_REINSTATED,
    RULING_RETRACTED,
    STATE_RESTORED,
    UNVIEWED,
)
from ledger.model.sheet import SHEET_EFFECTS, Sheet, apply_effect_dict
from projections.db import (
    BY_REFERENCE,
    FOLDS,
    VIEW_TABLES,
    ReadSide,
    amendments,
    bulk_insert,
    dumps,
    hp_timeline,
    log,
    rulings,
    sheet_events,
    sheets,
    topic_names,
    tracking,
)
from projections.fold import EncounterFold, SessionFold

VIEWS = "views"
LAYOUT = "folds"  # the tracking row holding the version of the folds that made the views
RETRIES = 5  # tries of a batch that collides with rows already there, before giving up with one line
BATCH = 50000  # events per transaction (whole rulings); a rebuild is a few large writes
CHAIN = RULING_CHAINED
BOOKKEEPING = UNVIEWED  # the bookkeeping events the views keep no row for
_TOPICS: dict[str, tuple[str, str]] = {}

Progress = Callable[[int, int], None]


def position(conn: Any) -> int:
    """The last event position the views include."""
    row = conn.execute(select(tracking.c.position).where(tracking.c.name == VIEWS)).first()
    return int(row[0]) if row else 0


class Batch:
    """The view changes of one batch of events, folded in memory before one write."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.sheets: dict[str, dict[str, Any]] = {}  # character_id -> row, with the live sheet dict under "obj"
        self.new_sheets: set[str] = set()
        self.rulings: dict[int, list[Any]] = {}
        self.ruling_ids: dict[str, int] = {}
        self.ruling_updates: dict[str, dict[str, Any]] = {}
        self.log_rows: list[tuple[Any, ...]] = []
        self.hp_rows: list[tuple[Any, ...]] = []
        self.sheet_rows: list[tuple[Any, ...]] = []
        self.amend_rows: list[tuple[Any, ...]] = []
        self.sessions = SessionFold(conn)
        self.encounters = EncounterFold(conn)

    def sheet_row(self, cid: str) -> dict[str, Any] | None:
        """A sheet row, from this batch or the table."""
        row = self.sheets.get(cid)
        if row is None:
            found = self.conn.execute(select(sheets).where(sheets.c.character_id == cid)).mappings().first()
            if found is None:
                return None
            row = self.sheets[cid] = {**found, "obj": found["sheet"]}
        return row

    def fold(self, rows: list[tuple[Any, ...]]) -> None:
        """Fold stored rows (position, aggregate id, topic, state bytes) into the views, decoding each once.

        The log's rows keep their data by reference (`BY_REFERENCE`): the event's own state, read by position
        when a query needs it, so nothing is encoded again here. The ledger's own bookkeeping events (chain links,
        touched lists: half of all events) get no row and are not even read: `log --all` reads them from the
        event log itself (`queries.events`).
        """
        loads, topics, log_append, encounter = orjson.loads, _TOPICS, self.log_rows.append, self.encounters.event
        sessions_event, chained = self.sessions.event, self.encounters.chained
        for seq, oid, topic, raw in rows:
            names = topics.get(topic)
            if names is None:
                names = topics[topic] = topic_names(topic)
            kind, name = names
            if name in BOOKKEEPING:
                if name == CHAIN:
                    chained()
                continue
            st = loads(raw)
            ruling = st.get("ruling", 0)
            try:
                at = st["timestamp"]["_data_"][:19] + "Z"
            except (KeyError, TypeError):
                at = ""
            character = None
            if kind == "Character":
                character = self._character(seq, oid, st, name, ruling, at)
            elif kind == "Ruling":
                character = self._ruling(seq, oid, st, name, ruling)
            elif kind == "Campaign":
                sessions_event(name, st)
            log_append((seq, ruling, name, kind, character, BY_REFERENCE, at, False))
            encounter(seq, kind, name, st)

    def _character(self, seq: int, cid: str, st: dict[str, Any], name: str, ruling: int, at: str) -> str | None:
        if name == CHARACTER_ADDED:
            sheet = Sheet.from_dict(st["sheet"]).to_dict()  # complete every field once
            self.sheets[cid] = {
                "character_id": cid,
                "key": sheet["name"].casefold(),
                "name": sheet["name"],
                "active": True,
                "hp": sheet["hp"],
                "max_hp": sheet["max_hp"],
                "added": ruling,
                "ruling": ruling,
                "obj": sheet,
            }
            self.new_sheets.add(cid)
            self.sheet_rows.append((seq, cid, ruling))
            self.hp_rows.append((seq, cid, ruling, sheet["hp"], sheet["max_hp"], at))
            return str(sheet["name"])
        row = self.sheets.get(cid) or self.sheet_row(cid)
        if row is None:
            return None
        before = row["hp"]
        if name == STATE_RESTORED:
            if st["sheet"] is not None:
                row["obj"] = st["sheet"]
            row["active"] = st["active"]
        elif name == CHARACTER_RETIRED:
            row["active"] = False
        elif name in SHEET_EFFECTS:
            row["obj"] = apply_effect_dict(row["obj"], name, st["data"])
        else:
            return row["name"]
        sheet = row["obj"]
        hp = row["hp"] = sheet["hp"]
        row["max_hp"], row["ruling"] = sheet["max_hp"], ruling
        self.sheet_rows.append((seq, cid, ruling))
        if hp != before or name == STATE_RESTORED:
            self.hp_rows.append((seq, cid, ruling, hp, sheet["max_hp"], at))
        return row["name"]

    def _ruling(self, seq: int, aid: str, st: dict[str, Any], name: str, ruling: int) -> str | None:
        if name == RULING_RECORDED:
            self.rulings[ruling] = [  # the rulings table's columns, in order
                ruling,
                aid,
                st["kind"],
                st["command"],
                dumps(st["intent"]),
                st["actor"],
                st["session"],
                st["at"],
                dumps(st["targets"]),
                None,
                None,
                None,
            ]
            self.ruling_ids[aid] = ruling
            self.encounters.ruling(st["kind"])
            return None
        if name == RULING_RETRACTED:
            self._mark(aid, ruling, st["actor"], st["at"])
        elif name == RULING_REINSTATED:
            self._mark(aid, None, None, None)
        elif name == OUTCOME_AMENDED:
            self.amend_rows.append((seq, st["target"], ruling, dumps(st["records"])))
        data = st.get("data")
        if type(data) is not dict:
            data = st  # the envelope's keys (timestamp, ruling, ...) are never `for` or `character`
        return data.get("for") or data.get("character")

    def _mark(self, aggregate_id: str, by: int | None, actor: str | None, at: str | None) -> None:
        number = self.ruling_ids.get(aggregate_id)
        if number is not None:
            self.rulings[number][9:12] = [by, actor, at]
        else:
            self.ruling_updates[aggregate_id] = {"retracted_by": by, "retracted_actor": actor, "retracted_at": at}

    def write(self, last: int) -> None:
        """Write every change of the batch and the new tracking position."""
        c = self.conn
        new = []  # one executemany, not an INSERT compiled per character (under cProfile a quarter of the write)
        for cid, row in self.sheets.items():
            values = {k: v for k, v in row.items() if k != "obj"}
            values["sheet"] = row["obj"]
            if cid in self.new_sheets:
                new.append(tuple(dumps(values[k]) if k == "sheet" else values[k] for k in sheets.c.keys()))
            else:
                c.execute(update(sheets).where(sheets.c.character_id == cid).values(**values))
        bulk_insert(c, sheets, new)
        bulk_insert(c, rulings, list(self.rulings.values()))
        for aid, values in self.ruling_updates.items():
            c.execute(update(rulings).where(rulings.c.aggregate_id == aid).values(**values))
        bulk_insert(c, log, self.log_rows)
        bulk_insert(c, hp_timeline, self.hp_rows)
        bulk_insert(c, sheet_events, self.sheet_rows)
        bulk_insert(c, amendments, self.amend_rows)
        self.sessions.write()
        self.encounters.write()
        if c.execute(update(tracking).where(tracking.c.name == VIEWS).values(position=last)).rowcount == 0:
            c.execute(insert(tracking).values(name=VIEWS, position=last))


def whole_rulings(rows: list[tuple[Any, ...]], full: bool) -> list[tuple[Any, ...]] | None:
    """The stored rows up to the last ruling's chain link; None if a full batch holds no complete ruling."""
    for i in range(len(rows) - 1, -1, -1):
        if topic_names(rows[i][2])[1] == CHAIN:
            return rows[: i + 1]
    return None if full else rows  # a log ending in a partial ruling (verify reports it): fold what is there


@contextmanager
def no_gc() -> Iterator[None]:
    """Without the cyclic garbage collector: a batch allocates many small dicts and tuples and frees them all at once
    (the collector only walked them, again and again, as they piled up)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def catch_up(read: ReadSide, progress: Progress | None = None) -> int:
    """Bring every view up to the newest event, whole rulings at a time; returns how many events were applied.

    A batch that collides with rows already there is retried a few times (another process may have caught up
    the same events first); if the tracking position does not move, the views disagree with the log and the
    command ends with one line naming the problem and `ledger rebuild` as the fix. Never spins.
    """
    read.ensure_tables()
    if not read.folds_checked:
        refold_outdated(read)
    done, limit, collisions, stuck_at = 0, BATCH, 0, -1
    while True:
        start = -1
        try:
            with read.engine.begin() as conn, no_gc():  # the batch's rows are all gone before the collector is back
                start = position(conn)
                applied, last = _apply(read, conn, start, limit)
            if applied is None:
                limit *= 2
                continue
            if not applied:
                return done
        except Exception as e:
            if _collision(e):
                collisions = collisions + 1 if start == stuck_at else 1
                stuck_at = start
                if collisions >= RETRIES:
                    raise StoreError(
                        f"the read models can't take in the events after {start}: {_first_line(e)}",
                        "run: ledger rebuild",
                    ) from None
                time.sleep(0.01 * collisions)
                continue  # another process caught up the same events first: read the new position
            if not isinstance(e, (SQLAlchemyError, OverflowError)) and not _driver_error(e):
                raise
            if "readonly" in str(e).lower():
                raise StoreError(
                    "the read models are behind the log and the ledger is read-only here",
                    "open it once where it is writable, or read a writable copy",
                ) from None
            if "full" in str(e).lower():
                raise StoreError(
                    "the disk is full: the read models can't catch up", "free some space, then run the command again"
                ) from None
            raise StoreError(
                f"the read models can't take in the events after {max(start, 0)}: {_first_line(e)}",
                "run: ledger rebuild",
            ) from None
        done += applied
        if progress:
            progress(done, applied)
        if last:  # every event there was when the batch read the log is in: asking again would find none
            return done


def _apply(read: ReadSide, conn: Any, start: int, limit: int) -> tuple[int | None, bool]:
    """Fold and write the whole rulings among the next `limit` events after `start`: how many events (0: none left;
    None: not one whole ruling among them), and whether they were all the log held. Run without the cyclic collector
    (a twentieth of a rebuild, and as much again when it came back to find this batch's rows still held), so all of
    them are freed on return."""
    stored = read.read_rows(conn, start, limit)
    if not stored:
        return 0, True
    chunk = whole_rulings(stored, len(stored) == limit)
    if chunk is None:
        return None, False
    batch = Batch(conn)
    try:
        batch.fold(chunk)
    except orjson.JSONDecodeError:
        read.damaged(chunk)
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as x:
        raise StoreError(
            f"an event after {start} of the log can't be read into the views "
            f"({type(x).__name__}): the ledger is damaged",
            "run: ledger verify",
        ) from None
    batch.write(chunk[-1][0])
    return len(chunk), len(chunk) == len(stored) < limit


def _collision(e: Exception) -> bool:
    """A duplicate key, from SQLAlchemy or from the driver itself (batches go through the driver's executemany)."""
    return isinstance(e, IntegrityError) or any(c.__name__ == "IntegrityError" for c in type(e).__mro__)


def _driver_error(e: Exception) -> bool:
    """An error of the database driver itself (sqlite3's or psycopg's), as the driver's executemany raises them."""
    return any(c.__name__ in ("DatabaseError", "OperationalError") for c in type(e).__mro__)


def _first_line(e: Exception) -> str:
    text = str(getattr(e, "orig", None) or e).strip()
    return (text.splitlines()[0] if text else type(e).__name__)[:160]


def refold_outdated(read: ReadSide) -> None:
    """Views folded by another version of the folds (projections/db.py FOLDS; none recorded: the first release's)
    are emptied, to be folded again from the log: read models are only ever a fold of it, by today's code."""
    try:
        with read.engine.connect() as conn:
            row = conn.execute(select(tracking.c.position).where(tracking.c.name == LAYOUT)).first()
        if row is not None and int(row[0]) == FOLDS:
            read.folds_checked = True
            return
        with read.engine.begin() as conn:
            _empty(conn)
        read.folds_checked = True
    except SQLAlchemyError:
        return  # a read-only file keeps its views as they are (verify reports any difference)


def _empty(conn: Any) -> None:
    """Every view emptied, the tracking position reset, and the folds' version recorded (one transaction)."""
    for t in reversed(VIEW_TABLES):
        conn.execute(delete(t))
    conn.execute(delete(tracking).where(tracking.c.name.in_([VIEWS, LAYOUT])))
    conn.execute(insert(tracking).values(name=LAYOUT, position=FOLDS))


def rebuild(read: ReadSide, progress: Progress | None = None) -> int:
    """Make every view afresh and fold the whole log again (secondary indexes built once at the end).

    The view tables (and the tracking table) are dropped and created again, not emptied: quicker, and a ledger made
    by an earlier release gets the current tables (its rulings view's unique index, for one, which a rebuild can't
    drop; PostgreSQL's 64-bit positions).
    """
    with read.engine.begin() as conn:
        read.make_afresh(conn)
        conn.execute(insert(tracking).values(name=LAYOUT, position=FOLDS))
    try:
        return catch_up(read, progress)
    finally:
        with read.engine.begin() as conn:
            read.make_indexes(conn)
