"""The ledger's event classes (ledger/model/lean.py) behave as the frozen dataclasses eventsourcing makes
(benchmarks/startup.py: they are only cheaper to create, so a one-shot command starts sooner)."""

from __future__ import annotations

import dataclasses
import inspect
from uuid import uuid4

import pytest

from ledger.aggregates import Campaign, Character, Ruling


def damage(cls: type = Character.DamageApplied, **data: object) -> object:
    return cls(
        originator_id=ID,
        originator_version=2,
        timestamp=Campaign.Event.create_timestamp(),
        ruling=3,
        data=data or {"amount": 1, "hp": 5},
    )


ID = uuid4()


def test_an_event_that_adds_no_field_has_its_bases_fields_and_signature():
    names = [f.name for f in dataclasses.fields(Character.DamageApplied)]
    assert names == [f.name for f in dataclasses.fields(Character.SheetEvent)]
    assert names[-2:] == ["ruling", "data"] and dataclasses.is_dataclass(Character.DamageApplied)
    assert list(inspect.signature(Character.DamageApplied).parameters) == ["self", *names]
    assert "ids" in inspect.signature(Ruling.Touched).parameters


def test_events_are_equal_by_class_and_every_field():
    a = damage()
    b = Character.DamageApplied(**{f.name: getattr(a, f.name) for f in dataclasses.fields(a)})
    assert a == b and hash(
        Campaign.RulingUndone(originator_id=ID, originator_version=1, timestamp=a.timestamp, ruling=2, target=1)
    ) == hash(Campaign.RulingUndone(originator_id=ID, originator_version=1, timestamp=a.timestamp, ruling=2, target=1))
    assert a != damage(amount=2, hp=4)
    same_fields_other_class = Character.HealthRecovered(**{f.name: getattr(a, f.name) for f in dataclasses.fields(a)})
    assert a != same_fields_other_class


def test_events_are_frozen_and_show_their_class_and_fields():
    a = damage()
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.ruling = 4  # type: ignore[misc]
    assert repr(a).startswith("Character.DamageApplied(originator_id=") and "data={'amount': 1, 'hp': 5}" in repr(a)


def test_an_event_is_made_from_keywords_or_positions_with_its_defaults_and_checks():
    """As a dataclass's __init__: every field by keyword or position, defaults filled, unknown or missing refused."""
    ts = Campaign.Event.create_timestamp()
    by_keyword = Ruling.Touched(originator_id=ID, originator_version=4, timestamp=ts, ruling=2, ids=["a"])
    by_position = Ruling.Touched(ID, 4, ts, 2, ["a"])
    assert by_keyword == by_position and by_keyword.first is None
    params = inspect.signature(Ruling.Touched).parameters
    assert list(params) == ["self", "originator_id", "originator_version", "timestamp", "ruling", "ids", "first"]
    assert params["first"].default is None and params["ids"].default is inspect.Parameter.empty
    with pytest.raises(TypeError):
        Ruling.Touched(originator_id=ID, originator_version=4, timestamp=ts, ruling=2)  # no ids
    with pytest.raises(TypeError):
        Ruling.Touched(originator_id=ID, originator_version=4, timestamp=ts, ruling=2, ids=[], colour="red")
    with pytest.raises(TypeError):  # eventsourcing's own check after init still runs
        Ruling.Touched(originator_id="not-a-uuid", originator_version=4, timestamp=ts, ruling=2, ids=[])
