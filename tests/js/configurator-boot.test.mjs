// node --test tests/js/: configurator-boot.js says "go" to the worker the head's script started,
// once the table is painted, with the page's default question; without that worker it does
// nothing. The classic script runs here on a stand-in window.
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

const SCRIPT = fs.readFileSync(new URL("../../overrides/assets/javascripts/configurator-boot.js", import.meta.url), "utf8");

// Objects made inside the script's context have that context's prototypes: compared as JSON.
const plain = (value) => JSON.parse(JSON.stringify(value));

function page({ widget = true, early = null } = {}) {
  const frames = [];
  const ports = [];
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
    MessageChannel: FakeChannel,
    requestAnimationFrame: (callback) => frames.push(callback),
  };
  const document = {
    querySelector: (selector) => (widget && selector === "[data-configurator]:not([data-compact])" ? root : null),
  };
  vm.runInNewContext(SCRIPT, { window, document, Number });
  const paint = () => {
    frames.splice(0).forEach((f) => f());
    ports.splice(0).forEach((p) => p.onmessage());
  };
  return { window, frames, paint };
}

function headWorker() {
  const posted = [];
  return { posted, boot: { worker: { postMessage: (m) => posted.push(m) }, messages: [] } };
}

const WARM = { model: "llama-3.3-70b", format: "bf16", context: 4096, concurrency: 1 };

test("the head's worker is told go, with the question, once the table is painted, not before", () => {
  const { posted, boot } = headWorker();
  const { window, paint } = page({ early: boot });
  assert.deepEqual(posted, []);
  paint();
  assert.deepEqual(plain(posted), [{ type: "go", warm: WARM }]);
  assert.equal(window.configuratorBoot, boot); // left for engine-client.js to adopt
});

test("no worker from the head, or no full configurator: nothing is started or said here", () => {
  const none = page();
  assert.equal(none.frames.length, 0);
  assert.equal(none.window.configuratorBoot, undefined);
  const { posted, boot } = headWorker();
  const compact = page({ widget: false, early: boot });
  compact.paint();
  assert.deepEqual(posted, []);
});
