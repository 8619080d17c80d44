// The state in the address bar, the fields' limits, and which answer belongs to which question.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  decimalIn,
  decodeCustom,
  encodeCustom,
  queryFor,
  sameWorkload,
  wholeIn,
} from "../../overrides/assets/javascripts/configurator/state.js";

test("a request becomes a versioned query and only names the options it sets", () => {
  const query = new URLSearchParams(
    queryFor({ model: "llama-3.3-70b", format: "bf16", context: 8192, concurrency: 20 }),
  );
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
  // The card's attributes are text; one field that differs makes another workload.
  const card = { model: "llama-3.3-70b", format: "bf16", context: "8192", concurrency: "20" };
  assert.equal(sameWorkload(card, request), true);
  for (const change of [{ context: "4096" }, { concurrency: "1" }, { format: "fp8" }]) {
    assert.equal(sameWorkload({ ...card, ...change }, request), false, JSON.stringify(change));
  }
  assert.equal(sameWorkload(null, request), false);
});

test("the target travels in the link and an answer for another target is not this one's", () => {
  const request = { model: "m", format: "f", context: 4096, concurrency: 64, min_speed: 12.5, max_ttft: 2 };
  const query = new URLSearchParams(queryFor(request));
  assert.equal(query.get("min_speed"), "12.5");
  assert.equal(query.get("max_ttft"), "2");
  const workload = { model: "m", format: "f", context: 4096, concurrency: 64, min_speed: 12.5, max_ttft: 2 };
  assert.equal(sameWorkload(workload, request), true);
  assert.equal(sameWorkload({ ...workload, min_speed: 20 }, request), false);
});

test("a target is a decimal within the field's bounds, a comma read as the point", () => {
  assert.equal(decimalIn("12.5", 0.1, 10000), 12.5);
  assert.equal(decimalIn(" 0,45 ", 0.1, 3600), 0.45);
  assert.equal(decimalIn(".5", 0.1, 10), 0.5);
  for (const bad of ["", "0", "1e3", "0x10", "12abc", "-1", "12 5", "Infinity", "20000"]) {
    assert.equal(decimalIn(bad, 0.1, 10000), null, bad);
  }
});

test("a forced data-parallel layout travels in the link (data_parallel=)", () => {
  const query = new URLSearchParams(queryFor({ model: "deepseek-v3", format: "fp8", data_parallel: 8 }));
  assert.equal(query.get("data_parallel"), "8");
  assert.equal(new URLSearchParams(queryFor({ model: "m", format: "f" })).get("data_parallel"), null);
});
