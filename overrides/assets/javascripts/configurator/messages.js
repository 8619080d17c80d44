// The engine's refusals in the page's language: the engine returns a code and its parameters
// (macros/fitengine/errors.py), the words are the page's (macros/i18n/widget.py, err_<code>).

import { fill } from "./format.js";
import { ERROR_FIELDS, WORKER_ERRORS } from "./protocol.js";

export function engineMessage(out, t, f) {
  if (out.error === WORKER_ERRORS.internal) return t.status_error;
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

// The fields that hold a reader's own model: any refusal of a request carrying one is about it.
const CUSTOM = { config: (request) => Boolean(request.config), totals: (request) => Boolean(request.totals) };

// Which field a refusal is about (its message goes beside it), or null: the engine's list of
// codes and code prefixes by field (protocol.js ERROR_FIELDS); a custom model's go beside it.
export function fieldFor(out, request) {
  const code = out.code || "";
  for (const [field, { codes, prefixes }] of Object.entries(ERROR_FIELDS)) {
    if (codes.includes(code) || prefixes.some((prefix) => code.startsWith(prefix)) || CUSTOM[field]?.(request))
      return field;
  }
  return null;
}
