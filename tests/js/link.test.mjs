// A shared link read back into the form and the table's view, and the link of a question.
import assert from "node:assert/strict";
import { test } from "node:test";

import { formatters } from "../../overrides/assets/javascripts/configurator/format.js";
import { linkSearch, readLink } from "../../overrides/assets/javascripts/configurator/link.js";
import { LIMITS } from "../../overrides/assets/javascripts/configurator/protocol.js";
import { encodeCustom } from "../../overrides/assets/javascripts/configurator/state.js";
import { t } from "./words.mjs";

const page = {
  t,
  f: formatters("en"),
  models: ["llama-3.3-70b", "qwen3-30b-a3b"],
  formats: ["bf16", "fp8", "awq-int4"],
  native: { "llama-3.3-70b": "bf16", "qwen3-30b-a3b": "fp8" },
  modelNames: { "llama-3.3-70b": "Llama 3.3 70B", "qwen3-30b-a3b": "Qwen3 30B A3B" },
  formatNames: { bf16: "BF16", fp8: "FP8", "awq-int4": "AWQ INT4" },
  chosen: { model: "llama-3.3-70b", format: "bf16" },
  offered: {
    verdict: ["", "single", "none"],
    gpu: ["", "h100"],
    link: [""],
    runtime: ["auto", "vllm"],
    kv_cache: [""],
  },
  columns: [{ id: "node" }, { id: "price_month" }],
  defaultModel: "llama-3.3-70b",
};
const read = (query) => readLink(new URLSearchParams(query), page);

test("an address without parameters or of another version asks nothing", () => {
  assert.equal(read(""), null);
  assert.equal(read("v=2&model=qwen3-30b-a3b"), null);
});

test("a catalog model starts in its published format, unless the link names one", () => {
  assert.deepEqual(read("v=1&model=qwen3-30b-a3b").fields, { model: "qwen3-30b-a3b", format: "fp8" });
  assert.deepEqual(read("model=qwen3-30b-a3b&format=awq-int4&context=8192&min_speed=20").fields, {
    model: "qwen3-30b-a3b",
    format: "awq-int4",
    context: "8192",
    min_speed: "20",
  });
});

test("a value the form does not offer is left out, with a note naming what is shown instead", () => {
  const link = read("model=gpt-9&format=fp3&runtime=tgi");
  assert.deepEqual(link.fields, {});
  assert.deepEqual(link.notes, [
    "“gpt-9” is not in the catalog; showing Llama 3.3 70B.",
    "“fp3” is not in the catalog; showing BF16.",
  ]);
  // The format's note names the format the link's model brought in.
  assert.equal(read("model=qwen3-30b-a3b&format=fp3").notes[0], "“fp3” is not in the catalog; showing FP8.");
});

test("the table's view comes with it, only as the page offers it", () => {
  const link = read("gpu=h100&link=nvlink&sort=-price_month");
  assert.deepEqual(link.view, { filters: { gpu: "h100" }, sort: { col: "price_month", dir: -1 } });
});

test("a custom model's config.json or totals fill the fields they came from", () => {
  const config = { num_hidden_layers: 80 };
  const link = read(`model=custom&custom=${encodeCustom({ config })}`);
  assert.deepEqual(link.fields, { model: "custom", config: JSON.stringify(config, null, 1) });
  const totals = read(`model=custom&custom=${encodeCustom({ totals: { total: 7e10, layers: 80 } })}`);
  assert.deepEqual(totals.fields, { model: "custom", total: "70000000000", layers: "80" });
});

test("a custom model the engine's bounds refuse, or not JSON, falls back to the default model", () => {
  const long = read(`model=custom&custom=${"A".repeat(LIMITS.custom_link + 1)}`);
  assert.equal(long.fields.model, "llama-3.3-70b");
  assert.deepEqual(long.notes, ["Too long for a config.json: 32,001 characters, at most 32,000."]);
  const broken = read("model=custom&custom=bm9wZQ");
  assert.equal(broken.fields.model, "llama-3.3-70b");
  assert.deepEqual(broken.notes, ["This is not valid JSON: custom"]);
});

test("the link of a question carries the table's view when it is not the default", () => {
  const request = { model: "m", format: "bf16", context: 8192, concurrency: 4 };
  const def = { col: "price_month", dir: 1 };
  assert.equal(
    linkSearch(request, { verdict: "", gpu: "", link: "" }, def, def),
    "?v=1&model=m&format=bf16&context=8192&concurrency=4",
  );
  const search = new URLSearchParams(
    linkSearch(request, { verdict: "single", gpu: "", link: "" }, { col: "ttft", dir: -1 }, def),
  );
  assert.equal(search.get("verdict"), "single");
  assert.equal(search.get("sort"), "-ttft");
  // A custom model too long for a link is left out of it.
  const huge = { format: "bf16", config: { text: "x".repeat(LIMITS.custom_link) } };
  assert.equal(new URLSearchParams(linkSearch(huge, {}, def, def)).has("custom"), false);
});
