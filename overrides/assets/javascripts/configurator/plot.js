// What the chart is drawn from: the table's own rows (so the build-time table gets its chart
// too). chart.js draws it, and labels the nodes the card names (chartHighlight).

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
