"""What the MoE kernels of the runtime do to the experts: the padding of their slices (held, read
and multiplied) and the share of the throughput their grouped products reach.

The widths come from gpt-oss-120b's config.json (hidden_size 2880, intermediate_size 2880, 128
experts, 4 per token, biases on the experts' products) and vLLM's rules from its source
(vllm/model_executor/layers/quantization/mxfp4.py, Mxfp4MoEMethod.create_weights): Hopper's Triton
kernels round each card's slice up to a multiple of 64; Marlin to 128 with the hidden width to
256; FlashInfer's TRT-LLM kernels on SM 10.x both to 256."""

from __future__ import annotations

import dataclasses

import pytest

from macros.fitengine import workload
from macros.fitengine.fit import replica
from macros.fitengine.layout import Layout
from macros.fitengine.memory import expert_padding
from macros.fitengine.sizing import Sizing

HIDDEN = INTERMEDIATE = 2880  # gpt-oss-120b's config.json


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def one_expert(hidden: int, per_card: int, tp: int) -> int:
    """An expert's weights and biases over `tp` cards of `per_card` columns each (config shapes)."""
    return 3 * hidden * per_card * tp + 2 * per_card * tp + hidden


def vllm_padding(tp: int, multiple: int, hidden_multiple: int = 1) -> float:
    padded = one_expert(_round_up(HIDDEN, hidden_multiple), _round_up(INTERMEDIATE // tp, multiple), tp)
    return padded / one_expert(HIDDEN, INTERMEDIATE // tp, tp)


@pytest.mark.parametrize(
    ("gpu", "tp", "expected"),
    [
        ("h200-sxm", 1, vllm_padding(1, 64)),  # 2,880 is 45 x 64: nothing to pad
        ("h200-sxm", 8, vllm_padding(8, 64)),  # slices of 360 padded to 384
        ("b200", 1, vllm_padding(1, 256, 256)),  # 2,880 to 3,072, the hidden width too
        ("b200", 8, vllm_padding(8, 256, 256)),  # slices of 360 padded to 512
        ("a100-sxm4-80gb", 2, vllm_padding(2, 128, 256)),  # Marlin: slices of 1,440 to 1,536
    ],
)
def test_mxfp4_experts_are_as_large_as_the_cards_kernels_pad_them(catalog, gpu, tp, expected):
    oss, mxfp4 = catalog.llms["gpt-oss-120b"], catalog.formats["mxfp4"]
    assert expert_padding(oss.architecture, mxfp4, catalog.gpus[gpu].architecture, tp) == pytest.approx(expected)


def test_the_b200_at_tp_8_holds_and_reads_half_again_the_experts(catalog):
    # 512 x 3,072 against 360 x 2,880: 1.52 times the bytes on every card, and every step reads them.
    padding = vllm_padding(8, 256, 256)
    assert padding == pytest.approx(1.52, abs=0.01)
    work = workload(catalog, "gpt-oss-120b", "mxfp4", concurrency=8, layout=(8, 1, 1))
    node, gpu = catalog.node("8x-b200"), catalog.gpus["b200"]
    sizing = Sizing(catalog, work, gpu, catalog.runtimes["vllm"])
    held = (sizing.weights + sizing.expert_weights * (padding - 1)) / 8
    assert sizing.weights_card(Layout(8)) == pytest.approx(held, rel=1e-6)
    unpadded_format = dataclasses.replace(catalog.formats["mxfp4"], expert_pad=0, expert_pads=())
    plain = replica(catalog, dataclasses.replace(work, format=unpadded_format), node, Layout(8))
    touched = plain.weights_read(1) - plain.weights_read(1, 0, 0.0)  # the experts one token touches, unpadded
    bandwidth = gpu.memory_bandwidth_gbps * 1e9 * catalog.runtimes["vllm"].bandwidth_efficiency
    step = replica(catalog, work, node, Layout(8)).decode_step(1, 1)
    extra = step.memory - plain.decode_step(1, 1).memory
    assert extra == pytest.approx(touched * (padding - 1) / 8 / bandwidth, rel=1e-6)


def test_a_prompt_chunk_multiplies_the_experts_at_their_share_of_the_throughput(catalog):
    # A chunk of 8,192 tokens gives each of gpt-oss's 128 experts about 8,192 x 4 / 128 = 256 rows:
    # the experts' products count 1 / moe_compute_share times; the attention and dense parts do not.
    vllm = catalog.runtimes["vllm"]
    assert vllm.moe_compute_share < 1  # or the test tells nothing
    params = catalog.llms["gpt-oss-120b"].params
    work = workload(catalog, "gpt-oss-120b", "mxfp4", concurrency=1, layout=(1, 1, 1))
    node = catalog.node("8x-h200-sxm")  # Hopper: no padding at TP 1, every product at the BF16 rate
    whole = dataclasses.replace(vllm, moe_compute_share=1.0)
    full = dataclasses.replace(catalog, runtimes={**catalog.runtimes, "vllm": whole})
    shared, alone = (replica(c, work, node, Layout(1)).step(8192, 0.0, 0.0, False) for c in (catalog, full))
    experts = 2 * params.experts_active * 8192
    throughput = catalog.gpus["h200-sxm"].bf16_tflops * 1e12 * vllm.compute_efficiency
    added = experts * (1 / vllm.moe_compute_share - 1) / throughput
    assert shared.compute - alone.compute == pytest.approx(added, rel=1e-6)
    dense = workload(catalog, "llama-3.3-70b", "fp8", concurrency=1, layout=(1, 1, 1))
    d_shared, d_alone = (replica(c, dense, node, Layout(1)).step(8192, 0.0, 0.0, False) for c in (catalog, full))
    assert d_shared.compute == d_alone.compute
