// The chart: drawn at the width it is shown at, every point named, the card's nodes labelled.
import assert from "node:assert/strict";
import { test } from "node:test";

import { chartHighlight, chartPoints, chartSvg } from "../../overrides/assets/javascripts/configurator/chart.js";
import { formatters } from "../../overrides/assets/javascripts/configurator/format.js";

const t = {
  chart_title: "Title",
  chart_x: "Speed",
  chart_y: "Price per million",
  chart_x_diffusion: "Rel",
  chart_y_diffusion: "Hour",
  chart_title_diffusion: "Hour title",
};
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

// The labels' boxes as drawn (x, y, anchor and text of each label), at a width per character
// wider than any glyph of the chart's 13 px bold text averages.
function labelBoxes(svg) {
  const viewBox = svg
    .match(/viewBox="0 0 (\d+) (\d+)"/)
    .slice(1)
    .map(Number);
  const boxes = [
    ...svg.matchAll(/<text class="point-label" x="([\d.-]+)" y="([\d.-]+)"(?: text-anchor="(\w+)")?>([^<]*)<\/text>/g),
  ].map((m) => {
    const [x, y, anchor = "start", text] = [Number(m[1]), Number(m[2]), m[3], m[4]];
    const w = Array.from(text.replace(/&amp;/g, "&")).length * 7.5;
    const x1 = anchor === "start" ? x : anchor === "end" ? x - w : x - w / 2;
    return { text, x1, x2: x1 + w, y1: y - 13, y2: y + 3 };
  });
  return { viewBox, boxes };
}

const crowded = [
  { node: "8x-b200", name: "8 × NVIDIA B200 (HGX, SXM6)", x: 240, y: 1.9 },
  { node: "4x-pro", name: "4 × NVIDIA RTX PRO 6000 Blackwell", x: 14.3, y: 1.1 },
  { node: "2x-nvl", name: "2 × NVIDIA H100 NVL", x: 16.8, y: 1.0 },
  { node: "1x-a", name: "1 × A", x: 20, y: 1.3 },
  { node: "1x-b", name: "1 × B", x: 60, y: 0.7 },
];
const marks = { "8x-b200": "Fastest", "4x-pro": "recommended", "2x-nvl": "Best price per million" };

for (const width of [390, 640, 1200]) {
  test(`at ${width} px, no label overlaps another or leaves the chart`, () => {
    const svg = chartSvg(crowded, { width, t, f, highlight: marks });
    const { viewBox, boxes } = labelBoxes(svg);
    assert.ok(boxes.length >= 3, svg);
    for (const [i, a] of boxes.entries()) {
      assert.ok(
        a.x1 >= 0 && a.x2 <= viewBox[0] && a.y1 >= 0 && a.y2 <= viewBox[1],
        `${a.text} leaves the chart at ${width}`,
      );
      for (const b of boxes.slice(i + 1)) {
        const apart = a.x2 <= b.x1 || b.x2 <= a.x1 || a.y2 <= b.y1 || b.y2 <= a.y1;
        assert.ok(apart, `${a.text} overlaps ${b.text} at ${width}`);
      }
    }
    // Every marked node is named with its mark, in the plot or in the legend under it.
    for (const mark of Object.values(marks))
      assert.ok(
        boxes.some((b) => b.text.endsWith(`(${mark})`)),
        mark,
      );
  });
}

test("an image model's chart is titled by its own unit, not by tokens", () => {
  const title = (svg) => svg.match(/<title id="cfg-chart-title">([^<]*)<\/title>/)[1];
  assert.equal(title(chartSvg(points, { width: 640, t, f, diffusion: true })), "Hour title");
  assert.equal(title(chartSvg(points, { width: 640, t, f, diffusion: false })), "Title");
});

test("the chart's points are the rows that fit with a speed and a price, in the table's order", () => {
  const r = (node, verdict, speed, price) => ({
    node,
    verdict,
    decode_tok_s_per_user: speed,
    usd_per_million_tokens_workload: price,
  });
  const named = [
    ["2 × A", r("2x-a", "single", 10, 5)],
    ["1 × B", r("1x-b", "none", null, null)],
    ["8 × C", r("8x-c", "split", 40, 2)],
    ["4 × D", r("4x-d", "single", 12, null)],
  ];
  assert.deepEqual(chartPoints(named, "llm"), [
    { node: "2x-a", name: "2 × A", x: 10, y: 5 },
    { node: "8x-c", name: "8 × C", x: 40, y: 2 },
  ]);
  // An image model: relative speed against the price of an L40S-hour.
  const image = [["1 × A", { node: "1x-a", verdict: "single", relative_speed: 1.5, usd_per_reference_hour: 0.9 }]];
  assert.deepEqual(chartPoints(image, "diffusion"), [{ node: "1x-a", name: "1 × A", x: 1.5, y: 0.9 }]);
});

test("the card's nodes are labelled, the recommended one's label winning", () => {
  const words = { alt_fastest: "Fastest", alt_best_per_mtok: "Cheapest per million", chart_recommended: "Recommended" };
  assert.deepEqual(chartHighlight({ recommended: "a", fastest: "a", best_per_mtok: "b" }, words), {
    a: "Recommended",
    b: "Cheapest per million",
  });
  assert.deepEqual(chartHighlight({ recommended: null, fastest: null, best_per_mtok: null }, words), {});
});

test("an image or video model's best price is labelled per reference-card hour", () => {
  const words = { alt_best_per_mtok: "Cheapest per million", alt_best_per_mtok_diffusion: "Cheapest per L40S-hour" };
  assert.deepEqual(chartHighlight({ best_per_mtok: "b" }, words, true), { b: "Cheapest per L40S-hour" });
  assert.deepEqual(chartHighlight({ best_per_mtok: "b" }, words), { b: "Cheapest per million" });
});
