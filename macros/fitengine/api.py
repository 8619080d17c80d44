"""One call for the configurator: a request in plain data, every node's answer in plain data.

The build (macros) and the browser (Pyodide worker) both call `answer`, so the table a reader
sees before JavaScript starts and the one the widget draws come from the same function. Numbers
stay raw; only the reason sentences are rendered, in the caller's words (the texts of its
language by reason code, `reasons.TEMPLATES` for English) with its number formatter.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from .catalog import Catalog, Node
from .diffusion import fit_diffusion, written_resolution
from .errors import EngineError, shown, unknown
from .fit import Unpriced, fit_nodes
from .hfconfig import from_hf_config, from_totals
from .memory import kv_bytes_per_token
from .numbers import english
from .protocol import (
    CUSTOM_CHARS,
    CUSTOM_DEPTH,
    LAYOUT_KEYS,
    OPTION_KEYS,
    REQUEST_KEYS,
    SUGGESTION_KEYS,
    TARGET_KEYS,
    TOTALS_FIELDS,
)
from .protocol import CUSTOM_LINK as CUSTOM_LINK  # the limits, read by the build's pages from here
from .protocol import LIMITS as LIMITS
from .reasons import Reason, render
from .workloads import Workload, workload

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Column:
    """A column of the configurator's table, and how it sorts.

    `sort` is "text" (the cell's words, in the page's collation) or "number" (a raw value the
    row carries as `data-v-<id>`, taken from the answer's field `key`, or `key_diffusion` for an
    image or video model; None: the column has no value for that kind, and sorts last).
    `digits`, `digits_diffusion`: the decimals its figure is written with, in the table and in
    its CSV file (a price in dollars: 0 for whole dollars, 2 for cents).
    """

    id: str
    sort: Literal["text", "number"]
    key: str | None = None
    key_diffusion: str | None = None
    digits: int | None = None
    digits_diffusion: int | None = None

    def to_dict(self) -> dict[str, str | int | None]:
        return asdict(self)


# The configurator's table, ordered by what decides: the node, whether it fits, what it costs,
# how fast it answers (the reason for a verdict unfolds under it, in the verdict's cell). The
# build's table and the browser's are written from this list (the browser's copy is protocol.js's
# COLUMNS, written from it), so neither types it again.
TABLE_COLUMNS: tuple[Column, ...] = (
    Column("node", "text"),
    Column("verdict", "text"),
    Column("price_month", "number", "price_month_usd", "price_month_usd", 0, 0),
    Column("per_mtok", "number", "usd_per_million_tokens_workload", "usd_per_reference_hour", 2, 2),
    Column("per_user", "number", "decode_tok_s_per_user", "relative_speed", 1, 2),
    Column("ttft", "number", "ttft_s", None, 2, 0),  # an image model's: its generations at once
    Column("memory", "number", "need_gb", "need_gb", 1, 1),
    Column("total", "number", "decode_tok_s_total", None, 1),
    Column("best_per_mtok", "number", "best_usd_per_million_output_tokens", None, 2),
    Column("max_users", "number", "max_users_at_target", None, 0),
)
# How a node's cards talk, from the most isolated to the best linked (the table's filter).
LINK_CLASSES = ("one-card", "pcie", "nvlink-bridge", "nvlink")
_DIGITS = re.compile(r"[0-9]{1,12}")
# A number written in decimal digits: at most 12 before the point and 12 after it.
_DECIMAL = re.compile(r"[0-9]{1,12}(?:\.[0-9]{0,12})?|\.[0-9]{1,12}")


def _whole(request: dict[str, Any], key: str) -> int | None:
    """A whole number from the request: an int, or its ASCII digits alone (spaces around them
    aside), at most 12 of them. Anything else ("12abc", "1e3", "0x10", "12 34", 4.0) is refused."""
    value = request.get(key)
    if value is None or value == "":
        return None
    if isinstance(value, str):
        # ASCII digits, the whole text: str.isdigit accepts ², which int() refuses
        if not _DIGITS.fullmatch(value.strip()):
            raise EngineError(
                f"{key} must be a whole number of at most 12 digits, got {shown(value)}", "not_whole", key=key
            )
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) >= 10**12:
        raise EngineError(
            f"{key} must be a whole number of at most 12 digits, got {shown(value)}", "not_whole", key=key
        )
    return value


def _bounded(value: Any, key: str) -> None:
    """Refuse a custom model nested deeper or holding more values than a config.json could."""
    stack = [(value, 1)]
    count = 0
    while stack:
        item, depth = stack.pop()
        count += 1
        if depth > CUSTOM_DEPTH:
            raise EngineError(
                f"{key} is nested more than {CUSTOM_DEPTH} levels deep; a config.json is not",
                "config_too_deep",
                maximum=CUSTOM_DEPTH,
            )
        if count > CUSTOM_CHARS:
            raise EngineError(
                f"{key} holds more than {CUSTOM_CHARS:,} values; a config.json does not",
                "config_too_many_values",
                maximum=CUSTOM_CHARS,
            )
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)


def _id(request: dict[str, Any], key: str) -> str | None:
    """A catalog id or a name from the request: text of a sane length, or absent."""
    value = request.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > 200:
        raise EngineError(
            f"{key} must be text of at most 200 characters, got {shown(value)}", "text_too_long", key=key, maximum=200
        )
    return value


def _choice(request: dict[str, Any], key: str) -> str | None:
    value = request.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise EngineError(f"{key} must be text, got {type(value).__name__}", "not_text", key=key)
    return value[:40]


# What an image or video model is refused: the serving runtime's settings and request lengths.
IMAGE_REFUSED = ("input", "output", *OPTION_KEYS, "memory_utilization", "cuda_graphs", *TARGET_KEYS)


def _layout(request: dict[str, Any]) -> tuple[int, int, int, int] | None:
    """A forced layout (tp, pp, ep, dp) when the request names any of its degrees (the others: 1)."""
    degrees = [_whole(request, key) for key in LAYOUT_KEYS]
    if all(d is None for d in degrees):
        return None
    tp, pp, ep, dp = (1 if d is None else d for d in degrees)
    return (tp, pp, ep, dp)


def link_class(catalog: Catalog, node_id: str | Node) -> str:
    """How the node's cards talk: one-card, pcie, nvlink-bridge or nvlink (SXM boards)."""
    node = node_id if isinstance(node_id, Node) else catalog.node(node_id)
    nvlink = catalog.topologies[node.topology].nvlink
    one_card, pcie, bridge, sxm = LINK_CLASSES
    if node.count == 1:
        return one_card
    return {"none": pcie, "bridge": bridge, "sxm": sxm}[nvlink]


def answer(
    catalog: Catalog,
    request: dict[str, Any],
    words: Mapping[str, str] | None = None,
    number: Callable[[float], str] = english,
) -> dict[str, Any]:
    """Every node's answer to a request {model | config | totals, format, context, concurrency}.

    Optional keys: input, output, runtime, kv_cache, cuda_graphs (the server's: full, decode-only
    or none), memory_utilization, the target (min_speed in tokens per second
    per user, max_ttft in seconds; the catalog's defaults otherwise), and a forced layout's
    tensor_parallel, pipeline_parallel, expert_parallel and data_parallel (data-parallel attention
    ranks, MoE models under vLLM; a layout the runtime refuses raises EngineError).

    Raises EngineError with a reader-facing message when the request cannot be answered.
    """
    return with_reason_text(raw_answer(catalog, request), words, number)


@dataclass(frozen=True)
class Evaluation:
    """The engine's answer to one request, before it is put in plain data.

    kind is "llm" or "diffusion"; fits are in catalog order (only the asked node when the request
    names one); work is the workload a language model was sized for (None for image models).
    """

    kind: str
    name: str
    nodes: tuple[Node, ...]
    fits: tuple[Any, ...]
    work: Workload | None
    read: dict[str, Any] | None


def _fraction(request: dict[str, Any], key: str) -> float | None:
    """A number from the request: an int of at most 12 digits, a finite float, or its decimal
    digits alone ("0.9", ".85", "1"); not "1e3", "0x1", "inf" or a 400-digit integer."""
    value = request.get(key)
    if value is None or value == "":
        return None
    if isinstance(value, str):
        if not _DECIMAL.fullmatch(value.strip()):
            raise EngineError(f"{key} must be a number, got {shown(value)}", "not_a_number", key=key)
        value = float(value.strip())
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise EngineError(f"{key} must be a number, got {shown(value)}", "not_a_number", key=key)
    if (isinstance(value, int) and abs(value) >= 10**12) or (isinstance(value, float) and not math.isfinite(value)):
        raise EngineError(f"{key} must be a number, got {shown(value)}", "not_a_number", key=key)
    return float(value)


def _model(catalog: Catalog, request: dict[str, Any], model_id: str | None) -> Any:
    """A catalog id, or the Llm read from a reader's config.json or totals."""
    if request.get("config") is not None:
        _bounded(request["config"], "config")
        return from_hf_config(request["config"], name=_id(request, "name") or None)
    if request.get("totals") is not None:
        totals = request["totals"]
        if not isinstance(totals, dict):
            raise EngineError("totals must be an object", "totals_not_object")
        fields = TOTALS_FIELDS
        if totals.get("active") in (None, "") and totals.get("total") not in (None, ""):
            totals = {**totals, "active": totals["total"]}  # a dense model: every parameter is active
        missing = [k for k in fields if totals.get(k) in (None, "")]
        if missing:
            raise EngineError(f"missing: {', '.join(missing)}", "missing_totals", fields=missing)
        return from_totals(**{k: totals[k] for k in fields}, name=_id(request, "name") or "custom model")
    if isinstance(model_id, str) and model_id in catalog.llms:
        return model_id
    raise unknown("model", model_id, [*catalog.llms, *catalog.diffusion], 60)


def evaluate(catalog: Catalog, request: dict[str, Any], unpriced: dict[str, Unpriced] | None = None) -> Evaluation:
    """The one entry point: a request (keys in protocol.REQUEST_KEYS) to every node's fit, typed.

    The browser's worker, the build's widgets, the guides' macros and the command line all come
    through here, so a request means the same thing wherever it is made. Raises EngineError
    with a reader-facing message when the request cannot be answered.

    `unpriced`: a language model's answers before the nodes' prices (fit.Unpriced, by node id),
    kept by a caller from an earlier evaluation of this request on a catalog that differs from
    this one in nodes' prices at most; the nodes it lacks are added to it. The answers are
    priced afresh from this catalog, so they are what an evaluation without it gives.
    """
    if not isinstance(request, dict):
        raise EngineError("the request must be an object", "request_not_object")
    undeclared = [key for key in request if key not in REQUEST_KEYS]
    if undeclared:  # a misspelled key would otherwise be answered with its default, silently
        raise unknown("request_key", undeclared[0], REQUEST_KEYS)
    fmt = _id(request, "format")
    model_id = _id(request, "model")
    node_id = _id(request, "node")
    nodes = catalog.nodes
    if node_id is not None:
        nodes = tuple(n for n in catalog.nodes if n.id == node_id)
        if not nodes:
            raise unknown("node", node_id, (n.id for n in catalog.nodes), 60)
    context = _whole(request, "context")
    concurrency = _whole(request, "concurrency")
    options = {
        "input_tokens": _whole(request, "input"),
        "output_tokens": _whole(request, "output"),
        "runtime": _choice(request, "runtime"),
        "kv_cache": _choice(request, "kv_cache"),
        "cuda_graphs": _choice(request, "cuda_graphs"),
        "layout": _layout(request),
        "memory_utilization": _fraction(request, "memory_utilization"),
        "min_tok_s": _fraction(request, "min_speed"),
        "max_ttft_s": _fraction(request, "max_ttft"),
    }
    if isinstance(model_id, str) and model_id in catalog.diffusion:
        # Context and users do not apply (the page's fields for them stay in the request, ignored);
        # a setting of the serving runtime asked of a pipeline is refused, never silently dropped.
        name = catalog.diffusion[model_id].name
        for key in IMAGE_REFUSED:
            if request.get(key) not in (None, ""):
                raise EngineError(
                    f"{key} does not apply to {shown(name, 60)}, an image or video model: its pipeline runs whole"
                    " on one card, with no runtime, KV cache, request lengths or layout to choose",
                    "image_option",
                    key=key,
                    model=name[:60],
                )
        fits = tuple(r for r in fit_diffusion(catalog, model_id, str(fmt)) if node_id is None or r.node == node_id)
        return Evaluation("diffusion", name, nodes, fits, None, None)
    model = _model(catalog, request, model_id)
    if not isinstance(fmt, str):
        raise EngineError("choose a format", "no_format")
    work = workload(catalog, model, fmt, context, concurrency, **options)
    fits = tuple(fit_nodes(catalog, work, nodes, unpriced))
    read = None if isinstance(model, str) else model_read(work.model)
    return Evaluation("llm", work.model.name, nodes, fits, work, read)


def raw_answer(
    catalog: Catalog,
    request: dict[str, Any],
    suggest: bool = True,
    ask: Callable[[Catalog, dict[str, Any]], Evaluation] = evaluate,
) -> dict[str, Any]:
    """`answer` without the reason sentences: the same for every locale.

    When no node holds the model, `suggestions` lists the changes the engine found that do
    (another format, a shorter context), each with the node it leads to. `ask` is how each
    request is evaluated: `evaluate`, or the same answers kept by a caller that asks many.
    """
    found = ask(catalog, request)
    rows = [r.to_dict() for r in found.fits]
    results = [{**row, "link_class": link_class(catalog, node)} for row, node in zip(rows, found.nodes, strict=True)]
    summed = summary(results)
    for row in results:
        row["recommended"] = row["node"] == summed["recommended"]
    out = {
        "version": SCHEMA_VERSION,
        "kind": found.kind,
        "model_name": found.name,
        "rows": results,
        "summary": summed,
    }
    work = found.work
    if found.kind == "diffusion":
        out["resolution"] = written_resolution(catalog.diffusion[str(_id(request, "model"))].resolution)
    if work is not None:
        out["workload"] = {
            "context": work.context,
            "concurrency": work.concurrency,
            "input": work.input_tokens,
            "output": work.output_tokens,
            "min_speed": work.min_tok_s,
            "max_ttft": work.max_ttft_s,
        }
        # The node nearest the target: the recommended one, else the one that misses it least.
        held = [r for r in results if r["verdict"] != "none"]
        closest = summed["recommended"] or min(held, key=lambda r: _shortfall(r, work), default={"node": None})["node"]
        summed["closest"] = closest
    if found.read is not None:
        out["model_read"] = found.read
    if suggest and out["summary"]["recommended"] is None:
        out["suggestions"] = suggestions(catalog, request, found.kind, work, results, ask)
    return out


SHORTEST_SUGGESTED_CONTEXT = 1024


def suggestions(
    catalog: Catalog,
    request: dict[str, Any],
    kind: str,
    work: Workload | None,
    rows: list[dict[str, Any]],
    ask: Callable[[Catalog, dict[str, Any]], Evaluation] = evaluate,
) -> list[dict[str, Any]]:
    """Changes after which a node is recommended: each other format, a shorter context, and (a
    language model that some node holds, none within the target) fewer users or a looser target.

    Each is {format, context, concurrency, min_speed, max_ttft, node, price_month_usd}: the field
    values it sets (None: unchanged) and the node then recommended, cheapest first.
    """
    found: list[dict[str, Any]] = []

    def attempt(change: dict[str, Any]) -> bool:
        try:
            other = raw_answer(catalog, {**request, **change}, suggest=False, ask=ask)
        except EngineError:
            return False
        node = other["summary"]["recommended"]
        if node is None:
            return False
        row = next(r for r in other["rows"] if r["node"] == node)
        found.append(
            {**{k: change.get(k) for k in SUGGESTION_KEYS}, "node": node, "price_month_usd": row["price_month_usd"]}
        )
        return True

    diffusion = kind == "diffusion"
    for fmt in catalog.formats.values():
        if fmt.id == request.get("format") or (diffusion and not fmt.diffusion):
            continue
        attempt({"format": fmt.id})
    if work is not None:
        shorter = work.context // 2
        while shorter >= SHORTEST_SUGGESTED_CONTEXT:
            if attempt({"context": shorter}):
                break
            shorter //= 2
        held = [r for r in rows if r["verdict"] != "none"]
        most = max((r["max_users_at_target"] for r in held), default=0)
        if 0 < most < work.concurrency:
            attempt({"concurrency": most})
        closest = min(held, key=lambda r: _shortfall(r, work), default=None)
        if closest is not None:
            looser = {}
            if work.min_tok_s is not None and closest["decode_tok_s_per_user"] < work.min_tok_s:
                looser["min_speed"] = math.floor(closest["decode_tok_s_per_user"] * 10) / 10 or None
            if work.max_ttft_s is not None and closest["ttft_s"] > work.max_ttft_s:
                looser["max_ttft"] = math.ceil(closest["ttft_s"] * 10) / 10
            if looser and None not in looser.values():
                attempt(looser)
    return sorted(found, key=lambda s: s["price_month_usd"])


def _shortfall(row: dict[str, Any], work: Workload) -> float:
    tpot = 1 / row["decode_tok_s_per_user"] if row["decode_tok_s_per_user"] else math.inf
    return work.shortfall(tpot, row["ttft_s"] if row["ttft_s"] is not None else math.inf)


def model_read(model: Any) -> dict[str, Any]:
    """What the engine read of a reader's own model, in raw numbers (the page words them)."""
    arch = model.architecture
    return {
        "params_total": model.params.total,
        "params_active": model.params.active,
        "layers": arch.layers,
        "kv_heads": arch.kv_heads,
        "experts": arch.moe.experts if arch.moe else 0,
        "kv_bytes_per_token": kv_bytes_per_token(arch, 2),
    }


def with_reason_text(
    result: dict[str, Any], words: Mapping[str, str] | None, number: Callable[[float], str] = english
) -> dict[str, Any]:
    """A copy of an answer whose rows carry their reasons as sentences in `words`' language."""
    rows = [{**row, "reason_text": reason_text(row, words, number)} for row in result["rows"]]
    return {**result, "rows": rows}


def reason_text(row: dict[str, Any], words: Mapping[str, str] | None, number: Callable[[float], str] = english) -> str:
    """A row's reason and notes as sentences in `words`' language (its `reason_text`)."""
    reasons = [row["reason"], *row.get("notes", [])]
    return " ".join(render(Reason(r["code"], r["params"]), words, number) for r in reasons)


def _speed(row: dict[str, Any]) -> float:
    value = row.get("decode_tok_s_per_user", row.get("relative_speed"))
    return value if value is not None else 0.0


def _per_unit(row: dict[str, Any]) -> float | None:
    """What one unit of work costs: a million tokens of the workload, or an hour of reference work."""
    return (
        row["usd_per_million_tokens_workload"]
        if "usd_per_million_tokens_workload" in row
        else row.get("usd_per_reference_hour")
    )


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The node ids that answer the question (None where no node qualifies).

    recommended: for a language model, the cheapest node that meets the target for the reader's
    users (the faster on equal price), None when none does; for an image model, the cheapest
    that holds it. best_per_mtok: the lowest price per million tokens of the workload (per
    reference hour for image models) among the recommendable; fastest: the highest per-user
    speed among those that hold it; cheapest_single, cheapest_any: the cheapest on one card, and
    the cheapest that holds it, target or not; fits, meets: how many hold it, and meet the target.
    """
    fits = [r for r in rows if r["verdict"] != "none"]
    meeting = [r for r in fits if r.get("meets_target", True)]

    def cheapest(candidates: list[dict[str, Any]]) -> str | None:
        return min(candidates, key=lambda r: (r["price_month_usd"], -_speed(r)))["node"] if candidates else None

    priced = [r for r in meeting if _per_unit(r) is not None]
    return {
        "recommended": cheapest(meeting),
        "cheapest_single": cheapest([r for r in rows if r["verdict"] == "single"]),
        "cheapest_any": cheapest(fits),
        "best_per_mtok": min(priced, key=lambda r: (_per_unit(r), r["price_month_usd"]))["node"] if priced else None,
        "fastest": max(fits, key=lambda r: (_speed(r), -r["price_month_usd"]))["node"] if fits else None,
        "fits": len(fits),
        "meets": len(meeting),
    }
