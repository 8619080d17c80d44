// Which start the worker takes: the build's snapshot only when the manifest names one made for
// this Pyodide and this engine; the plain start otherwise.
import assert from "node:assert/strict";
import { test } from "node:test";

import { engineKey, snapshotPlan } from "../../overrides/assets/javascripts/snapshot-plan.js";

const HASH_A = "a".repeat(64);
const HASH_B = "b".repeat(64);

function manifest(overrides = {}) {
  const files = { "api.py": HASH_A, "__init__.py": HASH_B };
  return {
    package: "fitengine",
    pyodide: "314.0.7",
    files,
    snapshot: {
      pyodide: "314.0.7",
      engine: { "__init__.py": HASH_B, "api.py": HASH_A },
      snapshot: { file: `snapshot-${HASH_A.slice(0, 16)}.bin`, sha256: HASH_A, bytes: 10 },
      stdlib: { file: `stdlib-${HASH_B.slice(0, 16)}.zip`, sha256: HASH_B, bytes: 5 },
      ...overrides,
    },
  };
}

test("the engine key is Python's json.dumps(sort_keys=True, separators=(',', ':'))", () => {
  // The string the snapshot builder writes in Python for the same two files, typed here by hand.
  const python = `{"__init__.py":"${HASH_B}","api.py":"${HASH_A}"}`;
  assert.equal(engineKey({ "api.py": HASH_A, "__init__.py": HASH_B }), python);
  assert.equal(engineKey(null), "");
});

test("a snapshot made for this Pyodide and this engine is used", () => {
  const plan = snapshotPlan(manifest(), "314.0.7");
  assert.equal(plan.use, true);
  assert.equal(plan.snapshot.path, `snapshot-${HASH_A.slice(0, 16)}.bin`);
  assert.equal(plan.snapshot.sha256, HASH_A);
  assert.equal(plan.stdlib.path, `stdlib-${HASH_B.slice(0, 16)}.zip`);
  assert.equal(plan.engine, engineKey(manifest().files));
});

test("no snapshot, another Pyodide or other engine files: the plain start", () => {
  assert.equal(snapshotPlan({ pyodide: "314.0.7", files: {} }, "314.0.7").use, false);
  assert.equal(snapshotPlan(null, "314.0.7").use, false);
  const stale = snapshotPlan(manifest({ pyodide: "314.0.6" }), "314.0.7");
  assert.equal(stale.use, false);
  assert.match(stale.reason, /314\.0\.6/);
  assert.equal(snapshotPlan(manifest(), "314.0.8").use, false);
  const otherEngine = snapshotPlan(manifest({ engine: { "api.py": HASH_B, "__init__.py": HASH_B } }), "314.0.7");
  assert.equal(otherEngine.use, false);
  assert.equal(snapshotPlan(manifest({ engine: { "api.py": HASH_A } }), "314.0.7").use, false);
});

test("an entry without a well-formed file name or hash is not used", () => {
  assert.equal(snapshotPlan(manifest({ snapshot: { file: "../x.bin", sha256: HASH_A } }), "314.0.7").use, false);
  assert.equal(snapshotPlan(manifest({ snapshot: { file: "s.bin", sha256: "abc" } }), "314.0.7").use, false);
  assert.equal(snapshotPlan(manifest({ stdlib: undefined }), "314.0.7").use, false);
});
