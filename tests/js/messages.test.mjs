// The engine's refusals worded by the page, from their codes.
import assert from "node:assert/strict";
import { test } from "node:test";

import { formatters } from "../../overrides/assets/javascripts/configurator/format.js";
import { engineMessage, fieldFor } from "../../overrides/assets/javascripts/configurator/messages.js";

const t = {
  total: "Paramètres totaux (milliards)",
  layers: "Couches",
  status_error: "Le moteur n’a pas pu démarrer.",
  err_context_too_long: "Un contexte de {context} tokens dépasse le maximum de {model} ({maximum} tokens).",
  err_missing_totals: "Il manque : {fields}.",
  err_config_missing: "Le config.json n’a pas de champ « {key} ».",
};
const f = formatters("fr");

test("a code becomes the page's sentence, its numbers in the page's locale", () => {
  const out = {
    ok: false,
    error: "context 2000000 exceeds …",
    code: "context_too_long",
    params: { context: 2000000, maximum: 131072, model: "Llama 3.3 70B" },
  };
  assert.equal(
    engineMessage(out, t, f),
    "Un contexte de 2\u202f000\u202f000 tokens dépasse le maximum de Llama 3.3 70B (131\u202f072 tokens).",
  );
  assert.equal(fieldFor(out, {}), "context");
});

test("missing totals are named by their fields' labels; a config.json key stays as written", () => {
  assert.equal(
    engineMessage({ code: "missing_totals", params: { fields: ["total", "layers"] } }, t, f),
    "Il manque : Paramètres totaux (milliards), Couches.",
  );
  assert.equal(
    engineMessage({ code: "config_missing", params: { key: "num_hidden_layers" } }, t, f),
    "Le config.json n’a pas de champ « num_hidden_layers ».",
  );
  assert.equal(fieldFor({ code: "config_missing" }, {}), "config");
  assert.equal(fieldFor({ code: "missing_totals" }, {}), "totals");
});

test("a refusal without words falls back to the engine's sentence; an internal failure says the engine failed", () => {
  assert.equal(engineMessage({ error: "layout refused: …", code: null }, t, f), "layout refused: …");
  assert.equal(engineMessage({ error: "internal" }, t, f), t.status_error);
});

test("a forced layout's refusal is said in the page's words, beside the layout; a share keeps its decimals", () => {
  const words = {
    err_layout_heads: "Un parallélisme tensoriel de {tp} ne divise pas les {heads} têtes d’attention.",
    err_memory_utilization_range: "La part doit aller de {minimum} à {maximum}.",
  };
  const out = {
    ok: false,
    error: "layout refused: Tensor parallel 3 …",
    code: "layout_heads",
    params: { tp: 3, heads: 64 },
  };
  assert.equal(engineMessage(out, words, f), "Un parallélisme tensoriel de 3 ne divise pas les 64 têtes d’attention.");
  assert.equal(fieldFor(out, {}), "layout");
  assert.equal(fieldFor({ code: "runtime_format" }, {}), "runtime");
  assert.equal(fieldFor({ code: "kv_cache_runtime" }, {}), "kv_cache");
  const share = { code: "memory_utilization_range", params: { minimum: 0.05, maximum: 1 } };
  assert.equal(engineMessage(share, words, f), "La part doit aller de 0,05 à 1.");
});
