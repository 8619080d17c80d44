// The loading's progress from the worker's messages: it only grows, the download fills most of it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { loadingShare, percentText } from "../../overrides/assets/javascripts/configurator/progress.js";

test("the download fills the bar in proportion to its bytes, the later steps the rest", () => {
  const start = loadingShare({ state: "loading", step: 1, steps: 3 });
  const half = loadingShare({ state: "loading", step: 1, steps: 3, loaded: 50, total: 100 });
  const all = loadingShare({ state: "loading", step: 1, steps: 3, loaded: 100, total: 100 });
  const engine = loadingShare({ state: "loading", step: 3, steps: 3 });
  assert.ok(
    start > 0 && start < half && half < all && all < engine && engine < 1,
    [start, half, all, engine].join(" "),
  );
  assert.equal(loadingShare({ state: "ready" }), 1);
  assert.equal(
    loadingShare({ state: "loading", step: 1, steps: 3, loaded: 500, total: 100 }),
    all,
    "never past the download's share",
  );
  assert.equal(
    loadingShare({ state: "loading", step: 9, steps: 3 }),
    engine,
    "a step past the last counts as the last",
  );
});

test("the percentage is the locale's: French joins it to % with a no-break space", () => {
  assert.match(percentText("fr", 0.456), /^46[\u00a0\u202f]%$/);
  assert.equal(percentText("en", 0.456), "46%");
  assert.equal(percentText("en", 1.7), "100%");
});
