// The build's answers at the default workload, fetched and kept while Pyodide loads: the format
// the widget starts with in one file holding every model's (the page preloads it), so that any
// model then answers at once; another format's file of the chosen model alone (a few kB).
// `fetchJson(path)` gives a file's parsed JSON, or null when it is missing or not the build's
// (engine-client.js fetchTrusted: only as engine/manifest.json names it).

export class BuiltAnswers {
  constructor(fetchJson, locale) {
    this.fetchJson = fetchJson;
    this.locale = locale;
    this.every = new Map(); // format -> promise of the build's answers for every model
    this.single = new Map(); // "format/model" -> promise of {model: the build's answer}
    this.loaded = new Map(); // format -> {model: answer}, as each is downloaded
  }

  // Every model's answer in `format`.
  all(format) {
    return this.file(this.every, format, format, `${encodeURIComponent(format)}.json`, (data) =>
      data.format === format && data.answers ? data.answers : null,
    );
  }

  // The chosen model's answer alone.
  one(model, format) {
    const path = `${encodeURIComponent(format)}/${encodeURIComponent(model)}.json`;
    return this.file(this.single, `${format}/${model}`, format, path, (data) =>
      data.format === format && data.model === model && data.answer ? { [model]: data.answer } : null,
    );
  }

  // One of this locale's answers files for `format`, fetched once (`cache`, by `key`); `pick`
  // reads {model: answer} from it, or null when it is not the file asked for. What it holds is kept.
  file(cache, key, format, path, pick) {
    if (!cache.has(key)) {
      const answers = this.fetchJson(`answers/${this.locale}/${path}`)
        .then((data) => (data ? pick(data) : null))
        .catch(() => null);
      answers.then((found) => found && this.keep(format, found));
      cache.set(key, answers);
    }
    return cache.get(key);
  }

  keep(format, answers) {
    this.loaded.set(format, Object.assign(this.loaded.get(format) || {}, answers));
  }

  // An answer already downloaded, or null (never waits for the network).
  kept(model, format) {
    const answers = this.loaded.get(format);
    return answers && Object.hasOwn(answers, model) ? answers[model] : null;
  }

  // The build's answer, from the file of every model when that one was asked for, else the model's own.
  async answer(model, format) {
    // Both fill `loaded` first: their handler was attached first.
    if (this.every.has(format)) await this.all(format);
    else await this.one(model, format);
    return this.kept(model, format);
  }

  // A model's answers in the other `formats`, fetched ahead of the reader's next choice.
  prefetch(model, formats) {
    for (const format of formats) {
      if (!this.every.has(format) && !this.kept(model, format)) this.one(model, format);
    }
  }
}

// The first of several answers to arrive that is one ({ok: true, ...}); where none is, the last
// refusal (an engine's {ok: false}), or null when every one came back empty (a missing file).
export function firstAnswer(...answers) {
  return new Promise((resolve) => {
    let left = answers.length;
    let refusal = null;
    const done = () => --left || resolve(refusal);
    for (const answer of answers) {
      answer.then((out) => {
        if (out?.ok) resolve(out);
        else {
          refusal = out || refusal;
          done();
        }
      }, done);
    }
  });
}
