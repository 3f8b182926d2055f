"""A cheaper metaclass for the ledger's event classes: the same frozen dataclasses, made with less generated code.

eventsourcing makes every event class a frozen dataclass and works out its signature as the class is made;
with some fifty event classes that was most of a one-shot command's own import time (issue 17).
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, dataclass_transform

from eventsourcing.domain import MetaDomainEvent

from ledger.record import collect_fields, init_for, repr_, simple


def _eq(self: Any, other: object) -> bool:
    return type(other) is type(self) and self.__dict__ == other.__dict__


def _hash(self: Any) -> int:
    return hash(tuple(self.__dict__.values()))


@dataclass_transform(frozen_default=True)
class LeanEventType(MetaDomainEvent):
    """Each event class is the frozen dataclass eventsourcing makes, built for less at import time.

    A subclass that adds no field (DamageApplied, CheckResolved, ...) inherits its base's methods instead of
    generating the same ones again. A class with fields gets them as dataclasses would collect them, with no
    code compiled for it (ledger/record.py): __init__ is a closure over the fields, frozen
    __setattr__/__delattr__, equality (same class, same fields), hash and repr are one shared definition each;
    and a class's signature is worked out when first asked for. A class body dataclasses would treat specially
    (a ClassVar, a mutable default) still goes through dataclasses.
    """

    def __new__(mcs, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> Any:  # noqa: N804
        cls: Any = type.__new__(mcs, name, bases, ns)
        if ns.get("__annotations__") or len(bases) != 1 or "__dataclass_fields__" not in bases[0].__dict__:
            if simple(ns):
                fields = collect_fields(cls, ns, frozen=True)
            else:
                cls = dataclasses.dataclass(frozen=True, init=False, eq=False, repr=False)(cls)
                fields = cls.__dataclass_fields__
            if "__init__" not in ns:
                cls.__init__ = init_for(cls, fields)
        if not any(isinstance(b, LeanEventType) for b in bases):  # the first lean class of its line
            cls.__eq__, cls.__hash__, cls.__repr__ = _eq, _hash, repr_
        return cls

    @property
    def __signature__(cls) -> inspect.Signature:
        """The constructor's signature (eventsourcing's own metaclass works it out for every class as it is made)."""
        return signature(cls)


def signature(cls: Any) -> inspect.Signature:
    """A class's constructor signature: its fields, for an __init__ made by ledger/record.py."""
    init: Any = cls.__init__
    if not getattr(init, "lean", False):
        return inspect.signature(init)  # a hand-written __init__
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return inspect.Signature(
        [inspect.Parameter("self", kind)]
        + [
            inspect.Parameter(
                f.name,
                kind,
                annotation=f.type,
                default=inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default,
            )
            for f in dataclasses.fields(cls)
            if f.init
        ]
    )
