"""A property worked out at its first read and kept on its instance."""

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
        value = instance.__dict__[self.name] = self.make(instance)
        return value
