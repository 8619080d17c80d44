// The result card's texts, from an answer's summary: which node it names and what it says of the others.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  announcement,
  answerHtml,
  answerView,
  suggestionsHtml,
  suggestionViews,
} from "../../overrides/assets/javascripts/configurator/answer.js";
import { escapeHtml, formatters } from "../../overrides/assets/javascripts/configurator/format.js";

const t = {
  answer_question: "{model} · {format} · {context} tokens · {users}",
  users_one: "{n} user",
  users_many: "{n} users",
  node_name: "{count} × {gpu}",
  per_month: "/month",
  tok_s: "{value} tok/s",
  seconds: "{value} s",
  fig_per_user: "Speed per user",
  fig_per_user_diffusion: "Relative speed",
  fig_per_mtok: "Price per million",
  fig_per_mtok_diffusion: "Price of an hour",
  alt_text: "{node}: {price}/month ({extra} more), {per_mtok} per million, {per_user}",
  alt_text_diffusion: "{node}: {price}/month ({extra} more), {per_mtok} per L40S-hour, relative speed {per_user}",
  answer_question_diffusion: "{model} · {format} · {resolution}",
  alt_best_per_mtok: "Best price per million tokens",
  alt_best_per_mtok_diffusion: "Best price per L40S-hour",
  nothing_fits: "No node holds {model} in {format}. These changes make it fit:",
  nothing_at_all: "No node holds {model} in {format}.",
  suggest_format: "In {format}: {node}, {price}/month",
  suggest_context: "Context of {context} tokens: {node}, {price}/month",
  announce: "Answer: {node}, {price}/month.",
  announce_none: "No node holds this model.",
  answer_target: "target: {speed} per user, first token within {ttft}",
  within_text: "up to {users}",
  band_text: "measured ×{speed_lo}–×{speed_hi} of this speed, ×{ttft_lo}–×{ttft_hi} of this first token",
  band_outside: "; outside the measured points",
  nothing_meets: "No node serves {users} within the target. The closest, {node}, gives {speed} and {ttft}:",
  suggest_users: "For {users}: {node}, {price}/month",
  suggest_target: "A target of {speed} and {ttft}: {node}, {price}/month",
  answer_title: "Recommended node",
  fig_price: "Price",
  fig_ttft: "First token",
  fig_per_mtok_out: "Per million output tokens",
  fig_within: "Within the target",
  fig_band: "Measured",
  alt_fastest: "Fastest",
  status_loading: "Loading…",
};
const f = formatters("en");
const gpuNames = { a: "Card A", b: "Card B" };
const row = (node, gpu, count, price, perUser, perMtok, verdict = "single") => ({
  node,
  gpu,
  count,
  verdict,
  price_month_usd: price,
  decode_tok_s_per_user: perUser,
  ttft_s: 0.5,
  usd_per_million_tokens_workload: perMtok,
  usd_per_million_output_tokens: perMtok && perMtok * 5,
  max_users_at_target: 30,
  meets_target: verdict !== "none",
  speed_band: [1.2, 1.5],
  ttft_band: [0.6, 1.1],
  band_covered: true,
});
const ctx = { t, f, gpuNames, formatName: "BF16", workload: { context: 8192, concurrency: 20 } };

test("the card names the recommended node by its cards and prices the others against it", () => {
  const result = {
    kind: "llm",
    model_name: "Model",
    rows: [row("2x-a", "a", 2, 1000, 10, 5), row("4x-b", "b", 4, 3000, 40, 2), row("1x-a", "a", 1, 500, 1, 9, "none")],
    summary: { recommended: "2x-a", best_per_mtok: "4x-b", fastest: "4x-b" },
  };
  const view = answerView(result, ctx);
  assert.equal(view.question, "Model · BF16 · 8,192 tokens · 20 users");
  assert.equal(view.node, "2 × Card A");
  assert.equal(view.node_id, "2x-a");
  assert.equal(view.price, "$1,000/month");
  assert.equal(view.per_user, "10.0 tok/s");
  assert.equal(view.alt_fastest, "4 × Card B: $3,000/month ($2,000 more), $2.00 per million, 40.0 tok/s");
  assert.equal(view.per_mtok, "$5.00");
  assert.equal(view.per_mtok_out, "$25.00");
  assert.equal(view.within, "up to 30 users");
  assert.equal(view.band, "measured ×1.20–×1.50 of this speed, ×0.60–×1.10 of this first token");
  assert.equal(announcement(view, t), "Answer: 2 × Card A, $1,000/month.");
});

test("the question names the target; a setup the validation does not cover says so", () => {
  const covered = row("2x-a", "a", 2, 1000, 10, 5);
  const outside = { ...covered, band_covered: false };
  const result = { kind: "llm", model_name: "Model", rows: [outside], summary: { recommended: "2x-a" } };
  const view = answerView(result, {
    ...ctx,
    workload: { context: 8192, concurrency: 20, min_speed: 12.5, max_ttft: 2 },
  });
  assert.equal(
    view.question,
    "Model · BF16 · 8,192 tokens · 20 users · target: 12.5 tok/s per user, first token within 2 s",
  );
  assert.ok(view.band.endsWith("; outside the measured points"));
});

test("when nodes hold the model but none within the target, the card names the closest and offers users or a target", () => {
  const slow = { ...row("8x-b", "b", 8, 7000, 4.2, 3), meets_target: false, ttft_s: 2.5 };
  const result = {
    kind: "llm",
    model_name: "Big",
    rows: [slow],
    workload: { context: 4096, concurrency: 500, min_speed: 12.5, max_ttft: 2 },
    summary: { recommended: null, closest: "8x-b" },
    suggestions: [
      {
        format: null,
        context: null,
        concurrency: 120,
        min_speed: null,
        max_ttft: null,
        node: "8x-b",
        price_month_usd: 7000,
      },
      {
        format: null,
        context: null,
        concurrency: null,
        min_speed: 4.2,
        max_ttft: 2.5,
        node: "8x-b",
        price_month_usd: 7000,
      },
    ],
  };
  const view = answerView(result, ctx);
  assert.equal(
    view.none_text,
    "No node serves 500 users within the target. The closest, 8 × Card B, gives 4.2 tok/s and 2.50 s:",
  );
  const offered = suggestionViews(result, { t, f, gpuNames, formatNames: {} });
  assert.deepEqual(
    offered.map((s) => [s.format, s.concurrency, s.min_speed, s.max_ttft, s.text]),
    [
      ["", "120", "", "", "For 120 users: 8 × Card B, $7,000/month"],
      ["", "", "4.2", "2.5", "A target of 4.2 tok/s and 2.5 s: 8 × Card B, $7,000/month"],
    ],
  );
});

test("an alternative that is the recommended node itself is not repeated", () => {
  const result = {
    kind: "llm",
    model_name: "Model",
    rows: [row("2x-a", "a", 2, 1000, 10, 5)],
    summary: { recommended: "2x-a", best_per_mtok: "2x-a", fastest: "2x-a" },
  };
  const view = answerView(result, ctx);
  assert.equal(view.alt_best_per_mtok, "");
  assert.equal(view.alt_fastest, "");
});

test("when nothing fits the card says so and offers the engine's changes", () => {
  const result = {
    kind: "llm",
    model_name: "Big",
    rows: [row("8x-b", "b", 8, 7000, null, null, "none")],
    summary: { recommended: null, best_per_mtok: null, fastest: null },
    suggestions: [
      { format: "fp8", context: null, node: "8x-b", price_month_usd: 7000 },
      { format: "bf16", context: 2048, node: "8x-b", price_month_usd: 7000 },
    ],
  };
  const view = answerView(result, ctx);
  assert.equal(view.node, undefined);
  assert.equal(view.none_text, "No node holds Big in BF16. These changes make it fit:");
  const offered = suggestionViews(result, { t, f, gpuNames, formatNames: { fp8: "FP8", bf16: "BF16" } });
  assert.deepEqual(
    offered.map((s) => [s.format, s.context, s.node, s.text]),
    [
      ["fp8", "", "8x-b", "In FP8: 8 × Card B, $7,000/month"],
      ["bf16", "2048", "8x-b", "Context of 2,048 tokens: 8 × Card B, $7,000/month"],
    ],
  );
  assert.equal(announcement(view, t), "No node holds this model.");
  assert.equal(answerView({ ...result, suggestions: [] }, ctx).none_text, "No node holds Big in BF16.");
});

test("an image model's alternatives are priced by the L40S-hour, never per million tokens", () => {
  const img = (node, count, price, speed, hour) => ({
    node,
    gpu: "a",
    count,
    verdict: "single",
    price_month_usd: price,
    relative_speed: speed,
    usd_per_reference_hour: hour,
  });
  const result = {
    kind: "diffusion",
    model_name: "Image",
    rows: [img("1x-a", 1, 500, 1, 0.84), img("2x-a", 2, 1200, 2.5, 0.7)],
    summary: { recommended: "1x-a", best_per_mtok: "2x-a", fastest: "2x-a" },
  };
  const view = answerView(result, ctx);
  assert.equal(
    view.alt_best_per_mtok,
    "2 × Card A: $1,200/month ($700 more), $0.70 per L40S-hour, relative speed ×2.50",
  );
  assert.ok(!view.alt_fastest.includes("per million"));
  assert.equal(view.alt_best_per_mtok_label, "Best price per L40S-hour");
  assert.equal(answerView({ ...result, kind: "llm" }, ctx).alt_best_per_mtok_label, "Best price per million tokens");
});

// The slots of a card's markup, by name: {text, hidden (its figure or alternative's line)}.
function slotsOf(html) {
  const slots = {};
  for (const [, name, text] of html.matchAll(/data-slot="(\w+)">([^<]*)</g)) slots[name] = text;
  return slots;
}

test("the card's markup holds answerView's texts in its slots and hides the lines it leaves empty", () => {
  const result = {
    kind: "llm",
    model_name: "Model <b>",
    rows: [row("2x-a", "a", 2, 1000, 10, 5), row("4x-b", "b", 4, 3000, 40, 2)],
    summary: { recommended: "2x-a", best_per_mtok: "2x-a", fastest: "4x-b" },
  };
  const html = answerHtml(result, { ...ctx, model: "m", format: "bf16" });
  const slots = slotsOf(html);
  const view = answerView(result, ctx);
  for (const [name, text] of Object.entries(slots)) {
    if (name !== "pending") assert.equal(text, escapeHtml(view[name] || ""));
  }
  assert.ok(slots.question.includes("Model &lt;b&gt;")); // escaped, never read as markup
  assert.match(
    html,
    /<section class="configurator__answer" data-answer data-state="answer" data-model="m" data-format="bf16" data-context="8192" data-concurrency="20" data-min-speed="" data-max-ttft="" data-node="2x-a"/,
  );
  // The best per million is the recommended node itself: that line is hidden, the fastest shows.
  assert.match(html, /<li data-alt="best_per_mtok" hidden>/);
  assert.match(html, /<li data-alt="fastest">/);
  assert.match(html, /<div class="answer__none" data-slot-group="none" hidden>/);
  assert.doesNotMatch(html, /data-slot-group="found" hidden/);
});

test("when nothing fits, the card's markup shows the none line and the engine's changes as disabled buttons", () => {
  const result = {
    kind: "llm",
    model_name: "Big",
    rows: [row("8x-b", "b", 8, 7000, null, null, "none")],
    summary: { recommended: null, best_per_mtok: null, fastest: null },
    suggestions: [{ format: "fp8", context: null, node: "8x-b", price_month_usd: 7000 }],
  };
  const full = { ...ctx, formatNames: { fp8: "FP8" }, model: "big", format: "bf16" };
  const html = answerHtml(result, full);
  assert.match(html, /<div class="answer__found" data-slot-group="found" hidden>/);
  assert.equal(slotsOf(html).none_text, "No node holds Big in BF16. These changes make it fit:");
  assert.equal(
    suggestionsHtml(result, full),
    '<button type="button" class="md-button" data-suggestion data-needs-js disabled data-format="fp8" data-context="" ' +
      'data-concurrency="" data-min-speed="" data-max-ttft="" data-node="8x-b">In FP8: 8 × Card B, $7,000/month</button>',
  );
  assert.ok(html.includes(suggestionsHtml(result, full)));
});
