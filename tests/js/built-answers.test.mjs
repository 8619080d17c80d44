// The build's answers fetched once per file, kept as they arrive, and used only as the file asked for.
import assert from "node:assert/strict";
import { test } from "node:test";

import { BuiltAnswers } from "../../overrides/assets/javascripts/configurator/built-answers.js";

// A stand-in for fetchTrusted: the files it holds by path, and the paths asked for.
function files(held) {
  const asked = [];
  const fetchJson = async (path) => {
    asked.push(path);
    return Object.hasOwn(held, path) ? held[path] : null;
  };
  return { asked, fetchJson };
}

test("the file of every model is fetched once and answers each model", async () => {
  const { asked, fetchJson } = files({
    "answers/fr/bf16.json": { format: "bf16", answers: { a: { n: 1 }, b: { n: 2 } } },
  });
  const built = new BuiltAnswers(fetchJson, "fr");
  assert.equal(built.kept("a", "bf16"), null); // nothing before it arrives
  await Promise.all([built.all("bf16"), built.all("bf16")]);
  assert.deepEqual(await built.answer("b", "bf16"), { n: 2 });
  assert.deepEqual(built.kept("a", "bf16"), { n: 1 });
  assert.deepEqual(asked, ["answers/fr/bf16.json"]);
});

test("another format brings the chosen model's own file, its name escaped", async () => {
  const { asked, fetchJson } = files({
    "answers/en/fp8/a%2Fb.json": { format: "fp8", model: "a/b", answer: { n: 3 } },
  });
  const built = new BuiltAnswers(fetchJson, "en");
  assert.deepEqual(await built.answer("a/b", "fp8"), { n: 3 });
  assert.deepEqual(asked, ["answers/en/fp8/a%2Fb.json"]);
});

test("a file that is not the one asked for, or missing, answers nothing", async () => {
  const { fetchJson } = files({
    "answers/fr/fp8/a.json": { format: "bf16", model: "a", answer: { n: 1 } },
    "answers/fr/bf16.json": { format: "bf16" },
  });
  const built = new BuiltAnswers(fetchJson, "fr");
  assert.equal(await built.answer("a", "fp8"), null);
  assert.equal(await built.all("bf16"), null);
  assert.equal(await built.answer("z", "awq"), null);
  const failing = new BuiltAnswers(async () => {
    throw new Error("offline");
  }, "fr");
  assert.equal(await failing.one("a", "bf16"), null);
});

test("prefetching fetches the model's other formats, not those already there", async () => {
  const { asked, fetchJson } = files({
    "answers/fr/bf16.json": { format: "bf16", answers: { a: { n: 1 } } },
    "answers/fr/fp8/a.json": { format: "fp8", model: "a", answer: { n: 2 } },
  });
  const built = new BuiltAnswers(fetchJson, "fr");
  await built.all("bf16");
  built.prefetch("a", ["bf16", "fp8", "awq"]);
  built.prefetch("a", ["fp8"]); // asked once
  await built.answer("a", "fp8");
  assert.deepEqual(asked, ["answers/fr/bf16.json", "answers/fr/fp8/a.json", "answers/fr/awq/a.json"]);
  assert.deepEqual(built.kept("a", "fp8"), { n: 2 });
});

test("of the build's file and the engine, the first answer that is one is shown", async () => {
  const { firstAnswer } = await import("../../overrides/assets/javascripts/configurator/built-answers.js");
  const later = (value, ms) => new Promise((resolve) => setTimeout(() => resolve(value), ms));
  const file = { ok: true, result: "file" };
  const engine = { ok: true, result: "engine" };
  assert.equal(await firstAnswer(later(file, 5), later(engine, 30)), file); // the file first, on a fast network
  assert.equal(await firstAnswer(later(file, 30), later(engine, 5)), engine); // the engine first, on a slow one
  assert.equal(await firstAnswer(later(null, 1), later(engine, 10)), engine); // no file: the engine's
  const refused = { ok: false, error: "not ready" };
  assert.equal(await firstAnswer(later(refused, 1), later(file, 10)), file); // a refusal waits for the other
  assert.equal(await firstAnswer(later(refused, 1), later(null, 5)), refused); // the refusal where nothing else came
  assert.equal(await firstAnswer(later(null, 1), Promise.reject(new Error("x"))), null);
});
