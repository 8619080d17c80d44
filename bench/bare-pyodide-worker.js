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
    const timing = await fetch(new URL("engine_timing.py", location.href));
    pyodide.FS.writeFile("/engine/engine_timing.py", new Uint8Array(await timing.arrayBuffer()));
    const timings = pyodide.runPython(`
import json, sys
sys.path.insert(0, "/engine")
from fitengine import Catalog
from engine_timing import time_engine
json.dumps(time_engine(Catalog.from_dict(json.loads(catalog_json))))
`);
    self.postMessage({ type: "engine", timings: JSON.parse(timings) });
  } catch (error) {
    self.postMessage({ type: "error", detail: String(error) });
  }
};
