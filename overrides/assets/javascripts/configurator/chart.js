// The chart: price per unit of work against per-user speed for the nodes that fit, drawn at
// the width it is shown at (so its text reads at the page's size), the recommended node and the
// card's alternatives labelled and highlighted.

import { escapeHtml } from "./format.js";

// points: [{node, name, x, y}]; opts: {width, t, f, diffusion, highlight: {node: label}}
export function chartSvg(points, opts) {
  const { t, f, diffusion, highlight = {} } = opts;
  const W = Math.round(Math.max(320, Math.min(opts.width || 640, 960)));
  const H = Math.round(Math.min(420, Math.max(260, W * 0.5)));
  const L = 78, B = 48, T = 16, R = 24;
  const maxX = Math.max(...points.map((p) => p.x)) * 1.1 || 1;
  const maxY = Math.max(...points.map((p) => p.y)) * 1.1 || 1;
  const sx = (x) => L + (x / maxX) * (W - L - R);
  const sy = (y) => H - B - (y / maxY) * (H - B - T);
  const ticks = (max) => Array.from({ length: 4 }, (_, i) => (max * (i + 1)) / 4);
  const xLabel = diffusion ? t.chart_x_diffusion : t.chart_x;
  const yLabel = diffusion ? t.chart_y_diffusion : t.chart_y;
  const parts = [
    `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-labelledby="cfg-chart-title"><title id="cfg-chart-title">${escapeHtml(t.chart_title)}</title>`,
    `<line class="axis" x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}"></line><line class="axis" x1="${L}" y1="${T}" x2="${L}" y2="${H - B}"></line>`,
  ];
  for (const x of ticks(maxX)) {
    parts.push(`<text class="tick" x="${sx(x).toFixed(1)}" y="${H - B + 18}" text-anchor="middle">${escapeHtml(f.number(x, x < 10 ? 1 : 0))}</text>`);
  }
  for (const y of ticks(maxY)) {
    parts.push(`<text class="tick" x="${L - 8}" y="${(sy(y) + 4).toFixed(1)}" text-anchor="end">${escapeHtml(f.usd(y, y < 10))}</text>`);
  }
  parts.push(`<text class="label" x="${(L + W - R) / 2}" y="${H - 8}" text-anchor="middle">${escapeHtml(xLabel)}</text>`);
  parts.push(`<text class="label" x="14" y="${(T + H - B) / 2}" text-anchor="middle" transform="rotate(-90 14 ${(T + H - B) / 2})">${escapeHtml(yLabel)}</text>`);
  // The highlighted points last, so that they are drawn over the others.
  const ordered = [...points].sort((a, b) => Number(a.node in highlight) - Number(b.node in highlight));
  for (const p of ordered) {
    const cx = sx(p.x), cy = sy(p.y);
    const mark = highlight[p.node];
    parts.push(
      `<circle cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="${mark ? 7 : 5}" class="${mark ? "point point--marked" : "point"}" data-node="${escapeHtml(p.node)}"><title>${escapeHtml(p.name)}</title></circle>`,
    );
    if (mark) {
      const right = cx < W - R - 160;
      parts.push(
        `<text class="point-label" x="${(cx + (right ? 10 : -10)).toFixed(1)}" y="${(cy - 8).toFixed(1)}" text-anchor="${right ? "start" : "end"}">${escapeHtml(`${p.name} (${mark})`)}</text>`,
      );
    }
  }
  parts.push("</svg>");
  return parts.join("");
}
