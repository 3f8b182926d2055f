"""`record`: a dataclass made without compiling code, for the value classes a one-shot command imports.

In CPython 3.11, `@dataclass(frozen=True)` compiles six methods from source text as the class is made, about
half a millisecond a class; the dice, sheet, option and rule classes a write imports made that several
milliseconds of every one-shot command (issue 17). A `@record` class is the same dataclass to its users:
fields from annotations in dataclasses' order, defaults and `field(default_factory=...)`, `__post_init__`,
keyword or positional construction with the same errors, equality by class and fields, hash when frozen,
the same repr, `dataclasses.fields`, `replace` and `asdict`, and type checkers read it as a dataclass
(`dataclass_transform`). Its methods are shared functions and closures over the field names instead.
A class body dataclasses would treat specially (a ClassVar, an InitVar, a field with init/repr/compare
turned off, a mutable default) is handed to dataclasses itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")

_MUTABLE = (list, dict, set)


def simple(ns: dict[str, Any]) -> bool:
    """Whether a class body's fields are ones `collect_fields` takes (see the module docstring)."""
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


def _eq_for(names: tuple[str, ...]) -> Callable[[Any, object], Any]:
    def __eq__(self: Any, other: object) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in names)

    return __eq__


def _hash_for(names: tuple[str, ...]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(tuple(getattr(self, n) for n in names))

    return __hash__


@overload
def record(cls: type[T], /) -> type[T]: ...
@overload
def record(*, frozen: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def record(cls: type[T] | None = None, /, *, frozen: bool = False) -> Any:
    """`@record` or `@record(frozen=True)`: the class as `@dataclass` / `@dataclass(frozen=True)` makes it."""

    def make(c: type[T]) -> type[T]:
        ns = dict(c.__dict__)
        if not simple(ns):
            return dataclasses.dataclass(frozen=frozen)(c)
        fields = collect_fields(c, ns, frozen)
        k: Any = c
        if "__init__" not in ns:
            k.__init__ = init_for(c, fields)
        names = tuple(fields)
        if "__repr__" not in ns:
            k.__repr__ = repr_
        if "__eq__" not in ns:
            k.__eq__ = _eq_for(names)
            if "__hash__" not in ns or ns["__hash__"] is None:
                k.__hash__ = _hash_for(names) if frozen else None
        return c

    return make if cls is None else make(cls)
