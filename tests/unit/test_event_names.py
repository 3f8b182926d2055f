"""ledger/model/event_names.py names every stored event class once, and imports nothing."""

from __future__ import annotations

import ast
import inspect

from eventsourcing.domain import DomainEvent

from ledger import aggregates, encounter
from ledger.model import event_names
from tests.conftest import REPO

ABSTRACT = {"Event", "SheetEvent", "Resolved", "Created"}  # bases no event is stored as (Created: eventsourcing's own)


def _event_classes() -> set[str]:
    """The names of the event classes nested in the aggregates of ledger/aggregates.py and ledger/encounter.py."""
    found: set[str] = set()
    for module in (aggregates, encounter):
        for _, agg in inspect.getmembers(module, inspect.isclass):
            if agg.__module__ != module.__name__:
                continue
            for name, cls in vars(agg).items():
                if inspect.isclass(cls) and issubclass(cls, DomainEvent) and name not in ABSTRACT:
                    found.add(name)
    return found


def _constants() -> dict[str, str]:
    return {k: v for k, v in vars(event_names).items() if k.isupper() and isinstance(v, str) and k != "CHAIN_TOPIC"}


def test_every_constant_names_an_event_class_and_every_event_class_has_one() -> None:
    """Each constant's value is a stored event class's name, under its own upper-case name, and none is missing."""
    consts = _constants()
    classes = _event_classes()
    assert set(consts.values()) == classes
    for k, v in consts.items():
        assert k.replace("_", "") == v.upper(), k


def test_the_bookkeeping_sets_name_the_events_marked_bookkeeping() -> None:
    """BOOKKEEPING is exactly the events that fold into no state as bookkeeping; UNVIEWED is a part of it."""
    marked = {
        name
        for agg in (aggregates.Campaign, aggregates.Ruling, aggregates.Character)
        for name, cls in vars(agg).items()
        if inspect.isclass(cls) and vars(cls).get("bookkeeping")
    }
    assert marked == event_names.BOOKKEEPING
    assert event_names.UNVIEWED < event_names.BOOKKEEPING
    assert event_names.CHAIN_TOPIC == f"ledger.aggregates:Campaign.{event_names.RULING_CHAINED}"


def test_event_names_imports_nothing() -> None:
    """The module is a leaf every part (the rules through ledger/model/sheet.py) may read: no import at all."""
    tree = ast.parse((REPO / "ledger" / "model" / "event_names.py").read_text())
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
