// The configurator's answer as the build writes it into the page, from the modules the widget
// draws with: the build runs widgetMarkup under Node (macros/render/node_render.py), so the page's
// first card, table, chart and summary are these modules' output, numbers in Intl's formatting
// as the widget writes them afterwards. The widget never calls this module: it sits here, beside
// the renderer, and is not shipped with the site.

import { answerHtml, answerView, nodeName } from "../../overrides/assets/javascripts/configurator/answer.js";
import { chartHighlight, chartPoints, chartSvg } from "../../overrides/assets/javascripts/configurator/chart.js";
import { escapeHtml, fill, users } from "../../overrides/assets/javascripts/configurator/format.js";
import { COLUMNS } from "../../overrides/assets/javascripts/configurator/protocol.js";
import { answeredQuestion, introText } from "../../overrides/assets/javascripts/configurator/question.js";
import { defaultOrder } from "../../overrides/assets/javascripts/configurator/sort.js";
import { summaryView } from "../../overrides/assets/javascripts/configurator/summary.js";
import { tableHtml } from "../../overrides/assets/javascripts/configurator/table.js";

// The phone's summary of an answer (hidden from screen readers, which hear the card's live region).
export function summaryHtml(result, view, ctx) {
  const { t, f } = ctx;
  const w = result.workload || {};
  const concurrency = w.concurrency ?? ctx.defaults.concurrency;
  const s = summaryView(view, result, ctx);
  const target = s.target ? fill(s.target, { users: users(t, f, concurrency) }) : "";
  return (
    `<div class="configurator__summary" data-summary aria-hidden="true" data-look="${s.look}" ` +
    `data-node="${escapeHtml(result.summary.recommended || "")}" data-model="${escapeHtml(ctx.model)}" ` +
    `data-context="${escapeHtml(w.context ?? "")}" data-concurrency="${escapeHtml(concurrency)}">` +
    `<strong data-summary-node>${escapeHtml(s.node)}</strong> ` +
    `<span data-summary-figures>${escapeHtml(s.figures)}</span> ` +
    `<span class="summary__target" data-summary-target>${escapeHtml(target)}</span></div>`
  );
}

// Without JavaScript: which workload the build's answer is for (a static page cannot read its
// address, so a link's other values go unanswered).
export function noscriptText(result, ctx) {
  const { t, f } = ctx;
  const format = ctx.formatNames[ctx.format] || ctx.format;
  if (result.kind === "diffusion") {
    return fill(t.noscript_diffusion, {
      model: result.model_name,
      format,
      resolution: result.resolution || "", // written by the engine (written_resolution)
    });
  }
  const w = result.workload || ctx.defaults;
  return fill(t.noscript, {
    model: result.model_name,
    format,
    context: f.number(w.context, 0),
    users: users(t, f, w.concurrency),
  });
}

// The target's source under the form's target fields: the catalog's default target in words.
export function targetSource(t, f, defaults) {
  return fill(t.target_source, {
    tpot: `${f.brief(1000 / defaults.min_speed)}\u00a0ms`,
    speed: fill(t.tok_s, { value: f.brief(defaults.min_speed) }),
    ttft: fill(t.seconds, { value: f.brief(defaults.max_ttft) }),
  });
}

// Every piece of the widget that shows an answer, as HTML (text pieces escaped), for one answer.
// ctx: {t, f, locale, model, format (ids), formatNames, gpuNames, compact, width,
// defaults: {context, concurrency, input, output, min_speed, max_ttft}}, and columns (protocol.js's
// COLUMNS where left out).
export function widgetMarkup(result, ctx) {
  const { t, f, gpuNames, defaults } = ctx;
  const formatName = ctx.formatNames[ctx.format] || ctx.format;
  const workload = { context: defaults.context, concurrency: defaults.concurrency };
  const cardCtx = { ...ctx, formatName, workload };
  const view = answerView(result, cardCtx);
  const question = answeredQuestion(result, defaults, formatName, defaults);
  const folded = result.rows.filter((r) => r.verdict === "none").length;
  const named = defaultOrder(result.rows).map(([, r]) => [nodeName(t, r, gpuNames), r]);
  const points = ctx.compact ? [] : chartPoints(named, result.kind);
  const chart = points.length
    ? chartSvg(points, {
        width: ctx.width,
        t,
        f,
        diffusion: result.kind === "diffusion",
        highlight: chartHighlight(result.summary, t, result.kind === "diffusion"),
      })
    : "";
  return {
    intro: escapeHtml(introText(t, f, question)),
    summary: summaryHtml(result, view, ctx),
    target_source: escapeHtml(targetSource(t, f, defaults)),
    noscript: escapeHtml(noscriptText(result, ctx)),
    card: answerHtml(result, cardCtx),
    table: tableHtml(result, { columns: COLUMNS, ...ctx }),
    fold: escapeHtml(fill(t.show_none, { n: f.number(folded, 0) })),
    chart_question: escapeHtml(view.question),
    chart,
  };
}
