"""How the measured rows' servers were started, where the benchmark that measured them is known.

The measured sweep (catalog/validation/sweeps/) and the silicon rows of other cards
(macros/silicon.py) come from one table, NVIDIA's AIConfigurator `silicon_sample.csv`. It states
each row's model, card, layout, lengths, load and times, sometimes the vLLM release and the day,
never the server's options. Some of its rows are SemiAnalysis InferenceX's (github.com/
SemiAnalysisAI/InferenceX): the same models, cards, tensor-parallel sizes, users (4 to 64) and
lengths (1,024 and 8,192 in and out), measured on the days InferenceX ran them with the release
its configuration names. Those rows are run through the engine as InferenceX started vLLM, from
its scripts at the commit of that day (`SERVED`): the release, the KV cache, the CUDA graphs.
Every other row is run at vLLM's defaults, its release as stated.

What InferenceX set and the engine does not model is said here too, and left as it is:
- its scripts turn prefix caching off, as the engine assumes, and cap vLLM's sequences
  (--max-num-seqs: the row's users on H100 and H200, 512 on the B200) at no fewer than the row's
  users, who never send more;
- from vLLM 0.13 (2026-01-02) its H100 and H200 gpt-oss servers force Marlin's MXFP4 kernels
  (VLLM_MXFP4_USE_MARLIN=1) where vLLM's default on Hopper is Triton's: the sweep's gpt-oss rows of
  vLLM 0.18 are those, so the MoE layer's fixed time fitted on them (runtimes.yaml
  moe_layer_overhead) is Marlin's on Hopper as InferenceX ran it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_INFERENCEX = "github.com/SemiAnalysisAI/InferenceX"
_LLAMA_70B = (
    f"{_INFERENCEX} at c198b20, the last commit before Llama 70B left it (pull request 149, 2025-10-29): "
    ".github/workflows/70b-tmpl.yml runs vllm/vllm-openai:v0.10.2 on H100 (TP 2, 4, 8), H200 and B200 (TP 1 to 8)"
)


@dataclass(frozen=True)
class Served:
    """The server a benchmark started for a set of rows: which rows (the source's model path, the
    catalog's nodes, the release the source states, "" for none, and the day it gives, "" to match
    rows that give none) and how (the release that ran, its KV cache and CUDA graphs)."""

    model: str
    nodes: tuple[str, ...]
    stated: str
    measured: str
    release: str
    kv_cache: str
    cuda_graphs: str
    source: str


SERVED = (
    Served(
        "meta-llama/Llama-3.1-70B",
        ("8x-h100-sxm", "8x-h200-sxm"),
        "",
        "2025-10-29",
        "0.10.2",
        "fp8",
        "full",
        f"{_LLAMA_70B}; benchmarks/70b_fp8_h100_docker.sh and 70b_fp8_h200_slurm.sh: kv-cache-dtype fp8, "
        "async-scheduling, no prefix caching, max-num-batched-tokens 8192, the release's default CUDA graphs",
    ),
    Served(
        "meta-llama/Llama-3.1-70B",
        ("8x-b200",),
        "",
        "2025-10-29",
        "0.10.2",
        "fp8",
        "decode-only",
        f"{_LLAMA_70B}; benchmarks/70b_fp8_b200_docker.sh and 70b_fp4_b200_docker.sh: kv-cache-dtype fp8, "
        'compilation-config "cudagraph_mode": "FULL_DECODE_ONLY" (the steps that carry a prompt run without '
        "graphs), async-scheduling, no prefix caching, max-num-batched-tokens 8192",
    ),
    Served(
        "openai/gpt-oss-120b",
        ("8x-b200",),
        "0.15.1",
        "2026-02-25",
        "0.15.1",
        "fp8",
        "full",
        f"{_INFERENCEX} at 89ce609 (2026-02-25): .github/configs/nvidia-master.yaml gptoss-fp4-b200-vllm runs "
        "vllm/vllm-openai:v0.15.1 over the rows' own grid (TP 1 and 2 to 128 users, TP 4 to 64, TP 8 to 8); "
        "benchmarks/single_node/gptoss_fp4_b200.sh: kv-cache-dtype fp8, FlashInfer's MXFP4 x MXFP8 experts, "
        "no prefix caching, max-num-batched-tokens 8192",
    ),
)

UNSTATED = ("", "unstated")  # how the source and the sweep say the release is not given
_DAY = re.compile(r"measured=(\d{4}-\d{2}-\d{2})")


def measured_day(source_text: str) -> str:
    """The day a silicon row says it was measured (its `silicon_data_source`), "" if none."""
    found = _DAY.search(source_text or "")
    return found.group(1) if found else ""


def served(row: dict[str, str], node: str) -> Served | None:
    """The server that measured `row` (the sweep's columns, with `measured` where the row gives a
    day) on catalog node `node`, or None: vLLM's defaults at the release stated."""
    stated = row.get("vllm_version") or ""
    stated = "" if stated in UNSTATED else stated
    day = row.get("measured", "")
    for s in SERVED:
        if s.model == row["model"] and node in s.nodes and s.stated == stated and day in ("", s.measured):
            return s
    return None
