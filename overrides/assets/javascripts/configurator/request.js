// The request the form describes, checked before anything is sent to the engine: whole numbers
// and the target within the form's own limits, a reader's own model within the engine's bounds
// (protocol.js LIMITS) and readable as JSON. Pure: the form's values come in as text
// (form.js reads them), the request and the message for each field go out.

import { customProblem } from "../input-bounds.js";
import { fill } from "./format.js";
import { LIMITS, REQUEST, TOTALS_FIELDS } from "./protocol.js";
import { decimalIn, wholeIn } from "./state.js";

// The fields that hold a reader's own model: a pasted config.json, or its totals.
export const CUSTOM_FIELDS = ["config", ...TOTALS_FIELDS];
// The fields whose message is cleared on every reading (those above them are set one by one).
const CLEARED = ["config", "totals", "runtime", "kv_cache", "layout"];
// Totals typed in billions of parameters; the engine counts parameters.
const BILLIONS = new Set(["total", "active"]);

export function hasCustomInput(values) {
  return CUSTOM_FIELDS.some((key) => String(values[key] ?? "").trim() !== "");
}

// A refusal before anything is sent: the message beside the field, and the number of the limit.
function tooBig(t, f, size, max) {
  return fill(t.custom_too_big, { size: f.number(size, 0), max: f.number(max, 0) });
}

// `values`: {name: text} of the form's fields; `ctx`: {diffusion (an image or video model is
// chosen), bounds: {name: {min, max}} (the inputs' own), defaults: {context, concurrency}, t, f}.
// Returns {request (null when a field stops it), errors: {field: message, "" to clear it}}.
export function readRequest(values, { diffusion, bounds, defaults, t, f }) {
  let ok = true;
  const errors = {};
  const request = { format: values.format };
  // An image or video model has no context, users, runtime, KV cache or layout to choose: those
  // fields are hidden while it is chosen, and ignored (what they hold never blocks its answer).
  for (const name of REQUEST.whole) {
    const { min, max } = bounds[name];
    const value = wholeIn(values[name], min, max);
    if (value === null && diffusion) {
      errors[name] = "";
      request[name] = defaults[name];
    } else if (value === null) {
      errors[name] = t.out_of_range.replace("{min}", f.number(min, 0)).replace("{max}", f.number(max, 0));
      ok = false;
    } else {
      errors[name] = "";
      request[name] = value;
    }
  }
  // Nor a target: its fields are ignored too.
  for (const name of diffusion ? [] : REQUEST.target) {
    const { min, max } = bounds[name];
    const value = decimalIn(values[name], min, max);
    if (value === null) {
      errors[name] = fill(t.out_of_range_decimal, { min: f.brief(min), max: f.brief(max) });
      ok = false;
    } else {
      errors[name] = "";
      request[name] = value;
    }
  }
  for (const name of REQUEST.options) {
    const value = values[name] || "";
    if (value && value !== "auto" && !diffusion) request[name] = value;
  }
  for (const name of CLEARED) errors[name] = "";
  if (values.model !== "custom") {
    request.model = values.model;
    return { request: ok ? request : null, errors };
  }
  const text = String(values.config ?? "").trim();
  if (!hasCustomInput(values)) {
    ok = false; // nothing typed yet: help, not an error
  } else if (text.length > LIMITS.custom_chars) {
    // Refused before it is parsed, sent or put in the address bar.
    errors.config = tooBig(t, f, text.length, LIMITS.custom_chars);
    ok = false;
  } else if (text) {
    try {
      request.config = JSON.parse(text);
      const problem = customProblem(request.config, LIMITS.custom_depth, LIMITS.custom_chars);
      if (problem) {
        errors.config = fill(t[problem.code], problem);
        ok = false;
      }
    } catch (error) {
      errors.config = fill(t.bad_json, { detail: String(error.message).slice(0, 120) });
      ok = false;
    }
  } else {
    const totals = {};
    for (const key of TOTALS_FIELDS) {
      const raw = String(values[key] ?? "")
        .trim()
        .replace(",", ".");
      const value = Number(raw);
      if (raw !== "" && !Number.isFinite(value)) {
        errors.totals = fill(t.custom_not_finite, { key: t[key], value: raw.slice(0, 40) });
        ok = false;
      }
      totals[key] = raw === "" || !Number.isFinite(value) ? null : BILLIONS.has(key) ? value * 1e9 : value;
    }
    request.totals = totals;
  }
  return { request: ok ? request : null, errors };
}

// Whether a request asks the build's own question for its model and format: the default
// workload and target (`defaults`: the widget's data-default-* as written), nothing forced.
export function isDefaultWorkload(request, defaults) {
  return Boolean(
    request.model &&
      REQUEST.options.every((name) => !request[name]) &&
      String(request.context) === defaults.defaultContext &&
      String(request.concurrency) === defaults.defaultConcurrency &&
      // The target's defaults (an image model sends none).
      (request.min_speed === undefined || String(request.min_speed) === defaults.defaultMinSpeed) &&
      (request.max_ttft === undefined || String(request.max_ttft) === defaults.defaultMaxTtft),
  );
}
