"""Every topology and verdict has a name in every locale (the words themselves: tests/test_locales.py)."""

import pytest

from macros.i18n import LABELS
from macros.locales import codes


@pytest.mark.parametrize("locale", codes())
def test_every_topology_and_verdict_has_a_name(catalog, locale):
    words = LABELS[locale]
    assert {f"topology_{t}" for t in catalog.topologies} <= set(words)
    assert {"single", "split", "none"} <= set(words)
