"""A workload: the model in a format, the reader's lengths, users, target and runtime options,
checked as it is built (`workload`), and the catalog's defaults for what the reader leaves out."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .catalog import Catalog, Format, Llm, Runtime
from .errors import EngineError, shown, unknown
from .layout import Layout, refusal
from .reasons import render

MAX_CONCURRENCY = 4096
MAX_TOKENS = 10_000_000
KV_CACHE = ("auto", "fp8")
# A server's CUDA graphs: every step graphed (vLLM's default), only the steps that decode and
# nothing else (cudagraph_mode FULL_DECODE_ONLY), or none (--enforce-eager).
CUDA_GRAPHS = ("full", "decode-only", "none")
MAX_PARALLEL = 64  # cards in one layout's dimension: beyond any node
MIN_UTILIZATION = 0.05  # the smallest share of a card's memory the runtime may be given
MAX_TARGET_TOK_S = 10_000  # tokens per second per user: beyond any card's decode
MAX_TARGET_TTFT_S = 3600  # seconds: an hour's wait for a first token is no target


@dataclass(frozen=True)
class Workload:
    """What the reader wants to run.

    `context` is the longest sequence the deployment must hold (one request of it must fit);
    `input_tokens` and `output_tokens` are one request's prompt and answer (they set the speed);
    `concurrency` is the reader's total users on the node. `runtime`, `layout`,
    `memory_utilization`, `kv_cache` and `cuda_graphs` override the defaults (the format's
    runtime, the layout that serves the target best, the runtime's cap, a 16-bit KV cache, CUDA
    graphs for every step).

    The target is what each user must get: `min_tok_s` tokens per second of answer at least and
    a first token within `max_ttft_s` seconds (None: no such limit).
    """

    model: Llm
    format: Format
    context: int
    concurrency: int = 1
    input_tokens: int = 1024
    output_tokens: int = 256
    runtime: Runtime | None = None
    layout: Layout | None = None
    memory_utilization: float | None = None
    kv_cache: str = "auto"
    cuda_graphs: str = "full"
    min_tok_s: float | None = None
    max_ttft_s: float | None = None

    def meets(self, tpot_s: float, ttft_s: float) -> bool:
        """Whether a user who sees a token every `tpot_s` and the first after `ttft_s` gets the target."""
        return (self.min_tok_s is None or tpot_s * self.min_tok_s <= 1) and (
            self.max_ttft_s is None or ttft_s <= self.max_ttft_s
        )

    def misses(self, tpot_s: float, ttft_s: float) -> tuple[float, float]:
        """The factors by which speed and first token miss the target (1 or less: met; 0 for a
        part the target does not set)."""
        speed = tpot_s * self.min_tok_s if self.min_tok_s is not None else 0.0
        first = ttft_s / self.max_ttft_s if self.max_ttft_s is not None else 0.0
        return speed, first

    def shortfall(self, tpot_s: float, ttft_s: float) -> float:
        """How far from the target: the larger of the factors by which speed and first token miss it
        (1 or less: met)."""
        return max(self.misses(tpot_s, ttft_s))

    def __post_init__(self) -> None:
        if isinstance(self.context, bool) or not isinstance(self.context, int) or self.context < 1:
            raise EngineError(
                f"context must be a whole number of tokens of at least 1, got {shown(self.context)}", "context_range"
            )
        if self.context > self.model.max_context:
            raise EngineError(
                f"context {self.context} exceeds {self.model.name}'s maximum of {self.model.max_context} tokens",
                "context_too_long",
                context=self.context,
                maximum=self.model.max_context,
                model=self.model.name,
            )
        c = self.concurrency
        if isinstance(c, bool) or not isinstance(c, int) or not 1 <= c <= MAX_CONCURRENCY:
            raise EngineError(
                f"concurrency must be a whole number from 1 to {MAX_CONCURRENCY}, got {c!r}",
                "concurrency_range",
                maximum=MAX_CONCURRENCY,
            )
        for name in ("input_tokens", "output_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TOKENS:
                raise EngineError(
                    f"{name.replace('_', ' ')} must be a whole number from 1 to {MAX_TOKENS}, got {shown(value)}",
                    "tokens_range",
                    key=name,
                    maximum=MAX_TOKENS,
                )
        # The last token of an answer is never cached: a request needs input + output - 1 tokens.
        if self.input_tokens + self.output_tokens - 1 > self.context:
            raise EngineError(
                f"a request of {self.input_tokens} input and {self.output_tokens} output tokens does not fit "
                f"a context of {self.context} tokens",
                "request_exceeds_context",
                input=self.input_tokens,
                output=self.output_tokens,
                context=self.context,
            )
        u = self.memory_utilization
        if u is not None and (isinstance(u, bool) or not isinstance(u, int | float) or not MIN_UTILIZATION <= u <= 1):
            raise EngineError(
                f"memory utilization must be a number from {MIN_UTILIZATION} to 1, got {shown(u)}",
                "memory_utilization_range",
                minimum=MIN_UTILIZATION,
                maximum=1,
            )
        speed, first = self.min_tok_s, self.max_ttft_s
        if speed is not None and not _positive_at_most(speed, MAX_TARGET_TOK_S):
            raise EngineError(
                f"the target speed must be above 0 and at most {MAX_TARGET_TOK_S} tokens per second, got {shown(speed)}",
                "target_speed_range",
                maximum=MAX_TARGET_TOK_S,
            )
        if first is not None and not _positive_at_most(first, MAX_TARGET_TTFT_S):
            raise EngineError(
                f"the target first-token time must be above 0 and at most {MAX_TARGET_TTFT_S} s, got {shown(first)}",
                "target_ttft_range",
                maximum=MAX_TARGET_TTFT_S,
            )
        if self.kv_cache not in KV_CACHE:
            raise EngineError(
                f"KV cache must be one of {', '.join(KV_CACHE)}, got {shown(self.kv_cache, 20)}",
                "kv_cache_choice",
                choices=", ".join(KV_CACHE),
            )
        if self.cuda_graphs not in CUDA_GRAPHS:
            raise EngineError(
                f"CUDA graphs must be one of {', '.join(CUDA_GRAPHS)}, got {shown(self.cuda_graphs, 20)}",
                "cuda_graphs_choice",
                choices=", ".join(CUDA_GRAPHS),
            )


def _positive_at_most(value: object, most: float) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float) and 0 < value <= most


def quant_block(model: Llm, fmt: Format) -> int:
    """The quantization block or group each card's slice must hold whole: the checkpoint's, else the format's."""
    checkpoint = model.checkpoint(fmt.id)
    if checkpoint is not None:
        block = max(checkpoint.block_n, checkpoint.block_k, checkpoint.group_size)
        if block:
            return block
    return fmt.group_size


def as_published(model: Llm, fmt: Format) -> Llm:
    """The model as its published checkpoint in `fmt` is shaped (an MLP width padded to split evenly)."""
    checkpoint = model.checkpoint(fmt.id)
    if checkpoint is None or not checkpoint.intermediate:
        return model
    arch = dataclasses.replace(model.architecture, intermediate=checkpoint.intermediate)
    return dataclasses.replace(model, architecture=arch, params_override=None)


def resolve_runtime(catalog: Catalog, work: Workload) -> Runtime:
    """The workload's runtime, or its format's default."""
    return work.runtime or catalog.runtimes[work.format.runtime]


def workload(
    catalog: Catalog,
    model: str | Llm,
    fmt: str,
    context: int | None = None,
    concurrency: int | None = None,
    *,
    input_tokens: int | None = None,
    output_tokens: int | None = None,
    runtime: str | None = None,
    layout: tuple[int, ...] | None = None,
    memory_utilization: float | None = None,
    kv_cache: str | None = None,
    cuda_graphs: str | None = None,
    min_tok_s: float | None = None,
    max_ttft_s: float | None = None,
) -> Workload:
    """A workload from catalog ids, with the catalog's defaults (the target's included).

    The default prompt and answer lengths are shortened to fit a context shorter than both.
    A forced `layout` (tp, pp, ep) or (tp, pp, ep, dp) the runtime refuses for this model raises
    EngineError. With dp > 1 (data-parallel attention) the experts go to all dp x tp cards: ep is
    then that product, or 1 to let it follow.
    """
    a = catalog.assumptions
    if isinstance(model, str):
        if model not in catalog.llms:
            raise unknown("model", model, catalog.llms)
        model = catalog.llms[model]
    if fmt not in catalog.formats:
        raise unknown("format", fmt, catalog.formats)
    the_format = catalog.formats[fmt]
    model = as_published(model, the_format)
    the_runtime = None
    if runtime is not None:
        if runtime not in catalog.runtimes:
            raise unknown("runtime", runtime, catalog.runtimes)
        the_runtime = catalog.runtimes[runtime]
        if fmt not in the_runtime.formats:
            runs = ", ".join(catalog.formats[f].name for f in the_runtime.formats if f in catalog.formats)
            raise EngineError(
                f"{the_runtime.name} does not run {the_format.name}; it runs: {runs}",
                "runtime_format",
                runtime=the_runtime.name,
                format=the_format.name,
                formats=runs,
            )
    chosen_runtime = the_runtime or catalog.runtimes[the_format.runtime]
    if kv_cache == "fp8" and chosen_runtime.kind != "server":
        raise EngineError(
            f"{chosen_runtime.name} has no FP8 KV cache option here; use auto",
            "kv_cache_runtime",
            runtime=chosen_runtime.name,
        )
    if cuda_graphs in CUDA_GRAPHS[1:] and chosen_runtime.kind != "server":
        raise EngineError(
            f"{chosen_runtime.name} has no CUDA graph option here; use full",
            "cuda_graphs_runtime",
            runtime=chosen_runtime.name,
        )
    context = a.default_context if context is None else context
    if isinstance(context, int) and not isinstance(context, bool) and context >= 1:
        if output_tokens is None:
            output_tokens = min(a.default_output_tokens, max(1, context // 4))
        if input_tokens is None:
            input_tokens = max(1, min(a.default_input_tokens, context + 1 - output_tokens))
    forced = None
    if layout is not None:
        tp, pp, ep, dp = (*layout, 1) if len(layout) == 3 else layout
        degrees = (("tensor_parallel", tp), ("pipeline_parallel", pp), ("expert_parallel", ep), ("data_parallel", dp))
        for name, value in degrees:
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_PARALLEL:
                raise EngineError(
                    f"{name.replace('_', ' ')} must be a whole number from 1 to {MAX_PARALLEL}, got {shown(value)}",
                    "parallel_range",
                    key=name,
                    maximum=MAX_PARALLEL,
                )
        if dp > 1 and ep in (1, dp * tp):
            ep = dp * tp
        elif dp > 1:
            raise EngineError(
                f"with data parallel {dp}, expert parallel must be 1 or data parallel x tensor parallel ({dp * tp}), "
                f"got {ep}",
                "expert_parallel_dp",
                dp=dp,
                ranks=dp * tp,
                ep=ep,
            )
        elif ep not in (1, tp):
            raise EngineError(
                f"expert parallel must be 1 or equal to tensor parallel ({tp}), got {ep}",
                "expert_parallel_tp",
                tp=tp,
                ep=ep,
            )
        forced = Layout(tp, pp, ep, dp)
        why = refusal(model.architecture, chosen_runtime, forced, quant_block(model, the_format), the_format.expert_pad)
        if why is not None:
            # The verdict's own words (reasons.py, layout_*): the page says them in its language.
            raise EngineError(f"layout refused: {render(why)}", why.code, **why.params)
    return Workload(
        model=model,
        format=the_format,
        context=context,
        concurrency=a.default_concurrency if concurrency is None else concurrency,
        input_tokens=a.default_input_tokens if input_tokens is None else input_tokens,
        output_tokens=a.default_output_tokens if output_tokens is None else output_tokens,
        runtime=the_runtime,
        layout=forced,
        memory_utilization=memory_utilization,
        kv_cache=kv_cache or "auto",
        cuda_graphs=cuda_graphs or "full",
        min_tok_s=a.target_tok_s if min_tok_s is None else min_tok_s,
        max_ttft_s=a.target_ttft_s if max_ttft_s is None else max_ttft_s,
    )
