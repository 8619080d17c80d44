"""Hostile and careless input, generated: real samples mutated at random (seeded, so a failure
replays), fed to every parser, the config importer, the fit request and the command line.

What must hold whatever the input: the engine raises nothing but EngineError, no result carries
an infinity or a NaN (the answer serialises as strict JSON), and the command line exits 2 with
one line for every input it refuses.
"""

from __future__ import annotations

import contextlib
import io
import json
from typing import Any

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from macros import cli
from macros.fitengine import EngineError, check_measurement, from_hf_config, from_totals
from macros.fitengine.api import raw_answer
from macros.fitengine.nccl_tests import parse_allreduce
from macros.fitengine.nvidia_smi import parse_nvlink_status, parse_topo

from .conftest import FIXTURES

MEASURE = FIXTURES / "measure"


def _texts(prefix: str) -> list[str]:
    files = sorted(MEASURE.glob(f"{prefix}-*.txt"))
    if prefix == "allreduce":
        files.append(FIXTURES / "allreduce-2x-rtx2080ti-pcie.txt")
    return [f.read_text(encoding="utf-8") for f in files]


SAMPLE_TEXTS = {"topo": _texts("topo"), "nvlink": _texts("nvlink"), "allreduce": _texts("allreduce")}
CONFIGS = [json.loads(f.read_text(encoding="utf-8")) for f in sorted((FIXTURES / "configs").glob("*.json"))]
NODES = ["8x-h100-sxm", "2x-h100-nvl", "1x-l4", "8x-rtx-4090", "8x-a100-sxm4-80gb", "4x-h100-sxm", "2x-a100-pcie-80gb"]

# Tokens a careless paste or a hostile one puts where a number or a label belongs.
HOSTILE_TOKENS = [
    "-nan",
    "nan",
    "inf",
    "-inf",
    "Infinity",
    "1.2.3",
    "e",
    "1e400",
    "2026-12-01",
    "²",
    "٣",
    "9" * 5000,
    "NV99999",
    "NV" + "9" * 5000,
    "GPU" + "9" * 5000,
    "-1",
    "0",
    "N/A",
    "<script>",
    "\x00",
    "[1,0]<stdout>:",
    "[0]",
    "Link 0: 1.2.3 GB/s",
    "GPU 0: hello",
    "# Avg bus bandwidth : nan",
    "#  nGpus " + "9" * 5000,
    "X",
    "SYS",
]
HOSTILE_VALUES: list[Any] = [
    None,
    True,
    -1,
    0,
    10**400,
    10**5000,
    1e308,
    float("inf"),
    float("nan"),
    -0.0,
    0.5,
    "12",
    "²",
    "x" * 100_000,
    [],
    [1] * 10,
    {},
    {"a": {"b": {"c": []}}},
]
CONFIG_KEYS = [
    "num_hidden_layers",
    "hidden_size",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "vocab_size",
    "intermediate_size",
    "moe_intermediate_size",
    "num_local_experts",
    "num_experts_per_tok",
    "n_routed_experts",
    "n_shared_experts",
    "first_k_dense_replace",
    "kv_lora_rank",
    "q_lora_rank",
    "qk_rope_head_dim",
    "sliding_window",
    "layer_types",
    "mlp_only_layers",
    "tie_word_embeddings",
    "max_position_embeddings",
    "text_config",
    "model_type",
]


@st.composite
def mutated_text(draw: st.DrawFn, kind: str) -> str:
    lines = draw(st.sampled_from(SAMPLE_TEXTS[kind])).split("\n")
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, max(len(lines) - 1, 0)))
        action = draw(st.sampled_from(["token", "token", "delete", "duplicate", "prefix", "cut"]))
        line = lines[at] if lines else ""
        if action == "token" and line.split():
            tokens = line.split()
            tokens[draw(st.integers(0, len(tokens) - 1))] = draw(st.sampled_from(HOSTILE_TOKENS))
            lines[at] = " ".join(tokens)
        elif action == "delete" and lines:
            del lines[at]
        elif action == "duplicate" and lines:
            lines.insert(at, line)
        elif action == "prefix":
            lines[at] = draw(st.sampled_from(["[1,0]<stdout>:", "[0] ", "\t", "$ "])) + line
        elif action == "cut":
            lines = lines[: at + 1]
    return "\n".join(lines)


def assert_finite(value: Any) -> None:
    """Strict JSON has no NaN or infinity: serialising proves none is left anywhere."""
    json.dumps(value, allow_nan=False)


FUZZ = settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


@seed(15)
@FUZZ
@given(st.sampled_from(["topo", "nvlink", "allreduce"]).flatmap(lambda k: st.tuples(st.just(k), mutated_text(k))))
def test_parsers_raise_only_engine_errors(kind_and_text):
    kind, text = kind_and_text
    parse = {"topo": parse_topo, "nvlink": parse_nvlink_status, "allreduce": parse_allreduce}[kind]
    try:
        parse(text)
    except EngineError as error:
        assert "\n" not in str(error)
        assert len(str(error)) < 400


@seed(15)
@FUZZ
@given(
    st.sampled_from(["topo", "nvlink", "allreduce"]).flatmap(lambda k: st.tuples(st.just(k), mutated_text(k))),
    st.sampled_from(NODES),
)
def test_judgements_are_finite_or_refused(catalog, kind_and_text, node):
    kind, text = kind_and_text
    try:
        result = check_measurement(catalog, kind, text, node)
    except EngineError as error:
        assert len(str(error)) < 400
        return
    assert_finite(result)
    assert result["verdict"] in {"ok", "warning", "fault"}
    if result["matrix"] is not None:
        assert len(result["matrix"]) == catalog.node(node).count


@st.composite
def mutated_config(draw: st.DrawFn) -> dict[str, Any]:
    config = dict(draw(st.sampled_from(CONFIGS)))
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from(CONFIG_KEYS))
        if draw(st.booleans()) and key in config:
            del config[key]
        else:
            config[key] = draw(st.sampled_from(HOSTILE_VALUES) | st.integers() | st.floats())
    return config


@seed(15)
@FUZZ
@given(mutated_config())
def test_config_importer_raises_only_engine_errors(config):
    try:
        model = from_hf_config(config)
    except EngineError as error:
        assert len(str(error)) < 400
        return
    assert model.params.total > 0


def answered_or_refused(catalog, request):
    """The engine's answer with no infinity or NaN in it, or None when it refused in a short message."""
    try:
        result = raw_answer(catalog, request)
    except EngineError as error:
        assert len(str(error)) < 600
        return None
    assert_finite(result)
    return result


@seed(15)
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    mutated_config(),
    st.sampled_from(["bf16", "fp8", "awq-int4", "gguf-q4_k_m", "nope", 7, None, "x" * 10_000]),
    st.sampled_from([None, 1, 4096, "8192", "²", -5, 0, 10**30, "9" * 5000, 1.5, float("inf"), [4096]]),
    st.sampled_from([None, 1, 64, "4", 0, 10**20, float("nan"), {"n": 1}]),
)
def test_fit_requests_answer_finitely_or_refuse(catalog, config, fmt, context, concurrency):
    result = answered_or_refused(
        catalog, {"config": config, "format": fmt, "context": context, "concurrency": concurrency}
    )
    if result is not None:
        assert len(result["rows"]) == len(catalog.nodes)


@seed(15)
@FUZZ
@given(
    st.fixed_dictionaries(
        {k: st.sampled_from(HOSTILE_VALUES) | st.floats() | st.integers(0, 10**13) for k in ("total", "active")}
        | {k: st.sampled_from(HOSTILE_VALUES) | st.integers(-2, 200) for k in ("layers", "kv_heads", "head_dim")}
    )
)
def test_totals_raise_only_engine_errors(totals):
    try:
        model = from_totals(**totals)
    except EngineError as error:
        assert len(str(error)) < 400
        return
    assert model.params.total > 0


def run_cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(args))
    return code, out.getvalue(), err.getvalue()


@seed(15)
@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(["topo", "nvlink", "allreduce"]).flatmap(lambda k: st.tuples(st.just(k), mutated_text(k))))
def test_cli_exits_2_with_one_line_or_prints_strict_json(tmp_path_factory, kind_and_text):
    kind, text = kind_and_text
    path = tmp_path_factory.mktemp("paste") / "output.txt"
    path.write_text(text, encoding="utf-8")
    code, out, err = run_cli(kind, str(path), "--node", "8x-h100-sxm", "--json")
    if code == 2:
        assert out == "" and err.count("\n") == 1 and err.startswith("error: "), err[:300]
    else:
        assert code == 0, err[:300]
        json.loads(out, parse_constant=lambda name: (_ for _ in ()).throw(AssertionError(name)))


@seed(15)
@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(mutated_config())
def test_cli_config_exits_2_with_one_line_or_answers(tmp_path_factory, config):
    path = tmp_path_factory.mktemp("config") / "config.json"
    try:
        path.write_text(json.dumps(config), encoding="utf-8")
    except ValueError:  # an integer too long for str(): write its digits directly
        path.write_text('{"hidden_size": ' + "9" * 5000 + "}", encoding="utf-8")
    code, out, err = run_cli("fit", "--config", str(path), "--format", "bf16", "--json")
    if code == 2:
        assert out == "" and err.count("\n") == 1 and err.startswith("error: "), err[:300]
    else:
        assert code == 0, err[:300]
        json.loads(out, parse_constant=lambda name: (_ for _ in ()).throw(AssertionError(name)))


def test_cli_refuses_files_json_cannot_hold(tmp_path):
    cases = {
        "huge.json": '{"hidden_size": ' + "9" * 5000 + "}",
        "deep.json": "[" * 100_000 + "]" * 100_000,
        "latin1.json": None,
    }
    for name, body in cases.items():
        path = tmp_path / name
        if body is None:
            path.write_bytes(b'{"model_type": "caf\xe9"}')
        else:
            path.write_text(body, encoding="utf-8")
        code, out, err = run_cli("fit", "--config", str(path), "--format", "bf16")
        assert code == 2 and out == "" and err.count("\n") == 1, (name, err[:300])
        assert str(path) in err and len(err) < 400


def test_a_config_nested_deeper_than_any_config_json_is_refused(catalog):
    from macros.fitengine.api import CUSTOM_DEPTH

    config = json.loads((FIXTURES / "configs" / "llama-3.1-8b.json").read_text())
    deep: Any = 1
    for _ in range(CUSTOM_DEPTH - 1):  # the config, these lists and the number: one level too many
        deep = [deep]
    config["x"] = deep
    try:
        raw_answer(catalog, {"config": config, "format": "bf16"})
    except EngineError as error:
        assert f"more than {CUSTOM_DEPTH} levels" in str(error)
    else:
        raise AssertionError("a config nested deeper than the limit was answered")
    config["x"] = deep[0]
    assert raw_answer(catalog, {"config": config, "format": "bf16"})["rows"]


@seed(15)
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    st.fixed_dictionaries(
        {k: st.sampled_from(HOSTILE_VALUES) | st.floats() | st.integers(0, 10**13) for k in ("total", "active")}
        | {k: st.sampled_from(HOSTILE_VALUES) | st.integers(-2, 200) for k in ("layers", "kv_heads", "head_dim")}
    ),
    st.sampled_from([None, "custom model", "x" * 10_000, ["a"], "$&"]),
)
def test_fit_requests_by_totals_answer_finitely_or_refuse(catalog, totals, name):
    result = answered_or_refused(catalog, {"totals": totals, "format": "bf16", "name": name})
    if result is not None:
        assert len(result["model_name"]) <= 120
