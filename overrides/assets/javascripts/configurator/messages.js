// The engine's refusals in the page's language: the engine returns a code and its parameters
// (macros/fitengine/errors.py), the words are the page's (macros/i18n.py, err_<code>).

import { fill } from "./format.js";

export function engineMessage(out, t, f) {
  if (out.error === "internal") return t.status_error;
  const template = out.code ? t[`err_${out.code}`] : undefined;
  if (!template) return out.error; // a refusal the page has no words for yet: the engine's own
  const values = {};
  for (const [key, value] of Object.entries(out.params || {})) {
    if (typeof value === "number") values[key] = f.number(value, Number.isInteger(value) ? 0 : 2);
    else if (Array.isArray(value))
      values[key] = value.map((name) => t[name] || name).join(", "); // the fields' own labels
    else if (key === "key" && !out.code.startsWith("config_")) values[key] = t[value] || value;
    else values[key] = value;
  }
  return fill(template, values);
}

// Which field a refusal is about (its message goes beside it), or null.
export function fieldFor(out, request) {
  const code = out.code || "";
  if (code.startsWith("config_") || request.config) return "config";
  if (code === "missing_totals" || code === "totals_positive" || code === "active_exceeds_total" || request.totals)
    return "totals";
  if (code === "context_too_long" || code === "request_exceeds_context") return "context";
  if (code === "concurrency_range") return "concurrency";
  if (code === "runtime_format" || code === "unknown_runtime") return "runtime";
  if (code.startsWith("kv_cache")) return "kv_cache";
  if (code.startsWith("layout_") || code === "parallel_range" || code.startsWith("expert_parallel_")) return "layout";
  return null;
}
