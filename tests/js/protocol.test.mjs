// node --test tests/js/: the worker's messages are the protocol's (configurator/protocol.js,
// written from macros/fitengine/protocol.py). Every sender (the worker, engine-client.js, the
// classic configurator-boot.js and configurator-early.js) is run on stand-ins here and what it
// sends is held to the declaration; every declared type has its receiver's handler, and no
// receiver handles a type the declaration lacks.
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

import { message, toPage, toWorker } from "../../overrides/assets/javascripts/configurator/channel.js";
import {
  REQUEST,
  STATES,
  TO_PAGE,
  TO_WORKER,
  WORKER_ERRORS,
} from "../../overrides/assets/javascripts/configurator/protocol.js";

const JS = new URL("../../overrides/assets/javascripts/", import.meta.url);
const plain = (value) => JSON.parse(JSON.stringify(value));

// A message as it crossed: a declared type, declared fields only, and its receiver's handler.
function holds(declared, receive, sent) {
  assert.ok(Object.hasOwn(declared, sent.type), `${sent.type} is not a declared type`);
  for (const key of Object.keys(sent)) {
    if (key !== "type") assert.ok(declared[sent.type].includes(key), `${key} of ${sent.type} is not declared`);
  }
  assert.equal(typeof receive[sent.type], "function", `nothing handles ${sent.type}`);
}

// The worker, imported on a stand-in `self` (it starts nothing without the head's address).
const posted = [];
globalThis.self = { postMessage: (m) => posted.push(m), location: { search: "" } };
const worker = await import(new URL("configurator-worker.js", JS));
const client = await import(new URL("engine-client.js", JS));

const settle = async (ms = 50) => new Promise((resolve) => setTimeout(resolve, ms));

test("a message of an undeclared type or field is refused by name where it is made", () => {
  assert.deepEqual(toWorker("go", { warm: null }), { type: "go", warm: null });
  assert.throws(() => toWorker("stop", {}), /message type "stop" is not declared/);
  assert.throws(() => toWorker("answer", { id: 1, requst: {} }), /field "requst" of a answer message is not declared/);
  assert.throws(() => toPage("status", { state: "sleeping" }), /status "sleeping" is not declared/);
  assert.throws(() => message(TO_PAGE, "toString", {}), /not declared/);
});

test("each side handles every type the other may send, and only those", () => {
  assert.deepEqual(Object.keys(worker.RECEIVE).sort(), Object.keys(TO_WORKER).sort());
  assert.deepEqual(Object.keys(client.RECEIVE).sort(), Object.keys(TO_PAGE).sort());
});

test("what the worker says is declared and handled by the page", async () => {
  posted.length = 0;
  await self.onmessage({ data: { type: "answer", id: 7, request: {}, locale: "fr" } });
  await self.onmessage({ data: { type: "check", id: 8, kind: "topo", text: "", node: "n", locale: "fr" } });
  // A start whose files cannot be fetched: it says it is loading, then why it failed.
  await self.onmessage({ data: { type: "init", shared: "http://127.0.0.1:9/", locale: "fr" } });
  await self.onmessage({ data: { type: "go", warm: null } });
  await self.onmessage({ data: { type: "unknown" } }); // ignored
  await settle();
  assert.deepEqual(
    posted.map((m) => [m.type, m.id ?? m.state]),
    [
      ["answer", 7],
      ["check", 8],
      ["status", "loading"],
      ["status", "error"],
    ],
  );
  assert.equal(posted[0].error, WORKER_ERRORS.not_ready);
  for (const m of posted) holds(TO_PAGE, client.RECEIVE, m);
  for (const m of posted.filter((m) => m.type === "status")) assert.ok(STATES.includes(m.state));
});

test("what engine-client.js sends is declared and handled by the worker", async () => {
  const sent = [];
  globalThis.Worker = class {
    postMessage(m) {
      sent.push(m);
    }
  };
  globalThis.location = { href: "https://example.test/fr/configurateur/" };
  globalThis.requestAnimationFrame = (callback) => callback();
  // A frame's paint, in a task (Node's own channel would keep the test's process alive).
  globalThis.MessageChannel = class {
    constructor() {
      this.port1 = {};
      this.port2 = { postMessage: () => setTimeout(() => this.port1.onmessage(), 0) };
    }
  };
  const widget = { dataset: { root: "../", locale: "fr", pyodide: "314.0.7" } };
  const warm = { model: "m", format: "bf16", context: 4096, concurrency: 1 };
  client.startEngine(widget, warm);
  client.askEngine(warm, "fr");
  client.checkMeasurement("topo", "GPU0 X", "n", "fr");
  // A worker the head's script started: adopted with what it said, and told "go".
  const adopted = await import(new URL("engine-client.js?adopted", JS));
  globalThis.configuratorBoot = {
    worker: new globalThis.Worker(),
    messages: [{ type: "message", data: { type: "status", state: "loading", step: 1, steps: 3 } }],
  };
  adopted.startEngine(widget, warm);
  await settle();
  assert.equal(adopted.engineState(), "loading");
  assert.deepEqual(
    sent.map((m) => m.type),
    ["init", "answer", "check", "go"],
  );
  for (const m of sent) holds(TO_WORKER, worker.RECEIVE, m);
  assert.equal(sent[0].shared, "https://example.test/");
  for (const key of Object.keys(sent[1].request)) assert.ok(REQUEST.widget.includes(key), key);
});

test("configurator-boot.js's go, with its question, is declared and handled", () => {
  const script = fs.readFileSync(new URL("configurator-boot.js", JS), "utf8");
  const sent = [];
  const dataset = {
    defaultModel: "llama-3.3-70b",
    defaultFormat: "bf16",
    defaultContext: "4096",
    defaultConcurrency: "1",
  };
  const window = {
    configuratorBoot: { worker: { postMessage: (m) => sent.push(plain(m)) }, messages: [] },
    requestAnimationFrame: (callback) => callback(),
    MessageChannel: class {
      constructor() {
        this.port1 = {};
        this.port2 = { postMessage: () => this.port1.onmessage() };
      }
    },
    setTimeout,
  };
  const document = { querySelector: () => ({ dataset }) };
  vm.runInNewContext(script, { window, document, Number });
  assert.equal(sent.length, 1);
  holds(TO_WORKER, worker.RECEIVE, sent[0]);
  for (const key of Object.keys(sent[0].warm)) assert.ok(REQUEST.widget.includes(key), key);
});

test("configurator-early.js gives the worker's start only fields init declares", () => {
  const script = fs.readFileSync(new URL("configurator-early.js", JS), "utf8");
  const made = [];
  const window = {
    Worker: class {
      constructor(url) {
        made.push(new URL(url));
      }
    },
    URL,
    location: { href: "https://example.test/fr/configurateur/" },
  };
  const currentScript = { src: "https://example.test/fr/assets/javascripts/configurator-early.js", dataset: {} };
  vm.runInNewContext(script, { window, document: { currentScript } });
  assert.equal(made.length, 1);
  const given = [...made[0].searchParams.keys()];
  assert.deepEqual(given, ["shared", "locale"]);
  for (const key of given) assert.ok(TO_WORKER.init.includes(key), key);
});

test("a suggestion sets only fields the widget sends", () => {
  for (const key of REQUEST.suggestion) assert.ok(REQUEST.widget.includes(key), key);
});
