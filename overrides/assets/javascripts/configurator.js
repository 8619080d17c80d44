// The configurator widget: reads the form, asks the engine, patches the result card and the
// table the build wrote, draws the chart, keeps the state in the URL. It holds no engine logic:
// every figure and every reason comes from the engine (Pyodide worker, or answers the build
// computed with it). Each concern is a module in ./configurator/ (the form and the request it
// describes, the link, the build's answers, the card, the rows and their cells, the filters,
// the chart's input, sharing, the events), with its tests under tests/js/.

import { BuiltAnswers, firstAnswer } from "./configurator/built-answers.js";
import { Card } from "./configurator/card.js";
import { chartHighlight, chartSvg } from "./configurator/chart.js";
import { bindEvents } from "./configurator/events.js";
import { chosenFilters } from "./configurator/filters.js";
import { fieldError, formBounds, formValues, isDiffusion, showFields } from "./configurator/form.js";
import { formatters } from "./configurator/format.js";
import { linkSearch, readLink } from "./configurator/link.js";
import { Live } from "./configurator/live.js";
import { engineMessage, fieldFor } from "./configurator/messages.js";
import { chartPoints } from "./configurator/plot.js";
import { COLUMNS, REQUEST } from "./configurator/protocol.js";
import { hasCustomInput, isDefaultWorkload, readRequest } from "./configurator/request.js";
import { DEFAULT_SORT, Rows } from "./configurator/rows.js";
import { copyText, csvDownload } from "./configurator/share.js";
import { FILTERS } from "./configurator/view-state.js";
import {
  afterPaint,
  askEngine,
  engineStarted,
  engineState,
  fetchTrusted,
  onEngineStatus,
  startEngine,
} from "./engine-client.js";

const HEADER_PX = 64; // Material's header stays over the page's top

// {value: what the option reads} of a select's options.
const optionNames = (select) => Object.fromEntries(Array.from(select?.options || [], (o) => [o.value, o.textContent]));

class Configurator {
  constructor(root) {
    this.root = root;
    this.locale = root.dataset.locale;
    this.t = JSON.parse(root.querySelector("[data-labels]").textContent);
    this.f = formatters(this.locale);
    this.form = root.querySelector("[data-form]");
    this.status = root.querySelector("[data-engine-status]");
    this.messageEl = root.querySelector("[data-message]");
    this.table = root.querySelector("table");
    this.chart = root.querySelector("[data-chart]");
    this.compact = root.hasAttribute("data-compact");
    this.catalogModels = Array.from(this.form.model.options, (o) => o.value).filter((v) => v !== "custom");
    this.catalogFormats = Array.from(this.form.format.options, (o) => o.value);
    this.formatNames = optionNames(this.form.format);
    this.ctx = {
      t: this.t,
      f: this.f,
      locale: this.locale,
      columns: COLUMNS, // the engine's list (protocol.js)
      gpuNames: optionNames(root.querySelector('[data-filter="gpu"]')),
    };
    this.result = null;
    this.built = new BuiltAnswers((path) => fetchTrusted(root, path), this.locale);
    this.generation = 0;
    this.live = new Live(root, this.t, this.f, this.locale);
    this.rows = new Rows(root, this.table, this.ctx);
    this.card = new Card(root, this.table, this.live);
    root.querySelector("[data-controls]").hidden = false;
    // Controls that need this script are disabled in the build's HTML; they work from here on.
    for (const el of root.querySelectorAll("[data-needs-js]")) el.disabled = false;
    bindEvents(this);
    this.drawChart();
    onEngineStatus((message) => this.onStatus(message));
    if (this.compact) {
      this.setStatus("static", this.t.status_lazy);
    } else {
      this.readUrl();
      this.start(); // the build-time table is already on screen: start the engine at once
    }
  }

  start() {
    if (this.started) return;
    this.started = true;
    // The engine may already be on its way (configurator-early.js, or another widget of the page).
    const state = engineState();
    if (state === "ready" || state === "error") this.onStatus({ state });
    else this.setStatus("loading", this.t.status_loading);
    startEngine(this.root, this.request());
    // While Pyodide loads, every model of the current format answers from the build.
    this.built.all(this.form.format.value);
  }

  setStatus(state, text) {
    this.status.dataset.engineStatus = state;
    this.status.textContent = text;
  }

  onStatus(message) {
    if (message.state === "loading") {
      this.setStatus("loading", this.live.loading(message));
    } else if (message.state === "ready") {
      this.live.loading(message);
      performance.mark("configurator-ready");
      this.status.dataset.engineStart = engineStarted() || "";
      this.setStatus("ready", this.t.status_ready);
      if (this.waiting) this.update();
    } else if (message.state === "error") {
      this.setStatus("error", this.t.status_error);
    }
  }

  // A shared link's question and view, set in the form and the table, then asked.
  readUrl() {
    const form = this.form;
    const offered = {};
    for (const name of FILTERS)
      offered[name] = Object.keys(optionNames(this.root.querySelector(`[data-filter="${name}"]`)));
    for (const name of REQUEST.options) offered[name] = Object.keys(optionNames(form[name]));
    const link = readLink(new URLSearchParams(location.search), {
      t: this.t,
      f: this.f,
      models: this.catalogModels,
      formats: this.catalogFormats,
      native: Object.fromEntries(Array.from(form.model.options, (o) => [o.value, o.dataset.native])),
      modelNames: optionNames(form.model),
      formatNames: this.formatNames,
      chosen: { model: form.model.value, format: form.format.value },
      offered,
      columns: this.ctx.columns,
      defaultModel: this.root.dataset.defaultModel,
    });
    if (!link) return;
    for (const [name, value] of Object.entries(link.view.filters))
      this.root.querySelector(`[data-filter="${name}"]`).value = value;
    if (link.view.sort) {
      this.rows.sort = link.view.sort;
      this.rows.sortRows();
      this.rows.applyFilters();
    }
    for (const [name, value] of Object.entries(link.fields)) form[name].value = value;
    this.urlNotes = link.notes;
    this.waiting = true;
    this.update();
  }

  // The chosen model's native format, when the catalog names one the form offers.
  useNativeFormat() {
    const native = this.form.model.selectedOptions[0]?.dataset.native;
    if (native && this.catalogFormats.includes(native)) this.form.format.value = native;
  }

  // The question asked last (`request`) and the table's view (filters, sort) in the address bar.
  writeUrl(asked = this.asked) {
    if (this.compact) return;
    const request = asked || this.request();
    if (!request) return;
    this.asked = request;
    const search = linkSearch(request, chosenFilters(this.root), this.rows.sort, DEFAULT_SORT);
    history.replaceState(null, "", `${location.pathname}${search}`);
  }

  fieldError(name, text) {
    fieldError(this.root, this.form, name, text);
  }

  // An error stays until the next answer (a notice goes beside its button: Live.notice).
  message(text) {
    this.messageEl.hidden = !text;
    this.messageEl.textContent = text || "";
  }

  // The request the form describes, or null with the messages shown beside the fields.
  request() {
    const diffusion = isDiffusion(this.form);
    const d = this.root.dataset;
    const { request, errors } = readRequest(formValues(this.form), {
      diffusion,
      bounds: formBounds(this.form),
      defaults: { context: Number(d.defaultContext), concurrency: Number(d.defaultConcurrency) },
      t: this.t,
      f: this.f,
    });
    for (const [name, text] of Object.entries(errors)) this.fieldError(name, text);
    showFields(this.root, this.form, diffusion);
    return request;
  }

  async update() {
    performance.mark("configurator-change");
    const generation = ++this.generation;
    const request = this.request();
    this.live.asked(this.live.fieldsQuestion(this.form, request));
    if (!request) {
      this.setPending("invalid");
      return;
    }
    let out = null;
    const asBuilt = isDefaultWorkload(request, this.root.dataset);
    const kept = asBuilt ? this.built.kept(request.model, request.format) : null;
    if (kept) {
      // The build computed this very question with the same engine, and its answer is already
      // in memory: nothing is quicker, ready or not.
      out = { ok: true, result: kept };
      this.waiting = false;
    } else if (asBuilt) {
      // The build computed this very question: its file (a few kB, checked against the manifest)
      // usually comes sooner than the engine works the answer out. Once the engine is ready it
      // is asked too, and the first answer shown (the engine's on a slow network, or where the
      // file is not there).
      this.setPending("pending");
      const built = this.built.answer(request.model, request.format).then((r) => (r ? { ok: true, result: r } : null));
      out = engineState() === "ready" ? await firstAnswer(built, askEngine(request, this.locale)) : await built;
      this.waiting = !out; // the build's answer is the engine's: no need to ask again when ready
    } else if (engineState() === "ready") {
      this.waiting = false;
      this.setPending("pending");
      out = await askEngine(request, this.locale);
    } else {
      this.waiting = true;
      this.setPending("pending");
      if (engineState() === "error") this.message(this.t.status_error);
      return;
    }
    if (generation !== this.generation || !out) return;
    if (!out.ok) {
      const detail = engineMessage(out, this.t, this.f);
      const field = fieldFor(out, request);
      if (field) this.fieldError(field, detail);
      this.message(detail);
      this.setPending("invalid");
      return;
    }
    this.message((this.urlNotes || []).join(" "));
    this.card.modelRead(out.result.model_read, this.t, this.f);
    this.show(out.result, request);
    if (this.revealAnswer && request.config) {
      this.revealAnswer = false;
      this.reveal();
    }
    afterPaint(() => generation === this.generation && this.writeUrl(request)); // the address bar can wait for the table
    // A catalog model answered while Pyodide loads: its other formats' answers are fetched once
    // this one is painted, so that a format chosen next answers at once too.
    if (request.model && engineState() !== "ready" && asBuilt) {
      afterPaint(
        () =>
          generation === this.generation &&
          engineState() !== "ready" &&
          this.built.prefetch(request.model, this.catalogFormats),
      );
    }
  }

  // The answer's card in view, moving the page as little as possible (no animation for a reader
  // who asked for less motion).
  reveal() {
    const smooth = !matchMedia("(prefers-reduced-motion: reduce)").matches;
    const first = (this.root.querySelector("[data-model-read]:not([hidden])") || this.card.el).getBoundingClientRect()
      .top;
    const last = this.card.el.getBoundingClientRect().bottom;
    if (first >= HEADER_PX && last <= innerHeight) return;
    // What was read and the card, their bottom at the screen's; their top first when they are taller.
    scrollBy({ top: Math.min(last + 16 - innerHeight, first - HEADER_PX), behavior: smooth ? "smooth" : "auto" });
  }

  // The card and the table say that they do not answer the fields yet, and the card's line what
  // is being computed (over the question's line: showing it moves nothing else on the page).
  setPending(state) {
    this.card.pending(state);
    const help = this.form.model.value === "custom" && !hasCustomInput(formValues(this.form));
    this.live.pending(state, this.waiting && engineState() !== "ready", help ? this.t.custom_help : this.t.invalid);
  }

  show(result, request) {
    this.result = result;
    this.rows.headers(result);
    // The same nodes come back: the cells that changed are patched rather than a new table
    // parsed, those of the rows on screen before the frame, the others right after it.
    const later = this.rows.show(result);
    this.card.show(result, request, { ...this.ctx, formatNames: this.formatNames });
    afterPaint(() => {
      performance.mark("configurator-painted");
      // The chart's width is read while the page's layout is still the one just painted (free),
      // not after the other rows are patched (which would lay the whole table out again at once).
      const width = this.chart.clientWidth;
      this.rows.flush(later);
      this.drawChart(width); // below the table: drawn once the table is on screen
    });
  }

  // `width`: the chart's, when the caller read it at a cheaper moment (0: it was hidden).
  drawChart(width = 0) {
    if (this.compact) return;
    // Drawn from the table's own data, so the build-time table gets its chart too.
    const points = chartPoints(
      Array.from(this.rows.tbody.rows, (tr) => ({
        data: tr.dataset,
        name: tr.querySelector(".node__name")?.textContent,
      })),
    );
    if (!points.length) {
      this.chart.hidden = true;
      return;
    }
    const card = this.card.el.dataset; // the build's answer names its card's nodes
    const summary = this.result
      ? this.result.summary
      : { recommended: card.node, fastest: card.fastest, best_per_mtok: card.bestPerMtok };
    this.chart.hidden = false;
    const svg = chartSvg(points, {
      width: width || this.chart.clientWidth,
      t: this.t,
      f: this.f,
      diffusion: this.table.dataset.kind === "diffusion",
      highlight: chartHighlight(summary, this.t, this.table.dataset.kind === "diffusion"),
    });
    if (this.drawn !== svg) {
      this.drawn = svg;
      this.chart.innerHTML = svg;
    }
  }

  // The link copied, or shown to copy by hand.
  async copyLink() {
    const button = this.root.querySelector("[data-copy-link]");
    const copied = await copyText(navigator.clipboard, location.href);
    this.live.notice(button, copied ? this.t.copied : location.href);
  }

  // The rows the reader kept, in the reader's order, with the question they answer first.
  downloadCsv() {
    const request = this.request() || this.asked || {};
    const d = this.root.dataset;
    const result = this.result || this.built.kept(d.defaultModel, d.defaultFormat);
    if (!result) return;
    const question = this.live.question || this.live.fieldsQuestion(this.form, request);
    const rows = this.rows.shown(result);
    const { name, text } = csvDownload({ result, rows, request, question, href: location.href }, this.ctx);
    this.live.download(name, text, "text/csv;charset=utf-8");
  }
}

for (const root of document.querySelectorAll("[data-configurator]")) new Configurator(root);
