// How the worker starts Pyodide: from the build's memory snapshot (Pyodide with the engine
// already imported, engine/snapshot-<hash>.bin) when the manifest names one made for this
// Pyodide and this engine, plainly otherwise. Pure functions, tested with `node --test`.

const HEX64 = /^[0-9a-f]{64}$/;
const FILE = /^[A-Za-z0-9._-]+$/;

function fileEntry(entry) {
  return entry && typeof entry === "object" && typeof entry.file === "string" && FILE.test(entry.file) && HEX64.test(entry.sha256 || "");
}

// The engine files as one string, in the form the snapshot records them (Python's
// json.dumps(sort_keys=True, separators=(",", ":"))): equal strings, same engine.
export function engineKey(files) {
  if (!files || typeof files !== "object") return "";
  const sorted = Object.keys(files)
    .sort()
    .map((name) => [name, String(files[name])]);
  return JSON.stringify(Object.fromEntries(sorted));
}

// `{ use: true, snapshot, stdlib }` (paths under engine/ and their SHA-256) when the manifest's
// snapshot was made for `pyodideVersion` and for the manifest's own engine files; otherwise
// `{ use: false, reason }`, and the worker starts Pyodide plainly.
export function snapshotPlan(manifest, pyodideVersion) {
  const entry = manifest && manifest.snapshot;
  if (!entry || typeof entry !== "object") return { use: false, reason: "no snapshot in the manifest" };
  if (entry.pyodide !== pyodideVersion || manifest.pyodide !== pyodideVersion) {
    return { use: false, reason: `snapshot made for Pyodide ${entry.pyodide}, this page loads ${pyodideVersion}` };
  }
  if (!fileEntry(entry.snapshot) || !fileEntry(entry.stdlib)) return { use: false, reason: "snapshot entry incomplete" };
  if (!manifest.files || engineKey(entry.engine) !== engineKey(manifest.files)) {
    return { use: false, reason: "snapshot made for other engine files" };
  }
  return {
    use: true,
    snapshot: { path: entry.snapshot.file, sha256: entry.snapshot.sha256 },
    stdlib: { path: entry.stdlib.file, sha256: entry.stdlib.sha256 },
    engine: engineKey(manifest.files),
  };
}
