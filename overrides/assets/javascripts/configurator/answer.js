// The result card's texts by slot, from an engine answer: what answerView in
// macros/configurator_html.py (answer_view) writes at build time, so the widget only patches
// the texts of the card the build wrote. An empty text hides its line.

import { fill, users } from "./format.js";

// "4 × NVIDIA H100 NVL": a node by its cards.
export function nodeName(t, row, gpuNames) {
  return fill(t.node_name, { count: row.count, gpu: gpuNames[row.gpu] || row.gpu });
}

// ctx: {t, f, gpuNames, formatName, workload: {context, concurrency}}
export function answerView(result, ctx) {
  const { t, f, gpuNames } = ctx;
  const rows = new Map(result.rows.map((r) => [r.node, r]));
  const s = result.summary;
  const diffusion = result.kind === "diffusion";
  const workload = result.workload || ctx.workload;
  const view = {
    question: fill(t.answer_question, {
      model: result.model_name,
      format: ctx.formatName,
      context: f.number(workload.context, 0),
      users: users(t, f, workload.concurrency),
    }),
    per_user_label: diffusion ? t.fig_per_user_diffusion : t.fig_per_user,
    per_mtok_label: diffusion ? t.fig_per_mtok_diffusion : t.fig_per_mtok,
  };
  const speed = (r) => {
    if (diffusion) return r.relative_speed == null ? "" : `×${f.number(r.relative_speed, 2)}`;
    return fill(t.tok_s, { value: f.number(r.decode_tok_s_per_user, 1) });
  };
  const perUnit = (r) => {
    const value = diffusion ? r.usd_per_reference_hour : r.usd_per_million_output_tokens;
    return value == null ? "" : f.usd(value, true);
  };
  const best = s.recommended ? rows.get(s.recommended) : null;
  if (!best) {
    view.none_text = fill(result.suggestions && result.suggestions.length ? t.nothing_fits : t.nothing_at_all, {
      model: result.model_name,
      format: ctx.formatName,
    });
    return view;
  }
  Object.assign(view, {
    node: nodeName(t, best, gpuNames),
    node_id: best.node,
    price: f.usd(best.price_month_usd, false) + t.per_month,
    per_user: speed(best),
    ttft: diffusion ? "" : fill(t.seconds, { value: f.number(best.ttft_s, 2) }),
    per_mtok: perUnit(best),
  });
  for (const key of ["best_per_mtok", "fastest"]) {
    const alt = s[key] ? rows.get(s[key]) : null;
    if (!alt || alt.node === best.node) {
      view["alt_" + key] = "";
      continue;
    }
    view["alt_" + key] = fill(t.alt_text, {
      node: nodeName(t, alt, gpuNames),
      price: f.usd(alt.price_month_usd, false),
      extra: f.usd(alt.price_month_usd - best.price_month_usd, false),
      per_mtok: perUnit(alt),
      per_user: speed(alt),
    });
  }
  return view;
}

// The offered changes when nothing fits: [{format, context, node, text}].
export function suggestionViews(result, ctx) {
  const { t, f, gpuNames, formatNames } = ctx;
  const nodes = new Map(result.rows.map((r) => [r.node, r]));
  return (result.suggestions || []).map((s) => {
    const node = nodes.get(s.node);
    const name = node ? fill(t.node_name, { count: node.count, gpu: gpuNames[node.gpu] || node.gpu }) : s.node;
    const price = f.usd(s.price_month_usd, false);
    const text =
      s.context == null
        ? fill(t.suggest_format, { format: formatNames[s.format] || s.format, node: name, price })
        : fill(t.suggest_context, { context: f.number(s.context, 0), node: name, price });
    return { format: s.format, context: s.context == null ? "" : String(s.context), node: s.node, text };
  });
}

// The short sentence the live region reads once an answer is shown.
export function announcement(view, t) {
  return view.node ? fill(t.announce, { node: view.node, price: view.price.replace(t.per_month, "") }) : t.announce_none;
}
