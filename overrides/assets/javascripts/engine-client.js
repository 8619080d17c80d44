// One engine per page: the module worker that hosts Pyodide, shared by every widget on the page.
// Widgets ask it questions and listen to its status; none of them holds engine logic. The
// messages are the protocol's (configurator/protocol.js), made by configurator/channel.js.

import { toWorker } from "./configurator/channel.js";

let worker = null;
let state = "static";
let started = null; // how the worker started Pyodide: "snapshot" or "plain" (the build's snapshot refused or absent)
let nextId = 1;
const pending = new Map();
const listeners = new Set();

// Runs `callback` once the next frame has been painted (a task queued from the frame's
// animation callback runs after that frame's paint). The widgets time and order their work by it.
export function afterPaint(callback) {
  requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => callback();
    channel.port2.postMessage(null);
  });
}

export function engineState() {
  return state;
}

export function engineStarted() {
  return started;
}

export function onEngineStatus(listener) {
  listeners.add(listener);
}

// Where the files shared by every locale live (engine/, pyodide/): beside the locale folders.
export function sharedRoot(widget) {
  return new URL("../", new URL(widget.dataset.root || "./", location.href));
}

// Files the widgets read before the engine is ready (the build-time answers) are trusted only
// if their SHA-256 is the one engine/manifest.json names, as the worker trusts its own files.
const manifests = new Map();

function manifestOf(shared) {
  if (!manifests.has(shared.href)) {
    const manifest = fetch(new URL("engine/manifest.json", shared))
      .then((r) => (r.ok ? r.json() : null))
      .catch(() => null);
    manifests.set(shared.href, manifest);
  }
  return manifests.get(shared.href);
}

// The parsed JSON of engine/<path>, or null when it is missing or not the file the build wrote.
// A file the manifest does not name is not asked for (the preview's manifest names no answers).
export async function fetchTrusted(widget, path) {
  const shared = sharedRoot(widget);
  const manifest = await manifestOf(shared);
  const expected = manifest?.data ? manifest.data[path] : undefined;
  if (!expected || !(globalThis.crypto && crypto.subtle)) return null;
  const bytes = await fetch(new URL(`engine/${path}`, shared))
    .then((r) => (r.ok ? r.arrayBuffer() : null))
    .catch(() => null);
  if (!bytes) return null;
  const digest = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)), (b) =>
    b.toString(16).padStart(2, "0"),
  ).join("");
  if (digest !== expected) {
    console.warn(`engine/${path} does not match the build's manifest: not used`);
    return null;
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
}

// `warm`: a request the worker answers, unseen, before it says it is ready (the first run of
// the engine's code is by far the slowest; better paid while the reader still waits for Pyodide).
export function startEngine(widget, warm = null) {
  if (worker) return;
  // configurator-early.js may have started it already, from the page's head.
  const booted = globalThis.configuratorBoot;
  globalThis.configuratorBoot = null;
  worker = booted ? booted.worker : new Worker(new URL("configurator-worker.js", import.meta.url), { type: "module" });
  const onMessage = (event) => Object.hasOwn(RECEIVE, event.data.type) && RECEIVE[event.data.type](event.data);
  const onError = () => {
    state = "error";
    for (const listener of listeners) listener({ state: "error" });
  };
  worker.onmessage = onMessage;
  worker.onerror = onError;
  if (booted) {
    // What it said before this page's widgets listened, in order.
    for (const event of booted.messages) (event.type === "error" ? onError : onMessage)(event);
    // configurator-boot.js says "go" once the table is on screen; where that script did not
    // run, it is said here once the next frame is painted.
    if (!booted.going) afterPaint(() => worker.postMessage(toWorker("go", { warm })));
    return;
  }
  const { locale, pyodide } = widget.dataset;
  worker.postMessage(toWorker("init", { shared: sharedRoot(widget).href, locale, pyodide, warm }));
}

// The engine's reply, {ok, result} or {ok: false, error, code, params}, comes as the JSON it wrote.
function onReply(message) {
  if (!pending.has(message.id)) return;
  pending.get(message.id)(typeof message.reply === "string" ? { ...message, ...JSON.parse(message.reply) } : message);
  pending.delete(message.id);
}

// What the page does with each type of message the worker sends.
export const RECEIVE = {
  status(message) {
    state = message.state;
    if (message.started) started = message.started;
    for (const listener of listeners) listener(message);
  },
  answer: onReply,
  check: onReply,
};

function send(type, fields) {
  return new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, resolve);
    worker.postMessage(toWorker(type, { ...fields, id }));
  });
}

// The engine is a pure function of the request: a reader going back to an earlier choice gets
// the answer already computed. Failures of the worker itself are not kept.
const answers = new Map();
const KEEP = 64;

export function askEngine(request, locale) {
  const key = `${locale}\n${JSON.stringify(request)}`;
  if (answers.has(key)) {
    const kept = answers.get(key);
    answers.delete(key); // most recently used last
    answers.set(key, kept);
    return kept;
  }
  const pending = send("answer", { request, locale }).then((message) => {
    if (message.transient) answers.delete(key);
    return message;
  });
  answers.set(key, pending);
  if (answers.size > KEEP) answers.delete(answers.keys().next().value);
  return pending;
}

export function checkMeasurement(kind, text, node, locale) {
  return send("check", { kind, text, node, locale });
}
