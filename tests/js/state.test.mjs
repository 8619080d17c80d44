// The state in the address bar, the fields' limits, and which answer belongs to which question.
import assert from "node:assert/strict";
import { test } from "node:test";

import { decodeCustom, encodeCustom, queryFor, sameWorkload, wholeIn } from "../../overrides/assets/javascripts/configurator/state.js";

test("a request becomes a versioned query and only names the options it sets", () => {
  const query = new URLSearchParams(queryFor({ model: "llama-3.3-70b", format: "bf16", context: 8192, concurrency: 20 }));
  assert.equal(query.get("v"), "1");
  assert.equal(query.get("context"), "8192");
  assert.equal(query.get("concurrency"), "20");
  assert.equal(query.has("runtime"), false);
  const withRuntime = new URLSearchParams(queryFor({ model: "m", format: "f", runtime: "llama-cpp" }));
  assert.equal(withRuntime.get("runtime"), "llama-cpp");
});

test("a custom model travels as base64url JSON, non-ASCII included", () => {
  const custom = { config: { name: "modèle à moi", num_hidden_layers: 32 } };
  const query = new URLSearchParams(queryFor({ format: "bf16", config: custom.config }));
  assert.equal(query.get("model"), "custom");
  assert.match(query.get("custom"), /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(decodeCustom(query.get("custom")), custom);
  assert.deepEqual(decodeCustom(encodeCustom({ totals: { total: 8e9 } })), { totals: { total: 8e9 } });
});

test("a field's value is a whole number within the input's own min and max", () => {
  assert.equal(wholeIn(" 8192 ", 1, 10000000), 8192);
  assert.equal(wholeIn("2000000", 1, 1000000), null);
  assert.equal(wholeIn("0", 1, 10), null);
  assert.equal(wholeIn("8k", 1, 10), null);
  assert.equal(wholeIn("1.5", 1, 10), null);
  assert.equal(wholeIn("", 1, 10), null);
});

test("an answer belongs to a request only when the whole workload matches", () => {
  const request = { model: "llama-3.3-70b", format: "bf16", context: 8192, concurrency: 20 };
  assert.equal(sameWorkload({ model: "llama-3.3-70b", format: "bf16", context: "8192", concurrency: "20" }, request), true);
  assert.equal(sameWorkload({ model: "llama-3.3-70b", format: "bf16", context: "4096", concurrency: "20" }, request), false);
  assert.equal(sameWorkload({ model: "llama-3.3-70b", format: "bf16", context: "8192", concurrency: "1" }, request), false);
  assert.equal(sameWorkload({ model: "llama-3.3-70b", format: "fp8", context: "8192", concurrency: "20" }, request), false);
  assert.equal(sameWorkload(null, request), false);
});
