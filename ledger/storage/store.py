"""Persistence from a target: a SQLite file path (default) or an SQLAlchemy-style URL.

The environment is built here from the target alone: stray shell variables (PERSISTENCE_MODULE,
LEDGER_SQLITE_DBNAME, ...) are ignored, and there is no in-memory fallback.
"""

from __future__ import annotations

import atexit
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from itertools import chain
from typing import Any
from urllib.parse import quote
from uuid import UUID

import orjson
from eventsourcing.application import AggregateNotFoundError, Application, Repository
from eventsourcing.domain import OriginatorIDError, OriginatorVersionError
from eventsourcing.persistence import (
    DatetimeAsISO,
    DecimalAsStr,
    JSONTranscoder,
    Mapper,
    MapperDeserialisationError,
    Transcoder,
    UUIDAsHex,
)
from eventsourcing.utils import Environment

from ledger.aggregates import CAMPAIGN_ID, Amendments, Campaign, Character, Ruling, ruling_id
from ledger.errors import MediumError, NotInitialised, StoreError
from ledger.model.bounds import safe
from ledger.snapshots import CheckedSnapshots, decoded_link
from ledger.snapshots import problem as snapshot_problem
from ledger.storage.schema import Survey, survey
from ledger.storage.target import DEFAULT_TARGET, Target, parse_target

SNAPSHOT_INTERVAL = 50
CACHE_SIZE = 64  # aggregates kept in memory per process (campaign, characters, recent rulings)
PG_FACTORY = "ledger.storage.pg:LedgerPostgresFactory"  # eventsourcing's, asking less of the server (pg.py)
SURVEY_FRESH = 10.0  # seconds the schema survey made as the store opened serves the first write (a one-shot command's)


def build_env(target: Target) -> dict[str, str]:
    """The eventsourcing settings for a target, and nothing from the shell."""
    if target.kind == "sqlite":
        return {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": target.path,
            "SQLITE_LOCK_TIMEOUT": "30",
        }
    return {
        "PERSISTENCE_MODULE": PG_FACTORY,
        "POSTGRES_DBNAME": target.dbname,
        "POSTGRES_HOST": target.host,
        "POSTGRES_PORT": target.port,
        "POSTGRES_USER": target.user,
        "POSTGRES_PASSWORD": target.password,
        "POSTGRES_CONNECT_TIMEOUT": "5",
        "POSTGRES_POOL_SIZE": "1",  # one connection while one thread asks (up to 11 for `ledger serve`'s threads)
        "POSTGRES_LOCK_TIMEOUT": "30",
        "CREATE_TABLE": "n",  # the marker row decides (ledger/storage/pg.py `open_postgres`)
    }


def _tag(obj: Any, types: dict[type, Any]) -> Any:
    """Replace registered non-JSON types with the transcoder's tagged form, recursively."""
    t = type(obj)
    if t is str or t is int or t is bool or obj is None or t is float:
        return obj
    if t is dict:
        return {k: _tag(v, types) for k, v in obj.items()}
    if t is list or t is tuple:
        return [_tag(v, types) for v in obj]
    transcoding = types.get(t)
    if transcoding is None:
        raise TypeError(f"Object of type {t} is not serializable")
    return {"_type_": transcoding.name, "_data_": _tag(transcoding.encode(obj), types)}


class OrjsonTranscoder(JSONTranscoder):
    """JSONTranscoder's format, encoded and decoded with orjson."""

    def encode(self, obj: Any) -> bytes:
        """Tag registered types, then dump compactly."""
        return orjson.dumps(_tag(obj, self.types))

    def decode(self, data: bytes) -> Any:
        """Load, then untag registered types (walking the whole document only when a tag is nested)."""
        obj = orjson.loads(data)
        tags = data.count(b'"_type_"')  # every tag's key, plus any user text that is exactly "_type_"
        if tags == 0:
            return obj
        if type(obj) is dict:
            if tags == 1:  # nearly every event: its timestamp is the only tag
                v = obj.get("timestamp")
                if type(v) is dict and len(v) == 2 and "_type_" in v and "_data_" in v and type(v["_data_"]) is str:
                    obj["timestamp"] = self._decode_obj(v)
                    return obj
            top = [k for k, v in obj.items() if type(v) is dict and len(v) == 2 and "_type_" in v and "_data_" in v]
            if len(top) == tags:  # every tag is a top-level value holding plain data (an event's timestamp)
                for k in top:
                    obj[k] = self._decode_obj(obj[k])
                return obj
        return self._untag(obj)

    def _untag(self, obj: Any) -> Any:
        if type(obj) is dict:
            if len(obj) == 2 and "_type_" in obj and "_data_" in obj:
                return self._decode_obj({"_type_": obj["_type_"], "_data_": self._untag(obj["_data_"])})
            return {k: self._untag(v) for k, v in obj.items()}
        if type(obj) is list:
            return [self._untag(v) for v in obj]
        return obj


def project_fast(aggregate: Any, domain_events: Iterable[Any]) -> Any:
    """eventsourcing's project_aggregate without its per-event runtime-Protocol isinstance assert (DESIGN.md: 2.3x)."""
    for event in domain_events:
        aggregate = event.mutate(aggregate)
    return aggregate


class FastRepository(Repository[UUID]):
    """A repository whose loads fold with `project_fast` unless told otherwise."""

    def get(
        self, aggregate_id: UUID, *, version: int | None = None, projector_func: Any = project_fast, **kwargs: Any
    ) -> Any:
        """Load an aggregate (snapshot + later events), folded with the fast projector; a damaged log is one
        StoreError."""

        try:
            return super().get(aggregate_id, version=version, projector_func=projector_func, **kwargs)
        except (AggregateNotFoundError, StoreError):
            raise
        except (
            OriginatorIDError,
            OriginatorVersionError,
            MapperDeserialisationError,
            KeyError,
            TypeError,
            ValueError,
            AttributeError,
        ) as e:
            raise StoreError(
                f"aggregate {aggregate_id.hex[:8]} can't be loaded from the log ({type(e).__name__}): the "
                "ledger is damaged",
                "run: ledger verify",
            ) from None

    def _reconstruct_aggregate(self, aggregate_id: UUID, version: int | None, projector_func: Any) -> Any:
        """On PostgreSQL, the newest snapshot, the chain link that vouches for it and the events after it in one
        query (one round trip, not three); a snapshot its link does not vouch for, or one that can't be read, sends
        the load the careful way (CheckedSnapshots, which reports it), as before."""
        fold = getattr(self.event_store.recorder, "select_folding", None)
        checked = self.snapshot_store
        if fold is None or not isinstance(checked, CheckedSnapshots):
            return super()._reconstruct_aggregate(aggregate_id, version, projector_func)
        try:
            stored_snapshot, stored_link, stored = fold(aggregate_id, version)
        except Exception:  # noqa: BLE001 - a snapshot whose state is not JSON: the careful way names the problem
            return super()._reconstruct_aggregate(aggregate_id, version, projector_func)
        first = []
        if stored_snapshot is not None:
            snap = checked.inner.mapper.to_domain_event(stored_snapshot)
            named = getattr(snap, "link", None)  # snapshots of the first release name no link: never folded
            link = stored_link if stored_link is not None and stored_link.originator_version == named else None
            if link is None or snapshot_problem(checked.store, snap, decoded_link(link)) is not None:
                return super()._reconstruct_aggregate(aggregate_id, version, projector_func)
            first = [snap]
        aggregate = projector_func(None, chain(first, map(self.event_store.mapper.to_domain_event, stored)))
        if aggregate is None:
            raise AggregateNotFoundError(f"Aggregate {aggregate_id!r} version {version!r} not found.")
        return aggregate


class EventStore(Application[UUID]):
    """The eventsourcing application holding the ledger's event log and snapshots."""

    name = "Ledger"
    read_only: MediumError | None = None  # set when the medium refuses writes: the reason every write refuses with
    survey: Survey | None = None  # the schema survey made as the store opened (PostgreSQL: ledger/storage/pg.py)
    surveyed = 0.0  # when (time.monotonic)
    snapshotting_intervals = {Campaign: SNAPSHOT_INTERVAL, Character: SNAPSHOT_INTERVAL, Ruling: SNAPSHOT_INTERVAL}

    def amendments(self, campaign: Campaign) -> Amendments:
        """The records of every live amendment: {re-derived ruling: [{aggregate, type, data}, ...]}."""
        out: dict[int, list[dict[str, Any]]] = {}
        for n, by in campaign.live_amendments().items():
            x: Ruling = self.repository.get(ruling_id(by))
            out[n] = x.amendments[str(n)]["records"]
        return out

    def construct_env(self, name: str, env: Any = None) -> Environment:
        """Only what the target says: never os.environ, never an in-memory default."""
        _env = dict(env or {})
        _env["IS_SNAPSHOTTING_ENABLED"] = "y"
        if _env.get("PERSISTENCE_MODULE") not in ("eventsourcing.sqlite", PG_FACTORY):
            raise StoreError("no ledger database configured", "give --db PATH or set LEDGER_DB")
        return Environment(name, _env)

    def construct_repository(self) -> Repository[UUID]:
        """The fast projector, and a small aggregate cache that fast-forwards from the log on every load.

        A session shell then folds only the events written since its last load (by itself or by
        another writer) instead of snapshot + up to 49 events; loads hand out copies, so a refused
        ruling leaves nothing behind in the cache.
        """
        snapshots = CheckedSnapshots(self) if self.snapshots is not None else None
        return FastRepository(
            event_store=self.events,
            snapshot_store=snapshots,  # type: ignore[arg-type]
            cache_maxsize=CACHE_SIZE,
            fastforward=True,
        )

    def construct_mapper(self) -> Mapper[UUID]:
        """eventsourcing's mapper, resolving only the ledger's own event types (a stored topic never imports a
        module)."""
        return self.factory.mapper(transcoder=self.construct_transcoder(), mapper_class=OwnTopicsMapper)

    def construct_transcoder(self) -> Transcoder:
        """orjson, with eventsourcing's registered UUID/Decimal/datetime transcodings."""
        transcoder = OrjsonTranscoder()
        self.register_transcodings(transcoder)
        return transcoder

    def fresh_survey(self) -> Survey | None:
        """The survey made as the store opened, once, if it was made a moment ago (the write of a one-shot command
        uses it instead of asking again); None otherwise."""
        found, self.survey = self.survey, None
        return found if found is not None and time.monotonic() - self.surveyed < SURVEY_FRESH else None


def plain_mapper() -> OwnTopicsMapper:
    """The store's mapper (the same transcoder and transcodings), without a database: for reading an export file."""
    transcoder = OrjsonTranscoder()
    for transcoding in (UUIDAsHex(), DecimalAsStr(), DatetimeAsISO()):  # Application.register_transcodings's
        transcoder.register(transcoding)
    return OwnTopicsMapper(transcoder=transcoder)


_OWN_TOPIC = re.compile(
    r"^(?:ledger(?:\.[a-z_][a-z0-9_]*)+:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*|eventsourcing\.domain:Snapshot)$"
)


def own_topic(topic: Any) -> bool:
    """Whether a stored topic names a type of the ledger's own package (or eventsourcing's plain snapshot)."""
    return isinstance(topic, str) and _OWN_TOPIC.match(topic) is not None


class OwnTopicsMapper(Mapper[UUID]):
    """A mapper that refuses a stored topic outside the ledger's own types instead of importing what it names."""

    def to_domain_event(self, stored_event: Any) -> Any:
        """Decode one stored event of a known type; StoreError for anything else."""
        if not own_topic(stored_event.topic):
            raise StoreError(
                f"the log holds an event of unknown type '{safe(str(stored_event.topic))[:80]}': the ledger is damaged",
                "run: ledger verify",
            )
        return super().to_domain_event(stored_event)


EVENT_COLUMNS = ["originator_id", "originator_version", "topic", "state"]


def _check_sqlite_path(path: str) -> bool:
    """Refuse a path that can't hold a ledger or holds another program's database; True when the ledger's tables are
    all there already (eventsourcing then skips its CREATE TABLE statements)."""
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise StoreError(
            f"can't create the ledger {path}: folder {folder} does not exist", "create the folder or pick another --db"
        )
    if os.path.isdir(path):
        raise StoreError(f"{path} is a folder, not a ledger file", "give a file path with --db")
    if not os.path.exists(path):
        return False  # created by the first command that writes (every refusal is decided before: nothing is created)
    try:
        con = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True)
        try:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            columns = [r[1] for r in con.execute("PRAGMA table_info(stored_events)")]
        finally:
            con.close()
    except sqlite3.Error as e:
        raise write_error(e, path) or StoreError(
            f"can't open the ledger {path}: {e}", "check the path and its permissions"
        ) from None
    if tables and not columns:
        raise StoreError(
            f"{path} is a SQLite database of another application, not a ledger",
            "give --db a ledger file or a new file name",
        )
    if columns and columns != EVENT_COLUMNS:
        raise StoreError(
            f"{path} has a stored_events table of another layout: not a ledger of this program",
            "give --db a ledger file or a new file name",
        )
    return columns == EVENT_COLUMNS and "stored_snapshots" in tables


def _construct(target: Target, ready: bool = False) -> EventStore:
    """The EventStore. On PostgreSQL nothing is sent yet: the first round trip is `open_postgres`'s survey, which makes
    the tables only where the marker row says they are not this release's (retrying there when another process makes
    the same ones at the same moment)."""
    env = build_env(target)
    if ready:  # the tables are there: no CREATE TABLE IF NOT EXISTS round on every open
        env["CREATE_TABLE"] = "n"
    return EventStore(env=env)


def open_store(target: Target) -> EventStore:
    """Open (and create on first use) the event store; failures become StoreError. A SQLite file on a medium that
    refuses writes (read-only, full) opens read-only: every read works, and writes refuse (`read_only`)."""
    try:
        ready = _check_sqlite_path(target.path) if target.kind == "sqlite" else False
        store = _construct(target, ready)
        if target.kind == "sqlite" and ready:  # the connection (and its WAL files) made here, by the write's survey
            store.survey, store.surveyed = survey(store.recorder), time.monotonic()
        if target.kind == "postgres":
            # lazy: the PostgreSQL store's module (psycopg); eventsourcing imported it already for this store
            from ledger.storage.pg import open_postgres

            open_postgres(store)
        return store
    except MediumError as e:
        if target.kind != "sqlite" or not os.path.isfile(target.path):
            raise
        return _open_read_only(target, e)
    except StoreError:
        raise
    except Exception as e:
        refused = write_error(e, target.path) if target.kind == "sqlite" else None
        if isinstance(refused, MediumError) and os.path.isfile(target.path):
            return _open_read_only(target, refused)
        return _open_failed(target, e)


def read_only_uri(path: str) -> str:
    """The URI that reads a SQLite file without writing anything beside it: mode=ro where its WAL index can be
    opened, immutable=1 where not even that (only when no write waits in its -wal file, which immutable would skip)."""
    for uri in (f"file:{quote(path)}?mode=ro", f"file:{quote(path)}?immutable=1"):
        if "immutable" in uri and os.path.exists(path + "-wal") and os.path.getsize(path + "-wal") > 0:
            break
        try:
            con = sqlite3.connect(uri, uri=True)
            try:
                con.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            finally:
                con.close()
            return uri
        except sqlite3.Error:
            continue
    return _wal_copy(path)


def _wal_copy(path: str) -> str:
    """A private copy of a SQLite file and its -wal (removed at exit): its last writes wait in the -wal, which can't be
    read in place on this medium; SQLite replays it when the copy opens."""
    # lazy: shutil and tempfile, for a private copy; kept out of a one-shot write
    import shutil
    import tempfile

    try:
        folder = tempfile.mkdtemp(prefix="ledger-readonly-")
        atexit.register(shutil.rmtree, folder, True)
        copy = os.path.join(folder, os.path.basename(path))
        shutil.copyfile(path, copy)
        shutil.copyfile(path + "-wal", copy + "-wal")
        return copy
    except OSError as e:
        raise MediumError(
            f"can't read the ledger {path} here: its last writes wait in its -wal file ({e.strerror or e})",
            "copy the ledger and its -wal file to a writable disk, then read the copy",
        ) from None


def _open_read_only(target: Target, why: MediumError) -> EventStore:
    env = build_env(target)
    env["SQLITE_DBNAME"] = read_only_uri(target.path)
    env["CREATE_TABLE"] = "n"
    try:
        store = EventStore(env=env)
        store.recorder.max_notification_id()
    except Exception as e:
        return _open_failed(target, e)
    store.read_only = why
    return store


def _open_failed(target: Target, e: Exception) -> EventStore:
    if isinstance(e, StoreError):
        raise e
    if isinstance(e, ImportError):
        raise StoreError(f"PostgreSQL support is not installed ({e.name})", "pip install 'ledger[postgres]'") from None
    if True:  # the driver's own errors: unreachable host, bad password, no such database
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise StoreError(f"can't open the ledger at {target.describe()}: {msg}", "check --db / LEDGER_DB") from None


def read_campaign(target: Target, opened: EventStore | None, store: Callable[[], EventStore]) -> Campaign:
    """The campaign aggregate of `target` (its store opened by `store()` if not yet `opened`); NotInitialised before
    `ledger init`, without creating a SQLite file that is not there."""
    if opened is None and target.kind == "sqlite" and not os.path.exists(target.path):
        raise NotInitialised(f"no campaign in {target.describe()}", "start one: ledger init --system hnh")
    try:
        return store().repository.get(CAMPAIGN_ID)
    except AggregateNotFoundError:
        raise NotInitialised(f"no campaign in {target.describe()}", "start one: ledger init --system hnh") from None


class LogReader:
    """The event store and the campaign, for a read that checks its views against the log (projections/trust.py):
    what `Ledger` offers a read, without the write side's rulings, deciders and rules (a read does not import them:
    benchmarks/startup.py). `adopt` hands its open store to the Ledger a later command of the same process makes."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self._store: EventStore | None = None

    @property
    def store(self) -> EventStore:
        """The event store, opened on first use."""
        if self._store is None:
            self._store = open_store(self.target)
        return self._store

    def campaign(self) -> Campaign:
        """The campaign aggregate; NotInitialised before `ledger init` (as `Ledger.campaign`)."""
        return read_campaign(self.target, self._store, lambda: self.store)

    def adopt(self) -> EventStore | None:
        """Give up the open store (to the Ledger that takes over), if one was opened."""
        store, self._store = self._store, None
        return store

    def close(self) -> None:
        """Release the store's connections."""
        if self._store is not None:
            self._store.close()
            self._store = None


class WriterLock:
    """Serialises writers on PostgreSQL with a session advisory lock held from loading the campaign to the commit.

    Without it, four busy writers race for each ruling number and one can lose many times in a row; with it
    they queue. On SQLite the database's own write lock and the retry loop suffice, so it does nothing there.
    """

    KEY = 0x1ED6E7  # one lock per database: the ledger holds one campaign

    def __init__(self, target: Target) -> None:
        self.target = target
        self.conn: Any = None

    def __enter__(self) -> WriterLock:
        if self.target.kind != "postgres":
            return self
        for attempt in (1, 2):
            if self.conn is not None and (self.conn.closed or self.conn.broken):
                self.conn = None  # the server restarted (or dropped us) since the last ruling: connect again
            if self.conn is None:
                self.conn = self._connect()
            try:
                self.conn.execute("SELECT pg_advisory_lock(%s)", (self.KEY,))
                return self
            except Exception:  # noqa: BLE001 - psycopg's OperationalError (lazily imported): one new connection
                if attempt == 2 or not self.conn.broken:
                    raise
                self.conn = None
        return self

    def _connect(self) -> Any:
        """The lock's own connection (autocommit: a session lock outlives the transactions it orders)."""
        # lazy: psycopg's errors, for PostgreSQL only; kept out of a one-shot write
        import psycopg

        try:
            return self.target.pg_connect()
        except psycopg.Error as e:
            msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise StoreError(
                f"can't open the ledger at {self.target.describe()}: {msg}", "check --db / LEDGER_DB"
            ) from None

    def __exit__(self, *exc: Any) -> None:
        if self.conn is not None:
            self.conn.execute("SELECT pg_advisory_unlock(%s)", (self.KEY,))

    def close(self) -> None:
        """Drop the lock's connection."""
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def write_error(e: BaseException, path: str | None = None) -> StoreError | None:
    """The one line for a write the database refused for a reason outside the ledger (read-only file, full disk)."""
    text = str(e).lower()
    if path is not None and _read_only_medium(path) and ("disk i/o error" in text or "unable to open" in text):
        text = "read-only"  # a file system mounted read-only: SQLite can't make its -wal/-shm files
    if "disk i/o error" in text and path is not None and _nearly_full(path):
        text = "disk is full"  # SQLite can't even make its -wal/-shm files: say why
    if "readonly" in text or "read-only" in text or "read only" in text:
        return MediumError(
            "the ledger is read-only here: nothing was appended",
            "reads still work; to write, make the file (and its folder) writable",
        )
    if "disk is full" in text or "database or disk is full" in text or "no space left" in text:
        return MediumError("the disk is full: nothing was appended", "free some space, then run the command again")
    if ("disk i/o error" in text or "unable to open database file" in text) and path is not None:
        refused = _folder_refuses(path)
        if refused:  # an immutable or unwritable folder or file: not a failing disk
            return MediumError(
                f"the ledger's {refused}: nothing was appended",
                "reads still work; to write, let the folder and the file be written (e.g. chattr -i, chmod u+w)",
            )
    if "disk i/o error" in text or "unable to open database file" in text and path is not None:
        return MediumError(
            "the disk failed while writing: nothing was appended", "check the disk, then run: ledger verify"
        )
    if "locked" in text:
        return StoreError("the ledger database is locked by another program", "try again in a moment")
    return None


IMMUTABLE_FL, APPEND_FL = 0x10, 0x20  # Linux inode flags (chattr +i, +a), read with FS_IOC_GETFLAGS
FS_IOC_GETFLAGS = 0x80086601


def _folder_refuses(path: str) -> str:
    """What keeps SQLite from writing beside `path` ('' if nothing visible does): an immutable or append-only file or
    folder (Linux inode flags), or a folder where no file can be made (SQLite makes its journal there)."""
    folder = os.path.dirname(os.path.abspath(path)) or "."
    for what, where in (("folder", folder), ("file", path)):
        flags = _inode_flags(where)
        if flags & IMMUTABLE_FL:
            return f"{what} {where} is immutable (chattr +i)"
        if flags & APPEND_FL:
            return f"{what} {where} is append-only (chattr +a)"
    probe = os.path.join(folder, f".ledger-probe-{os.getpid()}")
    try:
        with open(probe, "x"):
            pass
        os.remove(probe)
    except PermissionError:
        return f"folder {folder} does not let the ledger make its journal files there"
    except OSError:
        return ""
    return ""


def _inode_flags(path: str) -> int:
    """A file's or folder's Linux inode flags (0 where they can't be read)."""
    try:
        # lazy: fcntl and array, for this one check of a refused write
        import array
        import fcntl

        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            buf = array.array("l", [0])
            fcntl.ioctl(fd, FS_IOC_GETFLAGS, buf, True)
            return int(buf[0])
        finally:
            os.close(fd)
    except (OSError, ImportError, ValueError):
        return 0


def _read_only_medium(path: str) -> bool:
    """Whether the file system holding `path` is mounted read-only."""
    try:
        return bool(os.statvfs(os.path.dirname(path) or ".").f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _nearly_full(path: str) -> bool:
    """Whether the file system holding `path` has (almost) no room left."""
    try:
        st = os.statvfs(os.path.dirname(path) or ".")
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < 64 * 1024


def now_iso() -> str:
    """The current UTC time, ISO 8601 to the second."""

    return datetime.now(UTC).isoformat(timespec="seconds")


__all__ = ["DEFAULT_TARGET", "EventStore", "WriterLock", "Target", "build_env", "now_iso", "open_store", "parse_target"]
