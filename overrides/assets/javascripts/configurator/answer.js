// The result card: its texts by slot, from an engine answer (an empty text hides its line), and
// its markup. The build runs answerHtml under Node (macros/render/node_render.py) for the page's first
// card; the widget then patches the slots with answerView's texts and writes the suggestions'
// buttons from suggestionViews.

import { escapeHtml, fill, users } from "./format.js";
import { REQUEST } from "./protocol.js";

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
        resolution: result.resolution || "", // written by the engine (written_resolution)
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
const SUGGESTION_KEYS = REQUEST.suggestion;

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

const raw = (v) => (v == null ? "" : String(v));
const kebab = (key) => key.replace(/_/g, "-");

// The suggestions' buttons as the build writes them (disabled until the script runs).
export function suggestionsHtml(result, ctx) {
  return suggestionViews(result, ctx)
    .map((s) => {
      const values = SUGGESTION_KEYS.map((key) => `data-${kebab(key)}="${escapeHtml(s[key])}"`).join(" ");
      return (
        `<button type="button" class="md-button" data-suggestion data-needs-js disabled ${values} ` +
        `data-node="${escapeHtml(s.node)}">${escapeHtml(s.text)}</button>`
      );
    })
    .join("");
}

// The whole card for an answer, as the build writes it; the widget patches its slots.
// ctx: answerView's and suggestionViews' {t, f, gpuNames, formatName, formatNames, workload},
// and `model`, the id the card names (data-model).
export function answerHtml(result, ctx) {
  const { t } = ctx;
  const view = answerView(result, ctx);
  const workload = result.workload || ctx.workload;
  const s = result.summary;
  const node = s.recommended || "";
  const slot = (name, tag = "span", cls = "") =>
    `<${tag}${cls ? ` class="${cls}"` : ""} data-slot="${name}">${escapeHtml(view[name] || "")}</${tag}>`;
  // Only the labels that change with the kind of model are slots.
  const figure = (name, label) =>
    `<div data-figure="${name}"${view[name] ? "" : " hidden"}>` +
    `<dt${`${name}_label` in view ? ` data-slot="${name}_label"` : ""}>${escapeHtml(label)}</dt>${slot(name, "dd")}</div>`;
  const alt = (key) => {
    const labelled = `alt_${key}_label` in view;
    const label = labelled ? view[`alt_${key}_label`] : t[`alt_${key}`];
    return (
      `<li data-alt="${key}"${view[`alt_${key}`] ? "" : " hidden"}>` +
      `<span class="answer__badge"${labelled ? ` data-slot="alt_${key}_label"` : ""}>${escapeHtml(label)}</span> ` +
      `${slot(`alt_${key}`)}</li>`
    );
  };
  const data = {
    state: "answer",
    model: ctx.model,
    format: ctx.format,
    context: workload.context,
    concurrency: workload.concurrency,
    min_speed: raw(workload.min_speed),
    max_ttft: raw(workload.max_ttft),
    node,
  };
  const attrs = Object.entries(data)
    .map(([key, value]) => `data-${kebab(key)}="${escapeHtml(value)}"`)
    .join(" ");
  return (
    `<section class="configurator__answer" data-answer ${attrs} aria-busy="false" ` +
    `data-fastest="${escapeHtml(s.fastest || "")}" data-best-per-mtok="${escapeHtml(s.best_per_mtok || "")}">` +
    `<progress class="answer__progress" data-progress max="1" value="0" aria-label="${escapeHtml(t.status_loading)}" hidden></progress>` +
    slot("question", "p", "answer__question") +
    '<p class="answer__pending" data-slot="pending"></p>' +
    `<div class="answer__found" data-slot-group="found"${node ? "" : " hidden"}>` +
    slot("title", "p", "answer__title") +
    `<p class="answer__node">${slot("node", "strong")} ${slot("node_id", "code")}</p>` +
    '<dl class="answer__figures">' +
    figure("price", t.fig_price) +
    figure("per_user", view.per_user_label) +
    figure("ttft", t.fig_ttft) +
    figure("per_mtok", view.per_mtok_label) +
    figure("per_mtok_out", t.fig_per_mtok_out) +
    figure("within", t.fig_within) +
    figure("band", t.fig_band) +
    "</dl>" +
    `<ul class="answer__alts">${alt("best_per_mtok")}${alt("fastest")}</ul>` +
    "</div>" +
    `<div class="answer__none" data-slot-group="none"${node ? " hidden" : ""}>${slot("none_text", "p")}` +
    `<div class="answer__suggestions" data-suggestions>${suggestionsHtml(result, ctx)}</div></div>` +
    '<p class="md-visually-hidden" data-announce aria-live="polite"></p>' +
    "</section>"
  );
}
