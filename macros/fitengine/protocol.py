"""What crosses between the engine, the configurator's page and its worker, declared once.

The engine reads its request keys here (`api.REQUEST_KEYS`); the browser reads the same
declaration as an ES module, `overrides/assets/javascripts/configurator/protocol.js`, which
`protocol_js.javascript()` writes (a test holds the committed file to it). The worker's
messages are listed by direction, each type with the fields it may carry; a sender uses no other
type or field and a receiver handles every type (tests/js/protocol.test.mjs).
"""

from __future__ import annotations

from .workloads import MAX_CONCURRENCY, MAX_TOKENS

# The request's keys, in groups: the model, its format, the workload's whole numbers, the
# reader's target, and the choices that default when absent (runtime, KV cache, a forced layout).
MODEL_KEYS = ("model", "config", "totals")
WHOLE_KEYS = ("context", "concurrency")
TARGET_KEYS = ("min_speed", "max_ttft")
LAYOUT_KEYS = ("tensor_parallel", "pipeline_parallel", "expert_parallel", "data_parallel")
OPTION_KEYS = ("runtime", "kv_cache", *LAYOUT_KEYS)
# What the configurator's widget sends; the command line and the guides' macros may also name
# the custom model, the request's lengths, a memory share, the server's CUDA graphs or one node.
WIDGET_KEYS = (*MODEL_KEYS, "format", *WHOLE_KEYS, *TARGET_KEYS, *OPTION_KEYS)
REQUEST_KEYS = (*WIDGET_KEYS, "name", "input", "output", "memory_utilization", "cuda_graphs", "node")
# What a suggestion sets when no node meets the target: the form's fields it changes.
SUGGESTION_KEYS = ("format", *WHOLE_KEYS, *TARGET_KEYS)
# A model given by its totals (`totals`: parameters, in units, and its attention's shape).
TOTALS_FIELDS = ("total", "active", "layers", "kv_heads", "head_dim")

# What a custom model (a pasted config.json, or one carried by a link) may hold: a real
# config.json is a few kilobytes, three or four levels deep. The widget checks the same bounds
# before it sends anything to the engine's worker.
CUSTOM_CHARS = 100_000  # characters of its JSON
CUSTOM_DEPTH = 32  # levels of nested objects and lists
CUSTOM_LINK = 32_000  # characters of `custom=` in a link (web servers refuse far longer addresses)
MAX_PASTE = 1_000_000  # characters of a pasted output to check: a verbose nccl-tests log is far less
# The longest context and the most users a request may ask for (the form's max, the catalog's bounds).
LIMITS = {"context": MAX_TOKENS, "concurrency": MAX_CONCURRENCY}

# The worker's messages: type -> the fields it may carry, page to worker and worker to page.
# `init` starts the engine (the head's script puts `shared` and `locale` in the worker's address
# instead); `go` lets a worker started early ask for Pyodide, with a question to warm up on.
TO_WORKER: dict[str, tuple[str, ...]] = {
    "init": ("shared", "locale", "pyodide", "warm"),
    "go": ("warm",),
    "answer": ("id", "request", "locale"),
    "check": ("id", "kind", "text", "node", "locale"),
}
# A reply carries the engine's JSON (`reply`: {ok, result} or {ok: false, error, code, params})
# or, when the worker itself failed, ok: false with one of WORKER_ERRORS (`transient`: not kept).
REPLY_FIELDS = ("id", "reply", "ok", "error", "transient", "detail")
TO_PAGE: dict[str, tuple[str, ...]] = {
    "status": ("state", "step", "steps", "loaded", "total", "started", "detail"),
    "answer": REPLY_FIELDS,
    "check": REPLY_FIELDS,
}
STATES = ("loading", "ready", "error")
WORKER_ERRORS = {"internal": "internal", "not_ready": "engine not ready"}

# Which field of the form a refusal is about (its message goes beside it): codes, and code
# prefixes, by field, tried in this order. A custom model's refusals go beside it whatever their code.
ERROR_FIELDS: dict[str, dict[str, tuple[str, ...]]] = {
    "config": {"codes": (), "prefixes": ("config_",)},
    "totals": {"codes": ("missing_totals", "totals_positive", "active_exceeds_total"), "prefixes": ()},
    "context": {"codes": ("context_too_long", "request_exceeds_context"), "prefixes": ()},
    "concurrency": {"codes": ("concurrency_range",), "prefixes": ()},
    "runtime": {"codes": ("runtime_format", "unknown_runtime"), "prefixes": ()},
    "kv_cache": {"codes": (), "prefixes": ("kv_cache",)},
    "layout": {"codes": ("parallel_range",), "prefixes": ("layout_", "expert_parallel_")},
}
