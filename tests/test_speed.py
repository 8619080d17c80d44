"""Collective costs against nccl-tests output, and the decode floor's arithmetic."""

import re

import pytest

from macros.fitengine import GB, GroupLink, allreduce_seconds, gradient_allreduce_seconds

from .conftest import FIXTURES


def _rows(text):
    """(size, out-of-place time in seconds, busbw in GB/s) rows of an all_reduce_perf table."""
    rows = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 8 and not line.lstrip().startswith("#") and re.fullmatch(r"\d+", fields[0]):
            rows.append((int(fields[0]), float(fields[5]) * 1e-6, float(fields[7])))
    return rows


def test_ring_model_reproduces_a_measured_all_reduce():
    """With the measured small-message latency and large-message busbw, the model predicts the
    measured time of every message size from 1 MB up within 10 %."""
    rows = _rows((FIXTURES / "allreduce-2x-rtx2080ti-pcie.txt").read_text())
    assert len(rows) > 20
    latency = rows[0][1]
    busbw = rows[-1][2]
    link = GroupLink("pcie", "PCIe", busbw, latency)
    for size, measured, _ in rows:
        if size >= 1 << 20:
            assert allreduce_seconds(size, 2, link) == pytest.approx(measured, rel=0.10), size


def test_busbw_definition_matches_nccl_tests():
    # nccl-tests doc/PERFORMANCE.md: busbw = algbw x 2(n-1)/n; with zero latency the model's
    # time must give back the link rate as busbw.
    link = GroupLink("x", "x", 100.0, 0.0)
    for n in (2, 4, 8):
        size = 1e9
        algbw = size / allreduce_seconds(size, n, link) / GB
        assert algbw * 2 * (n - 1) / n == pytest.approx(100.0)


def test_megatron_all_reduces_per_token_for_llama_70b(catalog):
    # Formula sheet: decode of Llama 3.3 70B makes 160 all-reduces of 16 KiB per token.
    a = catalog.assumptions
    arch = catalog.llms["llama-3.3-70b"].architecture
    assert arch.layers * a.allreduces_per_layer == 160
    assert arch.hidden * a.activation_bytes == 16 * 1024


def test_gradient_all_reduce_of_a_70b_model(catalog):
    # 70B in BF16 moves about 141 GB; on a 4-card ring each card sends 2(n-1)/n of it.
    params = catalog.llms["llama-3.3-70b"].params_total
    rate = catalog.links["pcie-gen5-x16"].per_direction_gbps
    link = GroupLink("pcie-gen5-x16", "PCIe Gen5", rate, 0.0)
    seconds = gradient_allreduce_seconds(params, 2, 4, link)
    assert seconds == pytest.approx(1.5 * params * 2 / (rate * GB))
    assert params * 2 / GB == pytest.approx(141, rel=0.01)
