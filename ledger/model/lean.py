"""A cheaper metaclass for the ledger's event classes: the same frozen dataclasses, made with less generated code.

eventsourcing makes every event class a frozen dataclass and works out its signature as the class is made;
with some fifty event classes that was most of a one-shot command's own import time (benchmarks/startup.py:
without this module a one-shot `damage` costs about 36 ms more CPU).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any, dataclass_transform

from eventsourcing.domain import MetaDomainEvent

_MUTABLE = (list, dict, set)


def simple(ns: dict[str, Any]) -> bool:
    """Whether a class body's fields are ones `collect_fields` takes (see `LeanEventType`)."""
    for name, kind in ns.get("__annotations__", {}).items():
        default = ns.get(name)
        if isinstance(default, _MUTABLE) or "Var" in str(kind):
            return False
        if isinstance(default, dataclasses.Field) and not (default.init and default.repr and default.compare):
            return False
    return True


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def collect_fields(cls: Any, ns: dict[str, Any], frozen: bool) -> dict[str, dataclasses.Field[Any]]:
    """Give `cls` the fields dataclasses would: every base's, in reverse method resolution order, then its own
    annotations in order; a `field(...)` default is replaced by its value on the class, as dataclasses does."""
    fields: dict[str, dataclasses.Field[Any]] = {}
    for base in cls.__mro__[-1:0:-1]:
        fields.update(getattr(base, "__dataclass_fields__", None) or {})
    for name, kind in ns.get("__annotations__", {}).items():
        given = ns.get(name, dataclasses.MISSING)
        f: Any = given if isinstance(given, dataclasses.Field) else dataclasses.field(default=given)
        f.name, f.type, f._field_type = name, kind, dataclasses._FIELD  # type: ignore[attr-defined]
        if f.kw_only is dataclasses.MISSING:
            f.kw_only = False
        if isinstance(given, dataclasses.Field):
            if f.default is dataclasses.MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        fields[name] = f
    cls.__dataclass_fields__ = fields
    setattr(cls, "__match_args__", tuple(n for n, f in fields.items() if f.init))
    if frozen:
        cls.__setattr__, cls.__delattr__ = _frozen_setattr, _frozen_delattr
    return fields


def init_for(cls: Any, fields: dict[str, dataclasses.Field[Any]]) -> Callable[..., None]:
    """The __init__ dataclasses would generate, as a closure over the field names (nothing compiled)."""
    names = tuple(n for n, f in fields.items() if f.init)
    count = len(names)
    defaults = {n: f.default for n, f in fields.items() if f.default is not dataclasses.MISSING}
    factories = {n: f.default_factory for n, f in fields.items() if f.default_factory is not dataclasses.MISSING}
    post_init = getattr(cls, "__post_init__", None)
    set_ = object.__setattr__
    qualname = cls.__qualname__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > count:
            raise TypeError(
                f"{qualname}.__init__() takes {count + 1} positional arguments but {len(args) + 1} were given"
            )
        for n, v in zip(names, args, strict=False):
            set_(self, n, v)
        for n in names[len(args) :]:
            if n in kwargs:
                set_(self, n, kwargs.pop(n))
            elif n in defaults:
                set_(self, n, defaults[n])
            elif n in factories:
                set_(self, n, factories[n]())
            else:
                raise TypeError(f"{qualname}.__init__() missing required argument: {n!r}")
        if kwargs:
            raise TypeError(
                f"{qualname}.__init__() got an unexpected or repeated keyword argument {next(iter(kwargs))!r}"
            )
        if post_init is not None:
            post_init(self)

    __init__.__qualname__ = f"{qualname}.__init__"
    __init__.lean = True  # type: ignore[attr-defined]  # its signature is the class's fields
    return __init__


def repr_(self: Any) -> str:
    """dataclasses' repr: the class's qualified name and every field."""
    shown = ", ".join(f"{n}={getattr(self, n)!r}" for n, f in self.__dataclass_fields__.items() if f.repr)
    return f"{type(self).__qualname__}({shown})"


def _eq(self: Any, other: object) -> bool:
    return type(other) is type(self) and self.__dict__ == other.__dict__


def _hash(self: Any) -> int:
    return hash(tuple(self.__dict__.values()))


@dataclass_transform(frozen_default=True)
class LeanEventType(MetaDomainEvent):
    """Each event class is the frozen dataclass eventsourcing makes, built for less at import time.

    A subclass that adds no field (DamageApplied, CheckResolved, ...) inherits its base's methods instead of
    generating the same ones again. A class with fields gets them as dataclasses would collect them, with no
    code compiled for it (`collect_fields`, `init_for`): __init__ is a closure over the fields, frozen
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
    """A class's constructor signature: its fields, for an __init__ made by `init_for`."""
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
