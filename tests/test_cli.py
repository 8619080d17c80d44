"""The command line: JSON fields, readable table, errors with exit code 2."""

import json
import subprocess
import sys

from .conftest import FIXTURES, ROOT

FIELDS = {
    "node",
    "gpu",
    "count",
    "verdict",
    "cards_used",
    "tensor_parallel",
    "pipeline_parallel",
    "need_gb",
    "price_month_usd",
    "reason",
    # the serving model's contract
    "decode_tok_s_per_user",
    "decode_tok_s_total",
    "ttft_s",
    "max_concurrency",
    "replicas",
    "usd_per_million_output_tokens",
    "best_usd_per_million_output_tokens",
    "best_concurrency",
    "bound",
    # the reader's target
    "meets_target",
    "max_users_at_target",
    "tokens_per_hour",
    "usd_per_million_tokens_workload",
    "speed_band",
    "ttft_band",
    "band_covered",
    "recommended",
}
# No field means two things: the old names of figures whose meaning changed are gone.
GONE = {"tok_s_floor", "tok_s_with_allreduce", "usd_per_million_tokens", "usd_per_million_input_tokens"}


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "macros.fitengine", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_fit_json_lists_every_node_in_catalog_order(catalog):
    out = run("fit", "--model", "llama-3.3-70b", "--format", "bf16", "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [r["node"] for r in rows] == [n.id for n in catalog.nodes]
    assert all(r.keys() >= FIELDS and not r.keys() & GONE for r in rows)
    assert all(r["verdict"] in {"single", "split", "none"} for r in rows)
    assert all((r["decode_tok_s_per_user"] is None) == (r["verdict"] == "none") for r in rows)
    assert all(r["bound"] in {"memory", "compute", "communication"} for r in rows if r["verdict"] != "none")
    assert all(isinstance(r["reason"], str) and r["reason"] for r in rows)


def test_fit_prints_a_table(catalog):
    out = run("fit", "--model", "llama-3.1-8b", "--format", "awq-int4", "--context", "8192", "--concurrency", "4")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split()[:2] == ["node", "verdict"]
    assert len(lines) == 2 + len(catalog.nodes) + 1  # the header, its rule, a row per node, the key


def test_fit_from_a_config_file():
    out = run("fit", "--config", str(FIXTURES / "configs" / "mixtral-8x7b.json"), "--format", "bf16", "--json")
    assert out.returncode == 0, out.stderr
    assert any(r["verdict"] == "single" for r in json.loads(out.stdout))


def test_diffusion_model():
    out = run("fit", "--model", "flux.1-dev", "--format", "bf16", "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert {r["verdict"] for r in rows} <= {"single", "none"}


def test_unknown_id_names_the_choices():
    out = run("fit", "--model", "gpt-5", "--format", "bf16")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1
    assert "unknown model 'gpt-5'; choose one of: llama-3.1-8b" in out.stderr
    out = run("fit", "--model", "llama-3.1-8b", "--format", "int3")
    assert out.returncode == 2 and "choose one of: bf16, fp8" in out.stderr


def test_absurd_numbers_exit_2():
    for args in (["--context", "-5"], ["--context", "999999999"], ["--concurrency", "0"], ["--concurrency", "lots"]):
        out = run("fit", "--model", "llama-3.1-8b", "--format", "bf16", *args)
        assert out.returncode == 2, args
        assert "Traceback" not in out.stderr


def test_bad_config_file_exit_2(tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text('{"hidden_size": 4096}')
    out = run("fit", "--config", str(bad), "--format", "bf16")
    assert out.returncode == 2
    assert "num_hidden_layers" in out.stderr
    bad.write_text("not json")
    out = run("fit", "--config", str(bad), "--format", "bf16")
    assert out.returncode == 2 and "is not JSON" in out.stderr


def test_check_ok(catalog):
    out = run("check")
    assert out.returncode == 0
    assert f"{len(catalog.nodes)} nodes" in out.stdout


def test_one_node_with_a_forced_layout_and_request_lengths():
    out = run(
        "fit",
        "--model",
        "llama-3.3-70b",
        "--format",
        "bf16",
        "--node",
        "8x-h100-sxm",
        "--tensor-parallel",
        "8",
        "--input",
        "2000",
        "--output",
        "500",
        "--concurrency",
        "16",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    (row,) = json.loads(out.stdout)
    assert (row["node"], row["tensor_parallel"], row["pipeline_parallel"], row["replicas"]) == ("8x-h100-sxm", 8, 1, 1)


def test_an_impossible_layout_is_one_line_naming_why():
    # Mistral Small 24B has 32 heads and 8 KV heads: tensor parallel 3 divides neither.
    out = run("fit", "--model", "mistral-small-24b", "--format", "bf16", "--tensor-parallel", "3")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "32 attention heads" in out.stderr
    # Expert parallelism is the tensor-parallel group's: any other degree is refused.
    out = run("fit", "--model", "mixtral-8x7b", "--format", "bf16", "--tensor-parallel", "2", "--expert-parallel", "4")
    assert out.returncode == 2 and out.stderr.count("\n") == 1


def test_a_runtime_that_cannot_run_the_format_exits_2():
    out = run("fit", "--model", "llama-3.1-8b", "--format", "awq-int4", "--runtime", "llama-cpp")
    assert out.returncode == 2 and "llama.cpp does not run" in out.stderr
    out = run("fit", "--model", "llama-3.1-8b", "--format", "bf16", "--runtime", "llama-cpp", "--json")
    assert out.returncode == 0 and {r["runtime"] for r in json.loads(out.stdout)} == {"llama-cpp"}


def test_bad_request_lengths_and_settings_exit_2():
    for args in (
        ["--input", "0"],
        ["--output", "-3"],
        ["--input", "5000", "--context", "4096"],
        ["--memory-utilization", "1.5"],
        ["--memory-utilization", "0"],
        ["--kv-cache", "int2"],
        ["--node", "9x-nothing"],
    ):
        out = run("fit", "--model", "llama-3.1-8b", "--format", "bf16", *args)
        assert out.returncode == 2, args
        assert "Traceback" not in out.stderr


def test_fp8_kv_cache_holds_more_users(catalog):
    # The same layout both times (the one chosen may change with the memory a cache leaves).
    args = ("fit", "--model", "llama-3.3-70b", "--format", "fp8", "--node", "4x-h100-sxm", "--tensor-parallel", "2")
    auto = json.loads(run(*args, "--json").stdout)[0]
    fp8 = json.loads(run(*args, "--json", "--kv-cache", "fp8").stdout)[0]
    assert auto["tensor_parallel"] == fp8["tensor_parallel"] == 2
    # One byte per cached value instead of two (catalog assumptions): about twice the users.
    a = catalog.assumptions
    assert fp8["max_concurrency"] >= auto["max_concurrency"] * a.kv_bytes / a.kv_bytes_fp8 * 0.95


def test_model_json_from_a_config():
    # Qwen/Qwen2-57B-A14B config.json: published 57B total, 14B active; 64 experts, top-8, a shared expert.
    out = run("model", "--config", str(FIXTURES / "configs" / "qwen2-57b-a14b.json"), "--json")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert abs(d["params_total"] - 57e9) < 0.01 * 57e9
    assert d["layers"] == 28 and d["attention"]["kind"] == "gqa"
    assert (d["moe"]["experts"], d["moe"]["top_k"], d["moe"]["shared_experts"]) == (64, 8, 1)
    assert d["storage"]["format"] == "bf16" and d["storage"]["unquantized"] == []


def test_model_text_names_what_stays_16_bit():
    out = run("model", "--model", "gpt-oss-120b", "--format", "mxfp4")
    assert out.returncode == 0, out.stderr
    storage = next(line for line in out.stdout.splitlines() if line.strip().startswith("format"))
    assert "attention" in storage and "checkpoint" in storage
    assert "KV cache" in out.stdout and "sliding" in out.stdout


def test_model_of_a_quantized_config_defaults_to_its_format():
    # openai/gpt-oss-20b config.json: quant_method mxfp4.
    out = run("model", "--config", str(FIXTURES / "configs" / "gpt-oss-20b.json"), "--json")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["storage"]["format"] == "mxfp4" and d["storage"]["unquantized_from"] == "checkpoint"
    assert d["checkpoints"][0]["method"] == "mxfp4"


def test_model_errors_exit_2(tmp_path):
    bad_json = tmp_path / "config.json"
    bad_json.write_text("{not json")
    cases = [
        ("model", "--model", "no-such-model"),
        ("model", "--model", "llama-3.1-8b", "--format", "no-such-format"),
        ("model", "--model", "flux.1-dev"),
        ("model", "--config", str(tmp_path / "missing.json")),
        ("model", "--config", str(bad_json)),
        ("model", "--config", str(FIXTURES / "configs" / "gpt-j-6b.json")),
        ("model",),
    ]
    for args in cases:
        out = run(*args)
        assert out.returncode == 2, (args, out.stdout)
        assert out.stderr.strip(), args
    unsupported = run("model", "--config", str(FIXTURES / "configs" / "gpt-j-6b.json"))
    assert "GPTJForCausalLM" in unsupported.stderr


def test_model_with_an_invalid_catalog_exits_1(catalog_copy):
    (catalog_copy / "models.yaml").write_text("llms: []\n")
    out = run("model", "--model", "llama-3.1-8b", "--catalog", str(catalog_copy))
    assert out.returncode == 1
