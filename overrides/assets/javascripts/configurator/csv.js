// The table as CSV: raw numbers, one row per node.

export const CSV_HEADER = [
  "node", "gpu", "verdict", "cards", "decode_tok_s_per_user", "decode_tok_s_total", "ttft_s", "meets_target",
  "max_users_at_target", "price_month_usd", "price_hour_usd", "usd_per_million_tokens_workload",
  "usd_per_million_output_tokens", "best_usd_per_million_output_tokens", "best_concurrency", "max_concurrency",
  "max_context", "reason",
];

export function quote(value) {
  const text = value == null ? "" : String(value);
  return /[",\n;]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(r) {
  return [
    r.node, r.gpu, r.verdict, r.cards_used ?? (r.verdict === "none" ? 0 : 1), r.decode_tok_s_per_user ?? r.relative_speed,
    r.decode_tok_s_total, r.ttft_s, r.meets_target, r.max_users_at_target, r.price_month_usd, r.price_hour_usd,
    r.usd_per_million_tokens_workload, r.usd_per_million_output_tokens, r.best_usd_per_million_output_tokens,
    r.best_concurrency, r.max_concurrency, r.max_context, r.reason_text,
  ];
}

export function toCsv(rows) {
  return [CSV_HEADER, ...rows].map((row) => row.map(quote).join(",")).join("\r\n") + "\r\n";
}
