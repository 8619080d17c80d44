// The table's rows follow the column list they are handed (the engine's TABLE_COLUMNS, carried by
// protocol.js's COLUMNS): no list of columns is typed in the widget.
import assert from "node:assert/strict";
import { test } from "node:test";

import { formatters } from "../../overrides/assets/javascripts/configurator/format.js";
import {
  headHtml,
  rowData,
  rowHtml,
  tableHtml,
  targetLook,
} from "../../overrides/assets/javascripts/configurator/table.js";
import { VERDICT_WORDS } from "./verdict-words.mjs";

const t = {
  ...VERDICT_WORDS,
  layout_ranks: "{cards} cards, DP {dp} × TP {tp}",
  best_at: "{price} at {users}",
  users_one: "{n} user",
  users_many: "{n} users",
  bar_weights: "weights",
  bar_kv: "KV cache",
  bar_reserve: "reserve",
  bar_free: "free",
  unit_gb: "GB",
  why: "Why?",
  why_label: "Why this verdict for {node}?",
  col_ttft: "First token (s)",
  col_memory: "Memory per card",
  col_per_user: "Per user (tok/s)",
  col_per_user_diffusion: "Relative speed",
};
const f = formatters("en");
const row = {
  node: "1x-a",
  gpu: "a",
  count: 1,
  verdict: "single",
  cards_used: 1,
  link_class: "one-card",
  price_month_usd: 1000,
  usd_per_million_output_tokens: 2.5,
  decode_tok_s_per_user: 40.25,
  ttft_s: 0.3,
  decode_tok_s_total: 40.25,
  best_usd_per_million_output_tokens: 1.5,
  best_concurrency: 8,
  max_concurrency: 12,
  need_gb: 30.5,
  weights_gb: 20,
  kv_gb: 5,
  reserve_gb: 5.5,
  capacity_gb: 80,
  reason_text: "Fits.",
};
const col = (id, sort, key = null, key_diffusion = null) => ({ id, sort, key, key_diffusion });

test("a row's cells and sort values follow the list it is given, in its order", () => {
  const columns = [
    col("ttft", "number", "ttft_s"),
    col("node", "text"),
    col("memory", "number", "need_gb", "need_gb"),
    col("verdict", "text"),
  ];
  const html = rowHtml(row, "llm", 3, t, f, { a: "Card A" }, columns);
  const cells = [...html.matchAll(/<(td|th)[ >]/g)].map((m) => m[1]);
  assert.deepEqual(cells, ["td", "th", "td", "td"]);
  assert.match(html, /^<tr [^>]*data-v-ttft="0.3" data-v-memory="30.5">/);
  assert.ok(html.indexOf("0.30") < html.indexOf("1 × Card A"));
  assert.doesNotMatch(html, /data-v-price-month/);
  // Reversed, the row is reversed.
  const reversed = rowHtml(row, "llm", 3, t, f, { a: "Card A" }, [...columns].reverse());
  assert.ok(reversed.indexOf("1 × Card A") < reversed.indexOf("0.30"));
});

test("each figure is named by its column for the card a phone shows, the reason sits under the verdict", () => {
  const columns = [
    col("node", "text"),
    col("verdict", "text"),
    col("per_user", "number", "decode_tok_s_per_user", "relative_speed"),
  ];
  const html = rowHtml(row, "llm", 0, t, f, { a: "Card A" }, columns);
  assert.match(html, /<td class="num" data-label="Per user \(tok\/s\)">40.3<\/td>/);
  assert.match(
    html,
    /aria-expanded="false" aria-controls="cfg-why-1x-a"[^>]*>Why\?<\/button><span class="verdict__reason" id="cfg-why-1x-a">Fits.<\/span>/,
  );
  const image = rowHtml({ ...row, relative_speed: 0.5 }, "diffusion", 0, t, f, { a: "Card A" }, columns);
  assert.match(image, /data-label="Relative speed">×0.50</);
});

test("a column without a key for the model's kind carries no value", () => {
  const columns = [
    col("ttft", "number", "ttft_s"),
    col("per_user", "number", "decode_tok_s_per_user", "relative_speed"),
  ];
  const data = rowData({ ...row, relative_speed: 0.5 }, "diffusion", 0, columns);
  assert.equal(data.vTtft, "");
  assert.equal(data.vPerUser, "0.5");
});

test("a row's look follows whether it fits, not how (its data-shown)", () => {
  const columns = [col("node", "text")];
  const shown = (verdict) =>
    rowHtml({ ...row, verdict }, "llm", 0, t, f, { a: "Card A" }, columns).match(/data-shown="([^"]*)"/)[1];
  assert.equal(shown("single"), "fits");
  assert.equal(shown("split"), "fits");
  assert.equal(shown("none"), "none");
});

test("a row says where it stands against the target: recommended, met, missed, or nothing to say", () => {
  const fits = { verdict: "single", meets_target: true, recommended: false };
  assert.equal(targetLook({ ...fits, recommended: true }), "recommended");
  assert.equal(targetLook(fits), "met");
  assert.equal(targetLook({ ...fits, meets_target: false }), "missed");
  assert.equal(targetLook({ ...fits, verdict: "none", meets_target: false }), "");
  assert.equal(targetLook({ verdict: "single", relative_speed: 1 }), ""); // an image model has no target
});

test("an image model's columns carry their own help, and none where they have none", async () => {
  const { columnHelp, rowTexts } = await import("../../overrides/assets/javascripts/configurator/table.js");
  const labels = { col_help_ttft: "first token", col_help_ttft_diffusion: "at once", col_help_best_per_mtok: "best" };
  assert.equal(columnHelp(labels, "ttft", "llm"), "first token");
  assert.equal(columnHelp(labels, "ttft", "diffusion"), "at once");
  assert.equal(columnHelp(labels, "best_per_mtok", "diffusion"), "");
  const f = formatters("en");
  const words = { ...t, text_encoders_card: "on the card", text_encoders_cpu: "on the CPU" };
  const row = {
    verdict: "single",
    price_month_usd: 500,
    usd_per_reference_hour: 0.8,
    relative_speed: 1.5,
    offload_text_encoders: true,
    count: 4,
    reason_text: "",
  };
  const texts = rowTexts(row, "diffusion", words, f);
  assert.equal(texts.total, "on the CPU");
  assert.equal(texts.ttft, "4");
  assert.equal(rowTexts({ ...row, verdict: "none" }, "diffusion", words, f).ttft, "");
});

test("a split row names its layout: tensor x pipeline, or data-parallel ranks x their tensor parallel", () => {
  const columns = [col("verdict", "text")];
  const split = { ...row, verdict: "split", cards_used: 8, tensor_parallel: 8, pipeline_parallel: 1 };
  assert.match(rowHtml(split, "llm", 3, t, f, {}, columns), /8 cards, TP 8 × PP 1/);
  const ranks = { ...split, tensor_parallel: 2, data_parallel: 4, expert_parallel: 8 };
  const html = rowHtml(ranks, "llm", 3, t, f, {}, columns);
  assert.match(html, /8 cards, DP 4 × TP 2/);
  assert.doesNotMatch(html, /PP/);
});

test("the best price names its users in the singular for one user, in the plural for more", async () => {
  const { rowTexts } = await import("../../overrides/assets/javascripts/configurator/table.js");
  assert.equal(rowTexts(row, "llm", t, f).best_per_mtok, "$1.50 at 8 users");
  assert.equal(rowTexts({ ...row, best_concurrency: 1 }, "llm", t, f).best_per_mtok, "$1.50 at 1 user");
});

test("the build's table: every row in the default order, its controls disabled until the script runs", () => {
  const columns = [
    col("node", "text"),
    col("verdict", "text"),
    col("price_month", "number", "price_month_usd", "price_month_usd"),
  ];
  const words = {
    ...t,
    caption: "Every node for {model}",
    sort_by: "Sort by {column}",
    col_node: "Node",
    col_verdict: "Verdict",
    col_price_month: "Price per month",
    col_help_price_month: "Before tax",
  };
  const result = {
    kind: "llm",
    model_name: "Model",
    rows: [
      { ...row, node: "none-a", verdict: "none", price_month_usd: 100 },
      { ...row, node: "dear-a", price_month_usd: 5000 },
      { ...row, node: "cheap-a", price_month_usd: 1000 },
    ],
  };
  const html = tableHtml(result, { t: words, f, gpuNames: { a: "Card A" }, columns });
  const nodes = [...html.matchAll(/<tr data-node="([^"]+)"[^>]*data-order="(\d)"/g)].map((m) => [m[1], m[2]]);
  assert.deepEqual(nodes, [
    ["cheap-a", "2"],
    ["dear-a", "1"],
    ["none-a", "0"],
  ]);
  // Each row is the widget's own, but for its disabled "Why?" button.
  const widgetRow = rowHtml(result.rows[2], "llm", 2, words, f, { a: "Card A" }, columns);
  assert.ok(html.includes(widgetRow.replace(" data-why data-needs-js ", " data-why data-needs-js disabled ")));
  assert.doesNotMatch(html, / data-why data-needs-js aria/);
  assert.match(
    html,
    /<th scope="col" class="num" data-col="price_month" aria-sort="ascending" title="Before tax"><button type="button" data-sort="price_month" aria-label="Sort by Price per month" data-needs-js disabled>Price per month<\/button><\/th>/,
  );
  assert.match(html, /<th scope="col" data-col="node"><button/);
  assert.match(
    html,
    /<table class="configurator__table" data-kind="llm" aria-busy="false"><caption>Every node for Model<\/caption>/,
  );
});

test("a column that means nothing for an image model shows a dash, its sort button hidden", () => {
  const words = {
    ...t,
    sort_by: "Sort by {column}",
    col_max_users: "Most users",
    col_max_users_diffusion: "—",
    col_void: "not applicable",
  };
  const column = col("max_users", "number", "max_users_at_target", "max_users_at_target");
  const image = headHtml(column, "diffusion", words);
  assert.match(image, /aria-label="Sort by —" data-needs-js disabled hidden>—<\/button>/);
  // The dash is seen, not read; the header's name is the words.
  assert.match(
    image,
    /<span data-void><span aria-hidden="true">—<\/span><span class="md-visually-hidden">not applicable<\/span><\/span><\/th>$/,
  );
  const llm = headHtml(column, "llm", words);
  assert.match(llm, /data-needs-js disabled>Most users<\/button><\/th>$/);
});
