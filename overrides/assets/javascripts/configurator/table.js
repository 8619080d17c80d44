// The table's rows: what each cell shows and what each row carries for sorting, filtering and
// the chart. The one writer of the table's markup: the build runs tableHtml under Node
// (macros/render/node_render.py) for the page's first table, and the widget writes whole rows with
// rowHtml when the nodes change, patching cells in place otherwise.
// The columns are the engine's (fitengine.api.TABLE_COLUMNS, carried by protocol.js's COLUMNS):
// `columns` is that list, [{id, sort: "text" | "number", key, key_diffusion}].

import { nodeName } from "./answer.js";
import { escapeHtml, fill, users } from "./format.js";
import { COLUMNS } from "./protocol.js";
import { defaultOrder } from "./sort.js";

// A column's name for a kind of model (image models name some columns otherwise).
export function columnLabel(t, col, kind) {
  return kind === "diffusion" && t[`col_${col}_diffusion`] ? t[`col_${col}_diffusion`] : t[`col_${col}`];
}

// A column that says nothing for a kind of model (an image model's users and price per token):
// its header shows a dash, with no sort button a screen reader would name "Sort by —".
export const VOID_LABEL = "—";

// A column's help (its header's title) for a kind of model ("" where it has none).
export function columnHelp(t, col, kind) {
  return (kind === "diffusion" ? t[`col_help_${col}_diffusion`] : t[`col_help_${col}`]) || "";
}

// A right-aligned figure: every number column but the memory bar.
export const isFigure = (column) => column.sort === "number" && column.id !== "memory";
const camel = (col) => `v${col.replace(/(^|_)(\w)/g, (_, __, c) => c.toUpperCase())}`;
const raw = (v) => (v == null ? "" : String(v));

// What a row carries as data attributes (dataset names), all raw numbers or ids.
export function rowData(r, kind, order, columns) {
  const diffusion = kind === "diffusion";
  const data = {
    node: r.node,
    verdict: r.verdict,
    cards: String(diffusion ? (r.verdict !== "none" ? 1 : 0) : r.cards_used),
    tokS: raw(diffusion ? r.relative_speed : r.decode_tok_s_per_user),
    priceMonth: raw(r.price_month_usd),
    gpu: r.gpu,
    link: r.link_class,
    target: targetLook(r),
  };
  if (order !== undefined) data.order = String(order);
  for (const column of columns) {
    if (column.sort !== "number") continue;
    const key = diffusion ? column.key_diffusion : column.key;
    data[camel(column.id)] = key ? raw(r[key]) : "";
  }
  return data;
}

// The texts of the cells that can change for a node, by column (the node cell never does; the
// memory cell is the bar).
// A row's verdict as its cell says it: how it fits (the layout of a split) and, against the
// target, whether it is the recommended node or misses the target.
export function verdictText(r, kind, t) {
  let verdict = t[r.verdict];
  if (kind === "diffusion") return verdict;
  if (r.verdict === "split") {
    const dp = r.data_parallel || 1; // data-parallel attention: its ranks x their tensor parallel
    const layout =
      dp > 1
        ? fill(t.layout_ranks, { cards: r.cards_used, dp, tp: r.tensor_parallel })
        : fill(t.layout, { cards: r.cards_used, tp: r.tensor_parallel, pp: r.pipeline_parallel });
    verdict += ` · ${layout}`;
  }
  if (r.recommended) verdict += ` · ${t.mark_recommended}`;
  else if (r.verdict !== "none" && !r.meets_target) verdict += ` · ${t.mark_missed}`;
  return verdict;
}

// The decimals a column's figure is written with, for a kind of model (protocol.js COLUMNS,
// which the CSV file reads too).
export function digitsOf(id, kind) {
  const column = COLUMNS.find((c) => c.id === id);
  return kind === "diffusion" ? column.digits_diffusion : column.digits;
}

export function rowTexts(r, kind, t, f) {
  const verdict = verdictText(r, kind, t);
  const d = (id) => digitsOf(id, kind);
  if (kind === "diffusion") {
    return {
      verdict,
      price_month: f.usd(r.price_month_usd, d("price_month") > 0),
      per_mtok: r.usd_per_reference_hour == null ? "" : f.usd(r.usd_per_reference_hour, d("per_mtok") > 0),
      per_user: r.relative_speed == null ? "" : `×${f.number(r.relative_speed, d("per_user"))}`,
      ttft: r.verdict === "none" ? "" : f.number(r.count, d("ttft")),
      total: r.verdict === "none" ? "" : r.offload_text_encoders ? t.text_encoders_cpu : t.text_encoders_card,
      best_per_mtok: "",
      max_users: "",
      reason: r.reason_text,
    };
  }
  const fits = r.verdict !== "none";
  const best = r.best_usd_per_million_output_tokens;
  return {
    verdict,
    price_month: f.usd(r.price_month_usd, d("price_month") > 0),
    per_mtok: fits ? f.usd(r.usd_per_million_tokens_workload, d("per_mtok") > 0) : "",
    per_user: fits ? f.number(r.decode_tok_s_per_user, d("per_user")) : "",
    ttft: fits ? f.number(r.ttft_s, d("ttft")) : "",
    total: fits ? f.number(r.decode_tok_s_total, d("total")) : "",
    best_per_mtok:
      best == null
        ? ""
        : fill(t.best_at, { price: f.usd(best, d("best_per_mtok") > 0), users: users(t, f, r.best_concurrency) }),
    max_users: fits ? f.number(r.max_users_at_target, d("max_users")) : "",
    reason: r.reason_text,
  };
}

export function barView(r, kind, t, f) {
  const capacity = r.capacity_gb;
  const parts =
    kind === "diffusion"
      ? [["weights", r.need_gb]]
      : [
          ["weights", r.weights_gb],
          ["kv", r.kv_gb],
          ["reserve", r.reserve_gb],
        ];
  const used = parts.reduce((sum, [, v]) => sum + v, 0);
  const scale = Math.max(capacity, used);
  parts.push(["free", Math.max(capacity - used, 0)]);
  let x = 0;
  const rects = [];
  for (const [name, value] of parts) {
    const width = (100 * value) / scale;
    rects.push({ name, x: x.toFixed(2), width: width.toFixed(2) }); // empty parts too: a patch then only moves them
    x += width;
  }
  const digits = digitsOf("memory", kind);
  return {
    rects,
    label: parts.map(([name, value]) => `${t[`bar_${name}`]} ${f.number(value, digits)}\u00a0${t.unit_gb}`).join(" · "),
    text: `${f.number(used, digits)} / ${f.number(capacity, digits)}\u00a0${t.unit_gb}`, // a figure and its unit never part
  };
}

export function rectsHtml(bar) {
  return bar.rects
    .map((p) => `<rect class="bar__${p.name}" x="${p.x}" width="${p.width}" height="10"></rect>`)
    .join("");
}

export function barHtml(bar) {
  return (
    `<svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label="${escapeHtml(bar.label)}">` +
    `<title>${escapeHtml(bar.label)}</title>${rectsHtml(bar)}</svg>` +
    `<span class="bar__text">${escapeHtml(bar.text)}</span>`
  );
}

// What a row's look follows (its data-shown): whether it fits, not how. The attribute changes
// only when that does, since each change restyles the row's every cell.
export const shownLook = (verdict) => (verdict === "none" ? "none" : "fits");

// A row's place against the target (data-target): recommended, met, missed, or "" (no fit, or an
// image model, which has no target).
export function targetLook(r) {
  if (r.recommended && "meets_target" in r) return "recommended";
  if (r.verdict === "none" || !("meets_target" in r)) return "";
  return r.meets_target ? "met" : "missed";
}

const DATA_ATTRS = ["node", "verdict", "cards", "tokS", "priceMonth", "gpu", "link", "target"];
const kebab = (key) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

// A whole row (the build's table, and the widget's when the nodes change; never for a patch).
// `disabled`: the build's, whose controls stay disabled until the script enables them.
export function rowHtml(r, kind, order, t, f, gpuNames, columns, disabled = false) {
  const texts = rowTexts(r, kind, t, f);
  const name = nodeName(t, r, gpuNames);
  const cells = columns.map((column) => {
    const col = column.id;
    if (col === "node") {
      return `<th scope="row"><span class="node__name" data-text>${escapeHtml(name)}</span> <code>${escapeHtml(r.node)}</code></th>`;
    }
    if (col === "verdict") {
      // The reason unfolds under the verdict (the button's aria-expanded shows it, in CSS).
      const why = escapeHtml(`cfg-why-${r.node}`);
      return (
        `<td><span class="verdict__text" data-text>${escapeHtml(texts.verdict)}</span> ` +
        `<button type="button" class="verdict__why" data-why data-needs-js${disabled ? " disabled" : ""} aria-expanded="false" aria-controls="${why}" ` +
        `aria-label="${escapeHtml(fill(t.why_label, { node: name }))}">${escapeHtml(t.why)}</button>` +
        `<span class="verdict__reason" id="${why}">${escapeHtml(texts.reason)}</span></td>`
      );
    }
    // data-label: the column's name, which each cell shows when the row is a card (phones).
    const label = escapeHtml(columnLabel(t, col, kind));
    if (col === "memory") return `<td data-label="${label}">${barHtml(barView(r, kind, t, f))}</td>`;
    if (!isFigure(column)) return `<td>${escapeHtml(texts[col])}</td>`;
    return `<td class="num" data-label="${label}">${escapeHtml(texts[col])}</td>`;
  });
  const d = rowData(r, kind, order, columns);
  const attrs = [
    ...DATA_ATTRS.map((key) => `data-${kebab(key)}="${escapeHtml(d[key])}"`),
    `data-shown="${shownLook(r.verdict)}"`,
    `data-order="${d.order}"`,
    ...columns.filter((c) => c.sort === "number").map((c) => `data-v-${c.id.replace(/_/g, "-")}="${d[camel(c.id)]}"`),
  ];
  return `<tr ${attrs.join(" ")}>${cells.join("")}</tr>`;
}

// What stands for a void column's sort button: the dash seen, words a screen reader says.
export const voidHtml = (t) =>
  `<span data-void><span aria-hidden="true">${VOID_LABEL}</span>` +
  `<span class="md-visually-hidden">${escapeHtml(t.col_void)}</span></span>`;

// A column's header: its name, a button that sorts on it (disabled until the script runs), its
// help as its title; the table opens sorted by monthly price. A void column's button is hidden,
// voidHtml beside it (a later answer may need the button again).
export function headHtml(column, kind, t) {
  const col = column.id;
  const label = columnLabel(t, col, kind);
  const help = columnHelp(t, col, kind);
  const empty = label === VOID_LABEL;
  return (
    `<th scope="col"${isFigure(column) ? ' class="num"' : ""} data-col="${col}"` +
    `${col === "price_month" ? ' aria-sort="ascending"' : ""}${help ? ` title="${escapeHtml(help)}"` : ""}>` +
    `<button type="button" data-sort="${col}" aria-label="${escapeHtml(fill(t.sort_by, { column: label }))}" ` +
    `data-needs-js disabled${empty ? " hidden" : ""}>${escapeHtml(label)}</button>${empty ? voidHtml(t) : ""}</th>`
  );
}

// The whole table of an answer as the build writes it: every row, in the default order.
// ctx: {t, f, gpuNames, columns}
export function tableHtml(result, ctx) {
  const { t, f, gpuNames, columns } = ctx;
  const kind = result.kind;
  const body = defaultOrder(result.rows)
    .map(([i, r]) => rowHtml(r, kind, i, t, f, gpuNames, columns, true))
    .join("\n");
  const caption = escapeHtml(fill(t.caption, { model: result.model_name }));
  return (
    `<div class="configurator__scroll" tabindex="0" role="region" aria-label="${caption}">` +
    `<table class="configurator__table" data-kind="${kind}" aria-busy="false"><caption>${caption}</caption>` +
    `<thead><tr>${columns.map((c) => headHtml(c, kind, t)).join("")}</tr></thead><tbody>\n${body}\n</tbody></table></div>`
  );
}
