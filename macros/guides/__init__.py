"""The macros authors call in docs/<locale>/*.md, one module per guide or page, each returning
Markdown (a figure or a table) for the page's locale.

`GuideMacros` puts them together for `define_env` (macros/__init__.py): each guide's class names
the macros it offers (`MACROS`); what they share is in `base.py`.
"""

from __future__ import annotations

from collections.abc import Callable

from macros.guides.api_breakeven import ApiBreakeven
from macros.guides.base import GuideBase
from macros.guides.catalog_page import CatalogPage
from macros.guides.image_video import ImageVideoGuide
from macros.guides.methodology import MethodologyPage
from macros.guides.moe import MoeGuide
from macros.guides.nv_labels import NvLabels
from macros.guides.nvlink import NvlinkGuide
from macros.guides.quantization import QuantizationGuide
from macros.guides.training import TrainingFigures

__all__ = ["GuideMacros"]


class GuideMacros(
    NvlinkGuide,
    NvLabels,
    TrainingFigures,
    ApiBreakeven,
    QuantizationGuide,
    MoeGuide,
    ImageVideoGuide,
    MethodologyPage,
    CatalogPage,
):
    """Every guide's macros for one locale."""

    def registrations(self) -> dict[str, Callable[..., str]]:
        """Macro name -> function, for `define_env`: the macros each guide's class names."""
        found: dict[str, Callable[..., str]] = {}
        for cls in type(self).__mro__:
            if issubclass(cls, GuideBase):
                for name in vars(cls).get("MACROS", ()):
                    if name in found:
                        raise ValueError(f"macro {name!r} is offered by two guides' classes")
                    found[name] = getattr(self, name)
        return found
