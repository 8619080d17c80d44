"""Every word the site shows exists in every locale."""

from macros.i18n import LABELS, MEASURE, WIDGET


def test_every_locale_has_every_word():
    for table in (LABELS, WIDGET, MEASURE):
        keys = {locale: set(words) for locale, words in table.items()}
        assert keys["fr"] == keys["en"]
        assert all(text for words in table.values() for text in words.values())


def test_every_topology_and_verdict_has_a_name(catalog):
    for words in LABELS.values():
        assert {f"topology_{t}" for t in catalog.topologies} <= set(words)
        assert {"single", "split", "none"} <= set(words)
