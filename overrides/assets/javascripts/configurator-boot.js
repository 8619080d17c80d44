// Starts the configurator page's engine while the page is still being parsed. A classic script
// at the end of the widget's HTML, so it runs before Material's bundle (an async module ran
// only after that bundle and the page's parsing: on a return visit the worker started 0.2 s
// after the table was on screen). It starts the module worker at once; the worker fetches
// its own scripts and the manifest meanwhile, and asks for Pyodide only once this script says
// the build's table is painted ("go"), so the page's first paint never waits for Pyodide.
//
// engine-client.js adopts the worker (`configuratorBoot`: the worker and every message it
// sent before that); the worker warms up on the page's default question.
// tests/js/configurator-boot.test.mjs runs it in Node on a stand-in window.
(function (win, doc, script) {
  "use strict";
  var root = doc.querySelector("[data-configurator]:not([data-compact])");
  if (!root || !script || typeof win.Worker !== "function") return;
  var d = root.dataset;
  var worker;
  try {
    worker = new win.Worker(new URL("configurator-worker.js", script.src), { type: "module" });
  } catch (error) {
    return; // no module workers: engine-client.js starts (and reports) it as it would have
  }
  var messages = [];
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
    warm: {
      model: d.defaultModel,
      format: d.defaultFormat,
      context: Number(d.defaultContext),
      concurrency: Number(d.defaultConcurrency),
    },
    hold: true,
  });
  // Once the next frame has been painted (a task queued from the frame's animation callback
  // runs after that frame's paint).
  win.requestAnimationFrame(function () {
    var channel = new win.MessageChannel();
    channel.port1.onmessage = function () {
      worker.postMessage({ type: "go" });
    };
    channel.port2.postMessage(null);
  });
  win.configuratorBoot = { worker: worker, messages: messages };
})(window, document, document.currentScript);
