// Material's search builds its index as the page loads: its bundle starts a worker that reads
// the whole site's text into lunr (about 0.2 s of CPU on the bench's 2-core machine). On the
// configurator page that work ran beside Pyodide's start and made a return visit 0.2 s slower.
// Loaded in that page's head only (partials/javascripts/base.html), before the bundle, this
// holds the search worker back until the reader reaches for search (a click, a tap or the
// keyboard's focus in the search box), the engine fails, or the engine is ready and the reader
// has left the page alone for 3 s (started at once on ready, it slowed the first change after
// it by 25 ms); 30 s at the latest. Whatever the bundle posted to it meanwhile is delivered
// then, in order. Every other worker is created as usual.
//
// A classic script, not a module: it must run before Material's bundle, which is a classic
// script too. tests/js/search-later.test.mjs runs it in Node on a stand-in window.
((win, doc) => {
  "use strict";
  const Real = win.Worker;
  if (typeof Real !== "function" || typeof win.EventTarget !== "function" || typeof win.Proxy !== "function") return;

  const SEARCH_WORKER = /\/workers\/search\.[^/]*\.js(\?|#|$)/; // Material's assets/javascripts/workers/search.<hash>.min.js
  const QUIET_MS = 3000; // after the engine is ready, without the reader touching the page
  const LATEST_MS = 30000;
  let held = [];
  let released = false;

  function HeldWorker(url, options) {
    const target = new win.EventTarget();
    let queue = [];
    let real = null;
    let ended = false;
    target.onmessage = null;
    target.onerror = null;
    target.onmessageerror = null;
    function relay(event) {
      const copy =
        event.type === "error" ? new win.Event("error") : new win.MessageEvent(event.type, { data: event.data });
      target.dispatchEvent(copy);
      const handler = target[`on${event.type}`];
      if (typeof handler === "function") handler.call(target, copy);
    }
    target.postMessage = (message, transfer) => {
      if (ended) return;
      if (real) real.postMessage(message, transfer);
      else queue.push([message, transfer]);
    };
    target.terminate = () => {
      ended = true;
      queue = [];
      if (real) real.terminate();
    };
    target.start = () => {
      if (real || ended) return;
      real = new Real(url, options);
      real.addEventListener("message", relay);
      real.addEventListener("messageerror", relay);
      real.addEventListener("error", relay);
      const pending = queue;
      queue = [];
      for (let i = 0; i < pending.length; i++) real.postMessage(pending[i][0], pending[i][1]);
    };
    return target;
  }

  function release() {
    if (released) return;
    released = true;
    observer.disconnect();
    for (let i = 0; i < held.length; i++) held[i].start();
    held = [];
  }

  win.Worker = new win.Proxy(Real, {
    construct: (target, args, newTarget) => {
      if (released || !SEARCH_WORKER.test(String(args[0]))) return Reflect.construct(target, args, newTarget);
      const worker = HeldWorker(args[0], args[1]);
      held.push(worker);
      return worker;
    },
  });

  // The engine's status line (configurator.js sets it): "error" ends the wait, "ready" starts
  // the quiet time, which the reader's every input starts again.
  let quiet = null;
  let ready = false;
  function rearm() {
    if (released || !ready) return;
    if (quiet !== null) win.clearTimeout(quiet);
    quiet = win.setTimeout(release, QUIET_MS);
  }
  const observer = new win.MutationObserver((records) => {
    for (let i = 0; i < records.length; i++) {
      const state = records[i].target.getAttribute("data-engine-status");
      if (state === "error") return release();
      if (state === "ready" && !ready) {
        ready = true;
        rearm();
      }
    }
  });
  observer.observe(doc.documentElement, { subtree: true, attributes: true, attributeFilter: ["data-engine-status"] });

  // The reader reaching for search: the header's search button or box, or a shortcut's focus.
  function reaching(event) {
    const node = event.target;
    if (node && typeof node.closest === "function" && node.closest(".md-search, label[for='__search']")) release();
    else rearm();
  }
  doc.addEventListener("focusin", reaching, true);
  doc.addEventListener("pointerdown", reaching, true);
  doc.addEventListener("keydown", rearm, true);
  doc.addEventListener("input", rearm, true);
  win.setTimeout(release, LATEST_MS);
})(window, document);
