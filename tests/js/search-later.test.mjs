// node --test tests/js/: search-later.js holds Material's search worker back on the configurator
// page until the reader reaches for search, the engine fails, or the engine is ready and the
// reader has left the page alone for 3 s; 30 s at the latest.
// The classic script runs here on a stand-in window: a Worker that records what it is given, a
// MutationObserver, listeners and timers the test fires itself.
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

const SCRIPT = fs.readFileSync(new URL("../../overrides/assets/javascripts/search-later.js", import.meta.url), "utf8");
const SEARCH = "../assets/javascripts/workers/search.a7633da7.min.js";

function page() {
  const made = [];
  class FakeWorker extends EventTarget {
    constructor(url, options) {
      super();
      this.url = url;
      this.options = options;
      this.got = [];
      this.ended = false;
      made.push(this);
    }
    postMessage(message) {
      this.got.push(message);
    }
    terminate() {
      this.ended = true;
    }
  }
  const observers = [];
  const listeners = {};
  const timers = [];
  const window = {
    Worker: FakeWorker,
    EventTarget,
    Event,
    MessageEvent,
    Proxy,
    MutationObserver: class {
      constructor(callback) {
        this.callback = callback;
        this.watching = false;
        observers.push(this);
      }
      observe(_node, options) {
        this.watching = true;
        this.options = options;
      }
      disconnect() {
        this.watching = false;
      }
    },
    setTimeout: (callback, ms) => timers.push({ callback, ms, cleared: false }) - 1,
    clearTimeout: (id) => {
      timers[id].cleared = true;
    },
  };
  const document = {
    documentElement: {},
    addEventListener: (type, listener) => {
      listeners[type] ??= [];
      listeners[type].push(listener);
    },
  };
  vm.runInNewContext(SCRIPT, { window, document, Reflect });
  const status = (state) => {
    for (const o of observers.filter((x) => x.watching)) {
      o.callback([{ target: { getAttribute: (name) => (name === "data-engine-status" ? state : null) } }]);
    }
  };
  const fire = (ms) => {
    for (const t of timers.filter((x) => x.ms === ms && !x.cleared)) {
      t.cleared = true;
      t.callback();
    }
  };
  const event = (type, inside) => {
    const target = { closest: (selector) => (inside && selector.includes(".md-search") ? {} : null) };
    for (const listener of listeners[type] ?? []) listener({ target });
  };
  return { window, made, observers, timers, status, event, fire };
}

test("other workers are created at once, as asked", () => {
  const { window, made } = page();
  const worker = new window.Worker("../assets/javascripts/configurator-worker.js", { type: "module" });
  assert.equal(made.length, 1);
  assert.equal(worker, made[0]);
  assert.deepEqual(made[0].options, { type: "module" });
});

test("the search worker waits for the engine and a quiet page, then gets what was posted, in order", () => {
  const { window, made, status, fire } = page();
  const worker = new window.Worker(SEARCH);
  worker.postMessage({ type: 0, data: "setup" });
  worker.postMessage({ type: 1, data: "query" });
  assert.equal(made.length, 0);
  status("loading");
  fire(3000);
  assert.equal(made.length, 0);
  status("ready");
  assert.equal(made.length, 0); // not at once: the reader may be changing a field
  fire(3000);
  assert.equal(made.length, 1);
  assert.equal(made[0].url, SEARCH);
  assert.deepEqual(made[0].got, [
    { type: 0, data: "setup" },
    { type: 1, data: "query" },
  ]);
  // Posted after the start: straight through.
  worker.postMessage({ type: 1, data: "again" });
  assert.deepEqual(made[0].got.at(-1), { type: 1, data: "again" });
});

test("after ready, each input of the reader starts the quiet time again", () => {
  const { window, made, status, event, timers } = page();
  new window.Worker(SEARCH);
  status("ready");
  event("input", false);
  event("keydown", false);
  const quiet = timers.filter((t) => t.ms === 3000);
  assert.equal(quiet.length, 3);
  assert.deepEqual(
    quiet.map((t) => t.cleared),
    [true, true, false],
  );
  quiet[2].callback();
  assert.equal(made.length, 1);
});

test("an engine that failed releases search at once", () => {
  const { window, made, status } = page();
  new window.Worker(SEARCH);
  status("error");
  assert.equal(made.length, 1);
});

test("what the search worker answers reaches the bundle's listeners and onmessage", () => {
  const { window, made, status } = page();
  const worker = new window.Worker(SEARCH);
  const heard = [];
  worker.addEventListener("message", (e) => heard.push(["listener", e.data]));
  worker.onmessage = (e) => heard.push(["onmessage", e.data]);
  status("error");
  made[0].dispatchEvent(new MessageEvent("message", { data: { type: 2, data: ["result"] } }));
  assert.deepEqual(heard, [
    ["listener", { type: 2, data: ["result"] }],
    ["onmessage", { type: 2, data: ["result"] }],
  ]);
});

test("the reader reaching for search starts it; a focus elsewhere does not", () => {
  const { window, made, event } = page();
  new window.Worker(SEARCH);
  event("focusin", false);
  event("pointerdown", false);
  assert.equal(made.length, 0);
  event("focusin", true);
  assert.equal(made.length, 1);
});

test("thirty seconds at the latest, and a search worker created after that starts at once", () => {
  const { window, made, timers, observers, fire } = page();
  new window.Worker(SEARCH);
  assert.deepEqual(
    timers.map((t) => t.ms),
    [30000],
  );
  fire(30000);
  assert.equal(made.length, 1);
  assert.equal(observers[0].watching, false); // nothing more to wait for
  new window.Worker(SEARCH);
  assert.equal(made.length, 2);
});

test("a search worker ended before its start is never created", () => {
  const { window, made, status } = page();
  const worker = new window.Worker(SEARCH);
  worker.postMessage("setup");
  worker.terminate();
  status("error");
  assert.equal(made.length, 0);
});

test("a browser without Proxy or EventTarget keeps its own Worker", () => {
  const window = { Worker: function Worker() {}, EventTarget: undefined, Proxy };
  const original = window.Worker;
  vm.runInNewContext(SCRIPT, { window, document: {}, Reflect });
  assert.equal(window.Worker, original);
});
