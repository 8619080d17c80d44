// The table's rows for a new answer: each node's data set at once, the cells of the rows on
// screen patched before the frame and the others just after it, the rows in the reader's order
// (moving as few as can be: a moved row is restyled and laid out whole) and filtered.

import { patchCells, patchData, placeNode } from "./cells.js";
import { setAttr, setIfChanged } from "./dom.js";
import { applyFilters } from "./filters.js";
import { fill } from "./format.js";
import { compareRows, nextSort, positionsToMove, sortValue } from "./sort.js";
import { columnHelp, columnLabel, rowData, rowHtml, VOID_LABEL, voidHtml } from "./table.js";

export const DEFAULT_SORT = { col: "price_month", dir: 1 };

export class Rows {
  // `ctx`: {t, f, locale, columns (the engine's list, as the build wrote it), gpuNames}.
  constructor(root, table, ctx) {
    this.root = root;
    this.table = table;
    this.tbody = table.querySelector("tbody");
    this.ctx = ctx;
    this.columns = ctx.columns;
    this.foldButton = root.querySelector("[data-show-none]");
    this.showNone = false;
    this.sort = DEFAULT_SORT;
    this.visibleRows = null;
    this.pendingRows = [];
    this.byNode = null;
    // The build-time rows already carry everything sorting and filtering need, in the default order.
    this.showSortState();
    this.watch();
    this.applyFilters();
  }

  // The caption and the headers name what `result` answers (an image model's columns read otherwise).
  headers(result) {
    const { t } = this.ctx;
    const { kind } = result;
    setIfChanged(this.table.dataset, "kind", kind);
    const caption = fill(t.caption, { model: result.model_name });
    const captionEl = this.table.querySelector("caption");
    if (captionEl.textContent !== caption) captionEl.textContent = caption;
    this.table.querySelectorAll("th[data-col]").forEach((th) => {
      const label = columnLabel(t, th.dataset.col, kind);
      const button = th.querySelector("button");
      if (button.textContent !== label) button.textContent = label;
      setAttr(button, "aria-label", fill(t.sort_by, { column: label }));
      const empty = label === VOID_LABEL;
      if (button.hidden !== empty) button.hidden = empty;
      const dash = th.querySelector("[data-void]");
      if (empty && !dash) button.insertAdjacentHTML("afterend", voidHtml(t));
      else if (!empty && dash) dash.remove();
      const help = columnHelp(t, th.dataset.col, kind);
      if (th.title !== help) th.title = help;
    });
  }

  // The rows for `result`; returns the rows whose cells wait for the frame (flushed by flush(later)).
  show(result) {
    const { kind } = result;
    const rows = this.rowsByNode();
    const later = [];
    const onScreen = this.onScreenPositions();
    const patch = (tr, r, position) => {
      if (onScreen && (tr.hidden || position < onScreen[0] || position > onScreen[1])) later.push([tr, r]);
      else patchCells(tr, r, kind, this.ctx);
    };
    const sameNodes = result.rows.length === rows.size && result.rows.every((r) => rows.has(r.node));
    if (sameNodes && this.column(this.sort.col).sort === "number") {
      // Sorted on raw values, each row of the table then shows the node of its new place: no row
      // moves, since a row moved (or put before another) is restyled whole, with every row after
      // it (Material's `.md-typeset table:not([class]) + *` reads each row's previous sibling).
      const { col, dir } = this.sort;
      const keyed = result.rows.map((r, i) => {
        const data = rowData(r, kind, i, this.columns);
        return { r, data, verdict: data.verdict, order: data.order, value: sortValue(data, col) };
      });
      keyed.sort((a, b) => compareRows(a, b, dir, this.ctx.locale));
      // A reason a reader unfolded stays unfolded under its node, wherever the node goes.
      const open = new Set(
        Array.from(
          this.tbody.querySelectorAll('[data-why][aria-expanded="true"]'),
          (b) => b.closest("tr").dataset.node,
        ),
      );
      Array.from(this.tbody.rows).forEach((tr, position) => {
        const { r, data } = keyed[position];
        if (tr.dataset.node !== r.node) placeNode(tr, r, open.has(r.node), this.ctx);
        patchData(tr, data);
      });
      this.byNode = null; // the rows now show other nodes
      this.showSortState();
      this.applyFilters();
      for (const [position, tr] of Array.from(this.tbody.rows).entries()) patch(tr, keyed[position].r, position);
    } else if (sameNodes) {
      // A text column sorts on what the cells show: patched first, then the rows moved.
      const byNode = new Map(result.rows.map((r, i) => [r.node, [r, i]]));
      const datas = new Map();
      for (const [node, [r, i]] of byNode) {
        const data = rowData(r, kind, i, this.columns);
        datas.set(rows.get(node), data);
        patchData(rows.get(node), data);
      }
      this.sortRows(datas);
      this.applyFilters();
      for (const [position, tr] of Array.from(this.tbody.rows).entries())
        patch(tr, byNode.get(tr.dataset.node)[0], position);
    } else {
      const { t, f, gpuNames } = this.ctx;
      this.tbody.innerHTML = result.rows.map((r, i) => rowHtml(r, kind, i, t, f, gpuNames, this.columns)).join("\n");
      this.watch();
      this.sortRows();
      this.applyFilters();
    }
    this.pendingRows = later;
    return later;
  }

  // The cells left for after the frame, unless a newer answer has replaced them (`later`: show's).
  flush(later = this.pendingRows) {
    if (this.pendingRows !== later) return;
    const kind = this.table.dataset.kind;
    for (const [tr, r] of this.pendingRows) patchCells(tr, r, kind, this.ctx);
    this.pendingRows = [];
  }

  // The positions (first, last) of the rows on screen, with a margin; null until the browser has said.
  onScreenPositions() {
    if (this.visibleRows === null) return null;
    const positions = Array.from(this.tbody.rows).flatMap((tr, i) => (this.visibleRows.has(tr) ? [i] : []));
    if (!positions.length) return [0, -1];
    return [Math.max(0, positions[0] - 3), positions[positions.length - 1] + 3];
  }

  rowsByNode() {
    if (!this.byNode) this.byNode = new Map(Array.from(this.tbody.rows, (tr) => [tr.dataset.node, tr]));
    return this.byNode;
  }

  // Which rows are on screen (or nearly): null until the browser has said.
  watch() {
    this.byNode = null;
    if (this.observer) this.observer.disconnect();
    this.visibleRows = null;
    if (!("IntersectionObserver" in window)) return;
    const visible = new Set();
    this.observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (entry.isIntersecting) visible.add(entry.target);
          else visible.delete(entry.target);
        }
        this.visibleRows = visible;
      },
      { rootMargin: "0px" },
    );
    for (const tr of this.tbody.rows) this.observer.observe(tr);
  }

  column(id) {
    return this.columns.find((c) => c.id === id);
  }

  sortBy(col) {
    this.sort = nextSort(this.sort, col);
    if (this.column(col).sort === "text") this.flush(); // text columns read the cells
    this.sortRows();
    this.applyFilters();
    this.flush();
  }

  // Rows in the current order, on raw values (`datas`: each row's data attributes as just
  // written, else read from the row). Only the rows out of place are moved.
  sortRows(datas) {
    const { col, dir } = this.sort;
    const index = this.columns.findIndex((c) => c.id === col);
    const text = this.columns[index].sort === "text";
    const keyed = Array.from(this.tbody.rows, (tr) => {
      const data = datas?.get(tr) || tr.dataset;
      const value = text ? cellText(tr.cells[index]) : sortValue(data, col);
      return { tr, verdict: data.verdict, order: data.order, value };
    });
    keyed.sort((a, b) => compareRows(a, b, dir, this.ctx.locale));
    const position = new Map(keyed.map((k, i) => [k.tr, i]));
    const moving = positionsToMove(Array.from(this.tbody.rows, (tr) => position.get(tr)));
    for (let i = keyed.length - 1; i >= 0; i--) {
      if (moving.has(i)) this.tbody.insertBefore(keyed[i].tr, i + 1 < keyed.length ? keyed[i + 1].tr : null);
    }
    this.showSortState();
  }

  showSortState() {
    const { col, dir } = this.sort;
    this.table.querySelectorAll("th[data-col]").forEach((th) => {
      setAttr(th, "aria-sort", th.dataset.col === col ? (dir > 0 ? "ascending" : "descending") : "none");
    });
  }

  applyFilters() {
    applyFilters(this.root, this.tbody, this.foldButton, this.showNone, this.ctx.t, this.ctx.f);
  }

  toggleNone() {
    this.showNone = !this.showNone;
    this.applyFilters();
  }

  // The engine's rows the table shows (the filters' and the fold's), in the reader's order.
  shown(result) {
    const byNode = new Map(result.rows.map((r) => [r.node, r]));
    return Array.from(this.tbody.rows)
      .filter((tr) => !tr.hidden && byNode.has(tr.dataset.node))
      .map((tr) => byNode.get(tr.dataset.node));
  }
}

// What a text column shows and sorts on: its [data-text] (the verdict, not its reason).
function cellText(cell) {
  return (cell.querySelector("[data-text]") || cell).textContent.trim();
}
