"""Image and video models: one card or none, and relative speed from dense throughput."""

import pytest

from macros.fitengine import GB, fit_diffusion


def by_node(results):
    return {r.node: r for r in results}


def test_flux_in_bf16_needs_more_than_a_24_gb_card_holds(catalog):
    results = by_node(fit_diffusion(catalog, "flux.1-dev", "bf16"))
    # 12B transformer + 4.8B T5 in BF16 is about 34 GB of weights: a 24 GB card cannot hold it,
    # even with the text encoders off the card; a 48 GB card holds it all.
    assert results["1x-rtx-4090"].verdict == "none"
    assert results["1x-l40s"].verdict == "single" and not results["1x-l40s"].offload_text_encoders


def test_flux_in_fp8_fits_a_24_gb_card_with_the_text_encoders_offloaded(catalog):
    r = by_node(fit_diffusion(catalog, "flux.1-dev", "fp8"))["1x-l4"]
    assert r.verdict == "single"
    assert r.offload_text_encoders


def test_pipeline_weights_add_up(catalog):
    model = catalog.diffusion["sdxl"]
    r = by_node(fit_diffusion(catalog, "sdxl", "bf16"))["1x-l4"]
    weights = sum(c.params for c in model.components) * 2
    assert r.need_gb * GB == pytest.approx(weights + model.activation_bytes)


def test_relative_speed_counts_cards_and_throughput(catalog):
    results = by_node(fit_diffusion(catalog, "sd-3.5-medium", "bf16"))
    ref = catalog.gpus[catalog.assumptions.diffusion_reference_gpu]
    assert results["1x-l40s"].relative_speed == pytest.approx(1.0)
    assert results["4x-l40s"].relative_speed == pytest.approx(4.0)
    assert results["4x-h100-sxm"].relative_speed == pytest.approx(
        4 * catalog.gpus["h100-sxm"].bf16_tflops / ref.bf16_tflops
    )


def test_quantized_llm_formats_are_not_diffusion_formats(catalog):
    r = fit_diffusion(catalog, "sdxl", "awq-int4")[0]
    assert r.verdict == "none" and r.reason.code == "diffusion_format"


def test_a_resolution_reads_with_a_times_sign_and_a_duration_held_to_its_unit(catalog):
    from macros.fitengine.api import raw_answer
    from macros.fitengine.diffusion import written_resolution

    assert written_resolution("1280 x 720, 5 s") == "1280 × 720, 5\u00a0s"
    assert written_resolution("1024 x 1024") == "1024 × 1024"
    # The answer carries it written: the widget shows it as it comes.
    model = next(m for m in catalog.diffusion.values() if " x " in m.resolution)
    answer = raw_answer(catalog, {"model": model.id, "format": model.native_format or next(iter(catalog.formats))})
    assert answer["resolution"] == written_resolution(model.resolution) != model.resolution
