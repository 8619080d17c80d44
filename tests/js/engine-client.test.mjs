// The memory of a Pyodide this browser has started here before (engine-client.js), which decides
// whether configurator-boot.js starts the engine at once or after the first paint.
import assert from "node:assert/strict";
import { test } from "node:test";

import { pyodideKept, rememberPyodide } from "../../overrides/assets/javascripts/engine-client.js";

function storage() {
  const items = new Map();
  return {
    getItem: (key) => (items.has(key) ? items.get(key) : null),
    setItem: (key, value) => items.set(key, String(value)),
  };
}

const refusing = {
  getItem() {
    throw new Error("SecurityError");
  },
  setItem() {
    throw new Error("QuotaExceededError");
  },
};

test("a version is kept once remembered, and only that version", () => {
  const s = storage();
  assert.equal(pyodideKept("314.0.7", s), false);
  rememberPyodide("314.0.7", s);
  assert.equal(pyodideKept("314.0.7", s), true);
  assert.equal(pyodideKept("314.0.8", s), false);
  rememberPyodide("314.0.8", s);
  assert.equal(pyodideKept("314.0.7", s), false);
});

test("no version is never kept nor remembered", () => {
  const s = storage();
  rememberPyodide("", s);
  rememberPyodide(undefined, s);
  assert.equal(pyodideKept("", s), false);
  assert.equal(pyodideKept(undefined, s), false);
  assert.equal(s.getItem("configurator-pyodide-kept"), null);
});

test("a browser that refuses storage is never kept, and nothing throws", () => {
  assert.doesNotThrow(() => rememberPyodide("314.0.7", refusing));
  assert.equal(pyodideKept("314.0.7", refusing), false);
  assert.equal(pyodideKept("314.0.7", undefined), false); // no storage at all (a worker, Node)
});
