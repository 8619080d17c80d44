"""Write aiconfigurator-h100-sxm.csv: NVIDIA AIConfigurator's predictions on the sweep's Llama rows.

Not part of the site: run it with a Python where the `aiconfigurator` package is installed, apart
from the project's environment (it pulls numpy, pandas, a compiled engine):

    python3 -m venv /tmp/aic-venv && /tmp/aic-venv/bin/pip install 'aiconfigurator==0.12.0'
    /tmp/aic-venv/bin/python catalog/validation/sweeps/aiconfigurator_predict.py

For each Llama 3.1 70B FP8 row of vllm-h100-sxm.csv it makes the call
`aiconfigurator cli estimate` makes (aiconfigurator.cli.api.cli_estimate), with the tool's own
defaults for everything the row does not set:

    aiconfigurator cli estimate --model-path meta-llama/Meta-Llama-3.1-70B --system h100_sxm \
        --backend vllm --gemm-quant-mode fp8 --estimate-mode agg \
        --isl <input_tokens> --osl <output_tokens> --batch-size <concurrency> --tp-size <tensor_parallel>

`meta-llama/Meta-Llama-3.1-70B` is the name under which the package holds Llama 3.1 70B's
config.json (the sweep's `meta-llama/Llama-3.1-70B` is the same repository, renamed; the tool
would fetch that name from Hugging Face).
"""

from __future__ import annotations

import csv
import datetime
import io
import logging
import sys
from contextlib import redirect_stderr, redirect_stdout
from importlib.metadata import version
from pathlib import Path

from aiconfigurator.cli.api import cli_estimate

HERE = Path(__file__).resolve().parent
SWEEP = HERE / "vllm-h100-sxm.csv"
OUT = HERE / "aiconfigurator-h100-sxm.csv"
MODEL = "meta-llama/Llama-3.1-70B"
TOOL_MODEL = "meta-llama/Meta-Llama-3.1-70B"
SYSTEM = "h100_sxm"
KEYS = ("model", "weights", "input_tokens", "output_tokens", "concurrency", "tensor_parallel")


def main() -> int:
    logging.disable(logging.WARNING)
    with SWEEP.open(encoding="utf-8", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["model"] == MODEL and r["weights"] == "fp8"]
    out = []
    for r in rows:
        record = {k: r[k] for k in KEYS}
        try:
            with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
                result = cli_estimate(
                    TOOL_MODEL,
                    SYSTEM,
                    mode="agg",
                    backend_name="vllm",
                    gemm_quant_mode="fp8",
                    isl=int(r["input_tokens"]),
                    osl=int(r["output_tokens"]),
                    batch_size=int(r["concurrency"]),
                    tp_size=int(r["tensor_parallel"]),
                )
        except Exception as e:  # the tool's refusal, written down as it said it
            record.update(aic_ttft_ms="", aic_tpot_ms="", aic_backend_version="", refused=f"{type(e).__name__}: {e}")
        else:
            record.update(
                aic_ttft_ms=f"{result.ttft:.3f}",
                aic_tpot_ms=f"{result.tpot:.3f}",
                aic_backend_version=result.backend_version,
                refused="",
            )
        out.append(record)
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    with OUT.open("w", encoding="utf-8", newline="") as f:
        f.write(
            f"# NVIDIA AIConfigurator's outputs (aiconfigurator {version('aiconfigurator')}, "
            f"aiconfigurator-core {version('aiconfigurator-core')}, PyPI), run {stamp} by "
            "catalog/validation/sweeps/aiconfigurator_predict.py: a source beside the measured sweep, "
            "not the engine's figures and not measurements\n"
        )
        writer = csv.DictWriter(f, [*KEYS, "aic_ttft_ms", "aic_tpot_ms", "aic_backend_version", "refused"])
        writer.writeheader()
        writer.writerows(out)
    sys.stdout.write(f"{OUT.name}: {len(out)} rows, {sum(not r['refused'] for r in out)} predicted\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
