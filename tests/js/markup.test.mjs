// The build's markup for one answer (macros/render/markup.mjs): the pieces the page holds before
// any script runs, each from the module the widget itself draws that piece with.
import assert from "node:assert/strict";
import { test } from "node:test";
import { noscriptText, summaryHtml, targetSource, widgetMarkup } from "../../macros/render/markup.mjs";
import { answerHtml } from "../../overrides/assets/javascripts/configurator/answer.js";
import { formatters } from "../../overrides/assets/javascripts/configurator/format.js";
import { tableHtml } from "../../overrides/assets/javascripts/configurator/table.js";
import { VERDICT_WORDS } from "./verdict-words.mjs";

const t = {
  ...VERDICT_WORDS,
  intro: "{model} in {format}, {context} tokens, {users}, {input} in, {output} out, {speed}, {ttft}",
  answer_question: "{model} · {format} · {context} tokens · {users}",
  answer_title: "Recommended",
  noscript: "Answer for {model} in {format}, {context} tokens, {users}.",
  noscript_diffusion: "Answer for {model} in {format} at {resolution}.",
  target_source: "{speed} ({tpot} a token) and {ttft}",
  show_none: "Show the {n} nodes that do not fit",
  caption: "Nodes for {model}",
  sort_by: "Sort by {column}",
  users_one: "{n} user",
  users_many: "{n} users",
  tok_s: "{value}\u00a0tok/s",
  seconds: "{value}\u00a0s",
  per_month: "/month",
  summary_ttft: "first token in {ttft}",
  summary_met: "within the target for {users}",
  summary_missed: "misses the target for {users}",
  summary_none: "No node",
  fig_price: "Price",
  fig_per_user: "Per user",
  fig_ttft: "First token",
  fig_per_mtok: "Per million",
  fig_per_mtok_out: "Per million out",
  fig_within: "Within",
  fig_band: "Measured",
  alt_best_per_mtok: "Cheapest",
  alt_fastest: "Fastest",
  within_text: "up to {users}",
  alt_text: "{node}: {price} ({extra} more), {per_mtok}, {per_user}",
  status_loading: "Loading",
  chart_title: "Chart",
  chart_x: "Speed",
  chart_y: "Price",
  chart_recommended: "recommended",
  why: "Why?",
  why_label: "Why for {node}?",
  unit_gb: "GB",
  bar_weights: "weights",
  bar_kv: "KV",
  bar_reserve: "reserve",
  bar_free: "free",
  col_node: "Node",
  col_price_month: "Price",
  nothing_meets: "None serves {users}; the closest, {node}, gives {speed} and {ttft}",
};
const row = (node, count, price, verdict = "single", extra = {}) => ({
  node,
  gpu: "a",
  count,
  verdict,
  cards_used: count,
  link_class: "nvlink",
  price_month_usd: price,
  decode_tok_s_per_user: verdict === "none" ? null : 20,
  ttft_s: verdict === "none" ? null : 0.5,
  usd_per_million_tokens_workload: verdict === "none" ? null : 3,
  usd_per_million_output_tokens: null,
  max_users_at_target: 40,
  meets_target: verdict !== "none",
  weights_gb: 10,
  kv_gb: 5,
  reserve_gb: 1,
  capacity_gb: 80,
  reason_text: "Why.",
  ...extra,
});
const defaults = { context: 8192, concurrency: 32, input: 1024, output: 256, min_speed: 12.5, max_ttft: 2 };
const columns = [
  { id: "node", sort: "text", key: null, key_diffusion: null },
  { id: "price_month", sort: "number", key: "price_month_usd", key_diffusion: "price_month_usd" },
];
const context = (locale, extra = {}) => ({
  t,
  f: formatters(locale),
  locale,
  model: "m",
  format: "bf16",
  formatNames: { bf16: "BF16" },
  gpuNames: { a: "Card A" },
  columns,
  compact: false,
  width: 640,
  defaults,
  ...extra,
});
const answer = {
  kind: "llm",
  model_name: "Model",
  workload: { context: 8192, concurrency: 32 },
  rows: [row("8x-a", 8, 12000), row("1x-a", 1, 1500, "none"), row("2x-a", 2, 3000)],
  summary: { recommended: "2x-a", fastest: "8x-a", best_per_mtok: "2x-a", closest: "2x-a" },
};

test("every piece of one answer, from the modules the widget draws with", () => {
  const ctx = context("en");
  const parts = widgetMarkup(answer, ctx);
  assert.deepEqual(Object.keys(parts).sort(), [
    "card",
    "chart",
    "chart_question",
    "fold",
    "intro",
    "noscript",
    "summary",
    "table",
    "target_source",
  ]);
  assert.equal(parts.table, tableHtml(answer, ctx));
  assert.equal(parts.card, answerHtml(answer, { ...ctx, formatName: "BF16", workload: defaults }));
  assert.equal(parts.fold, "Show the 1 nodes that do not fit");
  assert.equal(parts.chart_question, "Model · BF16 · 8,192 tokens · 32 users");
  assert.equal(parts.intro, "Model in BF16, 8,192 tokens, 32 users, 1,024 in, 256 out, 12.5\u00a0tok/s, 2\u00a0s");
  // The chart: the two nodes that fit, in the table's order, the recommended one labelled.
  assert.equal(parts.chart.match(/<circle /g).length, 2);
  assert.match(parts.chart, /2 × Card A \(recommended\)/);
  // The compact widget has no chart.
  assert.equal(widgetMarkup(answer, context("en", { compact: true })).chart, "");
});

test("French figures: a narrow no-break space between thousands, a decimal comma, the currency after", () => {
  const parts = widgetMarkup(answer, context("fr"));
  assert.match(parts.table, />3\u202f000\u00a0\$US<\/td>/);
  assert.match(parts.intro, /8\u202f192 tokens/);
  assert.equal(targetSource(t, formatters("fr"), defaults), "12,5\u00a0tok/s (80\u00a0ms a token) and 2\u00a0s");
});

test("the phone's summary: the recommended node, else the closest, else none", () => {
  const ctx = context("en");
  const view = { node: "2 × Card A", price: "$3,000/month", per_user: "20.0\u00a0tok/s", ttft: "0.50\u00a0s" };
  const met = summaryHtml(answer, view, ctx);
  assert.match(met, /data-look="met" data-node="2x-a" data-model="m" data-context="8192" data-concurrency="32"/);
  assert.match(met, /<span class="summary__target" data-summary-target>within the target for 32 users<\/span>/);
  assert.match(met, /\$3,000\/month · 20.0\u00a0tok\/s · first token in 0.50\u00a0s/);
  const missed = { ...answer, summary: { ...answer.summary, recommended: null } };
  const closest = summaryHtml(missed, {}, ctx);
  assert.match(closest, /data-look="missed" data-node=""/);
  assert.match(closest, /<strong data-summary-node>2 × Card A<\/strong>/);
  const none = { ...answer, summary: { recommended: null, closest: null } };
  assert.match(summaryHtml(none, {}, ctx), /data-look="none"[^>]*><strong data-summary-node>No node<\/strong>/);
});

test("without a script, the page names the workload its answer is for", () => {
  const ctx = context("en");
  assert.equal(noscriptText(answer, ctx), "Answer for Model in BF16, 8,192 tokens, 32 users.");
  // The answer's resolution as the engine writes it (fitengine.diffusion.written_resolution).
  const image = { kind: "diffusion", model_name: "Image", resolution: "1024 × 1024, 5\u00a0s", rows: [], summary: {} };
  assert.equal(noscriptText(image, ctx), "Answer for Image in BF16 at 1024 × 1024, 5\u00a0s.");
});
