"""The sizings a catalog keeps between questions (fitengine.sizing.Kept): a question that differs
from an earlier one only in users or target reuses its steady states, and every answer is the one a
catalog asked afresh gives."""

from __future__ import annotations

import dataclasses

import pytest

from macros.fitengine import fit_all, workload
from macros.fitengine.serving import Serving
from macros.fitengine.sizing import KEPT_WORKLOADS


def fresh(catalog):
    """The same catalog's value, with nothing kept (dataclasses.replace makes it anew)."""
    return dataclasses.replace(catalog)


def steady_states_made(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    made = [0]
    original = Serving.steady

    def counted(self, *args, **kwargs):
        made[0] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Serving, "steady", counted)
    return made


def test_a_catalog_made_anew_keeps_nothing(catalog):
    kept = fresh(catalog)
    fit_all(kept, workload(kept, "llama-3.3-70b", "fp8"))
    assert kept.memo
    assert not fresh(kept).memo
    assert fresh(kept) == kept  # what is kept is no part of the catalog's value


def test_other_users_and_targets_reuse_the_steady_states_and_answer_as_afresh(catalog, monkeypatch):
    made = steady_states_made(monkeypatch)
    kept = fresh(catalog)
    first = fit_all(kept, workload(kept, "qwen3-32b", "bf16", concurrency=4))
    cold = made[0]
    assert cold > 0
    questions = [
        {"concurrency": 16},
        {"concurrency": 4, "min_tok_s": 30.0},
        {"concurrency": 4, "max_ttft_s": 0.5},
    ]
    for options in questions:
        made[0] = 0
        again = fit_all(kept, workload(kept, "qwen3-32b", "bf16", **options))
        reused = made[0]
        made[0] = 0
        alone = fresh(catalog)
        assert again == fit_all(alone, workload(alone, "qwen3-32b", "bf16", **options)), options
        # The target's edge and cheapest load were found on the first question's states: the
        # second makes at most those its own users and target add.
        assert reused < made[0] / 2, (options, reused, made[0])
    assert first == fit_all(kept, workload(kept, "qwen3-32b", "bf16", concurrency=4))


def test_another_context_is_worked_out_anew(catalog, monkeypatch):
    made = steady_states_made(monkeypatch)
    kept = fresh(catalog)
    fit_all(kept, workload(kept, "qwen3-32b", "bf16", context=4096))
    made[0] = 0
    longer = fit_all(kept, workload(kept, "qwen3-32b", "bf16", context=16384))
    alone = fresh(catalog)
    assert longer == fit_all(alone, workload(alone, "qwen3-32b", "bf16", context=16384))
    assert made[0] > 0


def test_only_the_most_recent_workloads_are_kept(catalog, monkeypatch):
    made = steady_states_made(monkeypatch)
    kept = fresh(catalog)
    model = catalog.llms["llama-3.1-8b"]
    contexts = [1024 * (n + 1) for n in range(KEPT_WORKLOADS + 1)]
    assert contexts[-1] <= model.max_context
    for context in contexts:
        fit_all(kept, workload(kept, model.id, "bf16", context=context))
    made[0] = 0
    fit_all(kept, workload(kept, model.id, "bf16", context=contexts[-1], concurrency=3))
    recent = made[0]
    made[0] = 0
    fit_all(kept, workload(kept, model.id, "bf16", context=contexts[0], concurrency=3))
    assert made[0] > recent  # the oldest was let go: worked out anew
