// The chart's points from the table's rows, and the nodes the card names labelled on it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { chartPoints } from "../../overrides/assets/javascripts/configurator/plot.js";

test("only the nodes that hold the model and carry both figures are drawn", () => {
  const rows = [
    { data: { node: "a", verdict: "single", tokS: "31.5", vPerMtok: "2.25" }, name: "1 x H100" },
    { data: { node: "b", verdict: "none", tokS: "10", vPerMtok: "1" }, name: "1 x L4" },
    { data: { node: "c", verdict: "split", tokS: "", vPerMtok: "4" }, name: "2 x L40S" },
    { data: { node: "d", verdict: "split", tokS: "12", vPerMtok: "8" }, name: undefined },
  ];
  assert.deepEqual(chartPoints(rows), [
    { node: "a", name: "1 x H100", x: 31.5, y: 2.25 },
    { node: "d", name: "d", x: 12, y: 8 },
  ]);
});
