"""ledger/record.py: a `@record` class behaves as the `@dataclass` it replaces (issue 17: only cheaper to make).

Each test builds the same class body both ways and compares what users of the class can see.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping
from typing import Any

import pytest

from ledger.model.dice import DiceBox, Roll
from ledger.model.sheet import Effect, Sheet
from ledger.record import record


def both(frozen: bool) -> tuple[Any, Any]:
    def body() -> dict[str, Any]:
        def __post_init__(self: Any) -> None:
            if self.hp < 0:
                raise ValueError("hp below 0")

        return {
            "__annotations__": {"name": "str", "hp": "int", "tags": "Mapping[str, int]", "pc": "bool"},
            "hp": 0,
            "tags": dataclasses.field(default_factory=dict),
            "pc": False,
            "__post_init__": __post_init__,
            "__qualname__": "Thing",
            "__module__": __name__,
        }

    made = record(frozen=frozen)(type("Thing", (), body()))
    reference = dataclasses.dataclass(frozen=frozen)(type("Thing", (), body()))
    return made, reference


@pytest.mark.parametrize("frozen", [True, False])
def test_fields_defaults_repr_equality_and_replace_match_dataclasses(frozen: bool) -> None:
    made, ref = both(frozen)
    assert [(f.name, f.type) for f in dataclasses.fields(made)] == [(f.name, f.type) for f in dataclasses.fields(ref)]
    assert dataclasses.is_dataclass(made) and made.__match_args__ == ref.__match_args__
    a, r = made("Ann", 3), ref("Ann", 3)
    assert repr(a) == repr(r) == "Thing(name='Ann', hp=3, tags={}, pc=False)"
    assert dataclasses.asdict(a) == dataclasses.asdict(r)
    assert a == made(name="Ann", hp=3) and a != made("Ann", 4) and a != r  # equal by class and fields
    b = dataclasses.replace(a, hp=5)
    assert (b.name, b.hp, type(b)) == ("Ann", 5, made)
    assert made("A").tags is not made("A").tags  # a fresh default per instance
    assert "tags" not in made.__dict__ and "tags" not in ref.__dict__  # a factory default leaves no class value
    assert made.hp == ref.hp == 0
    assert copy.deepcopy(a) == a
    if frozen:
        with pytest.raises(TypeError):
            hash(a)  # a dict field: unhashable, as the dataclass is
        with pytest.raises(TypeError):
            hash(r)
        tagged = made("Ann", 3, tags=(("a", 1),))  # type: ignore[arg-type]
        assert hash(tagged) == hash(made("Ann", 3, tags=(("a", 1),))) == hash(ref("Ann", 3, tags=(("a", 1),)))
        with pytest.raises(dataclasses.FrozenInstanceError):
            a.hp = 4
        with pytest.raises(dataclasses.FrozenInstanceError):
            del a.hp
    else:
        assert made.__hash__ is None is ref.__hash__
        a.hp = 9
        assert a.hp == 9


@pytest.mark.parametrize("frozen", [True, False])
def test_construction_errors_and_post_init_match_dataclasses(frozen: bool) -> None:
    for cls in both(frozen):
        with pytest.raises(TypeError):
            cls()  # name is required
        with pytest.raises(TypeError):
            cls("Ann", 1, {}, False, "extra")
        with pytest.raises(TypeError):
            cls("Ann", name="Bob")
        with pytest.raises(TypeError):
            cls("Ann", colour="red")
        with pytest.raises(ValueError):
            cls("Ann", -1)  # __post_init__ runs


def test_a_body_dataclasses_treats_specially_goes_to_dataclasses() -> None:
    """A field(init=False) is dataclasses' own business: record hands the class to it."""

    @record
    class Counted:
        name: str
        seen: int = dataclasses.field(default=0, init=False)

    c = Counted("x")
    assert c.seen == 0 and "seen" not in [p for p in Counted.__match_args__]


def test_the_write_sides_value_classes_are_records_with_dataclass_behaviour() -> None:
    """The sheet (sheet.py), effects, rolls and the dice box keep their dataclass contract."""
    s = Sheet("Ann", "d20", {"hp": 5}, hp=5, max_hp=5)
    assert dataclasses.replace(s, hp=2).hp == 2 and s.hp == 5 and Sheet.from_dict(s.to_dict()) == s
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.hp = 1  # type: ignore[misc]
    with pytest.raises(ValueError):
        Effect("NoSuchEffect", "", {})
    assert isinstance(Effect("DamageApplied", "Ann", {}).data, Mapping)
    assert DiceBox().__class__.__hash__ is None
    assert [f.name for f in dataclasses.fields(Roll)] == [
        *("name", "spec", "faces", "source", "used", "commitment"),
        *("counter", "player_seed"),  # scheme 2 (docs/verifiable-dice.md)
    ]
