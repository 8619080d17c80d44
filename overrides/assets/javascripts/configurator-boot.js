// Says "go" to the configurator page's engine worker once the build's table is on screen, with
// the page's default question to warm up on. The worker was started from the page's head
// (configurator-early.js) and asks for Pyodide only once told, so the page's first paint never
// waits for Pyodide. A classic script at the end of the widget's HTML, so it runs before
// Material's bundle (engine-client.js, which adopts the worker later, says "go" only where this
// script did not run).
// Where the head's script did not start a worker, there is nothing to say: engine-client.js
// starts one when configurator.js starts the engine.
// tests/js/configurator-boot.test.mjs runs it in Node on a stand-in window.
((win, doc) => {
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
  // Once the build's table is on screen: the next frame painted (a task queued from the frame's
  // animation callback runs after that frame's paint), then the browser's first contentful paint
  // reported (its time is when the frame was shown, which a busy machine does later than the
  // frame's end). Without paint timing, or when none is reported within FCP_WAIT_MS, the frame.
  var FCP_WAIT_MS = 1000;
  var FCP = "first-contentful-paint";
  function onScreen(callback) {
    var done = false;
    function once() {
      if (!done) {
        done = true;
        callback();
      }
    }
    win.requestAnimationFrame(() => {
      var channel = new win.MessageChannel();
      channel.port1.onmessage = () => {
        var perf = win.performance;
        var Observer = win.PerformanceObserver;
        var types = Observer?.supportedEntryTypes || [];
        if (!perf?.getEntriesByName || types.indexOf("paint") < 0 || perf.getEntriesByName(FCP).length) {
          once();
          return;
        }
        var observer = new Observer((list) => {
          if (list.getEntriesByName(FCP).length) {
            observer.disconnect();
            once();
          }
        });
        observer.observe({ type: "paint", buffered: true });
        win.setTimeout(() => {
          observer.disconnect();
          once();
        }, FCP_WAIT_MS);
      };
      channel.port2.postMessage(null);
    });
  }
  boot.going = true; // engine-client.js, which adopts the worker, then leaves "go" to this script
  onScreen(() => {
    boot.worker.postMessage({ type: "go", warm: warm });
  });
})(window, document);
