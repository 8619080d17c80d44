// The link: what a shared address asks of the widget (the fields it sets, the table's view, and
// a note for each value it could not keep), and the address of the question asked last.

import { customProblem } from "../input-bounds.js";
import { fill } from "./format.js";
import { LIMITS, REQUEST, TOTALS_FIELDS } from "./protocol.js";
import { decodeCustom, queryFor, URL_VERSION } from "./state.js";
import { readView, viewParams } from "./view-state.js";

// `params`: the address's URLSearchParams; `page`: what the form offers, {t, f, models, formats
// (the catalog's ids), native: {model: its published format}, modelNames and formatNames: {id:
// what its option reads}, chosen: {model, format} (the form's values now), offered: {select's name: [values]}
// for the filters and the options, columns, defaultModel}.
// Returns null when the address asks nothing the widget reads (no parameter, another version:
// the default always answers), else {view, fields: {name: value, in the order to set}, notes}.
export function readLink(params, page) {
  if (![...params.keys()].length) return null;
  if ((params.get("v") || URL_VERSION) !== URL_VERSION) return null;
  const { t, f } = page;
  const notes = [];
  const fields = {};
  const chosen = { ...page.chosen };
  const fallback = (value, names, shown) => notes.push(fill(t.fallback, { value, default: names[shown] ?? shown }));
  const model = params.get("model");
  if (model !== null) {
    if (page.models.includes(model) || (model === "custom" && params.get("custom")))
      fields.model = chosen.model = model;
    else fallback(model, page.modelNames, chosen.model);
  }
  // A catalog model starts in its published format, unless the link names one.
  const native = model !== null && page.models.includes(model) ? page.native[model] : undefined;
  if (native && page.formats.includes(native)) fields.format = chosen.format = native;
  const format = params.get("format");
  if (format !== null) {
    if (page.formats.includes(format)) fields.format = format;
    else fallback(format, page.formatNames, chosen.format);
  }
  for (const name of [...REQUEST.whole, ...REQUEST.target]) {
    if (params.get(name) !== null) fields[name] = params.get(name);
  }
  for (const name of REQUEST.options) {
    const value = params.get(name);
    if (value !== null && (page.offered[name] || []).includes(value)) fields[name] = value;
  }
  if (model === "custom") {
    try {
      Object.assign(fields, customFields(params.get("custom") || "", t, f));
    } catch (error) {
      notes.push(error?.note ? error.note : fill(t.bad_json, { detail: "custom" }));
      fields.model = page.defaultModel; // the default always answers
    }
  }
  return { view: readView(params, page.offered, page.columns), fields, notes };
}

// The fields a link's custom model fills: its config.json, or its totals. Throws {note} when the
// engine's bounds refuse it, or an error when it is not base64url JSON.
function customFields(carried, t, f) {
  const number = (n) => f.number(n, 0);
  if (carried.length > LIMITS.custom_link) {
    throw { note: fill(t.custom_too_big, { size: number(carried.length), max: number(LIMITS.custom_link) }) };
  }
  const custom = decodeCustom(carried);
  const problem = customProblem(custom, LIMITS.custom_depth, LIMITS.custom_chars);
  if (problem) throw { note: fill(t[problem.code], problem) };
  const fields = {};
  if (custom && typeof custom === "object") {
    if (custom.config) fields.config = JSON.stringify(custom.config, null, 1);
    for (const key of TOTALS_FIELDS) {
      if (custom.totals && custom.totals[key] !== undefined) fields[key] = String(custom.totals[key]);
    }
  }
  return fields;
}

// The address's query for the question asked last and the table's view (filters, sort), the
// default view writing nothing; a custom model too long for a link is left out of it.
export function linkSearch(request, filters, sort, defaultSort) {
  const view = viewParams(filters, sort, defaultSort)
    .map(([k, v]) => `&${k}=${encodeURIComponent(v)}`)
    .join("");
  return `?${queryFor(request, LIMITS.custom_link)}${view}`;
}
