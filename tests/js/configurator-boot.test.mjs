// node --test tests/js/: configurator-boot.js says "go" to the worker the head's script started,
// once the table is painted and the browser reports it shown, with the page's default question;
// without that worker it does nothing. The classic script runs here on a stand-in window.
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

const SCRIPT = fs.readFileSync(
  new URL("../../overrides/assets/javascripts/configurator-boot.js", import.meta.url),
  "utf8",
);

// Objects made inside the script's context have that context's prototypes: compared as JSON.
const plain = (value) => JSON.parse(JSON.stringify(value));

// `paintTiming`: what the stand-in browser reports of paints ("observed": an observer is told of
// the first contentful paint when `show()` is called; "already": it is reported by the frame;
// "none": no paint timing at all).
function page({ widget = true, early = null, paintTiming = "observed" } = {}) {
  const frames = [];
  const ports = [];
  const timers = [];
  const observers = [];
  let shown = paintTiming === "already";
  class FakeChannel {
    constructor() {
      this.port1 = { onmessage: null };
      this.port2 = { postMessage: () => ports.push(this.port1) };
    }
  }
  // What the browser has reported so far, as `performance` and an observer's list read it.
  const reported = {
    getEntriesByName: (name) => (shown && name === "first-contentful-paint" ? [{ name, startTime: 12 }] : []),
  };
  class FakeObserver {
    static supportedEntryTypes = ["paint", "mark"];
    constructor(callback) {
      this.callback = callback;
      this.watching = false;
    }
    observe(options) {
      assert.equal(options.type, "paint");
      this.watching = true;
      observers.push(this);
    }
    disconnect() {
      this.watching = false;
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
    setTimeout: (callback, ms) => timers.push({ callback, ms }),
    ...(paintTiming === "none" ? {} : { performance: reported, PerformanceObserver: FakeObserver }),
  };
  const document = {
    querySelector: (selector) => (widget && selector === "[data-configurator]:not([data-compact])" ? root : null),
  };
  vm.runInNewContext(SCRIPT, { window, document, Number });
  const paint = () => {
    for (const f of frames.splice(0)) f();
    for (const p of ports.splice(0)) p.onmessage();
  };
  // The browser reports the first contentful paint to the observers still watching.
  const show = () => {
    shown = true;
    for (const o of observers.filter((o) => o.watching)) o.callback(reported);
  };
  const expire = () => {
    for (const t of timers.splice(0)) t.callback();
  };
  return { window, frames, timers, paint, show, expire };
}

function headWorker() {
  const posted = [];
  return { posted, boot: { worker: { postMessage: (m) => posted.push(m) }, messages: [] } };
}

const WARM = { model: "llama-3.3-70b", format: "bf16", context: 4096, concurrency: 1 };

test("the head's worker is told go, with the question, once the table is shown, not before", () => {
  const { posted, boot } = headWorker();
  const { window, paint, show, timers } = page({ early: boot });
  assert.deepEqual(posted, []);
  paint(); // the frame is painted, not yet reported shown
  assert.deepEqual(posted, []);
  assert.deepEqual(
    timers.map((t) => t.ms),
    [1000],
  );
  show();
  assert.deepEqual(plain(posted), [{ type: "go", warm: WARM }]);
  assert.equal(window.configuratorBoot, boot); // left for engine-client.js to adopt
  assert.equal(boot.going, true); // which then says nothing itself
});

test("go once only: a later report or the wait's end says nothing more", () => {
  const { posted, boot } = headWorker();
  const { paint, show, expire } = page({ early: boot });
  paint();
  show();
  expire();
  show();
  assert.equal(posted.length, 1);
});

test("a first contentful paint reported by the frame: go at once, nothing observed", () => {
  const { posted, boot } = headWorker();
  const { paint, timers } = page({ early: boot, paintTiming: "already" });
  paint();
  assert.deepEqual(plain(posted), [{ type: "go", warm: WARM }]);
  assert.equal(timers.length, 0);
});

test("no paint timing in the browser: go once the frame is painted", () => {
  const { posted, boot } = headWorker();
  const { paint } = page({ early: boot, paintTiming: "none" });
  assert.deepEqual(posted, []);
  paint();
  assert.deepEqual(plain(posted), [{ type: "go", warm: WARM }]);
});

test("no first contentful paint reported within the wait: go when it ends", () => {
  const { posted, boot } = headWorker();
  const { paint, expire } = page({ early: boot });
  paint();
  assert.deepEqual(posted, []);
  expire();
  assert.deepEqual(plain(posted), [{ type: "go", warm: WARM }]);
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
