// Makes the configurator's Pyodide memory snapshot in Node: `node macros/pyodide_snapshot.mjs
// PYODIDE_DIR ENGINE_DIR OUT_FILE`. Called by macros/pyodide_snapshot.py during `make site`.
//
// It starts the pinned Pyodide (node_modules/pyodide) with `_makeSnapshot`, writes the shipped
// engine files (ENGINE_DIR/fitengine/*.py, the bytes the site serves) into its file system,
// imports the worker's entry (fitengine.browser) and nothing else, and saves the heap. What a
// snapshot must not hold is a reference to a JavaScript object (Pyodide can only restore those
// it reaches from globalThis by name), so nothing JavaScript crosses into Python here: the
// engine's file hashes cross as one string. Prints, as JSON on stdout, what the restored
// runtime needs from the standard library (the modules the engine's import added).

import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, engineDir, outFile] = process.argv.slice(2);
if (!pyodideDir || !engineDir || !outFile) {
  console.error("usage: node macros/pyodide_snapshot.mjs PYODIDE_DIR ENGINE_DIR OUT_FILE");
  process.exit(2);
}

const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({
  indexURL: pyodideDir + path.sep,
  packages: [],
  _makeSnapshot: true,
  stdout: () => {},
  stderr: (line) => console.error(line),
});

const packageDir = path.join(engineDir, "fitengine");
const hashes = {};
pyodide.FS.mkdirTree("/engine/fitengine");
for (const name of fs.readdirSync(packageDir).filter((n) => n.endsWith(".py")).sort()) {
  const bytes = fs.readFileSync(path.join(packageDir, name));
  hashes[name] = createHash("sha256").update(bytes).digest("hex");
  pyodide.FS.writeFile(`/engine/fitengine/${name}`, bytes);
}

pyodide.globals.set("_snapshot_hashes", JSON.stringify(hashes));
const added = pyodide.runPython(`
import gc
import json
import sys
import zipimport

_before = {name: getattr(module, "__file__", None) for name, module in list(sys.modules.items())}
sys.path.insert(0, "/engine")
import fitengine.browser  # noqa: E402

# Read by the worker after a restore: the engine the heap holds, file by file.
_snapshot_engine = json.dumps(json.loads(_snapshot_hashes), sort_keys=True, separators=(",", ":"))
del _snapshot_hashes
_stdlib_added = sorted(
    module.__file__
    for name, module in list(sys.modules.items())
    if name not in _before and getattr(module, "__file__", None) and module.__file__.startswith("/lib/python")
)
# The restored runtime gets a smaller standard library zip: forget the directory read from this one.
zipimport._zip_directory_cache.clear()
sys.path_importer_cache.clear()
del _before
gc.collect()
json.dumps(_stdlib_added)
`);
pyodide.runPython("del _stdlib_added");

// Freed heap keeps what it held, which compresses badly: take every free block below the
// heap's top, zero it, and give it back. The live objects are untouched.
const heap = pyodide._module;
const top = heap._sbrk(0) >>> 0;
const taken = [];
for (let size = 1 << 22; size >= 16; size >>= 1) {
  for (;;) {
    const at = heap._malloc(size) >>> 0;
    if (!at) break;
    if (at + size > top) {
      heap._free(at);
      break;
    }
    heap.HEAP8.fill(0, at, at + size);
    taken.push(at);
  }
}
for (const at of taken) heap._free(at);

const snapshot = pyodide.makeMemorySnapshot();
fs.writeFileSync(outFile, snapshot);
process.stdout.write(JSON.stringify({ stdlib: JSON.parse(added), engine: hashes }) + "\n");
