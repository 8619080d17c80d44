// The site's own browser modules, run under Node for the build: `node macros/render/node_render.mjs`,
// started once per build process by macros/render/node_render.py. Reads one request a line on stdin,
// {op, locale, ...}, and writes one line of JSON for each, {ok} or {error}. Numbers are written
// by the browser's formatting (configurator/format.js: Intl.NumberFormat, Node's full ICU).
//
// ops:
//   widget {locale, result, ctx} -> {intro, summary, target_source, noscript, card, table, fold,
//     chart_question, chart}: the configurator's pieces for one answer (markup.mjs).

import { createInterface } from "node:readline";
import { formatters } from "../../overrides/assets/javascripts/configurator/format.js";
import { widgetMarkup } from "./markup.mjs";

const byLocale = new Map();
function f(locale) {
  if (typeof locale !== "string" || !locale) throw new TypeError(`locale: expected a locale's code, got ${locale}`);
  if (!byLocale.has(locale)) byLocale.set(locale, formatters(locale));
  return byLocale.get(locale);
}

const OPS = {
  widget: ({ locale, result, ctx }) => widgetMarkup(result, { ...ctx, locale, f: f(locale) }),
};

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  let out;
  try {
    const request = JSON.parse(line);
    const op = OPS[request.op];
    if (!op) throw new TypeError(`op: ${JSON.stringify(request.op)} is none of ${Object.keys(OPS).join(", ")}`);
    out = { ok: op(request) };
  } catch (error) {
    out = { error: String(error?.stack || error) };
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
