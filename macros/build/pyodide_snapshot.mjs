// Makes the configurator's Pyodide memory snapshot in Node: `node macros/build/pyodide_snapshot.mjs
// PYODIDE_DIR ENGINE_DIR OUT_FILE`. Called by macros/build/pyodide_snapshot.py during `make site`.
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
  console.error("usage: node macros/build/pyodide_snapshot.mjs PYODIDE_DIR ENGINE_DIR OUT_FILE");
  process.exit(2);
}

const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const siteCustomize = fs.readFileSync(new URL("snapshot_site.py", import.meta.url));
const pyodide = await loadPyodide({
  indexURL: pyodideDir + path.sep,
  packages: [],
  _makeSnapshot: true,
  // Pyodide's standard library is shipped as sources, so every module its start and the engine
  // import is compiled here. Without column ranges, as `python -X no_debug_ranges`: the heap
  // keeps each instruction's line but not the columns tracebacks underline with `^^^` (8% off
  // the compressed snapshot). Optimized as `python -OO`: no docstrings, no `assert` (the engine
  // has none; another 10%). The restored runtime keeps both settings.
  env: { PYTHONNODEBUGRANGES: "1", PYTHONOPTIMIZE: "2" },
  // Imported by Python's start before Pyodide's own modules: see macros/build/snapshot_site.py.
  fsInit: (FS, { sitePackages }) => FS.writeFile(`${sitePackages}/sitecustomize.py`, siteCustomize),
  stdout: () => {},
  stderr: (line) => console.error(line),
});

const packageDir = path.join(engineDir, "fitengine");
const hashes = {};
pyodide.FS.mkdirTree("/engine/fitengine");
for (const name of fs
  .readdirSync(packageDir)
  .filter((n) => n.endsWith(".py"))
  .sort()) {
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

_site = sys.modules.get("sitecustomize")
if sys.flags.optimize != 2 or _site is None or any(sys.modules.get(name, 0) is not None for name in _site.OPTIONAL):
    raise RuntimeError("Pyodide started without the builder's settings or macros/build/snapshot_site.py")
del _site
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
# What Pyodide's start imported for coroutines and packages, which the worker never runs or
# installs, goes now (macros/build/snapshot_site.py). That nothing kept, the engine included, still
# refers to one of those or imports one when it runs is checked by the tests, in the restored heap.
sys.modules["sitecustomize"].leave_out()
# The restored runtime gets a smaller standard library zip: forget the directory read from this one.
zipimport._zip_directory_cache.clear()
sys.path_importer_cache.clear()
del _before
_renew_std_streams = sys.modules["sitecustomize"].renew_std_streams
gc.collect()
json.dumps(_stdlib_added)
`);
pyodide.runPython("del _stdlib_added");

// Freed heap keeps what it held, which compresses badly: take every free block below the
// heap's top, zero it, and give it back. The live objects are untouched. A request the free
// blocks cannot meet extends the heap's top: none asks for more than half of what the memory has
// above it, so the memory (and the snapshot, as large) does not grow for this.
const heap = pyodide._module;
function zeroFreeBlocks() {
  const top = heap._sbrk(0) >>> 0;
  const room = heap.HEAP8.length - top;
  const taken = [];
  for (let size = 1 << 22; size >= 16; size >>= 1) {
    if (size > room >>> 1) continue;
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
}
zeroFreeBlocks();
// Python's start gave the standard streams buffers that still hold what was read before them
// (standard library's zip, compressed): new ones, made now, take zeroed blocks; the old ones'
// blocks are zeroed in turn (macros/build/snapshot_site.py, renew_std_streams). Called through the
// proxy taken above, not runPython: compiling source first would free blocks a buffer could take.
const renew = pyodide.globals.get("_renew_std_streams");
renew();
renew.destroy();
pyodide.runPython("del _renew_std_streams; gc.collect()");
zeroFreeBlocks();

const snapshot = pyodide.makeMemorySnapshot();

// Stored masked: the memory image's first region (the wasm's data segments, as the runtime has
// them once instantiated) holds many blocks that Python's start left as they were. Those are
// stored as zeros, and the worker takes them from its own runtime's memory, which holds them
// too just before the restore copies the heap over it (a third off the compressed snapshot; the
// wasm is not fetched twice). The region is read here as the browser will have it: from a
// runtime being restored from this snapshot, three times. Blocks are stored "raw" (as they
// are) where Python's start changed them or where the three runs differ (random seeds); the
// others are masked: XORed with that memory, so zeros. The masked blocks' SHA-256 is checked by
// the worker before it unmasks (a mismatch: the plain start).
const offset = new DataView(snapshot.buffer, snapshot.byteOffset).getUint32(4, true); // Pyodide's header size
const { default: createModule } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.asm.mjs")).href);
const { growFor } = await import(new URL("../../overrides/assets/javascripts/snapshot-plan.js", import.meta.url).href);
async function initialMemory() {
  let memory = null;
  await loadPyodide({
    indexURL: pyodideDir + path.sep,
    packages: [],
    _loadSnapshot: snapshot.slice(),
    // The program name is written in that memory: Node's would be this script's path; a
    // browser's is Emscripten's default outside Node.
    _sysExecutable: "./this.program",
    stdout: () => {},
    stderr: (line) => console.error(line),
    createPyodideModule: async (settings) => {
      const module = await createModule(settings);
      memory = module.HEAPU8.slice();
      // As the worker does: a heap that grew past the runtime's first memory needs it grown.
      growFor(module, snapshot.length - offset);
      return module;
    },
  });
  return memory;
}
const runs = [await initialMemory(), await initialMemory(), await initialMemory()];
// The region: from 0 to the first gap of 1 MiB of zeros (the stack, further up, is left out).
const BLOCK = 256;
const GAP = 1 << 20;
const first = runs[0];
let end = 0;
for (let at = 0, zeros = 0; at < first.length && zeros < GAP; at += BLOCK) {
  if (first.subarray(at, at + BLOCK).some((b) => b !== 0)) {
    end = at + BLOCK;
    zeros = 0;
  } else {
    zeros += BLOCK;
  }
}
if (offset % 4 !== 0 || offset + end > snapshot.length)
  throw new Error(`unexpected snapshot layout (header ${offset} bytes)`);
const heapRegion = snapshot.subarray(offset, offset + end);
const raw = [];
for (let at = 0; at < end; at += BLOCK) {
  const same = (run) => run.subarray(at, at + BLOCK).every((b, i) => b === heapRegion[at + i]);
  if (runs.every(same)) continue; // masked: the runtime holds these bytes before the restore
  const last = raw[raw.length - 1];
  if (last && last[1] === at) last[1] = at + BLOCK;
  else raw.push([at, at + BLOCK]);
}
const image = first.slice(0, end);
for (const [from, to] of raw) image.fill(0, from, to);
for (let i = 0; i < end; i++) heapRegion[i] ^= image[i];
const base = { offset, bytes: end, sha256: createHash("sha256").update(image).digest("hex"), raw };

fs.writeFileSync(outFile, snapshot);
process.stdout.write(`${JSON.stringify({ stdlib: JSON.parse(added), engine: hashes, base })}\n`);
