// The chart: price per unit of work against per-user speed for the nodes that fit, drawn at
// the width it is shown at (so its text reads at the page's size), the recommended node and the
// card's alternatives labelled and highlighted.

import { escapeHtml } from "./format.js";

// points: [{node, name, x, y}]; opts: {width, t, f, diffusion, highlight: {node: label}}
export function chartSvg(points, opts) {
  const { t, f, diffusion, highlight = {} } = opts;
  const W = Math.round(Math.max(320, Math.min(opts.width || 640, 960)));
  const H = Math.round(Math.min(420, Math.max(260, W * 0.5)));
  const L = 78,
    B = 48,
    T = 16,
    R = 24;
  const maxX = Math.max(...points.map((p) => p.x)) * 1.1 || 1;
  const maxY = Math.max(...points.map((p) => p.y)) * 1.1 || 1;
  const sx = (x) => L + (x / maxX) * (W - L - R);
  const sy = (y) => H - B - (y / maxY) * (H - B - T);
  const ticks = (max) => Array.from({ length: 4 }, (_, i) => (max * (i + 1)) / 4);
  const xLabel = diffusion ? t.chart_x_diffusion : t.chart_x;
  const yLabel = diffusion ? t.chart_y_diffusion : t.chart_y;
  const parts = [
    `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-labelledby="cfg-chart-title"><title id="cfg-chart-title">${escapeHtml(diffusion ? t.chart_title_diffusion : t.chart_title)}</title>`,
    `<line class="axis" x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}"></line><line class="axis" x1="${L}" y1="${T}" x2="${L}" y2="${H - B}"></line>`,
  ];
  for (const x of ticks(maxX)) {
    parts.push(
      `<text class="tick" x="${sx(x).toFixed(1)}" y="${H - B + 18}" text-anchor="middle">${escapeHtml(f.number(x, x < 10 ? 1 : 0))}</text>`,
    );
  }
  for (const y of ticks(maxY)) {
    parts.push(
      `<text class="tick" x="${L - 8}" y="${(sy(y) + 4).toFixed(1)}" text-anchor="end">${escapeHtml(f.usd(y, y < 10))}</text>`,
    );
  }
  parts.push(
    `<text class="label" x="${(L + W - R) / 2}" y="${H - 8}" text-anchor="middle">${escapeHtml(xLabel)}</text>`,
  );
  parts.push(
    `<text class="label" x="14" y="${(T + H - B) / 2}" text-anchor="middle" transform="rotate(-90 14 ${(T + H - B) / 2})">${escapeHtml(yLabel)}</text>`,
  );
  // The highlighted points last, so that they are drawn over the others.
  const ordered = [...points].sort((a, b) => Number(a.node in highlight) - Number(b.node in highlight));
  const marked = [];
  for (const p of ordered) {
    const cx = sx(p.x),
      cy = sy(p.y);
    const mark = highlight[p.node];
    parts.push(
      `<circle cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="${mark ? 7 : 5}" class="${mark ? "point point--marked" : "point"}" data-node="${escapeHtml(p.node)}"><title>${escapeHtml(p.name)}</title></circle>`,
    );
    if (mark) marked.push({ cx, cy, text: `${p.name} (${mark})` });
  }
  // Each marked point's label beside it where it fits inside the plot and clear of the other
  // labels and marked points; where one does not, every marked point is numbered and its label
  // written in a legend under the axis (the chart grows to hold it), so that none is cut or overlaps.
  const placed = placeLabels(marked, { left: L, right: W - R, top: 0, bottom: H - B });
  if (placed) {
    for (const l of placed) {
      parts.push(
        `<text class="point-label" x="${l.x.toFixed(1)}" y="${l.y.toFixed(1)}" text-anchor="${l.anchor}">${escapeHtml(l.text)}</text>`,
      );
    }
  } else {
    let y = H;
    marked.forEach((m, i) => {
      // The number on the point itself (over its circle), where nothing else is drawn.
      parts.push(
        `<text class="point-number" x="${m.cx.toFixed(1)}" y="${(m.cy + 4).toFixed(1)}" text-anchor="middle">${i + 1}</text>`,
      );
      legendLines(`${i + 1}. ${m.text}`, W - 16 - 8).forEach((line, j) => {
        y += LEGEND_LINE;
        parts.push(`<text class="point-label" x="${j ? 32 : 16}" y="${y - 4}">${escapeHtml(line)}</text>`); // the mark indented under its name
      });
    });
    const grown = y + 6;
    parts[0] = parts[0].replace(
      `viewBox="0 0 ${W} ${H}" width="${W}" height="${H}"`,
      `viewBox="0 0 ${W} ${grown}" width="${W}" height="${grown}"`,
    );
  }
  parts.push("</svg>");
  return parts.join("");
}

// Text widths at the chart's 13 px, bold labels: a little wider than the widest average glyph,
// so that an estimate never makes a label fit that does not.
const CHAR = 7.8;
const LINE = 16;
const LEGEND_LINE = 18;

export function textWidth(text) {
  return Array.from(text).length * CHAR;
}

// A label shortened with an ellipsis before its mark (the part in brackets) to fit `width`.
export function fitText(text, width) {
  if (textWidth(text) <= width) return text;
  const open = text.lastIndexOf(" (");
  const tail = open > 0 ? text.slice(open) : "";
  const head = open > 0 ? text.slice(0, open) : text;
  const room = Math.max(1, Math.floor((width - textWidth(tail)) / CHAR) - 1);
  return `${head.slice(0, room)}…${tail}`;
}

// A legend entry in lines of `width` at most: whole, else its mark (the part in brackets) on a
// line of its own, the name shortened only if it alone is still too wide.
export function legendLines(text, width) {
  if (textWidth(text) <= width) return [text];
  const open = text.lastIndexOf(" (");
  if (open <= 0) return [fitText(text, width)];
  return [fitText(text.slice(0, open), width), fitText(text.slice(open + 1), width - 16)];
}

function overlaps(a, b) {
  return a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
}

// Labels for marked points ({cx, cy, text}) inside `box`, each clear of the others and of every
// marked point: [{x, y, anchor, text, box}], or null when one finds no place.
export function placeLabels(marked, box) {
  const points = marked.map((m) => ({ x1: m.cx - 8, x2: m.cx + 8, y1: m.cy - 8, y2: m.cy + 8 }));
  const taken = [];
  const out = [];
  for (const m of marked) {
    const w = textWidth(m.text);
    const candidates = [
      { anchor: "start", x: m.cx + 10, y: m.cy - 8 },
      { anchor: "end", x: m.cx - 10, y: m.cy - 8 },
      { anchor: "start", x: m.cx + 10, y: m.cy + 18 },
      { anchor: "end", x: m.cx - 10, y: m.cy + 18 },
      { anchor: "middle", x: m.cx, y: m.cy - 14 },
      { anchor: "middle", x: m.cx, y: m.cy + 24 },
    ];
    const found = candidates
      .map((c) => {
        const x1 = c.anchor === "start" ? c.x : c.anchor === "end" ? c.x - w : c.x - w / 2;
        return { ...c, text: m.text, box: { x1, x2: x1 + w, y1: c.y - LINE + 4, y2: c.y + 4 } };
      })
      .find(
        (c) =>
          c.box.x1 >= box.left &&
          c.box.x2 <= box.right &&
          c.box.y1 >= box.top &&
          c.box.y2 <= box.bottom &&
          !taken.some((t) => overlaps(t, c.box)) &&
          !points.some((p) => overlaps(p, c.box)),
      );
    if (!found) return null;
    taken.push(found.box);
    out.push(found);
  }
  return out;
}

// The points of an answer's rows ([name, row] in the table's order): the nodes that fit and have
// a speed and a price per unit of work (those the widget reads back from the table it shows).
export function chartPoints(named, kind) {
  const [speed, price] =
    kind === "diffusion"
      ? ["relative_speed", "usd_per_reference_hour"]
      : ["decode_tok_s_per_user", "usd_per_million_tokens_workload"];
  return named
    .filter(([, r]) => r.verdict !== "none" && r[speed] != null && r[price] != null)
    .map(([name, r]) => ({ node: r.node, name, x: r[speed], y: r[price] }));
}

// The card's nodes, labelled as the widget labels them (the recommended one wins).
export function chartHighlight(summary, t, diffusion = false) {
  const out = {};
  for (const [key, label] of [
    ["fastest", "alt_fastest"],
    // An image or video model's best price is per reference-card hour, not per million tokens.
    ["best_per_mtok", diffusion ? "alt_best_per_mtok_diffusion" : "alt_best_per_mtok"],
    ["recommended", "chart_recommended"],
  ]) {
    if (summary[key]) out[summary[key]] = t[label];
  }
  return out;
}
