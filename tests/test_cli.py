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
    "tok_s_floor",
    "tok_s_with_allreduce",
    "price_month_usd",
    "usd_per_million_tokens",
    "reason",
}


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "macros.fitengine", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_fit_json_lists_every_node_in_catalog_order(catalog):
    out = run("fit", "--model", "llama-3.3-70b", "--format", "bf16", "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [r["node"] for r in rows] == [n.id for n in catalog.nodes]
    assert all(r.keys() >= FIELDS for r in rows)
    assert all(r["verdict"] in {"single", "split", "none"} for r in rows)
    assert all((r["tok_s_floor"] is None) == (r["verdict"] == "none") for r in rows)
    assert all(isinstance(r["reason"], str) and r["reason"] for r in rows)


def test_fit_prints_a_table(catalog):
    out = run("fit", "--model", "llama-3.1-8b", "--format", "awq-int4", "--context", "8192", "--concurrency", "4")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split()[:2] == ["node", "verdict"]
    assert len(lines) == 2 + len(catalog.nodes)


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
