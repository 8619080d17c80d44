// The result card's texts by slot, from an engine answer: what answerView in
// macros/configurator_html.py (answer_view) writes at build time, so the widget only patches
// the texts of the card the build wrote. An empty text hides its line.

import { fill, resolutionText, users } from "./format.js";

// "4 × NVIDIA H100 NVL": a node by its cards.
export function nodeName(t, row, gpuNames) {
  return fill(t.node_name, { count: row.count, gpu: gpuNames[row.gpu] || row.gpu });
}

// The target a workload sets, in the card's words.
export function targetText(t, f, workload) {
  return fill(t.answer_target, {
    speed: fill(t.tok_s, { value: f.brief(workload.min_speed) }),
    ttft: fill(t.seconds, { value: f.brief(workload.max_ttft) }),
  });
}

// How far measured points were from a row's figures (empty without a band).
export function bandText(t, f, r) {
  if (!r.speed_band || !r.ttft_band) return "";
  const text = fill(t.band_text, {
    speed_lo: f.number(r.speed_band[0], 2),
    speed_hi: f.number(r.speed_band[1], 2),
    ttft_lo: f.number(r.ttft_band[0], 2),
    ttft_hi: f.number(r.ttft_band[1], 2),
  });
  return r.band_covered ? text : text + t.band_outside;
}

// ctx: {t, f, gpuNames, formatName, workload: {context, concurrency, min_speed, max_ttft}}
export function answerView(result, ctx) {
  const { t, f, gpuNames } = ctx;
  const rows = new Map(result.rows.map((r) => [r.node, r]));
  const s = result.summary;
  const diffusion = result.kind === "diffusion";
  const workload = result.workload || ctx.workload;
  let question = diffusion
    ? fill(t.answer_question_diffusion, {
        model: result.model_name,
        format: ctx.formatName,
        resolution: resolutionText(result.resolution || ""),
      })
    : fill(t.answer_question, {
        model: result.model_name,
        format: ctx.formatName,
        context: f.number(workload.context, 0),
        users: users(t, f, workload.concurrency),
      });
  if (!diffusion && workload.min_speed != null) question += ` · ${targetText(t, f, workload)}`;
  const view = {
    question,
    title: diffusion ? t.answer_title_diffusion : t.answer_title,
    per_user_label: diffusion ? t.fig_per_user_diffusion : t.fig_per_user,
    per_mtok_label: diffusion ? t.fig_per_mtok_diffusion : t.fig_per_mtok,
    alt_best_per_mtok_label: diffusion ? t.alt_best_per_mtok_diffusion : t.alt_best_per_mtok,
  };
  const speed = (r) => {
    if (diffusion) return r.relative_speed == null ? "" : `×${f.number(r.relative_speed, 2)}`;
    return fill(t.tok_s, { value: f.number(r.decode_tok_s_per_user, 1) });
  };
  const perUnit = (r) => {
    const value = diffusion ? r.usd_per_reference_hour : r.usd_per_million_tokens_workload;
    return value == null ? "" : f.usd(value, true);
  };
  const best = s.recommended ? rows.get(s.recommended) : null;
  if (!best) {
    const closest = s.closest ? rows.get(s.closest) : null;
    view.none_text =
      closest && !diffusion
        ? fill(t.nothing_meets, {
            users: users(t, f, workload.concurrency),
            node: nodeName(t, closest, gpuNames),
            speed: speed(closest),
            ttft: fill(t.seconds, { value: f.number(closest.ttft_s, 2) }),
          })
        : fill(result.suggestions?.length ? t.nothing_fits : t.nothing_at_all, {
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
    per_mtok_out:
      diffusion || best.usd_per_million_output_tokens == null ? "" : f.usd(best.usd_per_million_output_tokens, true),
    within: diffusion ? "" : fill(t.within_text, { users: users(t, f, best.max_users_at_target) }),
    band: diffusion ? "" : bandText(t, f, best),
  });
  for (const key of ["best_per_mtok", "fastest"]) {
    const alt = s[key] ? rows.get(s[key]) : null;
    if (!alt || alt.node === best.node) {
      view[`alt_${key}`] = "";
      continue;
    }
    view[`alt_${key}`] = fill(diffusion ? t.alt_text_diffusion : t.alt_text, {
      node: nodeName(t, alt, gpuNames),
      price: f.usd(alt.price_month_usd, false),
      extra: f.usd(alt.price_month_usd - best.price_month_usd, false),
      per_mtok: perUnit(alt),
      per_user: speed(alt),
    });
  }
  return view;
}

// The offered changes when nothing is recommended: [{format, context, concurrency, min_speed,
// max_ttft, node, text}], each value a field's text ("" where the change leaves the field as it is).
export const SUGGESTION_KEYS = ["format", "context", "concurrency", "min_speed", "max_ttft"];

export function suggestionViews(result, ctx) {
  const { t, f, gpuNames, formatNames } = ctx;
  const nodes = new Map(result.rows.map((r) => [r.node, r]));
  const workload = result.workload || {};
  return (result.suggestions || []).map((s) => {
    const node = nodes.get(s.node);
    const name = node ? fill(t.node_name, { count: node.count, gpu: gpuNames[node.gpu] || node.gpu }) : s.node;
    const price = f.usd(s.price_month_usd, false);
    let text;
    if (s.concurrency) {
      text = fill(t.suggest_users, { users: users(t, f, s.concurrency), node: name, price });
    } else if (s.min_speed || s.max_ttft) {
      text = fill(t.suggest_target, {
        speed: fill(t.tok_s, { value: f.brief(s.min_speed || workload.min_speed) }),
        ttft: fill(t.seconds, { value: f.brief(s.max_ttft || workload.max_ttft) }),
        node: name,
        price,
      });
    } else if (s.context == null) {
      text = fill(t.suggest_format, { format: formatNames[s.format] || s.format, node: name, price });
    } else {
      text = fill(t.suggest_context, { context: f.number(s.context, 0), node: name, price });
    }
    const view = { node: s.node, text };
    for (const key of SUGGESTION_KEYS) view[key] = s[key] == null ? "" : String(s[key]);
    return view;
  });
}

// The short sentence the live region reads once an answer is shown.
export function announcement(view, t) {
  return view.node
    ? fill(t.announce, { node: view.node, price: view.price.replace(t.per_month, "") })
    : t.announce_none;
}
