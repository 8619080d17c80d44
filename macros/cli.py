"""Command line of the fit engine: `python -m macros.fitengine fit|check`.

    fit    --model ID --format ID [--context TOKENS] [--concurrency N] [--catalog DIR] [--json]
           [--min-speed TOK_S] [--max-ttft SECONDS]  the target each user must get
           (--config PATH sizes a model from a Hugging Face config.json instead of --model)
    check  [--catalog DIR]
    model  (--model ID | --config PATH) [--format ID] [--catalog DIR] [--json]
           the model as the engine reads it: counts, attention, KV cache, experts, storage
    topo FILE --node ID [--json]        judge `nvidia-smi topo -m` output against a node
    nvlink FILE --node ID [--json]      judge `nvidia-smi nvlink --status` output
    allreduce FILE --node ID [--json]   judge nccl-tests' all_reduce_perf output

Exit codes: 0 success (whatever the verdict), 1 invalid catalog, 2 bad arguments or input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from macros.catalog_loader import CATALOG_DIR, CatalogError, load_catalog
from macros.fitengine import EngineError, check_measurement, describe, evaluate, from_hf_config, render
from macros.fitengine.api import IMAGE_REFUSED, summary
from macros.fitengine.catalog import Catalog
from macros.fitengine.measure import MEASUREMENTS
from macros.fitengine.workloads import CUDA_GRAPHS, KV_CACHE


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m macros.fitengine", description="Which node holds a model, how fast, at what price."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    fit = sub.add_parser("fit", help="the verdict for every node of the catalog")
    source = fit.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", help="a model id of the catalog")
    source.add_argument("--config", type=Path, help="a Hugging Face config.json to size instead")
    fit.add_argument("--format", required=True, help="a format id of the catalog")
    fit.add_argument(
        "--context", type=int, help="longest sequence the deployment holds, in tokens (default: the catalog's)"
    )
    fit.add_argument("--concurrency", type=int, help="users served at once on the node (default: the catalog's)")
    fit.add_argument(
        "--input", type=int, help="prompt tokens of one request (default: the catalog's, within the context)"
    )
    fit.add_argument(
        "--output", type=int, help="answer tokens of one request (default: the catalog's, within the context)"
    )
    fit.add_argument(
        "--min-speed",
        type=float,
        metavar="TOK_S",
        help="target: answer tokens per second each user gets at least (default: the catalog's, 12.5)",
    )
    fit.add_argument(
        "--max-ttft",
        type=float,
        metavar="SECONDS",
        help="target: seconds to each user's first token at most (default: the catalog's, 2)",
    )
    fit.add_argument("--node", help="answer for this node only")
    fit.add_argument("--runtime", help="serving runtime (default: the format's, e.g. vllm or llama-cpp)")
    fit.add_argument("--tensor-parallel", type=int, help="force the tensor-parallel degree")
    fit.add_argument("--pipeline-parallel", type=int, help="force the number of pipeline stages")
    fit.add_argument("--expert-parallel", type=int, help="force expert parallelism (equal to --tensor-parallel)")
    fit.add_argument(
        "--data-parallel",
        type=int,
        help="force data-parallel attention in N ranks of --tensor-parallel cards each, the experts over all "
        "N x TP cards (vLLM --data-parallel-size with --enable-expert-parallel; MoE models)",
    )
    fit.add_argument(
        "--memory-utilization", type=float, help="share of each card the runtime may use (default: the runtime's)"
    )
    fit.add_argument("--kv-cache", choices=KV_CACHE, help="KV cache precision (default: auto, 16-bit)")
    fit.add_argument(
        "--cuda-graphs",
        choices=CUDA_GRAPHS,
        help="the server's CUDA graphs (default: full, vLLM's; decode-only: cudagraph_mode FULL_DECODE_ONLY, "
        "the steps that carry a prompt run without; none: --enforce-eager)",
    )
    fit.add_argument("--catalog", type=Path, default=CATALOG_DIR, help="catalog folder (default: catalog/)")
    fit.add_argument("--json", action="store_true", help="print JSON instead of a table")
    model = sub.add_parser("model", help="the model as the engine reads it")
    source = model.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", help="a language model id of the catalog")
    source.add_argument("--config", type=Path, help="a Hugging Face config.json to read instead")
    model.add_argument(
        "--format", help="a format id: what stays 16-bit and the weights' size (default: the model's own)"
    )
    model.add_argument("--catalog", type=Path, default=CATALOG_DIR, help="catalog folder (default: catalog/)")
    model.add_argument("--json", action="store_true", help="print JSON instead of text")
    check = sub.add_parser("check", help="validate a catalog")
    check.add_argument("--catalog", type=Path, default=CATALOG_DIR, help="catalog folder (default: catalog/)")
    for kind, what in MEASURED.items():
        measure = sub.add_parser(kind, help=f"judge {what} against a node")
        measure.add_argument("file", type=Path, help=f"a file holding {what}")
        measure.add_argument("--node", required=True, help="the node id you rent")
        measure.add_argument("--catalog", type=Path, default=CATALOG_DIR, help="catalog folder (default: catalog/)")
        measure.add_argument("--json", action="store_true", help="print JSON instead of text")
    return parser


# What each of the engine's kinds of measurement reads, for the help text.
MEASURED = {
    kind: {
        "topo": "the output of `nvidia-smi topo -m`",
        "nvlink": "the output of `nvidia-smi nvlink --status`",
        "allreduce": "the output of nccl-tests' all_reduce_perf",
    }.get(kind, f"a `{kind}` measurement")
    for kind in MEASUREMENTS
}


def _measure(args: argparse.Namespace, catalog: Catalog) -> dict[str, Any]:
    try:
        text = args.file.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise EngineError(f"cannot read {args.file}: {exc.strerror}") from None
    return check_measurement(catalog, args.command, text, args.node)


def _read_config(path: Path) -> Any:
    """A config.json from disk, or an EngineError naming the file and what is wrong with it."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise EngineError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise EngineError(f"{path} is not UTF-8 text (byte {exc.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise EngineError(f"{path} is not JSON: {exc.msg} at line {exc.lineno}") from None
    except (ValueError, RecursionError) as exc:  # an integer of thousands of digits, nesting too deep
        raise EngineError(f"{path} holds JSON no config.json has: {str(exc).split(':')[0]}") from None


def _fit(args: argparse.Namespace, catalog: Catalog) -> list[dict[str, Any]]:
    """The rows of `fit`: the engine's answer to the same request the browser sends, in English."""
    if args.model in catalog.diffusion:
        given = [
            f"--{key.replace('_', '-')}"
            for key in ("context", "concurrency", *IMAGE_REFUSED)
            if getattr(args, key) is not None
        ]
        if given:
            raise EngineError(
                f"{' and '.join(given)} {'does' if len(given) == 1 else 'do'} not apply to {catalog.diffusion[args.model].name},"
                " an image model: its pipeline runs whole on one card, with no context, users, runtime, KV cache,"
                " request lengths or layout to choose"
            )
    request: dict[str, Any] = {
        "model": args.model,
        "format": args.format,
        "context": args.context,
        "concurrency": args.concurrency,
        "input": args.input,
        "output": args.output,
        "runtime": args.runtime,
        "kv_cache": args.kv_cache,
        "cuda_graphs": args.cuda_graphs,
        "tensor_parallel": args.tensor_parallel,
        "pipeline_parallel": args.pipeline_parallel,
        "expert_parallel": args.expert_parallel,
        "data_parallel": args.data_parallel,
        "memory_utilization": args.memory_utilization,
        "node": args.node,
        "min_speed": args.min_speed,
        "max_ttft": args.max_ttft,
    }
    if args.config is not None:
        request |= {"model": None, "config": _read_config(args.config), "name": args.config.name}
    rows = []
    for r in evaluate(catalog, request).fits:
        row = r.to_dict()
        row["reason"] = render(r.reason)
        if "notes" in row:
            row["notes"] = [render(n) for n in r.notes]
        rows.append(row)
    recommended = summary(rows)["recommended"]
    for row in rows:
        row["recommended"] = row["node"] == recommended
    return rows


def _model(args: argparse.Namespace, catalog: Catalog) -> dict[str, Any]:
    """`describe` for a catalog model or a config.json, in the asked format (default: the model's own)."""
    if args.config is not None:
        model = from_hf_config(_read_config(args.config), name=args.config.name)
    elif args.model in catalog.llms:
        model = catalog.llms[args.model]
    elif args.model in catalog.diffusion:
        raise EngineError(f"{args.model!r} is an image or video model; `model` describes language models")
    else:
        raise EngineError(f"unknown model {args.model!r}; choose one of: {', '.join(catalog.llms)}")
    fmt_id = args.format or model.native_format
    if fmt_id not in catalog.formats:
        raise EngineError(f"unknown format {fmt_id!r}; choose one of: {', '.join(catalog.formats)}")
    return describe(model, catalog.formats[fmt_id], catalog.assumptions.kv_bytes)


def _model_text(d: dict[str, Any]) -> str:
    att = d["attention"]
    lines = [
        d["name"],
        f"  parameters   {d['params_total']:,} total, {d['params_active']:,} active per token",
        f"  layers       {d['layers']} (hidden {d['hidden']:,}, vocabulary {d['vocab']:,}, context {d['max_context']:,})",
    ]
    heads = f"{att['heads']} heads, {att['kv_heads']} KV heads of {att['head_dim']}"
    if att["kind"] == "mla":
        heads = f"{att['heads']} heads, latent {att['kv_lora_rank']} + rope {att['qk_rope_head_dim']} cached"
    if att["local_layers"]:
        heads += f"; {att['local_layers']} {att['local_kind']} layers of {att['window']:,} tokens"
    lines.append(f"  attention    {att['kind']}: {heads}")
    kv = d["kv_bytes_per_token"]
    parts = [f"{kind} {count:,} B" for kind, count in kv.items()]
    lines.append(f"  KV cache     per token, {d['kv_bytes_per_value']} B per value: {', '.join(parts)}")
    moe = d["moe"]
    if moe:
        text = f"{moe['experts']} routed, top-{moe['top_k']}, width {moe['expert_intermediate']:,}"
        if moe["shared_experts"]:
            text += f"; {moe['shared_experts']} shared of width {moe['shared_intermediate']:,}"
        text += f"; {moe['moe_layers']} MoE layers"
        if moe["dense_layers"]:
            text += f", {moe['dense_layers']} dense of width {moe['dense_intermediate']:,}"
        lines.append(f"  experts      {text}")
    storage = d["storage"]
    kept = ", ".join(storage["unquantized"]) or "nothing"
    lines.append(
        f"  format       {storage['format']}: in 16-bit: {kept} (from the {storage['unquantized_from']}); "
        f"weights {storage['weight_bytes'] / 1e9:,.1f} GB"
    )
    for c in d["checkpoints"]:
        layout = [f"method {c['method']}"] if c["method"] else []
        if c["block_size"]:
            layout.append(f"blocks {c['block_size'][0]} x {c['block_size'][1]}")
        if c["group_size"]:
            layout.append(f"groups of {c['group_size']}")
        if c["partly_unquantized"]:
            layout.append(f"16-bit in some layers: {', '.join(c['partly_unquantized'])}")
        lines.append(f"  checkpoint   {c['format'] or '(no catalog format)'}: {'; '.join(layout) or 'as the format'}")
    if d["left_out"]:
        lines.append(f"  not counted  {', '.join(d['left_out'])}")
    return "\n".join(lines)


def _number(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _table(rows: list[dict[str, Any]]) -> str:
    if rows and "decode_tok_s_per_user" not in rows[0]:
        head = f"{'node':22} {'verdict':7} {'need/card GB':>13} {'speed':>7} {'USD/month':>10}  reason"
        lines = [head, "-" * len(head)]
        for r in rows:
            lines.append(
                f"{r['node']:22} {r['verdict']:7} {_number(r['need_gb']):>13} {_number(r['relative_speed'], 2):>7} "
                f"{_number(r['price_month_usd'], 0):>10}  {r['reason']}"
            )
        return "\n".join(lines)
    head = (
        f"{'node':22} {'verdict':7} {'layout':>8} {'GB/card':>8} {'tok/s/user':>10} {'no comm':>8} {'tok/s tot':>9} "
        f"{'TTFT s':>7} {'target':>6} {'users@tgt':>9} {'USD/month':>10} {'$/M tok':>8} {'$/M out':>8} "
        f"{'best $/M':>16}  reason"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        layout = "-"
        if r["cards_used"]:
            layout = f"{r['tensor_parallel']}x{r['pipeline_parallel']}" + ("ep" if r["expert_parallel"] > 1 else "")
            if r.get("data_parallel", 1) > 1:  # data-parallel attention: ranks x their tensor parallel
                layout = f"dp{r['data_parallel']}x{r['tensor_parallel']}"
            layout += f"/{r['replicas']}" if r["replicas"] > 1 else ""
        best = "-"
        if r["best_usd_per_million_output_tokens"] is not None:
            best = f"{_number(r['best_usd_per_million_output_tokens'], 2)} @{r['best_concurrency']}"
        target = "-" if r["verdict"] == "none" else "met" if r["meets_target"] else "missed"
        if r["recommended"]:
            target += "*"
        lines.append(
            f"{r['node']:22} {r['verdict']:7} {layout:>8} {_number(r['need_gb']):>8} {_number(r['decode_tok_s_per_user']):>10} "
            f"{_number(r['decode_tok_s_per_user_no_comm']):>8} {_number(r['decode_tok_s_total']):>9} {_number(r['ttft_s'], 2):>7} "
            f"{target:>6} {r['max_users_at_target']:>9} {_number(r['price_month_usd'], 0):>10} "
            f"{_number(r['usd_per_million_tokens_workload'], 2):>8} {_number(r['usd_per_million_output_tokens'], 2):>8} "
            f"{best:>16}  {r['reason']}"
        )
    lines.append("* recommended: the cheapest node within the target (--min-speed, --max-ttft)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        catalog = load_catalog(args.catalog)
    except CatalogError as exc:
        print(exc, file=sys.stderr)
        return 1
    if args.command == "check":
        print(
            f"catalog OK: {len(catalog.gpus)} GPUs, {len(catalog.nodes)} nodes, {len(catalog.llms) + len(catalog.diffusion)} models, {len(catalog.formats)} formats"
        )
        return 0
    if args.command == "model":
        try:
            described = _model(args, catalog)
        except EngineError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(json.dumps(described, indent=2, ensure_ascii=False) if args.json else _model_text(described))
        return 0
    try:
        if args.command in MEASURED:
            result = _measure(args, catalog)
        else:
            rows = _fit(args, catalog)
    except EngineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.command in MEASURED:
        if args.json:
            print(json.dumps(result, indent=2, ensure_ascii=False, allow_nan=False))
        else:
            print(f"{args.node}: {result['verdict']}")
            for reason in result["reasons"]:
                print(f"  [{reason['severity']}] {reason['text']}")
        return 0
    print(json.dumps(rows, indent=2, ensure_ascii=False, allow_nan=False) if args.json else _table(rows))
    return 0
