// One row of the table patched in place for a new answer: its data attributes, the node it
// names, and the cells whose text or memory bar changed (the build wrote the markup; only what
// differs is written, so the browser restyles no more than that).

import { nodeName } from "./answer.js";
import { setAttr, setIfChanged, setText } from "./dom.js";
import { fill } from "./format.js";
import { barHtml, barView, columnLabel, rectsHtml, rowTexts, shownLook } from "./table.js";

export function patchData(tr, data) {
  for (const [key, value] of Object.entries(data)) setIfChanged(tr.dataset, key, value);
}

// A row given another node: what names it (the node cell's texts are patched with the others).
// `ctx`: {t, gpuNames}.
export function placeNode(tr, r, open, ctx) {
  const why = `cfg-why-${r.node}`;
  const button = tr.querySelector("[data-why]");
  setAttr(button, "aria-controls", why);
  setAttr(button, "aria-label", fill(ctx.t.why_label, { node: nodeName(ctx.t, r, ctx.gpuNames) }));
  setAttr(button, "aria-expanded", String(open));
  tr.querySelector(".verdict__reason").id = why;
}

// `ctx`: {t, f, gpuNames, columns}.
export function patchCells(tr, r, kind, ctx) {
  const { t, f, gpuNames, columns } = ctx;
  // data-verdict (read by filters and sorting) is already set; data-shown is what the row's
  // look follows, so a row off screen is restyled when its cells are, after the frame.
  setIfChanged(tr.dataset, "shown", shownLook(r.verdict));
  const cells = tr.cells;
  const texts = rowTexts(r, kind, t, f);
  columns.forEach(({ id: col }, i) => {
    if (cells[i].dataset.label !== undefined) setIfChanged(cells[i].dataset, "label", columnLabel(t, col, kind));
    if (col === "memory") patchBar(cells[i], barView(r, kind, t, f));
    else if (col === "verdict") {
      setText(cells[i].querySelector("[data-text]"), texts.verdict);
      setText(cells[i].querySelector(".verdict__reason"), texts.reason);
    } else if (col === "node") {
      const code = cells[i].querySelector("code");
      if (code.textContent !== r.node) {
        setText(code, r.node);
        setText(cells[i].querySelector(".node__name"), nodeName(t, r, gpuNames));
      }
    } else setText(cells[i], texts[col]);
  });
}

export function patchBar(cell, bar) {
  const svg = cell.querySelector("svg");
  const span = cell.querySelector(".bar__text");
  if (!svg || !span) {
    cell.innerHTML = barHtml(bar);
    return;
  }
  if (svg.getAttribute("aria-label") !== bar.label) {
    svg.setAttribute("aria-label", bar.label);
    setText(svg.querySelector("title"), bar.label);
  }
  setText(span, bar.text);
  const rects = svg.querySelectorAll("rect");
  if (
    rects.length !== bar.rects.length ||
    bar.rects.some((p, i) => rects[i].getAttribute("class") !== `bar__${p.name}`)
  ) {
    for (const rect of rects) rect.remove();
    svg.insertAdjacentHTML("beforeend", rectsHtml(bar));
    return;
  }
  bar.rects.forEach((p, i) => {
    if (rects[i].getAttribute("x") !== p.x) rects[i].setAttribute("x", p.x);
    if (rects[i].getAttribute("width") !== p.width) rects[i].setAttribute("width", p.width);
  });
}
