// node --test tests/js/: configurator-boot.js says "go" to the engine's worker once the table is
// painted, with the page's default question; where the head's script did not start the worker,
// it starts it, held until then, and hands it and what it said to engine-client.js. The classic
// script runs here on a stand-in window.
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

const SCRIPT = fs.readFileSync(new URL("../../overrides/assets/javascripts/configurator-boot.js", import.meta.url), "utf8");
const SRC = "https://example.test/fr/assets/javascripts/configurator-boot.js";

// Objects made inside the script's context have that context's prototypes: compared as JSON.
const plain = (value) => JSON.parse(JSON.stringify(value));

function page({ widget = true, workerThrows = false, early = null } = {}) {
  const made = [];
  const frames = [];
  const ports = [];
  class FakeWorker {
    constructor(url, options) {
      if (workerThrows) throw new TypeError("module workers are not supported");
      this.url = String(url);
      this.options = options;
      this.posted = [];
      made.push(this);
    }
    postMessage(message) {
      this.posted.push(message);
    }
  }
  class FakeChannel {
    constructor() {
      this.port1 = { onmessage: null };
      this.port2 = { postMessage: () => ports.push(this.port1) };
    }
  }
  const root = {
    dataset: {
      root: "../",
      locale: "fr",
      pyodide: "314.0.7",
      defaultModel: "llama-3.3-70b",
      defaultFormat: "bf16",
      defaultContext: "4096",
      defaultConcurrency: "1",
    },
  };
  const window = {
    ...(early ? { configuratorBoot: early } : {}),
    Worker: FakeWorker,
    MessageChannel: FakeChannel,
    requestAnimationFrame: (callback) => frames.push(callback),
    location: { href: "https://example.test/fr/configurateur/" },
  };
  const document = {
    currentScript: { src: SRC },
    querySelector: (selector) => (widget && selector === "[data-configurator]:not([data-compact])" ? root : null),
  };
  vm.runInNewContext(SCRIPT, { window, document, URL, Number });
  const paint = () => {
    frames.splice(0).forEach((f) => f());
    ports.splice(0).forEach((p) => p.onmessage());
  };
  return { window, made, paint, FakeWorker };
}

const WARM = { model: "llama-3.3-70b", format: "bf16", context: 4096, concurrency: 1 };

test("without the head's worker, one starts at once, held until the paint, then told go", () => {
  const { window, made, paint } = page();
  assert.equal(made.length, 1);
  assert.equal(made[0].url, "https://example.test/fr/assets/javascripts/configurator-worker.js");
  assert.deepEqual(plain(made[0].options), { type: "module" });
  assert.deepEqual(plain(made[0].posted), [
    { type: "init", shared: "https://example.test/", locale: "fr", pyodide: "314.0.7", hold: true },
  ]);
  paint();
  assert.deepEqual(plain(made[0].posted.at(-1)), { type: "go", warm: WARM });
  assert.equal(window.configuratorBoot.worker, made[0]);
});

test("the head's worker is not started again: only told go, with the question, once painted", () => {
  const posted = [];
  const headWorker = { postMessage: (m) => posted.push(m) };
  const early = { worker: headWorker, messages: [] };
  const { window, made, paint } = page({ early });
  assert.equal(made.length, 0);
  assert.deepEqual(posted, []);
  paint();
  assert.deepEqual(plain(posted), [{ type: "go", warm: WARM }]);
  assert.equal(window.configuratorBoot, early);
});

test("what the worker says before engine-client.js adopts it is kept, in order", () => {
  const { window, made } = page();
  made[0].onmessage({ data: { type: "status", state: "loading", step: 1 } });
  made[0].onerror({ type: "error" });
  assert.deepEqual(
    plain(window.configuratorBoot.messages.map((e) => e.data?.state ?? e.type)),
    ["loading", "error"],
  );
});

test("no full configurator on the page, or no module workers: nothing is started here", () => {
  const none = page({ widget: false });
  assert.equal(none.made.length, 0);
  assert.equal(none.window.configuratorBoot, undefined);
  const old = page({ workerThrows: true });
  assert.equal(old.window.configuratorBoot, undefined);
});
