// The chart: drawn at the width it is shown at, every point named, the card's nodes labelled.
import assert from "node:assert/strict";
import { test } from "node:test";

import { chartSvg } from "../../overrides/assets/javascripts/configurator/chart.js";
import { formatters } from "../../overrides/assets/javascripts/configurator/format.js";

const t = { chart_title: "Title", chart_x: "Speed", chart_y: "Price per million", chart_x_diffusion: "Rel", chart_y_diffusion: "Hour" };
const f = formatters("en");
const points = [
  { node: "2x-a", name: "2 × A", x: 10, y: 5 },
  { node: "4x-b", name: "4 × B", x: 40, y: 2 },
  { node: "1x-c", name: "1 × C", x: 20, y: 8 },
];

test("one unit of the viewBox is one pixel of the box it is drawn in", () => {
  const svg = chartSvg(points, { width: 700, t, f, diffusion: false });
  assert.match(svg, /viewBox="0 0 700 \d+" width="700"/);
  assert.match(chartSvg(points, { width: 100, t, f }), /viewBox="0 0 320 /); // never narrower than its labels need
});

test("every point carries its node's name; the highlighted ones are labelled and drawn last", () => {
  const svg = chartSvg(points, { width: 640, t, f, highlight: { "2x-a": "recommended" } });
  assert.equal((svg.match(/<circle /g) || []).length, 3);
  for (const p of points) assert.ok(svg.includes(`<title>${p.name}</title>`));
  assert.ok(svg.includes(">2 × A (recommended)</text>"));
  assert.ok(svg.lastIndexOf('data-node="2x-a"') > svg.lastIndexOf('data-node="1x-c"'));
  assert.equal((svg.match(/point--marked/g) || []).length, 1);
});

test("a faster node is further right and a cheaper one lower", () => {
  const svg = chartSvg(points, { width: 640, t, f });
  const at = (node) => {
    const m = svg.match(new RegExp(`cx="([\\d.]+)" cy="([\\d.]+)"[^>]*data-node="${node}"`));
    return [Number(m[1]), Number(m[2])];
  };
  assert.ok(at("4x-b")[0] > at("1x-c")[0] && at("1x-c")[0] > at("2x-a")[0]);
  assert.ok(at("4x-b")[1] > at("2x-a")[1]); // SVG's y grows downwards: the cheapest is lowest on screen
});
