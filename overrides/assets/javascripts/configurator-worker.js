// Module worker hosting Pyodide and the fit engine, so the page never freezes.
// It loads Pyodide's core from the site itself, checks every engine file against the build's
// manifest of SHA-256 hashes, imports the engine and answers requests. When the build made a
// memory snapshot of Pyodide with the engine imported (macros/pyodide_snapshot.py), it restores
// that instead, and falls back to the plain start if the snapshot is missing, stale or refused.
// The engine decides everything; this file only carries messages, the protocol's
// (configurator/protocol.js, made by configurator/channel.js).

// snapshot-plan.js and snapshot-fetch.js, imported by init() (a static import held this worker's
// start back by 0.1 s on a return visit: the page's main thread, still busy, took that long to fetch it).
let plans = null;
let fetcher = null;

let answer = null;
let started = null; // "snapshot" or "plain": how Pyodide was started, said with `ready`
let check = null;
let numberFormat = null;

// Start-up steps on the worker's own timeline (read by bench/run.py's return-visit breakdown).
function mark(name) {
  performance.mark(name);
}

// configurator/channel.js, imported at once but not waited for (as snapshot-plan.js below): each
// message is posted once it is loaded, in the order they were made. Should it fail to load, the
// messages go unchecked rather than not at all (the page must hear of the failure). `fields` may
// be a function of the channel's module, for what the protocol names (WORKER_ERRORS).
const channel = import("./configurator/channel.js").catch(() => ({
  toPage: (type, fields) => ({ type, ...fields }),
  WORKER_ERRORS: {},
}));

function post(type, fields) {
  channel.then((c) => self.postMessage(c.toPage(type, typeof fields === "function" ? fields(c) : fields)));
}

async function sha256(bytes) {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function fetchOk(url, options) {
  const response = await fetch(url, options);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response;
}

// The engine's files, each checked against the manifest's SHA-256 (the plain start writes them
// into Pyodide's file system; a restored snapshot already holds them, imported).
function fetchEngineFiles(shared, manifest) {
  const { package: packageName, files } = manifest;
  return Promise.all(
    Object.entries(files).map(async ([name, expected]) => {
      const bytes = new Uint8Array(
        await (await fetchOk(new URL(`engine/${packageName}/${name}`, shared))).arrayBuffer(),
      );
      if ((await sha256(bytes)) !== expected)
        throw new Error(`engine file ${name} does not match the build's manifest`);
      return [name, bytes];
    }),
  );
}

// The snapshot's parts fetched and checked (snapshot-fetch.js, loaded beside snapshot-plan.js).
function fetchSnapshot(shared, plan, heap, options) {
  const say = (loaded, total) => post("status", { state: "loading", step: 1, steps: 3, loaded, total });
  return fetcher.fetchSnapshot(shared, plan, heap, options, { plans, fetchOk, sha256, say, mark });
}

// Pyodide restored from the build's snapshot, or null (and why, on the console) when the
// snapshot is missing, stale or refused: the caller then starts Pyodide plainly.
async function restore(loadPyodide, pyodideRoot, shared, plan, early, factory) {
  const { base } = plan.snapshot;
  try {
    // Pyodide is handed the snapshot's buffer at once, still empty: it needs only its size to
    // compile and instantiate the wasm, which it does while the parts arrive; they are all in,
    // checked and unmasked before Pyodide copies the heap (createPyodideModule below).
    const { heap, filled } = early || fetchSnapshot(shared, plan, new Uint8Array(plan.snapshot.bytes));
    // Pyodide fetches the small standard library itself (unchecked, as python_stdlib.zip is on
    // the plain start); the restored heap has already imported every module the engine uses.
    const pyodide = await loadPyodide({
      indexURL: pyodideRoot.href,
      stdLibURL: new URL(`engine/${plan.stdlib.path}`, shared).href,
      packages: [],
      ...(plan.lockInfo ? { lockFileContents: { info: plan.lockInfo, packages: {} } } : {}),
      stdout: () => {},
      stderr: () => {},
      _loadSnapshot: heap,
      // Instantiated, before the heap is copied over its memory: the snapshot's masked region is
      // XORed back with that memory (snapshot-plan.js), once it is checked to be the build's.
      createPyodideModule: async (settings) => {
        const made = factory
          .then((create) => create(settings))
          .then((module) => {
            mark("worker-runtime-made"); // the wasm compiled and instantiated, its runtime set up
            return module;
          });
        const [module] = await Promise.all([made, filled]);
        const image = plans.initialImage(module.HEAPU8, base);
        if ((await sha256(image)) !== base.sha256)
          throw new Error("the runtime's initial memory is not the one the snapshot was masked with");
        plans.unmask(heap, base, image);
        plans.growFor(module, heap.length - base.offset);
        return module;
      },
    });
    // The heap says which engine it imported: it must be the manifest's, file for file.
    const held = pyodide.runPython("globals().get('_snapshot_engine', '')");
    if (held !== plan.engine) throw new Error("the snapshot holds other engine files than the manifest's");
    return pyodide;
  } catch (error) {
    console.warn(
      `Pyodide snapshot not used (${String(error?.message ? error.message : error).split("\n")[0]}): starting plainly`,
    );
    return null;
  }
}

// Resolved by the page's "go" (configurator-boot.js sends it once the build's table is painted,
// with the question to warm up on): a worker started while the page is still being parsed asks
// for nothing heavy before that, unless the snapshot is already in the browser's cache.
let go = null;
const painted = new Promise((resolve) => {
  go = resolve;
});

// The snapshot read from the HTTP cache, nothing from the network, or null when a part is not
// there (a first visit): { heap, filled } for restore(), once every part has answered.
async function cachedSnapshot(shared, manifest, version) {
  try {
    const built = await manifest;
    const plan = plans.snapshotPlan(built, version || built.pyodide);
    if (!plan.use) return null;
    const early = fetchSnapshot(shared, plan, new Uint8Array(plan.snapshot.bytes), {
      cache: "only-if-cached",
      mode: "same-origin",
    });
    await early.arrived;
    return early;
  } catch {
    return null;
  }
}

let initialized = false;

async function init({ shared, locale, pyodide: version, warm, hold }) {
  if (initialized) return; // started from the address the page gave it (configurator-early.js)
  initialized = true;
  mark("worker-init");
  post("status", { state: "loading", step: 1, steps: 3 });
  const manifest = fetchOk(new URL("engine/manifest.json", shared)).then((r) => r.json());
  manifest.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
  [plans, fetcher] = await Promise.all([import("./snapshot-plan.js"), import("./snapshot-fetch.js")]);
  // A return visit, its snapshot in the browser's cache (and Pyodide with it), starts at once:
  // nothing it reads competes with the page's own download. A first visit waits for the paint.
  const early = hold ? await cachedSnapshot(shared, manifest, version) : null;
  if (hold && !early) await painted;
  mark("worker-go");
  // The page names Pyodide's version, so its download (the long part) starts first; the engine's
  // files follow and are checked while it loads. Without it, the manifest names the version.
  const pyodideVersion = version || (await manifest).pyodide;
  const pyodideRoot = new URL(`pyodide/${pyodideVersion}/`, shared);
  const pyodideModule = import(new URL("pyodide.mjs", pyodideRoot).href);
  pyodideModule.catch(() => {}); // awaited below
  const built = await manifest;
  mark("worker-manifest");
  if (built.pyodide !== pyodideVersion) {
    throw new Error(
      `this page expects Pyodide ${pyodideVersion}, the site's engine was built for ${built.pyodide}: reload the page`,
    );
  }
  const plan = plans.snapshotPlan(built, pyodideVersion);
  // Pyodide's own module, imported beside pyodide.mjs when the snapshot is restored (loadPyodide
  // would import it only once called).
  const factory = plan.use
    ? import(new URL("pyodide.asm.mjs", pyodideRoot).href).then((module) => module.default)
    : null;
  if (factory) {
    factory.then(
      () => mark("worker-pyodide-imported"),
      () => {},
    );
  }
  const { loadPyodide } = await pyodideModule;
  // The catalog is trusted only as the build wrote it: the manifest holds its hash too.
  const catalogText = fetchOk(new URL("engine/catalog.json", shared))
    .then((r) => r.arrayBuffer())
    .then(async (buffer) => {
      const expected = built.data?.["catalog.json"];
      if (!expected || (await sha256(buffer)) !== expected)
        throw new Error("engine/catalog.json does not match the build's manifest");
      return new TextDecoder().decode(buffer);
    });
  catalogText.catch(() => {});
  // The engine's texts in the page's language (its reasons), from the site's message catalogs:
  // trusted, like the catalog, only as the build wrote them.
  const wordsName = `messages/${locale}.json`;
  const wordsText = fetchOk(new URL(`engine/${wordsName}`, shared))
    .then((r) => r.arrayBuffer())
    .then(async (buffer) => {
      const expected = built.data?.[wordsName];
      if (!expected || (await sha256(buffer)) !== expected)
        throw new Error(`engine/${wordsName} does not match the build's manifest`);
      return new TextDecoder().decode(buffer);
    });
  wordsText.catch(() => {});

  let pyodide = plan.use ? await restore(loadPyodide, pyodideRoot, shared, plan, early, factory) : null;
  mark("worker-pyodide-started");
  started = pyodide ? "snapshot" : "plain";
  if (!pyodide) {
    const loading = loadPyodide({ indexURL: pyodideRoot.href, packages: [], stdout: () => {}, stderr: () => {} });
    loading.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
    const engineFiles = fetchEngineFiles(shared, built);
    engineFiles.catch(() => {});
    pyodide = await loading;
    post("status", { state: "loading", step: 2, steps: 3 });
    pyodide.FS.mkdirTree(`/engine/${built.package}`);
    for (const [name, bytes] of await engineFiles) pyodide.FS.writeFile(`/engine/${built.package}/${name}`, bytes);
  }

  post("status", { state: "loading", step: 3, steps: 3 });
  const catalogJson = await catalogText;
  pyodide.globals.set("catalog_json", catalogJson);
  pyodide.globals.set("words_json", JSON.stringify({ [locale]: JSON.parse(await wordsText) }));
  // The engine's own browser entry (fitengine/browser.py, shipped and hashed with the rest; a
  // restored snapshot imported these very files at build time).
  pyodide.runPython(`
import sys
if "/engine" not in sys.path:
    sys.path.insert(0, "/engine")
from fitengine.browser import Session
_session = Session(catalog_json, words_json)
del catalog_json, words_json
use_separators = _session.use_separators
answer_json = _session.answer_json
check_json = _session.check_json
warm_requests_json = _session.warm_requests_json
reason_digits = _session.digits
`);
  // The reasons' decimals are the engine's (fitengine.reasons.REASON_DIGITS), as at build time.
  const digits = pyodide.globals.get("reason_digits");
  numberFormat = new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const number = (x) => numberFormat.format(x);
  const parts = numberFormat.formatToParts(1234567.5);
  const symbol = (type) => (parts.find((p) => p.type === type) || { value: "" }).value;
  const samples = [0, 0.05, 0.25, 0.35, 1.05, 2.675, 999.95, 1234.5, 12345.67, 1234567.25, 0.0001, 98765432.1];
  pyodide.globals.get("use_separators")(
    symbol("group"),
    symbol("decimal"),
    JSON.stringify(samples),
    JSON.stringify(samples.map(number)),
  );
  const answerJson = pyodide.globals.get("answer_json");
  const checkJson = pyodide.globals.get("check_json");
  // The engine's reply stays the JSON string it wrote: the page parses it once, which costs
  // less than parsing it here and cloning the object across.
  answer = (request, locale) => answerJson(JSON.stringify(request), locale, number);
  check = (kind, text, node, locale) => checkJson(String(kind), String(text), String(node), locale, number);
  // The engine's first run (see startEngine): the question came with init, or comes with "go".
  if (warm) answerUnseen(warm, locale);
  else painted.then((asked) => asked && answerUnseen(asked, locale));
  mark("worker-ready");
  post("status", { state: "ready", started });
  warmUp(JSON.parse(pyodide.globals.get("warm_requests_json")()), locale);
}

// A question answered only to run the engine's code, its answer thrown away (one the engine
// refuses only warms less).
function answerUnseen(request, locale) {
  try {
    answer(request, locale);
  } catch {
    // nothing to say: nobody asked
  }
}

// Once ready, the engine's questions for getting the browser to optimize the interpreter's code
// (fitengine/browser.py, Session.warm_requests_json), answered and thrown away one per task. The
// page's questions go first: the warm-up waits until the page has asked nothing for GIVE_WAY_MS
// (a question the reader typed while Pyodide loaded comes just after `ready`), and a question
// that arrives during one of its answers waits for that one alone (one node's: a millisecond or
// two). The next is taken at once, through a message port: chained timers wait 4 ms each.
const GIVE_WAY_MS = 150;
let asked = 0; // when the page last asked a question, on the worker's clock

function warmUp(requests, locale) {
  asked = performance.now();
  const port = new MessageChannel();
  let index = 0;
  const step = () => {
    const wait = asked + GIVE_WAY_MS - performance.now();
    if (wait > 0) {
      setTimeout(step, wait);
      return;
    }
    if (index >= requests.length) {
      port.port1.close();
      mark("worker-warm");
      return;
    }
    answerUnseen(requests[index++], locale);
    port.port2.postMessage(null);
  };
  port.port1.onmessage = step;
  setTimeout(step, 0);
}

// What the worker does with each type of message the page sends.
export const RECEIVE = {
  go: (message) => go(message.warm || null),
  init: (message) => start(message),
  answer: (message) => reply(message, () => answer(message.request, message.locale)),
  check: (message) => reply(message, () => check(message.kind, message.text, message.node, message.locale)),
};

// The engine's reply to a question, or why there is none.
function reply(message, work) {
  asked = performance.now();
  if (!answer) {
    post(message.type, (c) => ({ id: message.id, ok: false, error: c.WORKER_ERRORS.not_ready, transient: true }));
    return;
  }
  try {
    post(message.type, { id: message.id, reply: work() });
  } catch (error) {
    // An unexpected failure: say so without a traceback.
    const detail = String(error).split("\n")[0].slice(0, 200);
    post(message.type, (c) => ({
      id: message.id,
      ok: false,
      error: c.WORKER_ERRORS.internal,
      transient: true,
      detail,
    }));
  }
}

self.onmessage = async (event) => {
  const message = event.data;
  if (!message || typeof message !== "object" || !Object.hasOwn(RECEIVE, message.type)) return; // nothing the page sends: ignored
  await RECEIVE[message.type](message);
};

async function start(message) {
  try {
    await init(message);
  } catch (error) {
    post("status", { state: "error", detail: String(error?.message ? error.message : error).slice(0, 300) });
  }
}

// Started from the page's head (configurator-early.js), the worker's address carries what init
// needs: it starts without waiting for a message, which the page, still parsing, would deliver late.
const given = new URLSearchParams(self.location.search);
if (given.has("shared")) start({ shared: given.get("shared"), locale: given.get("locale"), hold: true });
