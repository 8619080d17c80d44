// Starts the configurator page's engine before the rest of the page has loaded and its deferred
// scripts have run (half a second later on a slow machine); configurator.js then finds the engine
// on its way. Loaded `async` from the page's head (overrides/main.html, on a page whose content
// holds a full configurator) and from the end of the widget's HTML: a module runs once.
//
// When: a browser that started this Pyodide here before has it in its cache, so the engine starts
// as soon as the widget is parsed, beside the page's own loading (engine-client.js remembers it).
// Otherwise Pyodide's download waits until the build's table is painted, so that the answer a
// first visit reads is never held up by it. The worker warms up on the page's default question.

import { afterPaint, pyodideKept, startEngine } from "./engine-client.js";

const WIDGET = "[data-configurator]:not([data-compact])";

// Calls `callback` with the widget as soon as the parser has put it in the page (its attributes
// are there from then on; its content may still be coming), or never if the page has none.
function whenParsed(callback) {
  let observer = null;
  const look = () => {
    const widget = document.querySelector(WIDGET);
    if (!widget) return false;
    if (observer) observer.disconnect();
    observer = null;
    callback(widget);
    return true;
  };
  if (look() || document.readyState !== "loading") return;
  observer = new MutationObserver(look);
  observer.observe(document, { childList: true, subtree: true });
  document.addEventListener("DOMContentLoaded", () => observer && (observer.disconnect(), look()), { once: true });
}

whenParsed((root) => {
  const d = root.dataset;
  const warm = {
    model: d.defaultModel,
    format: d.defaultFormat,
    context: Number(d.defaultContext),
    concurrency: Number(d.defaultConcurrency),
  };
  if (pyodideKept(d.pyodide)) startEngine(root, warm);
  else afterPaint(() => startEngine(root, warm));
});
