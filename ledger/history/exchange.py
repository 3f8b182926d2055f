"""The lossless JSONL export and `ledger import`: the stored events, byte for byte, with their ruling envelopes.

Line 1 is a header (format, version, counts, final chain hash); then one line per stored event in log order;
then (version 2) one line per aggregate holding the latest snapshot its chain links vouch for. An event's
`state` is its stored JSON object when orjson re-encodes it to the identical bytes (always, for what this
ledger writes), else `state_b64` holds the bytes. Import checks the whole file (header, counts, every hash
link, every topic, every snapshot against its link) before it writes anything, and only into an empty ledger.
See docs/export-format.md.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any, NamedTuple
from uuid import UUID

import orjson
from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.utils import resolve_topic

from ledger import snapshots as snaps
from ledger.audit.chain import walk_events
from ledger.errors import BadInput, Conflict, NotInitialised
from ledger.model.bounds import safe
from ledger.model.event_names import CHAIN_TOPIC
from ledger.storage.store import own_topic, plain_mapper

MAX_LINE = 64 * 2**20  # bytes in one line of an export: far above any event the ledger writes
FORMAT = "ledger-export"
VERSION = 2  # 2 adds the snapshot lines after the events (docs/export-format.md); files of version 1 still import
READS = (1, 2)
SNAPSHOT_TOPIC = "ledger.snapshots:LedgerSnapshot"
_RECORDED = "ledger.aggregates:Ruling.RulingRecorded"
_RETRACTED = "ledger.aggregates:Ruling.RulingRetracted"
_REINSTATED = "ledger.aggregates:Ruling.RulingReinstated"
_CREATED = "ledger.aggregates:Campaign.CampaignCreated"
_ENVELOPE_TOPICS = frozenset({_RECORDED, _RETRACTED, _REINSTATED, _CREATED, CHAIN_TOPIC})

Step = Callable[[int], None]


@dataclass(frozen=True)
class Summary:
    """What an export wrote or an import read: counts and the chain's final hash."""

    events: int
    rulings: int
    final_hash: str
    system: str = ""
    name: str = ""


class Line(NamedTuple):
    """A stored event read back from a file, as the SQLite recorder stores it (the originator id as its 32 lowercase
    hex digits), with its line number and its decoded `ruling` (for the chain walk). A tuple: the import makes one
    per event, and the chain walk, the SQLite insert and the snapshot fold read it as they read a stored event."""

    originator_id: str
    originator_version: int
    topic: str
    state: bytes
    id: int = 0
    ruling: Any = None


# -- export ------------------------------------------------------------------------------------
class _Survey:
    """The first pass over the log: envelopes of every ruling, counts, and where the last ruling ends."""

    def __init__(self, recorder: Any) -> None:
        self.envelopes: dict[int, dict[str, Any]] = {}
        self.stop, self.events, self.rulings, self.final_hash = 0, 0, 0, ""
        self.system, self.name = "", ""
        self.vouched: dict[str, int] = {}
        by_aggregate: dict[Any, int] = {}
        seen = 0
        for n in _pages(recorder, recorder.max_notification_id() or 0):
            seen += 1
            if n.topic not in _ENVELOPE_TOPICS:
                continue
            st = orjson.loads(n.state)
            if n.topic == CHAIN_TOPIC:
                self.stop, self.events, self.rulings, self.final_hash = n.id, seen, self.rulings + 1, st["hash"]
                for hex_id, rec in (st.get("snapshots") or {}).items():
                    if isinstance(rec, list) and rec and type(rec[0]) is int:
                        self.vouched[hex_id] = rec[0]  # the latest snapshot version a link records for the aggregate
            elif n.topic == _RECORDED:
                number = st["ruling"]
                by_aggregate[n.originator_id] = number
                self.envelopes[number] = {
                    "number": number,
                    "actor": st["actor"],
                    "session": st["session"],
                    "at": st["at"],
                    "retracted": None,
                }
            elif n.topic == _CREATED:
                self.system, self.name = st.get("system", ""), st.get("name", "")
            else:
                target = self.envelopes.get(by_aggregate.get(n.originator_id, -1))
                if target is not None:
                    live = n.topic == _REINSTATED
                    target["retracted"] = None if live else {"by": st["ruling"], "actor": st["actor"], "at": st["at"]}
        if self.stop:  # retractions made by rulings past the last complete one don't count
            for env in self.envelopes.values():
                if env["retracted"] and env["retracted"]["by"] > self.rulings:
                    env["retracted"] = None


def _pages(recorder: Any, stop: int) -> Iterator[Any]:
    start = 1
    while start <= stop:
        page = recorder.select_notifications(start=start, limit=5000, stop=stop)
        if not page:
            return
        start = page[-1].id + 1
        yield from page


def state_field(state: bytes) -> tuple[str, Any]:
    """The JSON object when it re-encodes to the identical bytes, else base64 of the bytes."""
    try:
        value = orjson.loads(state)
        if orjson.dumps(value) == state:
            return "state", value
    except orjson.JSONDecodeError:
        pass
    return "state_b64", base64.b64encode(state).decode()


def export_jsonl(
    recorder: Any, out: IO[bytes], *, exported_at: str, step: Step | None = None, snapshots: Any = None
) -> Summary:
    """Write the header, every stored event up to the last complete ruling in log order, then the latest snapshot of
    each aggregate that a chain link vouches for (read from the `snapshots` recorder, when given)."""
    survey = _Survey(recorder)
    if not survey.stop:
        raise NotInitialised("this ledger holds no rulings to export", "start one: ledger init --system hnh")
    count = survey.events
    summary = Summary(count, survey.rulings, survey.final_hash, survey.system, survey.name)
    snapshot_lines = _snapshot_lines(snapshots, survey.vouched)
    header = {
        "format": FORMAT,
        "version": VERSION,
        "events": count,
        "rulings": survey.rulings,
        "snapshots": len(snapshot_lines),
        "final_hash": survey.final_hash,
        "system": survey.system,
        "name": survey.name,
        "exported_at": exported_at,
    }
    out.write(orjson.dumps(header) + b"\n")
    buf: list[bytes] = []
    for n in _pages(recorder, survey.stop):
        key, value = state_field(n.state)
        oid = n.originator_id.hex if isinstance(n.originator_id, UUID) else str(n.originator_id)
        ruling = value.get("ruling") if key == "state" and isinstance(value, dict) else None
        row = {
            "seq": n.id,
            "originator_id": oid,
            "originator_version": n.originator_version,
            "topic": n.topic,
            key: value,
            "ruling": survey.envelopes.get(ruling) if isinstance(ruling, int) else None,
        }
        buf.append(orjson.dumps(row))
        if len(buf) == 1000:
            out.write(b"\n".join(buf) + b"\n")
            buf = []
            if step:
                step(1000)
    if buf:
        out.write(b"\n".join(buf) + b"\n")
        if step:
            step(len(buf))
    for line in snapshot_lines:
        out.write(line + b"\n")
    return summary


def _snapshot_lines(recorder: Any, vouched: dict[str, int]) -> list[bytes]:
    """A line per aggregate for the snapshot its latest chain link vouches for, as stored (none when it is missing)."""
    lines = []
    for hex_id, version in vouched.items() if recorder is not None else ():
        try:
            rows = recorder.select_events(UUID(hex=hex_id), gt=version - 1, lte=version)
        except Exception:  # noqa: BLE001 - a damaged snapshot row is left out: import folds the aggregate instead
            continue
        if len(rows) == 1 and rows[0].topic == SNAPSHOT_TOPIC:
            key, value = state_field(rows[0].state)
            lines.append(
                orjson.dumps({"snapshot_of": hex_id, "originator_version": version, "topic": rows[0].topic, key: value})
            )
    return lines


# -- import: read and check --------------------------------------------------------------------
@dataclass
class Checked:
    """A file that passed every check: its header and its stored events, ready to write."""

    header: dict[str, Any]
    events: list[Line]
    summary: Summary
    vouched: dict[str, tuple[int, int, str]]  # the latest snapshot the links record per aggregate (Walk.vouched)
    snapshots: list[Any]  # the file's snapshot lines, decoded and matched with their links (version 2)


def read_export(path: str, step: Step | None = None) -> Checked:
    """Parse and check an export file completely; BadInput says what is wrong and where."""
    header, lines, snapshot_lines = _read(path, step, exact=True)
    _check_counts(path, header, lines, snapshot_lines)
    _check_topics(path, lines)
    walk = walk_events(lines)
    if walk.problems:  # a file reformatted by another tool: its states re-encoded, as they were before slicing
        header, lines, snapshot_lines = _read(path, None, exact=False)
        walk = walk_events(lines)
    if walk.problems:
        p = walk.problems[0]
        where = f"line {p.seq}" + (f" (ruling {p.ruling})" if p.ruling else "")
        raise BadInput(
            f"{path} was changed or damaged: {where}: {p.message}", "export it again from the original ledger"
        )
    if walk.last_hash != header["final_hash"]:
        raise BadInput(
            f"{path} was changed: its final hash does not match its header", "export it again from the original ledger"
        )
    snaps, problems = check_snapshot_lines(snapshot_lines, walk.vouched)
    if problems:
        number, message = problems[0]
        raise BadInput(
            f"{path} was changed or damaged: line {number}: {message}", "export it again from the original ledger"
        )
    summary = Summary(
        len(lines), walk.rulings, walk.last_hash, str(header.get("system", "")), str(header.get("name", ""))
    )
    return Checked(header, lines, summary, walk.vouched, snaps)


def _read(path: str, step: Step | None, exact: bool) -> tuple[dict[str, Any], list[Line], list[Line]]:
    """The header, the event lines and the snapshot lines of an export file."""
    try:
        f = open(path, "rb")
    except OSError as e:
        raise BadInput(
            f"can't read {path}: {e.strerror or e}", "give the path of a file written by: ledger export --format jsonl"
        ) from None
    snapshot_lines: list[Line] = []
    with f:
        header = _header(path, _bounded_line(path, f, 1))
        return header, _parse(path, f, header, step, exact, snapshot_lines), snapshot_lines


def _header(path: str, raw: bytes) -> dict[str, Any]:
    not_ours = f"{path} is not a ledger export"
    hint = "give a file written by: ledger export --format jsonl"
    try:
        header = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise BadInput(f"{not_ours}: line 1 is not a JSON header", hint) from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise BadInput(f"{not_ours}: line 1 has no '{FORMAT}' header", hint)
    if header.get("version") not in READS or type(header.get("version")) is not int:
        raise BadInput(
            f"{path} is export format version {header.get('version')}; this ledger reads versions {READS[0]} "
            f"to {READS[-1]}",
            "upgrade ledger, or export again with this version",
        )
    for key, kind in (("events", int), ("rulings", int), ("final_hash", str)):
        if not isinstance(header.get(key), kind):
            raise BadInput(f"{path}: the header lacks '{key}'", hint)
    if header["version"] >= 2 and type(header.get("snapshots")) is not int:
        raise BadInput(f"{path}: the header lacks 'snapshots'", hint)
    return header


def _parse(
    path: str,
    f: IO[bytes],
    header: dict[str, Any],
    step: Step | None,
    exact: bool = False,
    snapshot_lines: list[Line] | None = None,
) -> list[Line]:
    """Every event line, in order; the common shape takes a fast path, anything else the checked one.

    A state is stored as the bytes orjson encodes its JSON object to (`state_field`). With `exact`, those bytes are
    cut from the line as written, between its `"state":` and `"ruling":` keys (the export writes them in that order
    and compactly, and neither key can occur unescaped inside a string) instead of encoding the object again; a
    file another tool reformatted then fails the chain walk, and `read_export` reads it again without `exact`.
    Snapshot lines (`snapshot_of`, version 2) go to `snapshot_lines`; a file of version 1 has none.
    """
    lines: list[Line] = []
    ids: dict[str, str] = {}  # each id as written -> its canonical hex digits (checked once per aggregate)
    loads, dumps, append = orjson.loads, orjson.dumps, lines.append
    number, done = 1, 0
    readline, limit = f.readline, MAX_LINE + 1
    while True:
        try:
            raw = readline(limit)  # _bounded_line, inline: this loop runs once per event
        except OSError as e:
            raise BadInput(f"can't read {path}: {e.strerror or e}") from None
        if len(raw) > MAX_LINE:
            raise _too_long(path, number + 1)
        if not raw:
            break
        number += 1
        done += len(raw)
        if step and number % 1000 == 0:
            step(done)
            done = 0
        try:
            row = loads(raw)
            value = row["state"]
            hex_id = row["originator_id"]
            oid = ids.get(hex_id) or ids.setdefault(hex_id, UUID(hex=hex_id).hex)
            version, topic = row["originator_version"], row["topic"]
            if type(version) is int and type(topic) is str and type(value) is dict:
                start, end = (raw.find(b',"state":') + 9, raw.rfind(b',"ruling":')) if exact else (0, 0)
                state = raw[start:end] if 9 <= start < end else dumps(value)
                append(Line(oid, version, topic, state, number, value.get("ruling")))
                continue
        except Exception:  # noqa: BLE001 - any surprise goes the checked way, which names the problem
            pass
        if not raw.strip():
            continue
        try:
            row = loads(raw)
        except orjson.JSONDecodeError:
            if not raw.endswith(b"\n"):
                raise BadInput(
                    f"{path} is truncated: line {number} is cut off", "export it again, or copy the whole file"
                ) from None
            raise BadInput(
                f"{path}: line {number} is not valid JSON", "the file was edited or damaged; export it again"
            ) from None
        if isinstance(row, dict) and "snapshot_of" in row and header["version"] >= 2:
            row["originator_id"] = row.pop("snapshot_of")
            if snapshot_lines is not None:
                snapshot_lines.append(_event(path, number, row, ids))
            continue
        append(_event(path, number, row, ids))
    if step and done:
        step(done)
    return lines


def _bounded_line(path: str, f: IO[bytes], number: int) -> bytes:
    """The next line, refusing one longer than MAX_LINE (a file of zeros or one endless line never fills memory)."""
    try:
        raw = f.readline(MAX_LINE + 1)
    except OSError as e:
        raise BadInput(f"can't read {path}: {e.strerror or e}") from None
    if len(raw) > MAX_LINE:
        raise _too_long(path, number)
    return raw


def _too_long(path: str, number: int) -> BadInput:
    return BadInput(
        f"{path}: line {number} is longer than {MAX_LINE // 2**20} MB: not a ledger export",
        "give a file written by: ledger export --format jsonl",
    )


def _event(path: str, number: int, row: Any, ids: dict[str, str]) -> Line:
    bad = f"{path}: line {number} is not a stored event"
    if not isinstance(row, dict):
        raise BadInput(bad)
    try:
        hex_id = row["originator_id"]
        oid = ids.get(hex_id) or ids.setdefault(hex_id, UUID(hex=hex_id).hex)
        version, topic = row["originator_version"], row["topic"]
        if "state" in row:
            value = row["state"]
            state = orjson.dumps(value)
        else:
            state = base64.b64decode(row["state_b64"], validate=True)
            value = _loads_or_none(state)
    except (KeyError, TypeError, ValueError, AttributeError, binascii.Error, orjson.JSONEncodeError):
        raise BadInput(f"{bad} (it needs originator_id, originator_version, topic and state)") from None
    if type(version) is not int or not isinstance(topic, str):
        raise BadInput(f"{bad} (originator_version must be a number, topic a string)")
    return Line(oid, version, topic, state, number, value.get("ruling") if isinstance(value, dict) else None)


def _loads_or_none(state: bytes) -> Any:
    try:
        return orjson.loads(state)
    except orjson.JSONDecodeError:
        return None


def _check_counts(path: str, header: dict[str, Any], lines: list[Line], snapshot_lines: list[Line]) -> None:
    announced = header["snapshots"] if header["version"] >= 2 else 0
    if len(snapshot_lines) != announced:
        raise BadInput(
            f"{path} was changed or cut: it holds {len(snapshot_lines)} of the {announced} snapshots its "
            "header announces",
            "export it again, or copy the whole file",
        )
    want, got = header["events"], len(lines)
    if got < want:
        raise BadInput(
            f"{path} is truncated: it holds {got} of the {want} events its header announces",
            "export it again, or copy the whole file",
        )
    if got > want:
        raise BadInput(
            f"{path} was changed: it holds {got} events but its header announces {want}",
            "export it again from the original ledger",
        )
    links = sum(1 for n in lines if n.topic == CHAIN_TOPIC)
    if links != header["rulings"]:
        raise BadInput(
            f"{path} is incomplete: it holds {links} of the {header['rulings']} rulings its header announces",
            "export it again, or copy the whole file",
        )
    if lines and lines[-1].topic != CHAIN_TOPIC:
        raise BadInput(f"{path} is truncated: its last ruling is incomplete", "export it again, or copy the whole file")


def _check_topics(path: str, lines: list[Line]) -> None:
    """Only the ledger's own event types: a topic is never resolved by importing a module the file names."""

    first: dict[str, int] = {}
    for n in lines:
        first.setdefault(n.topic, n.id)
    for topic, number in first.items():
        if not own_topic(topic) or "Snapshot" in topic:
            raise BadInput(
                f"{path}: line {number} has an event type that is not the ledger's own: '{safe(topic)[:80]}'",
                "give a file written by: ledger export --format jsonl",
            )
        try:
            resolve_topic(topic)
        except Exception:  # TopicError, or a module that fails to import
            raise BadInput(
                f"{path}: line {number} has an unknown event type '{topic}'",
                "import it with the ledger version that exported it",
            ) from None


# -- import: write -----------------------------------------------------------------------------
def is_empty(recorder: Any) -> bool:
    """Whether the ledger's log holds no event at all."""
    return not (recorder.max_notification_id() or 0)


def require_empty(recorder: Any, where: str) -> None:
    """Import writes only into an empty ledger."""
    if not is_empty(recorder):
        raise Conflict(
            f"{where} is not empty: import writes only into an empty ledger",
            "give --db a new file or an empty database",
        )


def write_import(store: Any, checked: Checked, where: str, step: Step | None = None) -> Summary:
    """Append the checked events in their order in one transaction (all or nothing), then take the snapshots.

    One transaction means a killed import leaves the target empty, ready to import again; measured no
    slower than batches (docs/export-format.md).
    """
    recorder = store.recorder
    require_empty(recorder, where)
    events = checked.events
    try:
        if type(recorder).__module__.endswith("sqlite"):  # the recorder's own INSERT, as one executemany
            with recorder.datastore.transaction(commit=True) as cursor:
                cursor.executemany(recorder.insert_events_statement, [e[:4] for e in events])
        else:
            recorder.insert_events([StoredEvent(UUID(hex=e[0]), e[1], e[2], e[3]) for e in events])
    except IntegrityError:
        raise Conflict(
            f"{where} stopped being empty during the import: nothing was imported",
            "import into a new file or an empty database",
        ) from None
    if step:
        step(len(events))
    snapshot(store, events, checked.vouched, checked.snapshots)
    return checked.summary


def snapshot(
    store: Any, events: list[Any], vouched: dict[str, tuple[int, int, str]], given: Sequence[Any] = ()
) -> None:
    """Store, for every aggregate, the latest snapshot a chain link of the file vouches for (ledger/snapshots.py;
    `vouched` is what the chain walk collected from the links).

    A snapshot the file carries (`given`, already matched with its link by `check_snapshot_lines`) is stored as it
    is; any other is taken again, folded from the imported events, and kept only if its digest is the one the link
    recorded (a file of version 1 carries none). Links of the first release record none, and their aggregates
    are then folded from events until the next snapshot.
    """
    if store.snapshots is None:
        return
    latest = {_hex(hex_id): rec for hex_id, rec in vouched.items()}
    for snap in given:
        latest.pop(snap.originator_id.hex, None)
    if given:
        store.snapshots.put(list(given))
    if not latest:
        return
    history: dict[str, list[Any]] = {oid: [] for oid in latest}
    for e in events:
        if e.originator_id in history and e.originator_version <= latest[e.originator_id][0]:
            history[e.originator_id].append(e)
    to_event, transcoder = store.mapper.to_domain_event, store.mapper.transcoder
    taken = []
    for oid, evs in history.items():
        version, link, digest = latest[oid]
        if not evs or evs[-1].originator_version != version:
            continue
        uid = UUID(hex=oid)  # one id object for the aggregate's every event (the mapper would make one per event)
        snap = snaps.take(_fold(None, (to_event(e._replace(originator_id=uid)) for e in evs)), link)
        if snaps.digest(transcoder, snap) == digest:
            taken.append(snap)
    if taken:
        store.snapshots.put(taken)


def _hex(value: str) -> str:
    try:
        return UUID(hex=value).hex
    except ValueError:
        return value


def _fold(aggregate: Any, domain_events: Any) -> Any:
    """Fold events onto an aggregate (eventsourcing's projector minus its per-event Protocol check)."""
    for event in domain_events:
        aggregate = event.mutate(aggregate)
    return aggregate


def export_lines(path: str) -> tuple[list[Any], list[Any]]:
    """An export file's event lines and snapshot lines, parsed but not yet judged (verify reports problems; import
    refuses them)."""
    _, lines, snapshot_lines = _read(path, None, exact=False)
    return lines, snapshot_lines


def check_snapshot_lines(
    lines: list[Line], vouched: dict[str, tuple[int, int, str]]
) -> tuple[list[Any], list[tuple[int, str]]]:
    """Decode each snapshot line and match it with the latest snapshot the chain links record for its aggregate:
    the same version, taken by the same link, the same digest (ledger/snapshots.py). The decoded snapshots, and
    (line number, problem) for each line that doesn't match."""

    if not lines:
        return [], []
    mapper = plain_mapper()
    by_id = {_hex(k): v for k, v in vouched.items()}
    taken: list[Any] = []
    problems: list[tuple[int, str]] = []
    for line in lines:
        want = by_id.get(line.originator_id)
        name = f"the snapshot of aggregate {line.originator_id[:8]} at version {line.originator_version}"
        if line.topic != SNAPSHOT_TOPIC or want is None or want[0] != line.originator_version:
            problems.append((line.id, f"{name} is not the one its chain links vouch for"))
            continue
        try:
            snap = mapper.to_domain_event(
                StoredEvent(UUID(hex=line.originator_id), line.originator_version, line.topic, line.state)
            )
        except Exception:  # noqa: BLE001 - a snapshot line that doesn't decode is a changed file
            problems.append((line.id, f"{name} can't be read"))
            continue
        if getattr(snap, "link", None) != want[1] or snaps.digest(mapper.transcoder, snap) != want[2]:
            problems.append((line.id, f"{name} does not match the chain link that took it"))
            continue
        taken.append(snap)
    return taken, problems
