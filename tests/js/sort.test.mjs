// Sorting on raw values: rows that fit first, numbers as numbers, ties in the engine's order.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  compareRows,
  defaultOrder,
  nextSort,
  positionsToMove,
  sortValue,
} from "../../overrides/assets/javascripts/configurator/sort.js";

const sorted = (rows, dir, locale = "en") => [...rows].sort((a, b) => compareRows(a, b, dir, locale)).map((r) => r.id);

test("numbers compare as numbers, not as the locale's text", () => {
  // "110,853" sorts before "5,176" as English text; as numbers it comes after.
  const rows = [
    { id: "a", verdict: "single", order: 0, value: sortValue({ vTotal: "110853" }, "total") },
    { id: "b", verdict: "single", order: 1, value: sortValue({ vTotal: "5176" }, "total") },
  ];
  assert.deepEqual(sorted(rows, 1), ["b", "a"]);
  assert.deepEqual(sorted(rows, -1), ["a", "b"]);
});

test("rows that do not fit stay after those that fit, in either direction", () => {
  const rows = [
    { id: "none-cheap", verdict: "none", order: 0, value: 1 },
    { id: "fits-dear", verdict: "split", order: 1, value: 100 },
    { id: "fits-cheap", verdict: "single", order: 2, value: 10 },
  ];
  assert.deepEqual(sorted(rows, 1), ["fits-cheap", "fits-dear", "none-cheap"]);
  assert.deepEqual(sorted(rows, -1), ["fits-dear", "fits-cheap", "none-cheap"]);
});

test("a missing value sorts last and ties keep the engine's order", () => {
  const rows = [
    { id: "c", verdict: "single", order: 2, value: 5 },
    { id: "blank", verdict: "single", order: 0, value: sortValue({ vTtft: "" }, "ttft") },
    { id: "a", verdict: "single", order: 1, value: 5 },
  ];
  assert.deepEqual(sorted(rows, 1), ["a", "c", "blank"]);
  assert.deepEqual(sorted(rows, -1), ["a", "c", "blank"]);
});

test("memory sorts on the gigabytes used, not the card count", () => {
  assert.equal(sortValue({ vMemory: "78.16", cards: "2" }, "memory"), 78.16);
});

test("text columns compare in the page's locale", () => {
  const rows = [
    { id: "e", verdict: "single", order: 0, value: "Élan" },
    { id: "z", verdict: "single", order: 1, value: "Zèbre" },
    { id: "a", verdict: "single", order: 2, value: "avion" },
  ];
  assert.deepEqual(sorted(rows, 1, "fr"), ["a", "e", "z"]);
});

test("a second click on a header reverses it, another header starts ascending", () => {
  assert.deepEqual(nextSort({ col: "price_month", dir: 1 }, "price_month"), { col: "price_month", dir: -1 });
  assert.deepEqual(nextSort({ col: "price_month", dir: -1 }, "ttft"), { col: "ttft", dir: 1 });
});

// Applies the moves as the widget does: the rows outside the run, each put before its successor.
function reorder(current) {
  const moving = positionsToMove(current);
  const list = [...current];
  for (let position = current.length - 1; position >= 0; position--) {
    if (!moving.has(position)) continue;
    list.splice(list.indexOf(position), 1);
    const next = list.indexOf(position + 1);
    list.splice(next === -1 ? list.length : next, 0, position);
  }
  return { moved: moving.size, list };
}

test("reordering moves only the rows out of place, and ends in order", () => {
  // One row from the top to the bottom: it alone moves (not the three below it).
  assert.deepEqual(reorder([3, 0, 1, 2]), { moved: 1, list: [0, 1, 2, 3] });
  assert.deepEqual(reorder([1, 2, 3, 0]), { moved: 1, list: [0, 1, 2, 3] });
  assert.deepEqual(reorder([0, 1, 2, 3]), { moved: 0, list: [0, 1, 2, 3] });
  assert.deepEqual(reorder([3, 2, 1, 0]), { moved: 3, list: [0, 1, 2, 3] });
  assert.deepEqual(reorder([]), { moved: 0, list: [] });
  // Every permutation of six rows ends in order, moving as few as its longest ordered run allows.
  const permutations = (items) =>
    items.length <= 1
      ? [items]
      : items.flatMap((x, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((p) => [x, ...p]));
  const longestRun = (p) => {
    const best = p.map(() => 1);
    for (const [i, x] of p.entries()) {
      for (const [j, y] of p.slice(0, i).entries()) if (y < x) best[i] = Math.max(best[i], best[j] + 1);
    }
    return Math.max(0, ...best);
  };
  for (const p of permutations([0, 1, 2, 3, 4, 5])) {
    const { moved, list } = reorder(p);
    assert.deepEqual(list, [0, 1, 2, 3, 4, 5], p.join());
    assert.equal(moved, p.length - longestRun(p), p.join());
  }
});

test("the default order: nodes that fit first, each group by monthly price, ties in the engine's order", () => {
  const rows = [
    { node: "none-cheap", verdict: "none", price_month_usd: 100 },
    { node: "dear", verdict: "split", price_month_usd: 9000 },
    { node: "cheap", verdict: "single", price_month_usd: 1000 },
    { node: "cheap-too", verdict: "single", price_month_usd: 1000 },
    { node: "none-dear", verdict: "none", price_month_usd: 5000 },
  ];
  assert.deepEqual(
    defaultOrder(rows).map(([i, r]) => [i, r.node]),
    [
      [2, "cheap"],
      [3, "cheap-too"],
      [1, "dear"],
      [0, "none-cheap"],
      [4, "none-dear"],
    ],
  );
});
