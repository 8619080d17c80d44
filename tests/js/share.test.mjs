// The link copied (or not) and the CSV named after its question.
import assert from "node:assert/strict";
import { test } from "node:test";

import { formatters } from "../../overrides/assets/javascripts/configurator/format.js";
import { copyText, csvDownload } from "../../overrides/assets/javascripts/configurator/share.js";

test("a clipboard that takes the text says so; one that refuses or never answers does not", async () => {
  const taken = [];
  assert.equal(await copyText({ writeText: async (text) => taken.push(text) }, "https://x/"), true);
  assert.deepEqual(taken, ["https://x/"]);
  assert.equal(await copyText(undefined, "https://x/"), false);
  assert.equal(await copyText({ writeText: () => Promise.reject(new Error("denied")) }, "https://x/"), false);
  assert.equal(await copyText({ writeText: () => new Promise(() => {}) }, "https://x/", 10), false);
});

test("the CSV's first lines are its question and its link, its name the question's", () => {
  const t = {
    csv_file: "configurator",
    intro: "{model} in {format}: {context} tokens, {users}, at least {speed}",
    users_one: "{n} user",
    users_many: "{n} users",
    tok_s: "{value} tok/s",
    seconds: "{value} s",
    csv_node: "node",
    csv_name: "name",
    csv_verdict: "verdict",
    csv_price_month: "price",
    csv_per_mtok: "per Mtok",
    csv_per_mtok_out: "per Mtok out",
    csv_per_user: "per user",
    csv_ttft: "ttft",
    csv_memory: "memory",
    csv_capacity: "capacity",
    csv_total: "total",
    csv_best_per_mtok: "best",
    csv_best_users: "best users",
    csv_max_users: "max users",
    csv_reason: "reason",
  };
  const result = { kind: "llm", rows: [] };
  const request = { model: "llama-3.3-70b", format: "bf16", context: 8192, concurrency: 4 };
  const question = {
    model: "Llama 3.3 70B",
    format: "BF16",
    context: 8192,
    concurrency: 4,
    input: 1024,
    output: 256,
    min_speed: 12.5,
    max_ttft: 2,
    diffusion: false,
  };
  const { name, text } = csvDownload(
    { result, rows: [], request, question, href: "https://x/?v=1" },
    { t, f: formatters("en"), gpuNames: {}, locale: "en" },
  );
  assert.equal(name, "configurator-llama-3.3-70b-bf16-ctx8192-users4.csv");
  const lines = text.replace(/^\ufeff/, "").split("\r\n");
  // One cell, quoted: it holds the separator.
  assert.equal(lines[0], '"Llama 3.3 70B in BF16: 8,192 tokens, 4 users, at least 12.5 tok/s"');
  assert.equal(lines[1], "https://x/?v=1");
  assert.match(lines[3], /^node,name,verdict,price/);
});
