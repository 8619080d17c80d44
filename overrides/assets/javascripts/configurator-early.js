// Starts the configurator page's engine worker from the page's head, before the page is parsed.
// Loaded on that page only (partials/javascripts/base.html), as a classic script: a worker asked
// for later (at the end of the widget, or by a module) was created only once the page's parsing
// and Material's bundle had let go of the main thread. What the worker needs to start is in its
// address (the shared folder and the locale: a message from a page still parsing arrives late).
// It fetches the manifest and its own module at once, restores the snapshot at once when the
// browser has it in its cache (a return visit), and otherwise waits for configurator-boot.js's
// "go" once the build's table is painted. engine-client.js adopts it (`configuratorBoot`).
// tests/js/configurator-early.test.mjs runs it in Node on a stand-in window.
((win, script) => {
  "use strict";
  if (!script || typeof win.Worker !== "function" || typeof win.URL !== "function") return;
  var url = new win.URL("configurator-worker.js", script.src);
  url.searchParams.set("shared", new win.URL("../", new win.URL(script.dataset.root || "./", win.location.href)).href);
  url.searchParams.set("locale", script.dataset.locale || "");
  var worker;
  try {
    worker = new win.Worker(url.href, { type: "module" });
  } catch (_error) {
    return; // no module workers: engine-client.js starts (and reports) it, as on any page
  }
  var messages = [];
  worker.onmessage = (event) => {
    messages.push(event);
  };
  worker.onerror = (event) => {
    messages.push(event);
  };
  win.configuratorBoot = { worker: worker, messages: messages };
})(window, document.currentScript);
