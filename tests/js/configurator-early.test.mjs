// node --test tests/js/: configurator-early.js starts the configurator's engine worker from the
// page's head, with what init needs in the worker's address, and leaves it for
// engine-client.js. The classic script runs here on a stand-in window.
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

const SCRIPT = fs.readFileSync(
  new URL("../../overrides/assets/javascripts/configurator-early.js", import.meta.url),
  "utf8",
);
const SRC = "https://example.test/fr/assets/javascripts/configurator-early.js";

function page({ workerThrows = false, dataset = { root: "../", locale: "fr" } } = {}) {
  const made = [];
  class FakeWorker {
    constructor(url, options) {
      if (workerThrows) throw new TypeError("module workers are not supported");
      this.url = url;
      this.options = options;
      this.posted = [];
      made.push(this);
    }
    postMessage(message) {
      this.posted.push(message);
    }
  }
  const window = { Worker: FakeWorker, URL, location: { href: "https://example.test/fr/configurateur/" } };
  vm.runInNewContext(SCRIPT, { window, document: { currentScript: { src: SRC, dataset } } });
  return { window, made };
}

test("the worker starts at once, its address saying where the engine lives and the page's locale", () => {
  const { window, made } = page();
  assert.equal(made.length, 1);
  const url = new URL(made[0].url);
  assert.equal(url.origin + url.pathname, "https://example.test/fr/assets/javascripts/configurator-worker.js");
  assert.equal(url.searchParams.get("shared"), "https://example.test/");
  assert.equal(url.searchParams.get("locale"), "fr");
  assert.equal(JSON.stringify(made[0].options), JSON.stringify({ type: "module" }));
  assert.deepEqual(made[0].posted, []); // no message: a page still parsing would deliver it late
  assert.equal(window.configuratorBoot.worker, made[0]);
});

test("what the worker says before it is adopted is kept, in order", () => {
  const { window, made } = page();
  made[0].onmessage({ data: { type: "status", state: "loading" } });
  made[0].onerror({ type: "error" });
  assert.deepEqual(JSON.parse(JSON.stringify(window.configuratorBoot.messages.map((e) => e.data?.state ?? e.type))), [
    "loading",
    "error",
  ]);
});

test("no module workers: nothing is started, and the page's later scripts start it", () => {
  const { window, made } = page({ workerThrows: true });
  assert.equal(made.length, 0);
  assert.equal(window.configuratorBoot, undefined);
});
