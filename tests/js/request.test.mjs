// The request the form describes: what the engine is sent, and the message beside each field.
import assert from "node:assert/strict";
import { test } from "node:test";

import { formatters } from "../../overrides/assets/javascripts/configurator/format.js";
import { LIMITS, REQUEST, TOTALS_FIELDS } from "../../overrides/assets/javascripts/configurator/protocol.js";
import {
  CUSTOM_FIELDS,
  hasCustomInput,
  isDefaultWorkload,
  readRequest,
} from "../../overrides/assets/javascripts/configurator/request.js";
import { t } from "./words.mjs";

const f = formatters("en");
// The form's limits as the build writes them (context and users up to the engine's LIMITS).
const bounds = {
  context: { min: 1, max: LIMITS.context },
  concurrency: { min: 1, max: LIMITS.concurrency },
  min_speed: { min: 0.1, max: 10000 },
  max_ttft: { min: 0.1, max: 3600 },
};
const ctx = { diffusion: false, bounds, defaults: { context: 4096, concurrency: 1 }, t, f };
const FORM = {
  model: "llama-3.3-70b",
  format: "bf16",
  context: "8192",
  concurrency: "20",
  min_speed: "12.5",
  max_ttft: "2",
  runtime: "auto",
  kv_cache: "",
  tensor_parallel: "",
  pipeline_parallel: "",
  expert_parallel: "",
  data_parallel: "",
  config: "",
  ...Object.fromEntries(TOTALS_FIELDS.map((key) => [key, ""])),
};

test("a catalog model's fields become the engine's request, numbers as numbers", () => {
  const { request, errors } = readRequest(FORM, ctx);
  assert.deepEqual(request, {
    format: "bf16",
    context: 8192,
    concurrency: 20,
    min_speed: 12.5,
    max_ttft: 2,
    model: "llama-3.3-70b",
  });
  assert.ok(Object.values(errors).every((text) => text === ""));
});

test("every key the widget can send is one the engine declares for it", () => {
  const values = { ...FORM, runtime: "vllm", kv_cache: "fp8" };
  for (const name of REQUEST.options.slice(2)) values[name] = "2";
  const sent = new Set(Object.keys(readRequest(values, ctx).request));
  const custom = readRequest({ ...values, model: "custom", config: '{"a": 1}' }, ctx).request;
  const totals = readRequest({ ...values, model: "custom", total: "70" }, ctx).request;
  for (const key of [...Object.keys(custom), ...Object.keys(totals)]) sent.add(key);
  for (const key of sent) assert.ok(REQUEST.widget.includes(key), `${key} is not a declared request key`);
  // and every key declared for the widget is one it sends
  assert.deepEqual([...sent].sort(), [...REQUEST.widget].sort());
  assert.ok(REQUEST.widget.every((key) => REQUEST.all.includes(key)));
});

test("a number out of the form's limits stops the request and says the limits", () => {
  const { request, errors } = readRequest({ ...FORM, concurrency: "0", max_ttft: "abc" }, ctx);
  assert.equal(request, null);
  assert.equal(errors.concurrency, "Enter a whole number from 1 to 4,096.");
  assert.equal(errors.max_ttft, "Enter a number from 0.1 to 3,600.");
  assert.equal(errors.context, "");
});

test("an image model ignores the workload's fields: defaults sent, nothing refused", () => {
  const { request, errors } = readRequest(
    { ...FORM, model: "sdxl", context: "", concurrency: "x", min_speed: "-1", runtime: "vllm" },
    { ...ctx, diffusion: true },
  );
  assert.deepEqual(request, { format: "bf16", context: 4096, concurrency: 1, model: "sdxl" });
  assert.equal(errors.concurrency, "");
  assert.equal("min_speed" in errors, false);
});

test("a custom model: nothing typed is help, not an error; a pasted config.json is sent parsed", () => {
  const empty = readRequest({ ...FORM, model: "custom" }, ctx);
  assert.equal(empty.request, null);
  assert.equal(empty.errors.config, "");
  const pasted = readRequest({ ...FORM, model: "custom", config: ' {"num_hidden_layers": 80} ' }, ctx);
  assert.deepEqual(pasted.request.config, { num_hidden_layers: 80 });
  assert.equal("model" in pasted.request, false);
});

test("a config.json over the engine's bounds or not JSON is refused before it is sent", () => {
  const long = readRequest({ ...FORM, model: "custom", config: `"${"x".repeat(LIMITS.custom_chars)}"` }, ctx);
  assert.equal(long.request, null);
  assert.equal(long.errors.config, `Too long for a config.json: 100,002 characters, at most 100,000.`);
  let deep = "1";
  for (let i = 0; i < LIMITS.custom_depth; i++) deep = `[${deep}]`;
  const nested = readRequest({ ...FORM, model: "custom", config: deep }, ctx);
  assert.equal(nested.errors.config, "Nested more than 32 levels deep: this is not a config.json.");
  const broken = readRequest({ ...FORM, model: "custom", config: "{nope" }, ctx);
  assert.match(broken.errors.config, /^This is not valid JSON: /);
});

test("totals are read in billions of parameters, a decimal comma accepted", () => {
  const values = { ...FORM, model: "custom", total: "70,6", active: "", layers: "80", kv_heads: "8", head_dim: "128" };
  const { request } = readRequest(values, ctx);
  assert.deepEqual(request.totals, { total: 70.6e9, active: null, layers: 80, kv_heads: 8, head_dim: 128 });
  const bad = readRequest({ ...values, layers: "8e999" }, ctx);
  assert.equal(bad.request, null);
  assert.equal(bad.errors.totals, "“Layers” is 8e999, a number this configurator cannot read: write a finite number.");
});

test("a custom model's fields are the config and the totals", () => {
  assert.deepEqual(CUSTOM_FIELDS, ["config", ...TOTALS_FIELDS]);
  assert.equal(hasCustomInput({ config: "  " }), false);
  assert.equal(hasCustomInput({ config: "", head_dim: " 128" }), true);
});

test("the build's own question is the default workload and target with nothing forced", () => {
  const d = { defaultContext: "4096", defaultConcurrency: "1", defaultMinSpeed: "12.5", defaultMaxTtft: "2" };
  const asked = { model: "m", format: "bf16", context: 4096, concurrency: 1, min_speed: 12.5, max_ttft: 2 };
  assert.equal(isDefaultWorkload(asked, d), true);
  assert.equal(isDefaultWorkload({ ...asked, min_speed: undefined, max_ttft: undefined }, d), true);
  assert.equal(isDefaultWorkload({ ...asked, concurrency: 2 }, d), false);
  assert.equal(isDefaultWorkload({ ...asked, kv_cache: "fp8" }, d), false);
  assert.equal(isDefaultWorkload({ ...asked, model: undefined, config: {} }, d), false);
});
