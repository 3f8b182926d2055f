"""`ledger why NAME [FIELD]`: explain a value on a sheet by the live rulings that made it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from uuid import UUID

from ledger.aggregates import SHEET_EVENTS, Amendments, live_records, ruling_id
from ledger.errors import BadInput, no_character
from ledger.model.event_names import CHARACTER_ADDED, DAMAGE_APPLIED, HEALTH_RECOVERED, RESOURCE_CHANGED
from ledger.model.sheet import Sheet, apply_effect, is_gm_pool
from ledger.rules import get_rules

if TYPE_CHECKING:
    from ledger.aggregates import Campaign
    from ledger.storage.store import EventStore


def value_of(sheet: Sheet | None, field: str) -> Any:
    """The value of a field on a sheet: hp, max_hp, count, a condition (present or not), a resource, counter or
    trait."""
    if sheet is None:
        return None
    if field in ("hp", "max_hp", "count"):
        return getattr(sheet, field)
    if field in sheet.resources:
        return sheet.resources[field]
    if field in sheet.counters:
        return sheet.counters[field]
    if field in sheet.traits:
        return sheet.traits[field]
    return field in sheet.conditions


def _describe(field: str, before: Any, after: Any, kind: str, data: dict[str, Any]) -> str:
    if isinstance(after, bool):
        return ("gained" if after else "lost") + (f" ({data['note']})" if data.get("note") else "")
    if isinstance(before, bool) or before is None:  # a counter or resource the sheet did not hold yet: 0
        before = 0
    if isinstance(after, bool) or after is None:
        after = 0
    detail = ""
    if "amount" in data:
        words = {DAMAGE_APPLIED: "damage", HEALTH_RECOVERED: "recovered"}.get(kind, "")
        detail = f" ({data['amount']} {words})".replace(" )", ")")
    elif kind == RESOURCE_CHANGED and data.get("purpose") or data.get("reason"):
        detail = f" ({data.get('purpose') or data.get('reason')})"
    return f"{before} -> {after}{detail}"


def explain(store: EventStore, campaign: Campaign, amended: Amendments, name: str, field: str | None) -> dict[str, Any]:
    """The live rulings that changed `field` on the character's sheet, in order, with who and when."""
    entry = campaign.character(name)
    if entry is None:
        raise no_character(name, campaign.names(), retired=campaign.retired_names())
    aid = UUID(entry["id"])
    history = list(store.events.get(aid))
    amendments = {n: [r for r in recs if r["aggregate"] == aid.hex] for n, recs in amended.items()}
    records = live_records(history, campaign.dead_set(), amendments)
    current = Sheet.from_dict(store.repository.get(aid).sheet)
    pool = is_gm_pool(current.to_dict())  # P&P: the GM's Adversity, whose only history is the pool
    field = (field or ("adversity" if pool else "hp")).strip().lower().replace(" ", "-")
    if pool and field != "adversity":
        raise BadInput(f"{current.name} is the GM's Adversity pool: it has no {field}", f"ledger why {current.name}")
    rules = get_rules(campaign.system)
    known = (
        {"hp", "max_hp", "count"}
        | set(current.resources)
        | set(current.counters)
        | set(current.traits)
        | set(rules.conditions)
    )
    if field not in known:
        raise BadInput(f"'{field}' is not on {current.name}'s sheet", "try hp, a condition, a resource or a counter")
    steps: list[dict[str, Any]] = []
    sheet: Sheet | None = None
    for number, kind, p in records:
        before = value_of(sheet, field)
        if kind == CHARACTER_ADDED:
            sheet = Sheet.from_dict(p["sheet"])
        elif kind in SHEET_EVENTS and sheet is not None:
            sheet = apply_effect(sheet, kind, p["data"])
        after = value_of(sheet, field)
        if after != before and not (before is None and after is False):
            change = (
                "added with it"
                if kind == CHARACTER_ADDED and not isinstance(after, bool)
                else _describe(field, before, after, kind, p.get("data", {}))
            )
            steps.append(
                {
                    "ruling": number,
                    "event": kind,
                    "change": change if kind != CHARACTER_ADDED else f"{after} when added",
                }
            )
    _envelopes(store, steps, campaign.live_amendments())
    doc: dict[str, Any] = {
        "name": current.name,
        "field": field,
        "value": value_of(current, field),
        "because": steps,
        "notes": [],
    }
    implied = rules.derived(current).get("implied", [])
    if field in implied and field not in current.conditions:
        doc["value"] = True
        doc["notes"].append(
            f"{field} is implied by {', '.join(c for c in current.conditions) or 'the sheet'} (not imposed itself)"
        )
    return doc


def _envelopes(store: EventStore, steps: list[dict[str, Any]], amended: dict[int, int]) -> None:
    """Add each step's command, actor and session (and the retraction that re-derived it, if any)."""
    cache: dict[int, Any] = {}
    for s in steps:
        n = s["ruling"]
        if n not in cache:
            cache[n] = store.repository.get(ruling_id(n))
        r = cache[n]
        s.update({"command": r.command, "actor": r.actor, "session": r.session, "at": r.at})
        if (r.intent or {}).get("note"):
            s["note"] = r.intent["note"]  # `--note TEXT` given with the ruling
        if n in amended:
            s["amended_by"] = amended[n]
            s["change"] += f" (re-derived by ruling {amended[n]})"
