// Starts the configurator page's engine as soon as the build's table has been painted, instead
// of once the whole page has loaded and its deferred scripts have run (half a second later on a
// slow machine). Loaded `async` from the end of the widget's HTML; configurator.js then finds
// the engine on its way. The worker warms up on the page's default question.

import { afterPaint, startEngine } from "./engine-client.js";

const root = document.querySelector("[data-configurator]:not([data-compact])");
if (root) {
  afterPaint(() => {
    const d = root.dataset;
    startEngine(root, {
      model: d.defaultModel,
      format: d.defaultFormat,
      context: Number(d.defaultContext),
      concurrency: Number(d.defaultConcurrency),
    });
  });
}
