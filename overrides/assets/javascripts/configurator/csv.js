// The table as a CSV file a spreadsheet reads in the page's language: the question first (the
// workload and its target, and the link that asks it again), then one column per quantity with
// its unit in the header, the values rounded as the table shows them and written with the
// locale's decimal sign, the rows the reader kept (filters) in the reader's order (sort).

import { nodeName } from "./answer.js";
import { COLUMNS } from "./protocol.js";
import { digitsOf, verdictText } from "./table.js";

// A table column's figure for a row: the answer's field the engine names for it (protocol.js
// COLUMNS, the table's columns), for a kind of model.
function figure(id, diffusion) {
  const column = COLUMNS.find((c) => c.id === id);
  const key = diffusion ? column.key_diffusion : column.key;
  return (r) => r[key];
}

// French spreadsheets read a decimal comma and take ";" between cells; English ones "," and ".".
export function separatorFor(locale) {
  return new Intl.NumberFormat(locale).format(1.5).includes(",") ? ";" : ",";
}

export function quote(value, sep = ",") {
  const text = value == null ? "" : String(value);
  return text.includes(sep) || /["\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

// A figure rounded as the table shows it, without grouping (a spreadsheet reads "8192", not "8 192").
export function csvNumber(value, digits, locale) {
  if (value == null || value === "" || !Number.isFinite(Number(value))) return "";
  return new Intl.NumberFormat(locale, {
    useGrouping: false,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(Number(value));
}

// The file's columns for a kind of model: [{header, value(r) -> raw number or text, digits}]
// (digits: how many the table shows; a text column has none). Headers are the page's words
// (csv_<column>, the image models' own where they name the column otherwise).
export function csvColumns(t, kind, gpuNames) {
  const diffusion = kind === "diffusion";
  const h = (key) => (diffusion && t[`csv_${key}_diffusion`]) || t[`csv_${key}`];
  const fits = (r) => r.verdict !== "none";
  const shown = (id) => figure(id, diffusion);
  // The figures of a node that holds the model (the table shows none for one that does not).
  const ifFits = (id) => (r) => (fits(r) ? shown(id)(r) : null);
  // The table's columns are written with the table's decimals; the file's own (capacity, the
  // price per output token, the cheapest load's users) as the columns they sit beside.
  const d = (id) => digitsOf(id, kind);
  const columns = [
    { header: h("node"), value: (r) => r.node },
    { header: h("name"), value: (r) => nodeName(t, r, gpuNames) },
    { header: h("verdict"), value: (r) => verdictText(r, kind, t) },
    { header: h("price_month"), value: shown("price_month"), digits: d("price_month") },
  ];
  if (diffusion) {
    columns.push(
      { header: h("per_mtok"), value: shown("per_mtok"), digits: d("per_mtok") },
      { header: h("per_user"), value: shown("per_user"), digits: d("per_user") },
      { header: h("ttft"), value: (r) => (fits(r) ? r.count : null), digits: d("ttft") },
      { header: h("memory"), value: shown("memory"), digits: d("memory") },
      { header: h("capacity"), value: (r) => r.capacity_gb, digits: d("memory") },
      {
        header: h("total"),
        value: (r) => (fits(r) ? (r.offload_text_encoders ? t.text_encoders_cpu : t.text_encoders_card) : ""),
      },
    );
  } else {
    const best = shown("best_per_mtok");
    columns.push(
      { header: h("per_mtok"), value: ifFits("per_mtok"), digits: d("per_mtok") },
      {
        header: h("per_mtok_out"),
        value: (r) => (fits(r) ? r.usd_per_million_output_tokens : null),
        digits: d("per_mtok"),
      },
      { header: h("per_user"), value: ifFits("per_user"), digits: d("per_user") },
      { header: h("ttft"), value: ifFits("ttft"), digits: d("ttft") },
      { header: h("memory"), value: shown("memory"), digits: d("memory") },
      { header: h("capacity"), value: (r) => r.capacity_gb, digits: d("memory") },
      { header: h("total"), value: ifFits("total"), digits: d("total") },
      { header: h("best_per_mtok"), value: best, digits: d("best_per_mtok") },
      { header: h("best_users"), value: (r) => (best(r) == null ? null : r.best_concurrency), digits: d("max_users") },
      { header: h("max_users"), value: ifFits("max_users"), digits: d("max_users") },
    );
  }
  columns.push({ header: h("reason"), value: (r) => r.reason_text });
  return columns;
}

// The whole file: `lead` lines first (each one cell: the question, the link), an empty line,
// the header, then `rows` (engine rows, in the order to write). A byte-order mark first, so
// that a spreadsheet reads the accents as UTF-8.
export function csvFile({ lead = [], rows, t, kind, gpuNames, locale }) {
  const sep = separatorFor(locale);
  const columns = csvColumns(t, kind, gpuNames);
  const line = (cells) => cells.map((cell) => quote(cell, sep)).join(sep);
  const body = rows.map((r) =>
    line(columns.map((c) => (c.digits === undefined ? (c.value(r) ?? "") : csvNumber(c.value(r), c.digits, locale)))),
  );
  const lines = [
    ...lead.map((text) => line([text])),
    ...(lead.length ? [""] : []),
    line(columns.map((c) => c.header)),
    ...body,
  ];
  return `\ufeff${lines.join("\r\n")}\r\n`;
}

// The file's name: the model, its format and the workload's numbers, so two downloads of two
// questions do not take each other's name.
export function csvName(prefix, request) {
  const parts = [prefix, request.model || "custom", request.format];
  if (request.context != null && request.concurrency != null && !request.diffusion)
    parts.push(`ctx${request.context}`, `users${request.concurrency}`);
  return `${parts.join("-").replace(/[^\w.-]+/g, "_")}.csv`;
}
