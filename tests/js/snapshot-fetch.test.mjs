// The snapshot read as it arrives: its bytes in one buffer of the manifest's size, its progress
// said at most once a hundredth.
import assert from "node:assert/strict";
import { test } from "node:test";

import { bytesOf, progressReporter } from "../../overrides/assets/javascripts/snapshot-fetch.js";

const response = (chunks) => new Response(new Blob(chunks.map((c) => new Uint8Array(c))).stream());

test("the chunks land in order, each told", async () => {
  const told = [];
  const bytes = await bytesOf(response([[1, 2], [3], [4, 5, 6]]), 6, (n) => told.push(n));
  assert.deepEqual([...new Uint8Array(bytes)], [1, 2, 3, 4, 5, 6]);
  assert.equal(
    told.reduce((a, b) => a + b, 0),
    6,
  );
});

test("a response shorter than the manifest says is what arrived; a longer one is refused", async () => {
  assert.equal((await bytesOf(response([[1, 2]]), 4, () => {})).byteLength, 2);
  await assert.rejects(
    bytesOf(response([[1, 2, 3]]), 2, () => {}),
    /longer than the build's manifest/,
  );
});

test("progress is said once per hundredth, with the bytes so far", () => {
  const said = [];
  const onBytes = progressReporter(1000, (loaded, total) => said.push([loaded, total]));
  for (let i = 0; i < 100; i++) onBytes(1); // 100 bytes one by one: hundredths 0 to 10
  onBytes(900); // then the whole
  assert.deepEqual(
    said.map(([loaded]) => loaded),
    [1, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 1000],
  );
  assert.deepEqual(said.at(-1), [1000, 1000]);
});
