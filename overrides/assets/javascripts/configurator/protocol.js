// What crosses between the engine, the configurator's page and its worker: written by
// macros/fitengine/protocol_js.py from the declaration in protocol.py; do not edit it here.
// To write it again, from the project's folder:
//   .venv/bin/python -c 'from macros.fitengine.protocol_js import javascript; print(javascript(), end="")' \
//     > overrides/assets/javascripts/configurator/protocol.js

export const REQUEST = {
  model: ["model", "config", "totals"],
  whole: ["context", "concurrency"],
  target: ["min_speed", "max_ttft"],
  options: ["runtime", "kv_cache", "tensor_parallel", "pipeline_parallel", "expert_parallel", "data_parallel"],
  widget: [
    "model",
    "config",
    "totals",
    "format",
    "context",
    "concurrency",
    "min_speed",
    "max_ttft",
    "runtime",
    "kv_cache",
    "tensor_parallel",
    "pipeline_parallel",
    "expert_parallel",
    "data_parallel",
  ],
  all: [
    "model",
    "config",
    "totals",
    "format",
    "context",
    "concurrency",
    "min_speed",
    "max_ttft",
    "runtime",
    "kv_cache",
    "tensor_parallel",
    "pipeline_parallel",
    "expert_parallel",
    "data_parallel",
    "name",
    "input",
    "output",
    "memory_utilization",
    "cuda_graphs",
    "node",
  ],
  suggestion: ["format", "context", "concurrency", "min_speed", "max_ttft"],
};

export const TOTALS_FIELDS = ["total", "active", "layers", "kv_heads", "head_dim"];

export const COLUMNS = [
  { id: "node", sort: "text", key: null, key_diffusion: null, digits: null, digits_diffusion: null },
  { id: "verdict", sort: "text", key: null, key_diffusion: null, digits: null, digits_diffusion: null },
  {
    id: "price_month",
    sort: "number",
    key: "price_month_usd",
    key_diffusion: "price_month_usd",
    digits: 0,
    digits_diffusion: 0,
  },
  {
    id: "per_mtok",
    sort: "number",
    key: "usd_per_million_tokens_workload",
    key_diffusion: "usd_per_reference_hour",
    digits: 2,
    digits_diffusion: 2,
  },
  {
    id: "per_user",
    sort: "number",
    key: "decode_tok_s_per_user",
    key_diffusion: "relative_speed",
    digits: 1,
    digits_diffusion: 2,
  },
  { id: "ttft", sort: "number", key: "ttft_s", key_diffusion: null, digits: 2, digits_diffusion: 0 },
  { id: "memory", sort: "number", key: "need_gb", key_diffusion: "need_gb", digits: 1, digits_diffusion: 1 },
  { id: "total", sort: "number", key: "decode_tok_s_total", key_diffusion: null, digits: 1, digits_diffusion: null },
  {
    id: "best_per_mtok",
    sort: "number",
    key: "best_usd_per_million_output_tokens",
    key_diffusion: null,
    digits: 2,
    digits_diffusion: null,
  },
  {
    id: "max_users",
    sort: "number",
    key: "max_users_at_target",
    key_diffusion: null,
    digits: 0,
    digits_diffusion: null,
  },
];

export const LIMITS = {
  context: 10000000,
  concurrency: 4096,
  custom_chars: 100000,
  custom_depth: 32,
  custom_link: 32000,
  paste: 1000000,
};

export const TO_WORKER = {
  init: ["shared", "locale", "pyodide", "warm"],
  go: ["warm"],
  answer: ["id", "request", "locale"],
  check: ["id", "kind", "text", "node", "locale"],
};

export const TO_PAGE = {
  status: ["state", "step", "steps", "loaded", "total", "started", "detail"],
  answer: ["id", "reply", "ok", "error", "transient", "detail"],
  check: ["id", "reply", "ok", "error", "transient", "detail"],
};

export const STATES = ["loading", "ready", "error"];

export const WORKER_ERRORS = { internal: "internal", not_ready: "engine not ready" };

export const ERROR_FIELDS = {
  config: { codes: [], prefixes: ["config_"] },
  totals: { codes: ["missing_totals", "totals_positive", "active_exceeds_total"], prefixes: [] },
  context: { codes: ["context_too_long", "request_exceeds_context"], prefixes: [] },
  concurrency: { codes: ["concurrency_range"], prefixes: [] },
  runtime: { codes: ["runtime_format", "unknown_runtime"], prefixes: [] },
  kv_cache: { codes: [], prefixes: ["kv_cache"] },
  layout: { codes: ["parallel_range"], prefixes: ["layout_", "expert_parallel_"] },
};
