// The table's filters (verdict, GPU, link) and the fold of the nodes that cannot hold the model:
// which rows show, and the button that unfolds the folded ones.

import { setAttr, setIfChanged, setText } from "./dom.js";
import { fill } from "./format.js";

// `rows`: each row's data ({verdict, gpu, link}); `filters`: {name: the value chosen, "" for
// any}; `showNone`: the reader unfolded the rows that fit nowhere. Returns {hidden: [bool], folded}.
export function visibleRows(rows, filters, showNone) {
  const folding = !showNone && filters.verdict !== "none";
  let folded = 0;
  const hidden = rows.map((data) => {
    const filtered = Boolean(
      (filters.verdict && data.verdict !== filters.verdict) ||
        (filters.gpu && data.gpu !== filters.gpu) ||
        (filters.link && data.link !== filters.link),
    );
    const fold = !filtered && data.verdict === "none";
    if (fold) folded += 1;
    return filtered || (folding && fold);
  });
  return { hidden, folded };
}

// The filters' values as their selects hold them, {name: value}.
export function chosenFilters(root) {
  const filters = {};
  for (const select of root.querySelectorAll("[data-filter]")) filters[select.dataset.filter] = select.value;
  return filters;
}

// Hides the rows the filters leave out, and says on `button` how many are folded.
export function applyFilters(root, tbody, button, showNone, t, f) {
  const filters = chosenFilters(root);
  const rows = Array.from(tbody.rows);
  const { hidden, folded } = visibleRows(
    rows.map((tr) => tr.dataset),
    filters,
    showNone,
  );
  rows.forEach((tr, i) => {
    if (tr.hidden !== hidden[i]) tr.hidden = hidden[i];
  });
  setIfChanged(button, "hidden", folded === 0 || filters.verdict === "none");
  setText(button, showNone ? t.hide_none : fill(t.show_none, { n: f.number(folded, 0) }));
  setAttr(button, "aria-expanded", String(showNone));
}
