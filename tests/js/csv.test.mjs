// The CSV a spreadsheet reads: the page's headers with their units, figures rounded as the table
// shows them in the locale's own decimal sign, the question first, the rows as given.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  csvColumns,
  csvFile,
  csvName,
  csvNumber,
  quote,
  separatorFor,
} from "../../overrides/assets/javascripts/configurator/csv.js";
import { VERDICT_WORDS } from "./verdict-words.mjs";

const t = {
  ...VERDICT_WORDS,
  mark_recommended: "recommended",
  mark_missed: "misses the target",
  text_encoders_card: "on the card",
  text_encoders_cpu: "on the CPU",
};
for (const key of [
  "node",
  "name",
  "verdict",
  "price_month",
  "per_mtok",
  "per_mtok_out",
  "per_user",
  "ttft",
  "memory",
  "capacity",
  "total",
  "best_per_mtok",
  "best_users",
  "max_users",
  "reason",
]) {
  t[`csv_${key}`] = `H ${key}`;
}
t.csv_per_user = "Speed per user (tok/s)";
t.csv_per_user_diffusion = "Relative speed (× L40S)";
const gpuNames = { h100: "H100" };
const row = (over) => ({
  node: "1x-h100",
  gpu: "h100",
  count: 1,
  verdict: "single",
  cards_used: 1,
  price_month_usd: 2190.4,
  usd_per_million_tokens_workload: 1.234,
  usd_per_million_output_tokens: 8.277866242621522,
  decode_tok_s_per_user: 15.349,
  ttft_s: 0.904,
  need_gb: 70.55,
  capacity_gb: 80,
  decode_tok_s_total: 122.79,
  best_usd_per_million_output_tokens: 0.515,
  best_concurrency: 64,
  max_users_at_target: 13,
  meets_target: true,
  recommended: true,
  reason_text: 'Fits, with room; "quoted"',
  ...over,
});

// An English file's lines as cells, its byte-order mark left out.
const englishCells = (text) =>
  text
    .slice(1)
    .trim()
    .split("\r\n")
    .map((l) => l.split(","));

test("each locale's separator: a comma's locale takes semicolons", () => {
  assert.equal(separatorFor("fr"), ";");
  assert.equal(separatorFor("en"), ",");
});

test("figures are rounded to the digits shown, in the locale's decimal sign, without grouping", () => {
  assert.equal(csvNumber(8.277866242621522, 2, "en"), "8.28");
  assert.equal(csvNumber(8.277866242621522, 2, "fr"), "8,28");
  assert.equal(csvNumber(2190.4, 0, "fr"), "2190");
  assert.equal(csvNumber(12345.67, 1, "en"), "12345.7");
  assert.equal(csvNumber(null, 2, "en"), "");
  assert.equal(csvNumber("", 2, "en"), "");
});

test("a cell holding the separator, a quote or a line break is quoted", () => {
  assert.equal(quote("a;b", ";"), '"a;b"');
  assert.equal(quote("a,b", ","), '"a,b"');
  assert.equal(quote('say "x"', ","), '"say ""x"""');
  assert.equal(quote("plain", ","), "plain");
});

test("the file: the question's lines, an empty line, the header, then the rows in the order given", () => {
  const rows = [
    row(),
    row({
      node: "2x-h100",
      count: 2,
      verdict: "split",
      cards_used: 2,
      tensor_parallel: 2,
      pipeline_parallel: 1,
      recommended: false,
      meets_target: false,
    }),
  ];
  const text = csvFile({
    lead: ["The question asked: Llama in BF16", "https://example.test/?v=1"],
    rows,
    t,
    kind: "llm",
    gpuNames,
    locale: "fr",
  });
  assert.ok(text.startsWith("\ufeff"), "a byte-order mark for spreadsheets");
  const lines = text.slice(1).split("\r\n");
  assert.equal(lines[0], "The question asked: Llama in BF16");
  assert.equal(lines[1], "https://example.test/?v=1");
  assert.equal(lines[2], "");
  const header = lines[3].split(";");
  assert.equal(header.length, csvColumns(t, "llm", gpuNames).length);
  assert.ok(header.includes("Speed per user (tok/s)"));
  const first = lines[4].split(";");
  const at = (name) => first[header.indexOf(name)];
  assert.equal(at("H node"), "1x-h100");
  assert.equal(at("H name"), "1 × H100");
  assert.equal(at("H verdict"), "one card · recommended");
  assert.equal(at("H price_month"), "2190");
  assert.equal(at("Speed per user (tok/s)"), "15,3");
  assert.equal(at("H ttft"), "0,90");
  assert.equal(at("H per_mtok_out"), "8,28");
  assert.equal(at("H best_users"), "64");
  assert.ok(lines[4].endsWith('"Fits, with room; ""quoted"""'));
  assert.equal(lines[5].split(";")[0], "2x-h100");
  assert.equal(lines[5].split(";")[2], "split · 2 cards, TP 2 × PP 1 · misses the target");
  assert.equal(lines.length, 7); // and the file ends with a line break
});

test("a node that does not fit has no speed, price per token or users", () => {
  const text = csvFile({
    rows: [
      row({ verdict: "none", recommended: false, decode_tok_s_per_user: null, usd_per_million_tokens_workload: null }),
    ],
    t,
    kind: "llm",
    gpuNames,
    locale: "en",
  });
  const [header, line] = englishCells(text);
  assert.equal(line[header.indexOf("Speed per user (tok/s)")], "");
  assert.equal(line[header.indexOf("H max_users")], "");
  assert.equal(line[header.indexOf("H price_month")], "2190");
});

test("an image model's file names its own columns", () => {
  const text = csvFile({
    rows: [row({ relative_speed: 1.956, usd_per_reference_hour: 1.5, offload_text_encoders: false })],
    t,
    kind: "diffusion",
    gpuNames,
    locale: "en",
  });
  const [header, line] = englishCells(text);
  assert.equal(line[header.indexOf("Relative speed (× L40S)")], "1.96");
  assert.equal(line[header.indexOf("H total")], "on the card");
  assert.ok(!header.includes("H best_users"));
});

test("the file's name carries the model, the format and the workload", () => {
  assert.equal(
    csvName("configurator", { model: "llama-3.3-70b", format: "bf16", context: 8192, concurrency: 20 }),
    "configurator-llama-3.3-70b-bf16-ctx8192-users20.csv",
  );
  assert.equal(
    csvName("configurateur", { format: "bf16", context: 4096, concurrency: 1 }),
    "configurateur-custom-bf16-ctx4096-users1.csv",
  );
  assert.equal(
    csvName("configurator", { model: "flux.1-dev", format: "bf16", diffusion: true, context: 1, concurrency: 1 }),
    "configurator-flux.1-dev-bf16.csv",
  );
});

test("each of the table's figures is written in the file with the decimals the table shows it with", async () => {
  const { formatters } = await import("../../overrides/assets/javascripts/configurator/format.js");
  const { rowTexts } = await import("../../overrides/assets/javascripts/configurator/table.js");
  const f = formatters("en");
  const r = row({});
  const table = rowTexts(r, "llm", { ...t, best_at: "{price} at {users}", users_many: "{n} users" }, f);
  const file = englishCells(csvFile({ rows: [r], t, kind: "llm", gpuNames, locale: "en" }));
  const header = file[0];
  const cell = (key) => file[1][header.indexOf(`H ${key}`)] ?? file[1][header.indexOf(t[`csv_${key}`])];
  // The decimals after the point, in the table's text and in the file's cell.
  const decimals = (text) => (String(text).match(/\.(\d+)/) || ["", ""])[1].length;
  for (const id of ["per_mtok", "per_user", "ttft", "total", "max_users", "price_month"]) {
    assert.equal(decimals(cell(id)), decimals(table[id]), id);
  }
  assert.equal(decimals(cell("best_per_mtok")), decimals(table.best_per_mtok.split(" at ")[0]));
});
