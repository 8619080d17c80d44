"""The macros authors call in docs/<locale>/*.md."""

from macros.guides.base import GuideMacros

__all__ = ["GuideMacros"]
