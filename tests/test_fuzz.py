"""Hostile and careless input, generated: real samples mutated at random (seeded, so a failure
replays), fed to every parser, the config importer, the fit request, every request value, the
catalog's YAML and the command line.

What must hold whatever the input: the engine raises nothing but EngineError, no result carries
an infinity or a NaN (the answer serialises as strict JSON), the command line exits 2 with one
line for every input it refuses, `check` names the file of every problem and never stops on a
traceback, and a healthy measurement made wrong is never called ok (while the same output as
another terminal or launcher prints it stays ok).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
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


# --- every request value -------------------------------------------------------------------


def _request_values(key: str) -> st.SearchStrategy[Any]:
    """What a page, a script or a link may put under a request key: hostile values and good ones."""
    good: dict[str, list[Any]] = {
        "model": ["llama-3.1-8b", "qwen3-235b-a22b", "flux.1-dev", "sdxl", "nope"],
        "format": ["bf16", "fp8", "awq-int4", "gguf-q4_k_m", "mxfp4"],
        "context": [1, 4096, "8192", 131072],
        "concurrency": [1, "32", 4096],
        "input": [1, 1024, "512"],
        "output": [1, 256],
        "runtime": ["vllm", "llama-cpp"],
        "kv_cache": ["auto", "fp8"],
        "tensor_parallel": [1, 2, "8"],
        "pipeline_parallel": [1, 2],
        "expert_parallel": [1, 8],
        "memory_utilization": ["0.9", 0.5, 1],
        "min_speed": [12.5, "30", 0.1],
        "max_ttft": [2, "0.5", 3600],
        "node": ["8x-h100-sxm", "1x-l4"],
        "name": ["my model"],
        "totals": [{"total": 7e9, "active": 7e9, "layers": 32, "kv_heads": 8, "head_dim": 128}],
        "config": CONFIGS[:2],
    }
    return st.sampled_from(HOSTILE_VALUES) | st.sampled_from(good.get(key, [None])) | st.text(max_size=20)


@st.composite
def hostile_request(draw: st.DrawFn) -> dict[str, Any]:
    from macros.fitengine.api import REQUEST_KEYS

    request: dict[str, Any] = {"model": draw(st.sampled_from(["llama-3.1-8b", "flux.1-dev"])), "format": "bf16"}
    for key in draw(st.lists(st.sampled_from(REQUEST_KEYS), min_size=1, max_size=4, unique=True)):
        request[key] = draw(_request_values(key))
    return request


@seed(15)
@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(hostile_request())
def test_any_request_value_is_answered_finitely_or_refused_with_a_code_the_page_words(catalog, request):
    from macros.catalog_loader import read_catalog
    from macros.fitengine.browser import Session
    from macros.i18n import WIDGET
    from macros.messages import every_engine_words_json

    global _SESSION
    if _SESSION is None:
        _SESSION = Session(json.dumps(read_catalog()[0]), every_engine_words_json())
    # A page's JSON may hold a number of any length (JavaScript writes what it is given): the text
    # is written whole, and the engine's own reading must refuse it.
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        text = json.dumps(request, default=str)
    finally:
        sys.set_int_max_str_digits(limit)
    reply = json.loads(_SESSION.answer_json(text, "fr", str))
    if reply["ok"]:
        assert_finite(reply["result"])
        assert reply["result"]["rows"]
    else:
        assert len(reply["error"]) < 2000 and "\n" not in reply["error"]  # the choices of an unknown id listed
        if reply["code"] is not None:  # worded by the page in its language
            assert f"err_{reply['code']}" in WIDGET["fr"] or reply["code"].startswith("layout_"), reply["code"]


_SESSION = None


# --- catalog YAML structure ---------------------------------------------------------------

YAML_HOSTILE = [
    "0x8",
    "010",
    "1:30",
    "1_000",
    "9" * 5000,
    "[a, b]",
    "{",
    "}",
    ".nan",
    "-.inf",
    "-1",
    "~",
    "'",
    '"',
    "*a",
    "&a x",
    "!!python/object/apply:os.system ['true']",
    "2026-02-30",
    "[" * 200 + "]" * 200,
    '"\\x00"',
    "<script>alert(1)</script>",
    "'x'" + " " * 3 + "# a comment",
    "x" * 1000,
    "NVIDIA \u041d100 SXM5 80GB",
]
CATALOG_FILES = ["gpus", "interconnects", "nodes", "formats", "runtimes", "models", "assumptions"]


@st.composite
def mutated_catalog_file(draw: st.DrawFn) -> tuple[str, str]:
    from macros.catalog_loader import CATALOG_DIR

    name = draw(st.sampled_from(CATALOG_FILES))
    lines = (CATALOG_DIR / f"{name}.yaml").read_text(encoding="utf-8").split("\n")
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["value", "value", "key", "delete", "duplicate", "indent", "list_key"]))
        line = lines[at]
        if action == "value" and ": " in line:
            head, _, _ = line.partition(": ")
            lines[at] = f"{head}: {draw(st.sampled_from(YAML_HOSTILE))}"
        elif action == "key" and ": " in line:
            indent = line[: len(line) - len(line.lstrip())]
            lines[at] = indent + draw(st.sampled_from(["? [a, b]", "1", "true", "id", "name"])) + ": x"
        elif action == "delete":
            del lines[at]
        elif action == "duplicate":
            lines.insert(at, line)
        elif action == "indent":
            lines[at] = "  " + line
        elif action == "list_key":
            lines.insert(at, "? [a, b]\n: 1")
    return name, "\n".join(lines)


@seed(15)
@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(mutated_catalog_file())
def test_check_reads_any_catalog_file_and_names_the_problems_or_passes(tmp_path_factory, mutated):
    import shutil

    from macros.catalog_loader import CATALOG_DIR

    name, text = mutated
    directory = tmp_path_factory.mktemp("catalog") / "catalog"
    shutil.copytree(CATALOG_DIR, directory)
    (directory / f"{name}.yaml").write_text(text, encoding="utf-8")
    code, out, err = run_cli("check", "--catalog", str(directory))  # an exception would escape here
    assert code in (0, 1), err[-400:]
    if code == 1:
        problems = [line[4:] for line in err.splitlines() if line.startswith("  - ")]
        assert problems and all(p.startswith("catalog/") and len(p) < 500 for p in problems), err[-800:]
    else:
        assert out.startswith("catalog OK")


# --- measurement judgements: a healthy output changes its verdict, or stays ok only where harmless


HEALTHY = {
    "topo": ((MEASURE / "topo-8x-h100-nvswitch.txt").read_text(encoding="utf-8"), "8x-h100-sxm"),
    # nvidia-smi's layout for 8 x H100 SXM, 18 links each at the 26.562 GB/s public captures show.
    "nvlink": (
        "\n".join(
            f"GPU {g}: NVIDIA H100 80GB HBM3 (UUID: GPU-{g:08d})\n"
            + "\n".join(f"\t Link {k}: 26.562 GB/s" for k in range(18))
            for g in range(8)
        ),
        "8x-h100-sxm",
    ),
    "allreduce": ((MEASURE / "allreduce-8x-h100-nvls.txt").read_text(encoding="utf-8"), "8x-h100-sxm"),
}


def _harmless(text: str, how: str) -> str:
    """The same output as another terminal, shell or launcher prints it."""
    lines = text.replace("\r\n", "\n").split("\n")
    if how == "tabs":
        return "\n".join(re.sub(r" {2,}", "\t", line) for line in lines)
    if how == "crlf":
        return "\r\n".join(lines)
    if how == "mpi":
        return "\n".join(f"[1,0]<stdout>:{line}" if line else line for line in lines)
    if how == "prompt":
        return "$ ssh node01\n" + "\n".join(lines) + "\n$ "
    return "\n".join(line.rstrip() + "   " for line in lines)


@seed(15)
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(sorted(HEALTHY)), st.sampled_from(["tabs", "crlf", "mpi", "prompt", "trailing"]))
def test_a_healthy_output_stays_ok_where_the_change_is_harmless(catalog, kind, how):
    text, node = HEALTHY[kind]
    assert check_measurement(catalog, kind, text, node)["verdict"] == "ok"
    assert check_measurement(catalog, kind, _harmless(text, how), node)["verdict"] == "ok"


@st.composite
def harmed(draw: st.DrawFn) -> tuple[str, str, str]:
    """A healthy output with one thing made wrong that the check must see, and what it was."""
    kind = draw(st.sampled_from(sorted(HEALTHY)))
    text, _ = HEALTHY[kind]
    lines = text.replace("\r\n", "\n").split("\n")
    if kind == "topo":
        i, j = sorted(draw(st.lists(st.integers(0, 7), min_size=2, max_size=2, unique=True)))
        label = draw(st.sampled_from(["NV17", "NV8", "NV1", "PIX", "PXB", "PHB", "NODE", "SYS"]))
        rows = {
            line.split()[0]: n
            for n, line in enumerate(lines)
            if line.split()[:1] and line.split()[0].startswith("GPU") and line.split()[1:2] != ["GPU1"]
        }
        for a, b in ((i, j), (j, i)):
            tokens = lines[rows[f"GPU{a}"]].split()
            tokens[1 + b] = label
            lines[rows[f"GPU{a}"]] = "\t".join(tokens)
        return kind, "\n".join(lines), f"GPU{i}-GPU{j} {label}"
    if kind == "nvlink":
        g, k = draw(st.integers(0, 7)), draw(st.integers(0, 17))
        at = lines.index(f"GPU {g}: NVIDIA H100 80GB HBM3 (UUID: GPU-{g:08d})") + 1 + k
        speed = draw(st.sampled_from(["0.001 GB/s", "1.562 GB/s", "13.281 GB/s", "22.000 GB/s", "<inactive>", None]))
        if speed is None:
            del lines[at]
        else:
            lines[at] = f"\t Link {k}: {speed}"
        return kind, "\n".join(lines), f"GPU{g} link {k}: {speed}"
    rows = [n for n, line in enumerate(lines) if line.split()[:1] and line.split()[0].isdigit()]
    harm = draw(st.sampled_from(["wrong", "footer", "unchecked", "busbw", "slow"]))
    if harm == "wrong":
        n = draw(st.sampled_from(rows))
        tokens = lines[n].split()
        tokens[draw(st.sampled_from([8, 12]))] = str(draw(st.integers(1, 10**6)))
        lines[n] = " ".join(tokens)
    elif harm == "footer":
        lines = [re.sub(r": 0 OK", f": {draw(st.integers(1, 99))} FAILED", line) for line in lines]
    elif harm == "unchecked":
        for n in rows:
            tokens = lines[n].split()
            tokens[8] = tokens[12] = "N/A"
            lines[n] = " ".join(tokens)
    elif harm == "busbw":  # one figure edited: no longer what nccl-tests computes
        n = draw(st.sampled_from(rows))
        tokens = lines[n].split()
        tokens[7] = f"{float(tokens[7]) * draw(st.sampled_from([0.5, 0.9, 0.98, 1.02, 1.5, 10.0])):.2f}"
        lines[n] = " ".join(tokens)
    else:  # every row slower, consistently: the time multiplied, algbw and busbw divided
        factor = draw(st.sampled_from([2.5, 4.0, 10.0, 100.0]))
        for n in rows:
            tokens = lines[n].split()
            for time_at, bw_at in ((5, (6, 7)), (9, (10, 11))):
                size = int(tokens[0])
                time_us = float(tokens[time_at]) * factor
                algbw = size / (time_us * 1e3)
                tokens[time_at] = f"{time_us:.1f}"
                tokens[bw_at[0]] = f"{algbw:.2f}"
                tokens[bw_at[1]] = f"{algbw * 1.75:.2f}"
            lines[n] = " ".join(tokens)
    return kind, "\n".join(lines), harm


@seed(15)
@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(harmed())
def test_a_healthy_output_made_wrong_is_never_called_ok(catalog, case):
    kind, text, what = case
    node = HEALTHY[kind][1]
    try:
        result = check_measurement(catalog, kind, text, node)
    except EngineError as error:  # refused with its line: an edited output is not judged
        assert "line" in str(error) or kind != "allreduce", (what, str(error))
        return
    assert result["verdict"] != "ok", (what, result["reasons"])
