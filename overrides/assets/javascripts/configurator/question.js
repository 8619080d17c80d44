// The question the fields ask, in the page's words: the intro above the form, the card's
// pending line, the chart's caption, the compact summary and the CSV's first lines all say it
// from here, so none of them can name another workload than the fields'. The build writes the
// default's with these functions too (macros/render/markup.mjs, run under Node).

import { fill, users } from "./format.js";

// q: {model, format (their names), diffusion, resolution, context, concurrency, input, output,
// min_speed, max_ttft}: numbers raw, as the fields and the answer's workload hold them.
export function introText(t, f, q) {
  if (q.diffusion) return fill(t.intro_diffusion, { model: q.model, format: q.format, resolution: q.resolution || "" });
  return fill(t.intro, {
    model: q.model,
    format: q.format,
    context: f.number(q.context, 0),
    users: users(t, f, q.concurrency),
    input: f.number(q.input, 0),
    output: f.number(q.output, 0),
    speed: fill(t.tok_s, { value: f.brief(q.min_speed) }),
    ttft: fill(t.seconds, { value: f.brief(q.max_ttft) }),
  });
}

// The short form (the card's pending line, the summary): model, format, context and users.
export function shortQuestion(t, f, q) {
  if (q.diffusion)
    return fill(t.answer_question_diffusion, { model: q.model, format: q.format, resolution: q.resolution || "" });
  return fill(t.answer_question, {
    model: q.model,
    format: q.format,
    context: f.number(q.context, 0),
    users: users(t, f, q.concurrency),
  });
}

// The question an answer was computed for, from the answer itself and the names the page gives
// its format (`formatName`) and the request's lengths when the answer carries none.
export function answeredQuestion(result, request, formatName, defaults) {
  const w = result.workload || {};
  return {
    model: result.model_name,
    format: formatName,
    diffusion: result.kind === "diffusion",
    resolution: result.resolution || "", // written by the engine (written_resolution)
    context: w.context ?? request.context,
    concurrency: w.concurrency ?? request.concurrency,
    input: w.input ?? defaults.input,
    output: w.output ?? defaults.output,
    min_speed: w.min_speed ?? request.min_speed,
    max_ttft: w.max_ttft ?? request.max_ttft,
  };
}

// Whether two questions are the same one (what the summary and the intro compare).
export function sameQuestion(a, b) {
  const keys = ["model", "format", "diffusion", "context", "concurrency", "min_speed", "max_ttft"];
  return Boolean(a && b) && keys.every((key) => String(a[key] ?? "") === String(b[key] ?? ""));
}
