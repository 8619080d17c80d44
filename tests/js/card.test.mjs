// The card's data attributes for an answer, and what the engine read of a reader's own model.
import assert from "node:assert/strict";
import { test } from "node:test";

import { cardData, datasetKey, modelReadText } from "../../overrides/assets/javascripts/configurator/card.js";
import { formatters } from "../../overrides/assets/javascripts/configurator/format.js";
import { t } from "./words.mjs";

test("the card names the workload it answers and the nodes the answer picks", () => {
  const result = { summary: { recommended: "2x-h100", fastest: "8x-h100", best_per_mtok: null } };
  const request = { model: "llama-3.3-70b", format: "bf16", context: 8192, concurrency: 16, min_speed: 12.5 };
  assert.deepEqual(cardData(result, request), {
    model: "llama-3.3-70b",
    format: "bf16",
    context: "8192",
    concurrency: "16",
    minSpeed: "12.5",
    maxTtft: "",
    node: "2x-h100",
    fastest: "8x-h100",
    bestPerMtok: "",
    state: "answer",
  });
  assert.equal(cardData(result, { format: "bf16", totals: {} }).model, "custom");
});

test("a request key becomes its data attribute's name", () => {
  assert.equal(datasetKey("min_speed"), "minSpeed");
  assert.equal(datasetKey("format"), "format");
});

test("what was read of a reader's model: billions of parameters and KiB of KV cache a token", () => {
  // Llama 3.1 8B's published shape: 32 layers, 8 KV heads of 128 dimensions, 16-bit cache:
  // 2 x 32 x 8 x 128 x 2 bytes = 131,072 bytes (128 KiB) a token.
  const read = {
    params_total: 8.03e9,
    params_active: 8.03e9,
    layers: 32,
    kv_heads: 8,
    kv_bytes_per_token: 2 * 32 * 8 * 128 * 2,
  };
  assert.equal(
    modelReadText(t, formatters("en"), read),
    "Read from your model: 8.03 billion parameters (8.03 billion active), 32 layers, 8 KV heads, 128 KiB of KV cache per token.",
  );
});
