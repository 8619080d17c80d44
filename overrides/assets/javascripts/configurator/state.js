// The widget's state in the address bar: ?v=1&model=…&format=…&context=…&concurrency=…
// &min_speed=…&max_ttft=… (the target; + runtime, kv_cache, a forced layout's tensor_parallel,
// pipeline_parallel, expert_parallel, data_parallel, and custom= for a reader's own model, base64url JSON).

import { REQUEST } from "./protocol.js";

export const URL_VERSION = "1";
// The workload's numbers: whole (context, users) and decimal (the target), as the form holds them.
export const WHOLE_FIELDS = REQUEST.whole;
export const TARGET_FIELDS = REQUEST.target;
// Choices that change the engine's question beside the model and the workload (absent: the default).
export const OPTIONS = REQUEST.options;

export function encodeCustom(value) {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodeCustom(text) {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
}

// The query string for a request; a custom model longer than `customLimit` characters is left
// out (no link could carry it: the link then falls back to the default model, with a note).
export function queryFor(request, customLimit = Infinity) {
  const params = new URLSearchParams({ v: URL_VERSION, model: request.model || "custom", format: request.format });
  if (request.context !== undefined) params.set("context", request.context);
  if (request.concurrency !== undefined) params.set("concurrency", request.concurrency);
  for (const name of TARGET_FIELDS) if (request[name] !== undefined) params.set(name, request[name]);
  for (const name of OPTIONS) if (request[name]) params.set(name, request[name]);
  if (request.config || request.totals) {
    const custom = encodeCustom(request.config ? { config: request.config } : { totals: request.totals });
    if (custom.length <= customLimit) params.set("custom", custom);
  }
  return params.toString();
}

// A whole number within an input's own min and max, or null.
export function wholeIn(raw, min, max) {
  const text = String(raw).trim();
  if (!/^\d+$/.test(text)) return null;
  const value = Number(text);
  return value >= min && value <= max ? value : null;
}

// A decimal number (digits, one point or comma) within an input's own min and max, or null.
export function decimalIn(raw, min, max) {
  const text = String(raw).trim().replace(",", ".");
  if (!/^(\d{1,12}(\.\d{0,12})?|\.\d{1,12})$/.test(text)) return null;
  const value = Number(text);
  return value >= min && value <= max ? value : null;
}

// Whether an answer (the workload its card names) answers a request.
export function sameWorkload(workload, request) {
  if (!workload || !request) return false;
  return (
    (workload.model || "custom") === (request.model || "custom") &&
    workload.format === request.format &&
    String(workload.context) === String(request.context) &&
    String(workload.concurrency) === String(request.concurrency) &&
    TARGET_FIELDS.every((name) => String(workload[name] ?? "") === String(request[name] ?? ""))
  );
}
