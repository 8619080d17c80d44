// Benchmark page script: the bare cost of Pyodide — a module worker that loads the same core
// files and runs one line of Python. With ?engine=1 it also times the fit engine inside Pyodide.
const params = new URLSearchParams(location.search);
const shared = new URL("../", location.href);
const worker = new Worker(new URL("bare-pyodide-worker.js", import.meta.url), { type: "module" });
worker.onmessage = (event) => {
  if (event.data.type === "ready") performance.mark("bare-ready");
  if (event.data.type === "engine") document.body.dataset.engine = JSON.stringify(event.data.timings);
  if (event.data.type === "error") document.body.dataset.error = event.data.detail;
  document.body.dataset.state = event.data.type;
};
worker.postMessage({ shared: shared.href, engine: params.get("engine") === "1" });
