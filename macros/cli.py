"""Command line of the fit engine: `python -m macros.fitengine fit|check`.

    fit    --model ID --format ID [--context TOKENS] [--concurrency N] [--catalog DIR] [--json]
           (--config PATH sizes a model from a Hugging Face config.json instead of --model)
    check  [--catalog DIR]
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
from macros.fitengine import EngineError, check_measurement, fit_all, fit_diffusion, from_hf_config, render, workload
from macros.fitengine.catalog import Catalog


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
    fit.add_argument("--context", type=int, help="tokens of context per sequence (default: the catalog's)")
    fit.add_argument("--concurrency", type=int, help="sequences served at once (default: the catalog's)")
    fit.add_argument("--catalog", type=Path, default=CATALOG_DIR, help="catalog folder (default: catalog/)")
    fit.add_argument("--json", action="store_true", help="print JSON instead of a table")
    check = sub.add_parser("check", help="validate a catalog")
    check.add_argument("--catalog", type=Path, default=CATALOG_DIR, help="catalog folder (default: catalog/)")
    for kind, what in MEASURED.items():
        measure = sub.add_parser(kind, help=f"judge {what} against a node")
        measure.add_argument("file", type=Path, help=f"a file holding {what}")
        measure.add_argument("--node", required=True, help="the node id you rent")
        measure.add_argument("--catalog", type=Path, default=CATALOG_DIR, help="catalog folder (default: catalog/)")
        measure.add_argument("--json", action="store_true", help="print JSON instead of text")
    return parser


MEASURED = {
    "topo": "the output of `nvidia-smi topo -m`",
    "nvlink": "the output of `nvidia-smi nvlink --status`",
    "allreduce": "the output of nccl-tests' all_reduce_perf",
}


def _measure(args: argparse.Namespace, catalog: Catalog) -> dict[str, Any]:
    try:
        text = args.file.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise EngineError(f"cannot read {args.file}: {exc.strerror}") from None
    return check_measurement(catalog, args.command, text, args.node)


def _fit(args: argparse.Namespace, catalog: Catalog) -> list[dict[str, Any]]:
    if args.model in catalog.diffusion:
        if args.context is not None or args.concurrency is not None:
            raise EngineError("--context and --concurrency do not apply to image and video models")
        return [r.to_dict() | {"reason": render(r.reason)} for r in fit_diffusion(catalog, args.model, args.format)]
    if args.config is not None:
        try:
            text = args.config.read_text(encoding="utf-8")
        except OSError as exc:
            raise EngineError(f"cannot read {args.config}: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise EngineError(f"{args.config} is not UTF-8 text (byte {exc.start})") from None
        try:
            config = json.loads(text)
        except json.JSONDecodeError as exc:
            raise EngineError(f"{args.config} is not JSON: {exc.msg} at line {exc.lineno}") from None
        except (ValueError, RecursionError) as exc:  # an integer of thousands of digits, nesting too deep
            raise EngineError(f"{args.config} holds JSON no config.json has: {str(exc).split(':')[0]}") from None
        model: Any = from_hf_config(config, name=args.config.name)
    else:
        model = args.model
        if model not in catalog.llms:
            choices = ", ".join([*catalog.llms, *catalog.diffusion])
            raise EngineError(f"unknown model {model!r}; choose one of: {choices}")
    work = workload(catalog, model, args.format, args.context, args.concurrency)
    rows = []
    for r in fit_all(catalog, work):
        row = r.to_dict()
        row["reason"] = render(r.reason)
        row["notes"] = [render(n) for n in r.notes]
        rows.append(row)
    return rows


def _number(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _table(rows: list[dict[str, Any]]) -> str:
    if rows and "tok_s_floor" not in rows[0]:
        head = f"{'node':22} {'verdict':7} {'need/card GB':>13} {'speed':>7} {'USD/month':>10}  reason"
        lines = [head, "-" * len(head)]
        for r in rows:
            lines.append(
                f"{r['node']:22} {r['verdict']:7} {_number(r['need_gb']):>13} {_number(r['relative_speed'], 2):>7} "
                f"{_number(r['price_month_usd'], 0):>10}  {r['reason']}"
            )
        return "\n".join(lines)
    head = (
        f"{'node':22} {'verdict':7} {'cards':>5} {'TPxPP':>6} {'need/card GB':>13} {'tok/s':>7} "
        f"{'+allred.':>8} {'USD/month':>10} {'USD/Mtok':>9}  reason"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        layout = f"{r['tensor_parallel']}x{r['pipeline_parallel']}" if r["cards_used"] else "-"
        lines.append(
            f"{r['node']:22} {r['verdict']:7} {r['cards_used'] or '-':>5} {layout:>6} {_number(r['need_gb']):>13} "
            f"{_number(r['tok_s_floor']):>7} {_number(r['tok_s_with_allreduce']):>8} {_number(r['price_month_usd'], 0):>10} "
            f"{_number(r['usd_per_million_tokens'], 2):>9}  {r['reason']}"
        )
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
