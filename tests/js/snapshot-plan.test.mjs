// Which start the worker takes: the build's snapshot only when the manifest names one made for
// this Pyodide and this engine; the plain start otherwise.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  engineKey,
  growFor,
  initialImage,
  place,
  snapshotPlan,
  unmask,
} from "../../overrides/assets/javascripts/snapshot-plan.js";

const HASH_A = "a".repeat(64);
const HASH_B = "b".repeat(64);
const HASH_C = "c".repeat(64);

function manifest(overrides = {}) {
  const files = { "api.py": HASH_A, "__init__.py": HASH_B };
  return {
    package: "fitengine",
    pyodide: "314.0.7",
    files,
    snapshot: {
      pyodide: "314.0.7",
      engine: { "__init__.py": HASH_B, "api.py": HASH_A },
      snapshot: {
        sha256: HASH_C,
        bytes: 24,
        base: { offset: 4, bytes: 12, sha256: HASH_A, raw: [[4, 8]] },
        parts: [
          { file: `snapshot-${HASH_A.slice(0, 16)}.bin`, sha256: HASH_A, bytes: 16 },
          { file: `snapshot-${HASH_B.slice(0, 16)}.bin`, sha256: HASH_B, bytes: 8 },
        ],
      },
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
  assert.deepEqual(plan.snapshot.parts, [
    { path: `snapshot-${HASH_A.slice(0, 16)}.bin`, sha256: HASH_A, bytes: 16 },
    { path: `snapshot-${HASH_B.slice(0, 16)}.bin`, sha256: HASH_B, bytes: 8 },
  ]);
  assert.equal(plan.snapshot.bytes, 24);
  assert.deepEqual(plan.snapshot.base, { offset: 4, bytes: 12, sha256: HASH_A, raw: [[4, 8]] });
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
  const base = { offset: 0, bytes: 4, sha256: HASH_B, raw: [] };
  const part = (over) => ({
    sha256: HASH_C,
    bytes: 8,
    base,
    parts: [{ file: "snapshot-x.bin", sha256: HASH_A, bytes: 8, ...over }],
  });
  assert.equal(snapshotPlan(manifest({ snapshot: part({}) }), "314.0.7").use, true);
  assert.equal(snapshotPlan(manifest({ snapshot: part({ file: "../x.bin" }) }), "314.0.7").use, false);
  assert.equal(snapshotPlan(manifest({ snapshot: part({ sha256: "abc" }) }), "314.0.7").use, false);
  assert.equal(snapshotPlan(manifest({ snapshot: part({ bytes: 0 }) }), "314.0.7").use, false);
  assert.equal(snapshotPlan(manifest({ snapshot: part({ bytes: "8" }) }), "314.0.7").use, false);
  assert.equal(snapshotPlan(manifest({ stdlib: undefined }), "314.0.7").use, false);
  // The earlier form, one file: the worker no longer reads it, so the plain start.
  const single = { file: `snapshot-${HASH_A.slice(0, 16)}.bin`, sha256: HASH_A, bytes: 16 };
  assert.equal(snapshotPlan(manifest({ snapshot: single }), "314.0.7").use, false);
});

test("parts that do not add up to the whole are not used", () => {
  const entry = manifest().snapshot.snapshot;
  assert.equal(snapshotPlan(manifest({ snapshot: { ...entry, bytes: 32 } }), "314.0.7").use, false);
  assert.equal(snapshotPlan(manifest({ snapshot: { ...entry, parts: [] } }), "314.0.7").use, false);
  assert.equal(snapshotPlan(manifest({ snapshot: { ...entry, sha256: undefined } }), "314.0.7").use, false);
  // A heap is whole 32-bit words (Pyodide reads it as such).
  const odd = { ...entry, bytes: 23, parts: [entry.parts[0], { ...entry.parts[1], bytes: 7 }] };
  assert.equal(snapshotPlan(manifest({ snapshot: odd }), "314.0.7").use, false);
});

test("a masked region that is not inside the heap, or whose raw ranges overlap, is not used", () => {
  const entry = manifest().snapshot.snapshot;
  const withBase = (base) =>
    snapshotPlan(manifest({ snapshot: { ...entry, base: { ...entry.base, ...base } } }), "314.0.7").use;
  assert.equal(withBase({}), true);
  assert.equal(withBase({ bytes: 24 }), false); // 4 + 24 > 24 bytes of heap
  assert.equal(withBase({ offset: 2 }), false); // not a whole word
  assert.equal(withBase({ sha256: "x" }), false);
  assert.equal(
    withBase({
      raw: [
        [4, 8],
        [6, 10],
      ],
    }),
    false,
  ); // overlapping
  assert.equal(withBase({ raw: [[8, 4]] }), false); // backwards
  assert.equal(withBase({ raw: [[8, 16]] }), false); // past the region
  assert.equal(withBase({ raw: undefined }), false);
  assert.equal(snapshotPlan(manifest({ snapshot: { ...entry, base: undefined } }), "314.0.7").use, false);
});

test("unmask gives back the heap: masked blocks from the runtime's memory, raw ones as stored", () => {
  // A heap of a 4-byte header and a 12-byte region, then 4 more bytes: the region's first and
  // last words unchanged since the runtime started (masked), its middle word changed (raw).
  const memory = Uint8Array.from([1, 2, 3, 4, 9, 9, 9, 9, 5, 6, 7, 8, 42]);
  const heap = Uint8Array.from([
    0xaa, 0xbb, 0xcc, 0xdd, 1, 2, 3, 4, 10, 11, 12, 13, 5, 6, 7, 8, 0xee, 0xee, 0xee, 0xee,
  ]);
  const base = { offset: 4, bytes: 12, raw: [[4, 8]] };
  const image = initialImage(memory, base);
  assert.deepEqual([...image], [1, 2, 3, 4, 0, 0, 0, 0, 5, 6, 7, 8]);
  // What the build stores: the region XORed with that image (zeros where unchanged).
  const stored = heap.slice();
  for (let i = 0; i < 12; i++) stored[4 + i] ^= image[i];
  assert.deepEqual([...stored.subarray(4, 16)], [0, 0, 0, 0, 10, 11, 12, 13, 0, 0, 0, 0]);
  assert.deepEqual([...unmask(stored, base, image)], [...heap]);
  // The same, when the heap does not start on a word boundary of its buffer (byte by byte).
  const shifted = new Uint8Array(stored.length + 1);
  for (let i = 0; i < 12; i++) stored[4 + i] ^= image[i];
  shifted.set(stored, 1);
  assert.deepEqual([...unmask(shifted.subarray(1), base, image)], [...heap]);
});

test("without stored ranges the parts hold the whole heap; with them, only those ranges", () => {
  assert.deepEqual(snapshotPlan(manifest(), "314.0.7").snapshot.stored, [[0, 24]]);
  const sparse = (stored, bytes = 64) => {
    const m = manifest();
    Object.assign(m.snapshot.snapshot, { bytes, stored });
    return snapshotPlan(m, "314.0.7");
  };
  // The parts hold 16 + 8 bytes: ranges of 24 bytes in all, anywhere in a larger heap.
  assert.deepEqual(
    sparse([
      [0, 16],
      [40, 48],
    ]).snapshot.stored,
    [
      [0, 16],
      [40, 48],
    ],
  );
  assert.equal(
    sparse([
      [0, 16],
      [40, 48],
    ]).use,
    true,
  );
  for (const bad of [
    [
      [0, 16],
      [40, 52],
    ], // 28 bytes: not what the parts hold
    [
      [40, 48],
      [0, 16],
    ], // not in order
    [
      [0, 16],
      [8, 16],
    ], // overlapping
    [
      [0, 16],
      [60, 68],
    ], // beyond the heap
    [
      [0, 16],
      [41, 49],
    ], // not whole 32-bit words
    [[0, 24, 1]],
    [],
    "0-24",
  ]) {
    assert.equal(sparse(bad).use, false, JSON.stringify(bad));
  }
});

test("place puts each stored byte where it was and leaves the rest zeros, part by part", () => {
  const stored = [
    [4, 12],
    [20, 24],
    [28, 40],
  ];
  const heap = new Uint8Array(44);
  const stream = Uint8Array.from({ length: 24 }, (_, i) => i + 1);
  // Parts that cut across the ranges' ends, placed in any order.
  const cuts = [
    [12, 24],
    [0, 5],
    [5, 12],
  ];
  for (const [from, to] of cuts) place(heap, stored, from, stream.subarray(from, to));
  const want = new Uint8Array(44);
  let at = 0;
  for (const [from, to] of stored) for (let i = from; i < to; i++) want[i] = stream[at++];
  assert.deepEqual(heap, want);
  assert.equal(heap[0] + heap[12] + heap[24] + heap[40], 0);
});

test("growFor grows the runtime's memory only when the heap needs more, and throws when it cannot", () => {
  const runtime = (length, canGrow = true) => {
    const module = { HEAPU8: new Uint8Array(length), asked: [] };
    module.growMemory = (bytes) => {
      module.asked.push(bytes);
      if (canGrow) module.HEAPU8 = new Uint8Array(Math.ceil(bytes / 65536) * 65536);
    };
    return module;
  };
  const roomy = runtime(2 * 65536);
  growFor(roomy, 65536 + 4);
  assert.deepEqual(roomy.asked, []);
  const small = runtime(65536);
  growFor(small, 3 * 65536 + 8);
  assert.deepEqual(small.asked, [3 * 65536 + 8]);
  assert.ok(small.HEAPU8.length >= 3 * 65536 + 8);
  const stuck = runtime(65536, false);
  assert.throws(() => growFor(stuck, 2 * 65536), /cannot grow to the snapshot's heap \(131072 bytes\)/);
});
