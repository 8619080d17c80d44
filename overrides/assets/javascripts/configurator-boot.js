// Says "go" to the configurator page's engine worker once the build's table is painted, with
// the page's default question to warm up on. The worker was started from the page's head
// (configurator-early.js) and asks for Pyodide only once told, so the page's first paint never
// waits for Pyodide. A classic script at the end of the widget's HTML, so it runs before
// Material's bundle (engine-client.js says "go" again once it adopts the worker, later).
// Where the head's script did not start a worker, there is nothing to say: engine-client.js
// starts one when configurator.js starts the engine.
// tests/js/configurator-boot.test.mjs runs it in Node on a stand-in window.
(function (win, doc) {
  "use strict";
  var root = doc.querySelector("[data-configurator]:not([data-compact])");
  var boot = win.configuratorBoot;
  if (!root || !boot) return;
  var d = root.dataset;
  var warm = {
    model: d.defaultModel,
    format: d.defaultFormat,
    context: Number(d.defaultContext),
    concurrency: Number(d.defaultConcurrency),
  };
  // Once the next frame has been painted (a task queued from the frame's animation callback
  // runs after that frame's paint).
  win.requestAnimationFrame(function () {
    var channel = new win.MessageChannel();
    channel.port1.onmessage = function () {
      boot.worker.postMessage({ type: "go", warm: warm });
    };
    channel.port2.postMessage(null);
  });
})(window, document);
