// The phone's summary says what the card says: the recommended node with its figures, or the
// closest node marked as missing the target.
import assert from "node:assert/strict";
import { test } from "node:test";

import { formatters } from "../../overrides/assets/javascripts/configurator/format.js";
import { summaryView } from "../../overrides/assets/javascripts/configurator/summary.js";

const t = {
  node_name: "{count} × {gpu}",
  per_month: "/month",
  tok_s: "{value} tok/s",
  seconds: "{value} s",
  summary_ttft: "first token in {ttft}",
  summary_met: "within the target for {users}",
  summary_missed: "misses the target for {users}",
  summary_none: "No node holds this model",
};
const ctx = { t, f: formatters("en"), gpuNames: { h100: "H100" } };

test("a recommendation: the card's own texts, joined", () => {
  const view = { node: "2 × H100", price: "$4,380/month", per_user: "30.5 tok/s", ttft: "0.40 s" };
  const s = summaryView(view, { kind: "llm", summary: { recommended: "2x-h100" }, rows: [] }, ctx);
  assert.deepEqual(s, {
    node: "2 × H100",
    figures: "$4,380/month · 30.5 tok/s · first token in 0.40 s",
    target: t.summary_met,
    look: "met",
  });
});

test("nothing within the target: the closest node, its own figures, marked as missing it", () => {
  const rows = [
    { node: "1x-h100", gpu: "h100", count: 1, price_month_usd: 2190, decode_tok_s_per_user: 9.04, ttft_s: 3.456 },
  ];
  const s = summaryView({}, { kind: "llm", summary: { recommended: null, closest: "1x-h100" }, rows }, ctx);
  assert.equal(s.node, "1 × H100");
  assert.equal(s.figures, "$2,190/month · 9.0 tok/s · first token in 3.46 s");
  assert.equal(s.look, "missed");
  assert.equal(
    summaryView({}, { kind: "llm", summary: { recommended: null, closest: null }, rows: [] }, ctx).look,
    "none",
  );
});
