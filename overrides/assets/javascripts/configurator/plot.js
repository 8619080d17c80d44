// What the chart is drawn from: the table's own rows (so the build-time table gets its chart
// too) and the nodes the card names. chart.js draws it.

// `rows`: each row's data attributes ({node, verdict, tokS, vPerMtok}) and the name its node cell
// shows, as {data, name}. The points: the nodes that hold the model and have both figures.
export function chartPoints(rows) {
  return rows
    .filter(({ data }) => data.verdict !== "none" && data.tokS !== "" && data.vPerMtok !== "")
    .map(({ data, name }) => ({
      node: data.node,
      name: name || data.node,
      x: Number(data.tokS),
      y: Number(data.vPerMtok),
    }));
}

// The nodes the card names, labelled on the chart (`summary`: the answer's; the recommended one
// wins a node named twice).
export function chartHighlight(summary, t) {
  const highlight = {};
  if (summary.fastest) highlight[summary.fastest] = t.alt_fastest;
  if (summary.best_per_mtok) highlight[summary.best_per_mtok] = t.alt_best_per_mtok;
  if (summary.recommended) highlight[summary.recommended] = t.chart_recommended;
  return highlight;
}
