// Sorting the table's rows on raw values (data attributes), never on the formatted text, so that
// "110,853" and "5 176" compare as numbers in every locale. Rows that fit always come first.

// What a row sorts on for a number column (its data-v-<col>): a number, or null (no value: last).
export function sortValue(data, col) {
  const key = "v" + col.replace(/(^|_)(\w)/g, (_, __, c) => c.toUpperCase());
  return numberOrNull(data[key]);
}

function numberOrNull(value) {
  if (value === undefined || value === null || value === "") return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}

// Compare two rows ({verdict, order, value}) for a direction (1 or -1).
export function compareRows(a, b, dir, locale) {
  const fa = a.verdict === "none", fb = b.verdict === "none";
  if (fa !== fb) return fa ? 1 : -1;
  const ka = a.value, kb = b.value;
  if (ka == null || kb == null) {
    if (ka == null && kb != null) return 1;
    if (kb == null && ka != null) return -1;
  } else {
    const c = typeof ka === "number" && typeof kb === "number" ? ka - kb : String(ka).localeCompare(String(kb), locale);
    if (c) return c * dir;
  }
  return Number(a.order) - Number(b.order);
}

// The next sort state after a click on a column's header.
export function nextSort(current, col) {
  return current && current.col === col ? { col, dir: -current.dir } : { col, dir: 1 };
}
