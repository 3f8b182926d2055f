"""Everything `ledger verify` checks on the write side: the chain walk, the database's own integrity, every snapshot.

A snapshot is compared with a fresh fold of its aggregate's events up to its version (each aggregate is folded
once, in order), and, when it names its chain link, with the digest that link recorded. The read models are
compared with a fresh fold of the log by projections/check.py (the write side does not import the read side).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import orjson

from ledger import snapshots as snaps
from ledger.audit.chain import Problem, Walk, notifications, raw, walk_events
from ledger.storage.schema import schema_problems


@dataclass
class Report:
    """What verify found: problems, counts, the head hash, and whether an expected hash is still in the chain."""

    walk: Walk
    problems: list[Problem] = field(default_factory=list)
    snapshots: int = 0
    dice: dict[str, Any] = field(default_factory=dict)  # with --dice: dice_checked, sessions_revealed, dice_unrevealed

    @property
    def counts(self) -> dict[str, int]:
        """What verify reports besides its problems."""
        return {**self.walk.counts(), "snapshots": self.snapshots, **self.dice}

    @property
    def head(self) -> str:
        """The hash of the last ruling in the chain."""
        return self.walk.last_hash


def verify_store(store: Any, expect: str | None = None) -> Report:
    """Walk the chain, run the database's integrity check, and check every snapshot."""
    recorder = store.recorder
    try:
        report = Report(walk_events(notifications(recorder), expect))
    except Exception as e:  # noqa: BLE001 - a file too damaged to read is the finding, never a traceback
        report = Report(Walk())
        report.problems.append(Problem(0, None, f"the log can't be read to its end: {_first(e)}"))
        report.problems += integrity(recorder)
        return report
    report.problems += report.walk.problems
    report.problems += integrity(recorder)
    report.problems += schema(recorder)
    report.snapshots, found = check_snapshots(store, report.walk)
    report.problems += found
    if expect is not None and not report.walk.expected_found:
        report.problems.append(
            Problem(
                0,
                None,
                f"the expected ruling hash {expect[:16]}... is no longer in the chain: history was rewritten "
                "or removed",
            )
        )
    return report


def _first(e: BaseException) -> str:
    text = str(e).strip()
    return (text.splitlines()[0] if text else type(e).__name__)[:160]


def integrity(recorder: Any) -> list[Problem]:
    """SQLite's own integrity check (PostgreSQL keeps its own: nothing to run there)."""
    if not type(recorder).__module__.endswith("sqlite"):
        return []
    try:
        rows = raw(recorder, "PRAGMA integrity_check")
    except Exception as e:  # noqa: BLE001 - a file too damaged to check is itself the finding
        return [
            Problem(
                0,
                None,
                f"SQLite integrity check failed to run: {str(e).splitlines()[0] if str(e) else type(e).__name__}",
            )
        ]
    found = [str(r[0]) for r in rows if str(r[0]) != "ok"]
    return [Problem(0, None, f"SQLite integrity check: {line}") for line in found[:10]]


def schema(recorder: Any) -> list[Problem]:
    """Anything in the database the ledger never makes (a trigger, view, rule), and a position sequence set back."""
    try:
        return [Problem(0, None, f"{problem}; {fix}") for problem, fix in schema_problems(recorder)]
    except Exception as e:  # noqa: BLE001 - a catalogue that can't be read is itself the finding
        return [Problem(0, None, f"the database's schema can't be read: {_first(e)}")]


def check_snapshots(store: Any, walk: Walk) -> tuple[int, list[Problem]]:
    """Compare every stored snapshot with a fresh fold of its aggregate's events (and with its chain link)."""
    rec = getattr(store.snapshots, "recorder", None)
    if rec is None:
        return 0, []
    problems: list[Problem] = []
    try:
        rows = raw(
            rec,
            f"SELECT originator_id, originator_version FROM {rec.events_table_name} ORDER BY originator_id, "
            "originator_version",
        )
    except Exception as e:  # noqa: BLE001
        return 0, [
            Problem(0, None, f"the snapshots can't be read: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
        ]
    by_aggregate: dict[Any, list[int]] = {}
    for oid, version in rows:
        by_aggregate.setdefault(str(oid), []).append(version)
    checked = 0
    transcoder = store.mapper.transcoder
    for oid_text, versions in by_aggregate.items():
        try:
            aid = UUID(oid_text)
        except ValueError:
            problems.append(Problem(0, None, f"a snapshot belongs to no aggregate ({oid_text[:20]}): ignored"))
            continue
        wanted = sorted(v for v in versions if type(v) is int)
        head = walk.versions.get(aid, 0)
        for v in wanted:
            if v > head:
                problems.append(
                    Problem(
                        0,
                        None,
                        f"snapshot of aggregate {aid.hex[:8]} at version {v} is beyond its last event "
                        f"({head}): events were removed",
                    )
                )
        folded = _fold_at(store, aid, [v for v in wanted if v <= head])
        for v in wanted:
            if v > head:
                continue
            checked += 1
            try:
                snap = next(iter(store.snapshots.get(aid, gt=v - 1, lte=v)))
            except Exception as e:  # noqa: BLE001 - a snapshot that can't be decoded is reported, not folded
                problems.append(
                    Problem(
                        0,
                        None,
                        f"snapshot of aggregate {aid.hex[:8]} at version {v} can't be read "
                        f"({type(e).__name__}): it is ignored",
                    )
                )
                continue
            fresh = folded.get(v)
            if fresh is None or snaps.digest(transcoder, snap) != fresh:
                why = snaps.problem(store, snap)
                said = (  # vouched for by its link, it is what loads use: the events before it were changed
                    "its chain link vouches for it, so the ledger loads it: the events before it (or its link) were "
                    "changed"
                    if why is None
                    else "it is ignored (no chain link vouches for it)"
                )
                problems.append(
                    Problem(
                        0, None, f"snapshot of aggregate {aid.hex[:8]} at version {v} differs from its events: " + said
                    )
                )
                continue
            why = snaps.problem(store, snap)
            if why:
                problems.append(Problem(0, None, why))
    return checked, problems


def _fold_at(store: Any, aid: Any, versions: list[int]) -> dict[int, str]:
    """The digest of a fresh snapshot of an aggregate at each of `versions`, folding its events once."""
    out: dict[int, str] = {}
    if not versions:
        return out
    want, aggregate = set(versions), None
    try:
        for e in store.events.get(aid, lte=max(versions)):
            aggregate = e.mutate(aggregate)
            if e.originator_version in want:
                out[e.originator_version] = snaps.digest(store.mapper.transcoder, snaps.take(aggregate, 0))
    except Exception:  # noqa: BLE001 - damaged events are reported by the chain walk; later snapshots stay unchecked
        pass
    return out


def decoded(events: Iterable[Any]) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(position, topic, decoded state) of stored events; an undecodable state reads as empty (the walk reports it)."""
    for e in events:
        try:
            state = orjson.loads(e.state)
        except orjson.JSONDecodeError:
            state = {}
        yield e.id, e.topic, state if isinstance(state, dict) else {}


def dice_problems(events: Iterable[Any]) -> tuple[list[Problem], dict[str, Any]]:
    """Every committed die of revealed sessions recomputed (ledger/audit/dice_proof.py): problems, and the counts verify
    reports."""
    # lazy: committed dice only (hmac); kept out of verifying a ledger without them
    from ledger.audit.dice_names import takes
    from ledger.audit.dice_proof import DiceCheck, check

    try:
        found: DiceCheck = check(decoded(events), takes)
    except Exception as e:  # noqa: BLE001 - a log too damaged to read the dice from is reported, never a traceback
        return [Problem(0, None, f"the dice can't be checked: the log can't be read ({type(e).__name__})")], {}
    problems = [Problem(p.seq, p.ruling, p.message) for p in found.problems]
    counts = {
        "dice_checked": found.dice_checked,
        "sessions_revealed": found.sessions_revealed,
        "dice_unrevealed": found.dice_unrevealed,
        "asks": dict(sorted(found.asks.items())),
    }
    return problems, counts
