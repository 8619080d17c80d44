// What the reader chose of the table's view (its filters and its sort) in the address bar, so
// that a copied link opens the same rows in the same order: verdict=…, gpu=…, link=… and
// sort=<column> (ascending) or sort=-<column> (descending). The default view writes nothing.

export const FILTERS = ["verdict", "gpu", "link"];

// The view's parameters: [[name, value]], for URLSearchParams.
export function viewParams(filters, sort, defaultSort) {
  const out = [];
  for (const name of FILTERS) if (filters[name]) out.push([name, filters[name]]);
  if (sort && (sort.col !== defaultSort.col || sort.dir !== defaultSort.dir))
    out.push(["sort", (sort.dir < 0 ? "-" : "") + sort.col]);
  return out;
}

// The view a link asks for: filters whose value its select offers (`offered`: {name: [values]})
// and a sort on a column the table has; anything else is left out (the default view instead).
export function readView(params, offered, columns) {
  const filters = {};
  for (const name of FILTERS) {
    const value = params.get(name);
    if (value && (offered[name] || []).includes(value)) filters[name] = value;
  }
  let sort = null;
  const raw = params.get("sort");
  if (raw) {
    const col = raw.replace(/^-/, "");
    if (columns.some((c) => c.id === col)) sort = { col, dir: raw.startsWith("-") ? -1 : 1 };
  }
  return { filters, sort };
}
