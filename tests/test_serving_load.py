"""The serving model's mechanics under load, each against a figure published outside the project:
vLLM's custom all-reduce, NCCL's small and large all-reduces, vLLM's MXFP4 padding, the paged KV
cache, the queue behind the scheduler's budget and the runtime's admission."""

import dataclasses

import pytest

from macros.fitengine import EngineError
from macros.fitengine.fit import fit_node, replica
from macros.fitengine.layout import Layout, refusal
from macros.fitengine.speed import allreduce_seconds, nccl_allreduce_seconds, uses_custom_allreduce
from macros.fitengine.topology import group_link
from macros.fitengine.workloads import workload

KB = 1024

# vLLM's custom all-reduce on H100 SXM, bf16, microseconds by card count and message size:
# github.com/sgl-project/sglang/pull/2904 (table "vllm").
VLLM_CUSTOM_AR_H100 = {
    2: {32 * KB: 8.7, 256 * KB: 12.9, 1024 * KB: 26.6},
    4: {32 * KB: 9.2, 256 * KB: 20.6, 1024 * KB: 40.2},
    8: {32 * KB: 11.8, 256 * KB: 24.1, 1024 * KB: 45.0},
}


@pytest.mark.parametrize("cards", sorted(VLLM_CUSTOM_AR_H100))
def test_vllms_own_all_reduce_matches_its_published_timings(catalog, cards):
    node = catalog.node("8x-h100-sxm")
    link = group_link(catalog, node, cards)
    vllm = catalog.runtimes["vllm"]
    for size, measured_us in VLLM_CUSTOM_AR_H100[cards].items():
        assert uses_custom_allreduce(size, cards, link, vllm)
        assert allreduce_seconds(size, cards, link, vllm) * 1e6 == pytest.approx(measured_us, rel=0.25), size


def test_nccl_small_all_reduce_is_one_ring_not_a_hop_per_step(catalog):
    """nccl-tests all_reduce_perf on 8 x A100 SXM (NVSwitch): about 36 us at 16 KiB; the old model
    (2(n-1) hops of 8 us) gave 112 us."""
    link = group_link(catalog, catalog.node("8x-a100-sxm4-80gb"), 8)
    assert nccl_allreduce_seconds(16 * KB, 8, link) * 1e6 == pytest.approx(36, rel=0.2)


def test_nccl_large_all_reduce_runs_at_the_measured_bus_bandwidth(catalog):
    """8 x A100 SXM4 80GB: 232.5 GB/s busbw on large messages (github.com/NVIDIA/nccl-tests/issues/175)."""
    link = group_link(catalog, catalog.node("8x-a100-sxm4-80gb"), 8)
    size = 1 << 30
    busbw = 2 * 7 / 8 * size / nccl_allreduce_seconds(size, 8, link) / 1e9
    assert busbw == pytest.approx(232.5, rel=0.05)


def test_the_runtime_goes_to_nccl_off_nvlink_above_its_buffer_and_on_odd_groups(catalog):
    vllm = catalog.runtimes["vllm"]
    nvlink = group_link(catalog, catalog.node("8x-h100-sxm"), 8)
    pcie_node = next(n for n in catalog.nodes if n.count >= 2 and catalog.gpus[n.gpu].nvlink is None)
    pcie = group_link(catalog, pcie_node, 2)
    assert not uses_custom_allreduce(64 * KB, 2, pcie, vllm)
    assert not uses_custom_allreduce(9 * 1024 * KB, 8, nvlink, vllm)  # above max_size = 8 MiB
    assert not uses_custom_allreduce(64 * KB, 3, nvlink, vllm)  # vLLM: world sizes 2, 4, 6, 8
    assert not uses_custom_allreduce(64 * KB, 8, nvlink, catalog.runtimes["llama-cpp"])


def test_tensor_parallel_8_is_the_fastest_decode_of_llama_70b_fp8_on_h100(catalog):
    """Measured (catalog/validation/sweeps, Llama 3.1 70B FP8, 4 users, 1k/1k): TPOT 17.4, 11.8
    and 9.1 ms at TP 2, 4 and 8. The order holds, and TP 8's collectives are a minor part of its step."""
    node = catalog.node("8x-h100-sxm")
    tpot = {}
    for tp in (2, 4, 8):
        work = workload(
            catalog, "llama-3.3-70b", "fp8", 2048, 4 * 8 // tp, input_tokens=1024, output_tokens=1024, layout=(tp, 1, 1)
        )
        tpot[tp] = 1 / fit_node(catalog, work, node).decode_tok_s_per_user
    assert tpot[8] < tpot[4] < tpot[2]
    step = replica(catalog, work, node, Layout(8)).decode_step(4, 1536)
    assert step.communication < 0.4 * step.seconds


def test_vllm_pads_mxfp4_expert_slices_so_gpt_oss_runs_at_tp4_and_tp8(catalog):
    """vllm/model_executor/layers/quantization/mxfp4.py rounds each card's expert width up to a
    multiple of 64: gpt-oss-120b's 2,880 at TP 8 is 360, padded to 384, and vLLM serves it."""
    model = catalog.llms["gpt-oss-120b"]
    fmt = catalog.formats["mxfp4"]
    vllm = catalog.runtimes["vllm"]
    for tp in (4, 8):
        assert refusal(model.architecture, vllm, Layout(tp), fmt.group_size, fmt.expert_pad) is None
        # Without the padding, a slice of 720 or 360 cuts the 32-weight blocks: refused.
        assert refusal(model.architecture, vllm, Layout(tp), fmt.group_size, 0).code == "layout_block"
        work = workload(catalog, "gpt-oss-120b", "mxfp4", 4096, 8, layout=(tp, 1, 1))
        assert fit_node(catalog, work, catalog.node("8x-h100-sxm")).verdict == "split"


def test_paged_kv_holds_many_long_context_users_of_gpt_oss_on_one_h100(catalog):
    """A request holds its prompt and its answer so far: at a 32k context with 1k prompts, one
    H100 admits far more than the 2 whole contexts the old model allowed (the KV per token of
    gpt-oss-120b: 36 layers, 8 KV heads of 64, half the layers in a 128-token window)."""
    work = workload(catalog, "gpt-oss-120b", "mxfp4", 32768, 64, input_tokens=1024, output_tokens=512)
    row = fit_node(catalog, work, catalog.node("1x-h100-pcie"))
    assert row.verdict == "single"
    whole = row.kv_gb  # the KV of the admitted requests at their average length...
    per_token = whole * 1e9 / (min(64, row.max_concurrency) * (1024 + 256))
    room = (row.capacity_gb - row.weights_gb - row.reserve_gb) * 1e9
    assert row.max_concurrency >= 32
    assert row.max_concurrency >= 10 * (room // (32768 * per_token))  # ...against whole 32k contexts


def test_does_not_fit_only_where_one_request_of_the_context_cannot_be_held(catalog):
    one = fit_node(catalog, workload(catalog, "llama-3.3-70b", "bf16", 8192, 1), catalog.node("1x-h100-pcie"))
    assert one.verdict == "none"  # 141 GB of weights on an 80 GB card
    many = fit_node(catalog, workload(catalog, "llama-3.1-8b", "bf16", 16384, 4000), catalog.node("1x-l4"))
    assert many.verdict != "none" and many.queue_s > 0  # users queue rather than the node refusing
    assert any(n.code == "queued" for n in many.notes)


def test_first_token_grows_with_the_users_as_measured(catalog):
    """Measured (catalog/validation/sweeps, Llama 3.1 70B FP8, TP 2, 1k/1k): TTFT 121 ms at 4 users
    and 415 ms at 64 (x 3.4); TPOT 17.4 and 28.8 ms (x 1.65). The engine's growth keeps within
    half to twice each."""
    node = catalog.node("8x-h100-sxm")
    rows = {}
    for users in (4, 64):
        work = workload(
            catalog, "llama-3.3-70b", "fp8", 2048, users * 4, input_tokens=1024, output_tokens=1024, layout=(2, 1, 1)
        )
        rows[users] = fit_node(catalog, work, node)
    ttft_growth = rows[64].ttft_s / rows[4].ttft_s
    tpot_growth = rows[4].decode_tok_s_per_user / rows[64].decode_tok_s_per_user
    assert 3.4 / 2 <= ttft_growth <= 3.4 * 2
    assert 1 + 0.65 / 2 <= tpot_growth <= 1 + 0.65 * 2


def test_llama_cpp_serves_its_slots_and_queues_the_rest(catalog):
    """llama-server decodes --parallel requests at once (4 by default); more users wait."""
    slots = catalog.runtimes["llama-cpp"].max_sequences
    work = workload(catalog, "llama-3.1-8b", "gguf-q4_k_m", 8192, 32)
    row = fit_node(catalog, work, catalog.node("1x-rtx-4090"))
    assert row.max_concurrency == slots * row.replicas
    assert row.queue_s > 0
    alone = fit_node(catalog, dataclasses.replace(work, concurrency=slots), catalog.node("1x-rtx-4090"))
    assert row.decode_tok_s_total == pytest.approx(alone.decode_tok_s_total, rel=1e-9)


def test_a_forced_layout_the_runtime_refuses_still_raises(catalog):
    with pytest.raises(EngineError) as e:
        workload(catalog, "qwen3-235b-a22b", "fp8", layout=(8, 1, 1))
    assert e.value.code == "layout_block"


def test_the_measure_panels_expected_busbw_is_the_serving_models(catalog):
    """The all-reduce check states what the engine's NCCL reaches on the link, and a busbw no link
    can reach is flagged, not rounded into an overflow."""
    from macros.fitengine.health import check_allreduce
    from macros.fitengine.nccl_tests import parse_allreduce
    from macros.fitengine.speed import bus_bandwidth

    node = catalog.node("8x-h100-sxm")
    head = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
    # Rows as all_reduce_perf prints them on 8 GPUs: algbw = size / time, busbw = algbw x 2 x 7/8.
    for time, algbw, busbw, code in (
        ("5078.5", "211.43", "370.00", "ar_healthy"),
        ("0.00", "1.0286e306", "1.8e306", "ar_faster_than_link"),
    ):
        row = f"  1073741824 268435456 float sum -1 {time} {algbw} {busbw} 0 {time} {algbw} {busbw} 0\n"
        health = check_allreduce(catalog, node, parse_allreduce(head + row))
        assert health.details["expected_busbw"] == pytest.approx(bus_bandwidth(group_link(catalog, node, 8)) / 1e9)
        assert [f.reason.code for f in health.findings] == [code]
