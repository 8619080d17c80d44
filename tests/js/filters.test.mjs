// Which rows the table's filters and its fold of the nodes that fit nowhere leave on show.
import assert from "node:assert/strict";
import { test } from "node:test";

import { visibleRows } from "../../overrides/assets/javascripts/configurator/filters.js";

const rows = [
  { verdict: "single", gpu: "h100", link: "one-card" },
  { verdict: "split", gpu: "h100", link: "nvlink" },
  { verdict: "none", gpu: "l40s", link: "pcie" },
  { verdict: "none", gpu: "h100", link: "nvlink" },
];
const ANY = { verdict: "", gpu: "", link: "" };

test("the nodes that fit nowhere are folded until the reader unfolds them", () => {
  assert.deepEqual(visibleRows(rows, ANY, false), { hidden: [false, false, true, true], folded: 2 });
  assert.deepEqual(visibleRows(rows, ANY, true), { hidden: [false, false, false, false], folded: 2 });
});

test("a filter hides what it leaves out, and only what it keeps is counted as folded", () => {
  assert.deepEqual(visibleRows(rows, { ...ANY, gpu: "h100" }, false), {
    hidden: [false, false, true, true],
    folded: 1,
  });
  assert.deepEqual(visibleRows(rows, { ...ANY, link: "nvlink" }, true), {
    hidden: [true, false, true, false],
    folded: 1,
  });
});

test("asking for the nodes that fit nowhere shows them, folded or not", () => {
  assert.deepEqual(visibleRows(rows, { ...ANY, verdict: "none" }, false).hidden, [true, true, false, false]);
});
