"""`ledger verify`'s read-side check: the read models compared with a fresh fold of the log (`ledger rebuild` repairs).

The fold runs into a private in-memory SQLite database with the same tables, through the same `Batch` the
views use, over the same events; then every table is compared row by row. A read model edited in the file
(a sheet set to HP 99, a ruling marked retracted, a dropped table) shows up as a difference.
"""

from __future__ import annotations

from typing import Any

import orjson
from sqlalchemy import create_engine, select
from sqlalchemy.exc import SQLAlchemyError

from ledger.model.bounds import safe
from projections.db import VIEW_TABLES, ReadSide, metadata
from projections.views import Batch, position, whole_rulings

SHOWN = 3  # differences listed per table


def differences(read: ReadSide) -> list[str]:
    """One line per difference between the read models and a fresh fold of the log (empty when they agree)."""
    fresh = create_engine(
        "sqlite://", json_serializer=lambda o: orjson.dumps(o).decode(), json_deserializer=orjson.loads
    )
    try:
        metadata.create_all(fresh)
        with read.engine.connect() as src:
            try:
                pos = position(src)
            except SQLAlchemyError as e:
                src.rollback()
                return [f"the read models can't be read ({_first(e)}); run: ledger rebuild"]
            top = read.max_seq(src)
            if pos > top:
                return [
                    f"the read models have seen event {pos} but the log ends at {top}: events were removed from the log"
                ]
            with fresh.begin() as dst:
                _fold(read, src, dst, top)
            out: list[str] = []
            with fresh.connect() as dst:
                for table in VIEW_TABLES:
                    out += _compare(table, src, dst)
            return out
    finally:
        fresh.dispose()


def _fold(read: ReadSide, src: Any, dst: Any, top: int) -> None:
    after = 0
    while after < top:
        rows = [r for r in read.read_rows(src, after, 20000) if r[0] <= top]
        if not rows:
            return
        chunk = whole_rulings(rows, len(rows) == 20000) or rows
        batch = Batch(dst)
        try:
            batch.fold(chunk)
        except orjson.JSONDecodeError:
            read.damaged(chunk)
            raise
        batch.write(chunk[-1][0])
        after = chunk[-1][0]


def _compare(table: Any, src: Any, dst: Any) -> list[str]:
    keys = list(table.primary_key.columns)
    try:
        have = {_key(r, keys): r for r in src.execute(select(table)).mappings()}
    except SQLAlchemyError as e:
        src.rollback()
        return [f"read model {table.name} can't be read ({_first(e)}); run: ledger rebuild"]
    want = {_key(r, keys): r for r in dst.execute(select(table)).mappings()}
    out = []
    for k in sorted(set(have) | set(want), key=str):
        a, b = have.get(k), want.get(k)
        if a is None:
            out.append(f"read model {table.name}: row {k} is missing; run: ledger rebuild")
        elif b is None:
            out.append(f"read model {table.name}: row {k} is not in the log; run: ledger rebuild")
        else:
            cols = [c for c in b.keys() if _norm(a[c]) != _norm(b[c])]
            if cols:
                c = cols[0]
                out.append(
                    f"read model {table.name}: row {k} has {c} {_show(a[c])}, the log says {_show(b[c])}; run: "
                    "ledger rebuild"
                )
        if len(out) >= SHOWN:
            break
    return out


def _key(row: Any, keys: list[Any]) -> Any:
    vals = tuple(_norm(row[c.name]) for c in keys)
    return vals[0] if len(vals) == 1 else vals


def _norm(v: Any) -> Any:
    """Values as both engines give them back: JSON text decoded, booleans as booleans."""
    if isinstance(v, (bytes, str)) and v[:1] in ("{", "[", b"{", b"["):
        try:
            return orjson.loads(v)
        except orjson.JSONDecodeError:
            return v
    return v


def _show(v: Any) -> str:
    s = safe(orjson.dumps(v, default=str).decode())
    return s if len(s) <= 40 else s[:37] + "..."


def _first(e: Exception) -> str:
    text = str(getattr(e, "orig", e) or type(e).__name__)
    return text.splitlines()[0][:120]
