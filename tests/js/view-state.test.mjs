// Filters and sort in the address bar: written only when they differ from the default, read
// back only when the page offers them.
import assert from "node:assert/strict";
import { test } from "node:test";

import { readView, viewParams } from "../../overrides/assets/javascripts/configurator/view-state.js";

const DEFAULT = { col: "price_month", dir: 1 };
const columns = [{ id: "node" }, { id: "price_month" }, { id: "per_user" }];

test("the default view writes nothing; a filter and a descending sort are written", () => {
  assert.deepEqual(viewParams({ verdict: "", gpu: "", link: "" }, DEFAULT, DEFAULT), []);
  assert.deepEqual(viewParams({ verdict: "split", gpu: "h100" }, { col: "per_user", dir: -1 }, DEFAULT), [
    ["verdict", "split"],
    ["gpu", "h100"],
    ["sort", "-per_user"],
  ]);
  assert.deepEqual(viewParams({}, { col: "price_month", dir: -1 }, DEFAULT), [["sort", "-price_month"]]);
});

test("a link's view round-trips, and values the page does not offer are dropped", () => {
  const offered = { verdict: ["", "single", "split", "none"], gpu: ["", "h100"], link: ["", "pcie"] };
  const params = new URLSearchParams(
    viewParams({ verdict: "split", link: "pcie" }, { col: "per_user", dir: -1 }, DEFAULT),
  );
  assert.deepEqual(readView(params, offered, columns), {
    filters: { verdict: "split", link: "pcie" },
    sort: { col: "per_user", dir: -1 },
  });
  const hostile = new URLSearchParams("verdict=<b>&gpu=h100&sort=-nonsense");
  assert.deepEqual(readView(hostile, offered, columns), { filters: { gpu: "h100" }, sort: null });
  assert.deepEqual(readView(new URLSearchParams("sort=node"), offered, columns).sort, { col: "node", dir: 1 });
});
