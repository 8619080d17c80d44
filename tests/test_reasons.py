"""Every reason the engine can give reads in every locale."""

import pytest

from macros.fitengine import Reason, fit_all, render, workload
from macros.fitengine.reasons import TEMPLATES
from macros.locales import codes
from macros.messages import engine_words


@pytest.mark.parametrize("locale", codes())
def test_every_locale_of_the_site_has_every_reason_of_the_engine(locale):
    assert set(engine_words(locale)) == set(TEMPLATES)


@pytest.mark.parametrize("locale", codes())
def test_every_reason_the_engine_gives_renders(catalog, locale):
    seen = set()
    for model in catalog.llms:
        for fmt in catalog.formats:
            for r in fit_all(catalog, workload(catalog, model, fmt)):
                for reason in (r.reason, *r.notes):
                    text = render(reason, engine_words(locale))
                    assert "{" not in text and text
                    seen.add(reason.code)
    assert {
        "single",
        "single_copies",
        "split_tp",
        "no_memory",
        "no_memory_one",
        "split_layers",
        "weight_only",
    } <= seen


def test_numbers_go_through_the_locale_formatter():
    reason = Reason("single", {"need": 12.5, "capacity": 40.0})
    assert (
        render(reason, engine_words("fr"), number=lambda x: f"<{x}>")
        == "Tient sur une carte\u202f: <12.5>\u00a0Go sur <40.0>\u00a0Go."
    )
