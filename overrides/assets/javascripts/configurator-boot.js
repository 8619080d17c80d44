// Says "go" to the configurator page's engine worker once the build's table is painted, with
// the page's default question to warm up on. A classic script at the end of the widget's HTML,
// so it runs before Material's bundle. The worker is normally started from the page's head
// (configurator-early.js); where it was not, this starts it (the worker then fetches its own
// scripts and the manifest, and asks for Pyodide once told "go"), so the page's first paint
// never waits for Pyodide.
//
// engine-client.js adopts the worker (`configuratorBoot`: the worker and every message it
// sent before that). tests/js/configurator-boot.test.mjs runs it in Node on a stand-in window.
(function (win, doc, script) {
  "use strict";
  var root = doc.querySelector("[data-configurator]:not([data-compact])");
  if (!root || !script || typeof win.Worker !== "function") return;
  var d = root.dataset;
  var warm = {
    model: d.defaultModel,
    format: d.defaultFormat,
    context: Number(d.defaultContext),
    concurrency: Number(d.defaultConcurrency),
  };
  var worker;
  if (win.configuratorBoot) {
    worker = win.configuratorBoot.worker; // started from the head, with what init needs
  } else {
    var messages = [];
    try {
      worker = new win.Worker(new URL("configurator-worker.js", script.src), { type: "module" });
    } catch (error) {
      return; // no module workers: engine-client.js starts (and reports) it as it would have
    }
    worker.onmessage = function (event) {
      messages.push(event);
    };
    worker.onerror = function (event) {
      messages.push(event);
    };
    worker.postMessage({
      type: "init",
      shared: new URL("../", new URL(d.root || "./", win.location.href)).href,
      locale: d.locale,
      pyodide: d.pyodide,
      hold: true,
    });
    win.configuratorBoot = { worker: worker, messages: messages };
  }
  // Once the next frame has been painted (a task queued from the frame's animation callback
  // runs after that frame's paint).
  win.requestAnimationFrame(function () {
    var channel = new win.MessageChannel();
    channel.port1.onmessage = function () {
      worker.postMessage({ type: "go", warm: warm });
    };
    channel.port2.postMessage(null);
  });
})(window, document, document.currentScript);
