"""A property worked out at its first read and kept on its instance (`once`), or kept for every
instance that shares its inputs (`shared_once`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

_T = TypeVar("_T")


class once(Generic[_T]):
    """A property worked out at its first read and kept on the instance: functools.cached_property
    without its lock (CPython 3.11 takes one at every first read, and replicas are made by the
    thousand; the engine runs on one thread)."""

    def __init__(self, make: Callable[[Any], _T]) -> None:
        self.make = make
        self.name = make.__name__
        self.__doc__ = make.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type) -> once[_T]: ...
    @overload
    def __get__(self, instance: object, owner: type) -> _T: ...
    def __get__(self, instance: object | None, owner: type) -> _T | once[_T]:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self._value(instance)
        return value

    def _value(self, instance: object) -> _T:
        return self.make(instance)


_MISSING = object()


class shared_once(once[_T]):
    """A property worked out once for every instance that holds the same `shared` dict: for terms
    that depend only on what those instances have in common (whoever makes them share that dict
    only between such instances), kept on each instance after its first read."""

    def _value(self, instance: object) -> _T:
        store: dict[str, Any] = instance.shared  # type: ignore[attr-defined]
        value = store.get(self.name, _MISSING)
        if value is _MISSING:
            value = store[self.name] = self.make(instance)
        return value  # type: ignore[return-value]
