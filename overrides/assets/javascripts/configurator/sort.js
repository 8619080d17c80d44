// Sorting the table's rows on raw values (data attributes), never on the formatted text, so that
// "110,853" and "5 176" compare as numbers in every locale. Rows that fit always come first.

// What a row sorts on for a number column (its data-v-<col>): a number, or null (no value: last).
export function sortValue(data, col) {
  const key = `v${col.replace(/(^|_)(\w)/g, (_, __, c) => c.toUpperCase())}`;
  return numberOrNull(data[key]);
}

function numberOrNull(value) {
  if (value === undefined || value === null || value === "") return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}

// Compare two rows ({verdict, order, value}) for a direction (1 or -1).
export function compareRows(a, b, dir, locale) {
  const fa = a.verdict === "none",
    fb = b.verdict === "none";
  if (fa !== fb) return fa ? 1 : -1;
  const ka = a.value,
    kb = b.value;
  if (ka == null || kb == null) {
    if (ka == null && kb != null) return 1;
    if (kb == null && ka != null) return -1;
  } else {
    const c = typeof ka === "number" && typeof kb === "number" ? ka - kb : String(ka).localeCompare(String(kb), locale);
    if (c) return c * dir;
  }
  return Number(a.order) - Number(b.order);
}

// The table's default order (DEFAULT_SORT: the monthly price, ascending), as sortRows leaves it:
// engine rows in, [position in the engine's list, row] out, the nodes that fit first.
export function defaultOrder(rows) {
  return rows
    .map((r, i) => [i, r])
    .sort(([ia, a], [ib, b]) =>
      compareRows(
        { verdict: a.verdict, order: ia, value: numberOrNull(a.price_month_usd) },
        { verdict: b.verdict, order: ib, value: numberOrNull(b.price_month_usd) },
        1,
      ),
    );
}

// The next sort state after a click on a column's header.
export function nextSort(current, col) {
  return current && current.col === col ? { col, dir: -current.dir } : { col, dir: 1 };
}

// Which items to move so that `current` (a list of positions in the new order, as it stands)
// reads 0, 1, 2...: every item outside a longest run already in order. A moved table row is
// laid out and styled again whole, so the fewer the better: one row that goes from the top to
// the bottom moves alone, not the forty that were below it. Returns a Set of new positions.
export function positionsToMove(current) {
  // Patience sorting: tails[k] is the index in `current` ending the best increasing run of length k + 1.
  const tails = [];
  const before = new Array(current.length).fill(-1);
  current.forEach((value, i) => {
    let lo = 0,
      hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (current[tails[mid]] < value) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) before[i] = tails[lo - 1];
    tails[lo] = i;
  });
  const staying = new Set();
  for (let i = tails.length ? tails[tails.length - 1] : -1; i !== -1; i = before[i]) staying.add(current[i]);
  return new Set(current.filter((value) => !staying.has(value)));
}
