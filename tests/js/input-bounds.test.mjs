// node --test tests/js/: the checks the widgets run on pasted text and shared links.
import assert from "node:assert/strict";
import { test } from "node:test";

import { fill } from "../../overrides/assets/javascripts/configurator/format.js";
import { customProblem } from "../../overrides/assets/javascripts/input-bounds.js";

test("fill shows replacement patterns and slot names as typed", () => {
  const template = "“{value}” is not in the catalog; showing {default}.";
  for (const value of ["$'$`$&", "$&", "$$", "{default}", "$1"]) {
    assert.equal(fill(template, { value, default: "Llama" }), `“${value}” is not in the catalog; showing Llama.`);
  }
  assert.equal(fill("{a} {missing}", { a: 1 }), "1 {missing}");
  assert.equal(fill("{constructor}", {}), "{constructor}");
});

test("a config nested deeper than the limit is refused without recursion", () => {
  let deep = 1;
  for (let i = 0; i < 100000; i++) deep = [deep];
  assert.deepEqual(customProblem(deep, 32, 100000), { code: "custom_too_deep", max: 32 });
  let ok = {};
  for (let i = 0; i < 31; i++) ok = { inner: ok };
  assert.equal(customProblem(ok, 32, 100000), null);
});

test("a config holding more values than the limit is refused", () => {
  // Every value counts: the object, the list and its items.
  assert.equal(customProblem({ list: Array(8).fill(1) }, 32, 10), null);
  assert.equal(customProblem({ list: Array(9).fill(1) }, 32, 10).code, "custom_too_big");
});

test("1e400 is refused by name, never sent as null", () => {
  const config = JSON.parse('{"num_attention_heads": 64, "num_key_value_heads": 1e400}');
  assert.deepEqual(customProblem(config, 32, 1000), {
    code: "custom_not_finite",
    key: "num_key_value_heads",
    value: "Infinity",
  });
  assert.equal(customProblem(JSON.parse('{"a": [1, -1e400]}'), 32, 1000).key, "a");
  assert.equal(customProblem({ hidden_size: 8192, rope_scaling: { factor: 8.0 } }, 32, 1000), null);
});
