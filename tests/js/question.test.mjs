// The question in words: what the intro, the pending line and the CSV say of the fields.
import assert from "node:assert/strict";
import { test } from "node:test";

import { formatters } from "../../overrides/assets/javascripts/configurator/format.js";
import {
  answeredQuestion,
  introText,
  sameQuestion,
  shortQuestion,
} from "../../overrides/assets/javascripts/configurator/question.js";

const t = {
  intro: "Asked: {model} in {format}, {context} tokens, {users}, {input} in, {output} out; {speed}, {ttft}.",
  intro_diffusion: "Asked: {model} in {format}, {resolution}.",
  answer_question: "{model} · {format} · {context} tokens · {users}",
  answer_question_diffusion: "{model} · {format} · {resolution}",
  users_one: "{n} user",
  users_many: "{n} users",
  tok_s: "{value} tok/s",
  seconds: "{value} s",
};
const q = {
  model: "Llama 3.3 70B",
  format: "BF16",
  context: 8192,
  concurrency: 20,
  input: 1024,
  output: 256,
  min_speed: 12.5,
  max_ttft: 2,
};

test("the intro names every number of the workload, in the locale's writing", () => {
  assert.equal(
    introText(t, formatters("en"), q),
    "Asked: Llama 3.3 70B in BF16, 8,192 tokens, 20 users, 1,024 in, 256 out; 12.5 tok/s, 2 s.",
  );
  // French groups digits with a narrow no-break space and writes a decimal comma.
  assert.equal(
    introText(t, formatters("fr"), q),
    "Asked: Llama 3.3 70B in BF16, 8\u202f192 tokens, 20 users, 1\u202f024 in, 256 out; 12,5 tok/s, 2 s.",
  );
  assert.equal(introText(t, formatters("en"), { ...q, concurrency: 1 }).includes("1 user,"), true);
});

test("an image model's question is its resolution", () => {
  assert.equal(
    introText(t, formatters("en"), { model: "FLUX.1", format: "BF16", diffusion: true, resolution: "1024 × 1024" }),
    "Asked: FLUX.1 in BF16, 1024 × 1024.",
  );
  assert.equal(
    shortQuestion(t, formatters("en"), { model: "FLUX.1", format: "BF16", diffusion: true, resolution: "1024 × 1024" }),
    "FLUX.1 · BF16 · 1024 × 1024",
  );
});

test("the question an answer was for comes from the answer's own workload", () => {
  const result = {
    model_name: "Llama 3.3 70B",
    kind: "llm",
    workload: { context: 4096, concurrency: 3, input: 512, output: 128, min_speed: 10, max_ttft: 1 },
  };
  const asked = answeredQuestion(result, { context: 8192, concurrency: 20 }, "BF16", { input: 1024, output: 256 });
  assert.equal(asked.context, 4096);
  assert.equal(asked.input, 512);
  assert.ok(!sameQuestion(asked, q));
  assert.ok(sameQuestion({ ...q }, q));
  assert.ok(!sameQuestion(null, q));
});
