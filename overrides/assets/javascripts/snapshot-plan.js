// How the worker starts Pyodide: from the build's memory snapshot (Pyodide with the engine
// already imported, engine/snapshot-<hash>.bin in parts) when the manifest names one made for this
// Pyodide and this engine, plainly otherwise. Pure functions, tested with `node --test`.

const HEX64 = /^[0-9a-f]{64}$/;
const FILE = /^[A-Za-z0-9._-]+$/;

function fileEntry(entry) {
  return (
    entry &&
    typeof entry === "object" &&
    typeof entry.file === "string" &&
    FILE.test(entry.file) &&
    HEX64.test(entry.sha256 || "")
  );
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

// The ranges of the heap the parts hold, in order ([from, to) each, whole 32-bit words, sorted and
// apart), or null unless well formed. The build leaves out the heap's pages that are all zeros
// (two thirds of it): the worker's buffer starts as zeros. Without `stored`, the parts hold it all.
function storedRanges(entry) {
  if (entry.stored === undefined) return [[0, entry.bytes]];
  if (!Array.isArray(entry.stored) || !entry.stored.length) return null;
  return apartRanges(entry.stored, entry.bytes, 4);
}

// A copy of `ranges` ([from, to) each, multiples of `unit`), or null unless each is well formed,
// not empty, after the one before it and ends at `limit` at most.
function apartRanges(ranges, limit, unit = 1) {
  let after = 0;
  for (const range of ranges) {
    if (!Array.isArray(range) || range.length !== 2 || !range.every((n) => Number.isSafeInteger(n) && n % unit === 0))
      return null;
    if (range[0] < after || range[1] <= range[0] || range[1] > limit) return null;
    after = range[1];
  }
  return ranges.map(([from, to]) => [from, to]);
}

// The snapshot's parts as the worker fetches them ({ path, sha256, bytes } each, in order), or
// null unless every part is well formed and their sizes add up to the stored ranges'.
function snapshotParts(entry, stored) {
  if (!entry || typeof entry !== "object" || !HEX64.test(entry.sha256 || "") || !Array.isArray(entry.parts))
    return null;
  if (!Number.isSafeInteger(entry.bytes) || entry.bytes % 4 !== 0 || !stored) return null; // Pyodide reads the heap as 32-bit words
  const parts = entry.parts;
  if (!parts.length || !parts.every((part) => fileEntry(part) && Number.isSafeInteger(part.bytes) && part.bytes > 0))
    return null;
  const total = parts.reduce((sum, part) => sum + part.bytes, 0);
  if (total !== stored.reduce((sum, [from, to]) => sum + to - from, 0)) return null;
  return parts.map((part) => ({ path: part.file, sha256: part.sha256, bytes: part.bytes }));
}

// Copies `bytes`, the stored stream's bytes from `at` on (the parts put end to end hold the
// stored ranges one after the other), to their places in `heap`.
export function place(heap, stored, at, bytes) {
  let start = 0; // where the current range begins in the stream
  for (const [from, to] of stored) {
    const length = to - from;
    const lo = Math.max(at, start);
    const hi = Math.min(at + bytes.length, start + length);
    if (lo < hi) heap.set(bytes.subarray(lo - at, hi - at), from + (lo - start));
    start += length;
    if (start >= at + bytes.length) break;
  }
  return heap;
}

function lockInfo(info) {
  return info && typeof info === "object" && !Array.isArray(info) && typeof info.abi_version === "string" ? info : null;
}

// The masked region (see unmask), or null unless well formed: inside the heap, whole 32-bit
// words, its raw ranges (stored as they are) sorted, apart and inside it.
function baseEntry(base, total) {
  if (!base || typeof base !== "object" || !HEX64.test(base.sha256 || "") || !Array.isArray(base.raw)) return null;
  const { offset, bytes } = base;
  if (![offset, bytes].every((n) => Number.isSafeInteger(n) && n >= 0 && n % 4 === 0) || offset + bytes > total)
    return null;
  const raw = apartRanges(base.raw, bytes);
  return raw && { offset, bytes, sha256: base.sha256, raw };
}

// The runtime's memory as the build saw it before the restore: its first `base.bytes`, copied,
// with the raw ranges zeroed (blocks the snapshot stores as they are: changed by Python's start,
// or different at every start, as random seeds are). Its SHA-256 must be `base.sha256` before
// `unmask` may use it.
export function initialImage(memory, base) {
  const image = memory.slice(0, base.bytes);
  for (const [from, to] of base.raw) image.fill(0, from, to);
  return image;
}

// The snapshot as Pyodide saved it, from the masked one the site ships: its memory image's first
// region was stored XORed with `image` (the build's initialImage: the blocks Python's start left
// unchanged, stored as zeros); XORed again, in place.
export function unmask(heap, base, image) {
  const at = heap.byteOffset + base.offset;
  if (at % 4 === 0 && base.bytes % 4 === 0) {
    const words = new Uint32Array(heap.buffer, at, base.bytes / 4);
    const mask = new Uint32Array(image.buffer, image.byteOffset, base.bytes / 4);
    for (let i = 0; i < words.length; i++) words[i] ^= mask[i];
  } else {
    for (let i = 0; i < base.bytes; i++) heap[base.offset + i] ^= image[i];
  }
  return heap;
}

// Pyodide restores a heap by copying it over the memory its wasm starts with (30 MiB for 314.0.7)
// and does not grow that memory first: a heap that grew past it at build time would not fit.
// Grows `module`'s memory (Emscripten's growMemory) to hold `bytes`, or throws.
export function growFor(module, bytes) {
  if (module.HEAPU8.length >= bytes) return;
  module.growMemory(bytes);
  if (module.HEAPU8.length < bytes)
    throw new Error(`the runtime's memory cannot grow to the snapshot's heap (${bytes} bytes)`);
}

// `{ use: true, snapshot, stdlib }` (paths under engine/ and their SHA-256; the snapshot in
// parts, `snapshot.parts`, holding the ranges `snapshot.stored` of a heap of `snapshot.bytes`
// (see place), masked as `snapshot.base` says) when the manifest's snapshot was made for
// `pyodideVersion` and for the manifest's own engine files; otherwise `{ use: false, reason }`,
// and the worker starts Pyodide plainly.
export function snapshotPlan(manifest, pyodideVersion) {
  const entry = manifest?.snapshot;
  if (!entry || typeof entry !== "object") return { use: false, reason: "no snapshot in the manifest" };
  if (entry.pyodide !== pyodideVersion || manifest.pyodide !== pyodideVersion) {
    return { use: false, reason: `snapshot made for Pyodide ${entry.pyodide}, this page loads ${pyodideVersion}` };
  }
  const stored = entry.snapshot && typeof entry.snapshot === "object" ? storedRanges(entry.snapshot) : null;
  const parts = snapshotParts(entry.snapshot, stored);
  const base = parts && baseEntry(entry.snapshot.base, entry.snapshot.bytes);
  if (!parts || !base || !fileEntry(entry.stdlib)) return { use: false, reason: "snapshot entry incomplete" };
  if (!manifest.files || engineKey(entry.engine) !== engineKey(manifest.files)) {
    return { use: false, reason: "snapshot made for other engine files" };
  }
  return {
    use: true,
    snapshot: { parts, bytes: entry.snapshot.bytes, stored, base },
    stdlib: { path: entry.stdlib.file, sha256: entry.stdlib.sha256 },
    engine: engineKey(manifest.files),
    // Pyodide's lock file reduced to what a runtime that loads no package reads (its `info`,
    // checked by Pyodide against itself), or null: Pyodide then fetches pyodide-lock.json.
    lockInfo: lockInfo(entry.lock_info),
  };
}
