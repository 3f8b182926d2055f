"""Which later rulings a retraction's walk looks at, found in the database (ledger/history/walk.py).

A later ruling keeps its recorded outcome when nothing it read differs; so the walk need only look at the rulings
whose chain link names an aggregate that differs (or may be suspect), or records no reads. The database finds
those links by their text (an aggregate's id appears in a link that read it, whatever the encoding), so the links
that name none of them are never fetched nor decoded: the walk's cost follows the rulings the retraction reaches,
not the length of the history (benchmarks/retract.py). A link that names an id elsewhere is looked at too, and
kept by the walk's own exact test (`Walk.skip`): the text only narrows, never decides.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import orjson

from ledger.aggregates import CAMPAIGN_ID, Campaign, Ruling, ruling_id

if TYPE_CHECKING:
    from ledger.storage.store import EventStore

CHAIN_TOPIC = f"{Campaign.RulingChained.__module__}:{Campaign.RulingChained.__qualname__}"
READS = b'"reads":{'  # a link that records its reads (one without it, an older ledger's, is always looked at)
TOUCHED_TOPIC = f"{Ruling.Touched.__module__}:{Ruling.Touched.__qualname__}"
MOST = 64  # ids the database is asked about at once; more, and the walk reads every later link as before


def raw_recorder(store: EventStore) -> tuple[Any, bool, str]:
    """The store's recorder (SQLite or PostgreSQL: both have a table name and a datastore), whether it is SQLite, and
    its parameter mark."""
    recorder: Any = store.recorder
    sqlite = type(recorder).__module__.endswith("sqlite")
    return recorder, sqlite, "?" if sqlite else "%s"


def query(recorder: Any, sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    """Rows of a raw query on the recorder's own connection, as tuples in the order selected."""
    with recorder.datastore.transaction(commit=False) as cur:
        cur.execute(sql, params)
        found = cur.fetchall()
    return [tuple(r.values()) if isinstance(r, dict) else tuple(r) for r in found]


def links_after(
    store: EventStore, since: int, names: Iterable[str] | None, limit: int | None = None
) -> list[tuple[int, bytes]]:
    """The campaign's chain links after its version `since`, in order, as (version, state): those that name one of
    the aggregate ids in `names` or record no reads (every one, when `names` is None)."""
    recorder, sqlite, mark = raw_recorder(store)
    sql = (
        f"SELECT originator_version, state FROM {recorder.events_table_name} "
        f"WHERE originator_id = {mark} AND originator_version > {mark} AND topic = {mark}"
    )
    params: list[Any] = [CAMPAIGN_ID.hex if sqlite else CAMPAIGN_ID, since, CHAIN_TOPIC]
    if names is not None:
        found = "instr(state, {}) > 0" if sqlite else "position({} in state) > 0"
        terms = [found.format(mark) for _ in [*names, READS]]
        terms[-1] = terms[-1].replace(">", "=")  # no recorded reads
        sql += f" AND ({' OR '.join(terms)})"
        params += [*(h.encode() for h in names), READS]
    sql += " ORDER BY originator_version" + (f" LIMIT {int(limit)}" if limit is not None else "")
    return [(int(v), bytes(state)) for v, state in query(recorder, sql, params)]


def touched_by(store: EventStore, numbers: Iterable[int]) -> set[str]:
    """Every aggregate id (hex) the rulings `numbers` changed, from their touched lists (one query per 500)."""
    recorder, sqlite, mark = raw_recorder(store)
    ids = [ruling_id(n) for n in sorted(numbers)]
    out: set[str] = set()
    for i in range(0, len(ids), 500):
        part = ids[i : i + 500]
        sql = (
            f"SELECT state FROM {recorder.events_table_name} WHERE topic = {mark} "
            f"AND originator_id IN ({', '.join([mark] * len(part))})"
        )
        for (state,) in query(recorder, sql, [TOUCHED_TOPIC, *(u.hex if sqlite else u for u in part)]):
            out.update(orjson.loads(bytes(state))["ids"])
    return out
