// Benchmark worker: load Pyodide's core, run one line; optionally time the engine in Pyodide.
self.onmessage = async (event) => {
  const { shared, engine } = event.data;
  try {
    const manifest = await (await fetch(new URL("engine/manifest.json", shared))).json();
    const root = new URL(`pyodide/${manifest.pyodide}/`, shared);
    const { loadPyodide } = await import(new URL("pyodide.mjs", root).href);
    const pyodide = await loadPyodide({ indexURL: root.href, packages: [] });
    pyodide.runPython("1 + 1");
    self.postMessage({ type: "ready" });
    if (!engine) return;
    pyodide.FS.mkdirTree("/engine/fitengine");
    for (const name of Object.keys(manifest.files)) {
      const bytes = new Uint8Array(await (await fetch(new URL(`engine/fitengine/${name}`, shared))).arrayBuffer());
      pyodide.FS.writeFile(`/engine/fitengine/${name}`, bytes);
    }
    pyodide.globals.set("catalog_json", await (await fetch(new URL("engine/catalog.json", shared))).text());
    const timings = pyodide.runPython(`
import json, sys, time
sys.path.insert(0, "/engine")
from fitengine import Catalog, fit_all, fit_diffusion, workload
catalog = Catalog.from_dict(json.loads(catalog_json))
one = []
for _ in range(20):
    t = time.perf_counter(); fit_all(catalog, workload(catalog, "llama-3.3-70b", "bf16")); one.append(time.perf_counter() - t)
t = time.perf_counter()
for model in catalog.llms:
    for fmt in catalog.formats:
        fit_all(catalog, workload(catalog, model, fmt))
for model in catalog.diffusion:
    for fmt in catalog.formats:
        fit_diffusion(catalog, model, fmt)
every = time.perf_counter() - t
json.dumps({"one_workload_s": sorted(one), "every_model_format_s": every})
`);
    self.postMessage({ type: "engine", timings: JSON.parse(timings) });
  } catch (error) {
    self.postMessage({ type: "error", detail: String(error) });
  }
};
