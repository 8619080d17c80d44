// The configurator widget: reads the form, asks the engine, patches the result card and the
// table the build wrote, draws the chart, keeps the state in the URL. It holds no engine logic:
// every figure and every reason comes from the engine (Pyodide worker, or answers the build
// computed with it). The pure parts live in ./configurator/ (formatting, state and URL, the
// card's and the rows' texts, sorting, CSV), each with its tests under tests/js/.

import { announcement, answerView, nodeName, SUGGESTION_KEYS, suggestionViews } from "./configurator/answer.js";
import { chartSvg } from "./configurator/chart.js";
import { csvFile, csvName } from "./configurator/csv.js";
import { fill, formatters } from "./configurator/format.js";
import { Live } from "./configurator/live.js";
import { engineMessage, fieldFor } from "./configurator/messages.js";
import { introText } from "./configurator/question.js";
import { compareRows, nextSort, positionsToMove, sortValue } from "./configurator/sort.js";
import {
  decimalIn,
  decodeCustom,
  OPTIONS,
  queryFor,
  TARGET_FIELDS,
  URL_VERSION,
  wholeIn,
} from "./configurator/state.js";
import {
  barHtml,
  barView,
  columnHelp,
  columnLabel,
  readColumns,
  rectsHtml,
  rowData,
  rowHtml,
  rowTexts,
  shownLook,
} from "./configurator/table.js";
import { FILTERS, readView, viewParams } from "./configurator/view-state.js";
import {
  afterPaint,
  askEngine,
  engineStarted,
  engineState,
  fetchTrusted,
  onEngineStatus,
  startEngine,
} from "./engine-client.js";
import { customProblem } from "./input-bounds.js";

const DEFAULT_SORT = { col: "price_month", dir: 1 };
const DIM_MS = 200; // a pending answer dims after this long

// Writing a DOM property restyles even when the value is the same: write only what changed.
function setIfChanged(target, key, value) {
  if (target[key] !== value) target[key] = value;
}

function setAttr(element, name, value) {
  if (element.getAttribute(name) !== value) element.setAttribute(name, value);
}

// A new text node must be styled; changing the data of the one already there need not be.
function setText(element, text) {
  const node = element.firstChild;
  if (node && node === element.lastChild && node.nodeType === Node.TEXT_NODE) {
    if (node.data !== text) node.data = text;
  } else if (element.textContent !== text) {
    element.textContent = text;
  }
}

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
    this.tbody = this.table.querySelector("tbody");
    this.columns = readColumns(root); // the engine's list, as the build wrote it into the page
    this.chart = root.querySelector("[data-chart]");
    this.custom = root.querySelector("[data-custom]");
    this.compact = root.hasAttribute("data-compact");
    this.catalogModels = new Set(Array.from(this.form.model.options, (o) => o.value).filter((v) => v !== "custom"));
    this.catalogFormats = new Set(Array.from(this.form.format.options, (o) => o.value));
    this.customChars = Number(root.dataset.customChars) || 100000;
    this.customDepth = Number(root.dataset.customDepth) || 32;
    this.customLink = Number(root.dataset.customLink) || 32000;
    this.card = root.querySelector("[data-answer]");
    this.slots = Object.fromEntries(
      Array.from(this.card.querySelectorAll("[data-slot]"), (el) => [el.dataset.slot, el]),
    );
    this.foldButton = root.querySelector("[data-show-none]");
    this.showNone = false;
    this.formatNames = Object.fromEntries(Array.from(this.form.format.options, (o) => [o.value, o.textContent]));
    this.result = null;
    this.sort = DEFAULT_SORT;
    this.answers = new Map(); // format -> promise of the build's answers for every model
    this.oneAnswers = new Map(); // "format/model" -> promise of {model: the build's answer}
    this.loadedAnswers = new Map(); // format -> {model: answer}, as each is downloaded
    this.generation = 0;
    this.dimTimer = null;
    this.visibleRows = null;
    this.pendingRows = [];
    this.live = new Live(root, this.t, this.f, this.locale);
    this.rowsFromDom();
    root.querySelector("[data-controls]").hidden = false;
    // Controls that need this script are disabled in the build's HTML; they work from here on.
    for (const el of root.querySelectorAll("[data-needs-js]")) el.disabled = false;
    this.bind();
    this.drawChart();
    onEngineStatus((message) => this.onStatus(message));
    if (!this.compact) this.readUrl();
    if (this.compact) {
      this.setStatus("static", this.t.status_lazy);
    } else {
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
    this.builtAnswers(this.form.format.value);
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

  bind() {
    let typing = null;
    const change = () => {
      clearTimeout(typing); // a value typed and then confirmed (Enter, leaving the field) is asked once
      this.urlNotes = []; // the reader has moved on from the shared link: its notes no longer apply
      this.start();
      this.update();
    };
    // A model chosen starts in its native format (the select's own listener runs before the form's).
    this.form.model.addEventListener("change", () => this.useNativeFormat());
    this.form.addEventListener("change", change);
    this.form.addEventListener("input", (event) => {
      if (event.target.tagName === "SELECT") return;
      clearTimeout(typing);
      typing = setTimeout(change, 300);
    });
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      change();
    });
    this.form.addEventListener("focusin", () => this.start(), { once: true });
    // A pasted config.json is answered below the fields: its answer is brought into view.
    this.form.config.addEventListener("paste", () => (this.revealAnswer = true));
    this.root.querySelectorAll("[data-filter]").forEach((select) => {
      select.addEventListener("change", () => {
        this.applyFilters();
        this.writeUrl();
      });
    });
    this.root.querySelectorAll("[data-sort]").forEach((button) => {
      button.addEventListener("click", () => {
        this.sortBy(button.dataset.sort);
        this.writeUrl();
      });
    });
    this.root.querySelector("[data-copy-link]").addEventListener("click", () => this.copyLink());
    this.root.querySelector("[data-csv]").addEventListener("click", () => this.downloadCsv());
    // A row's reason unfolds under its verdict: the button says whether it is open.
    this.tbody.addEventListener("click", (event) => {
      const button = event.target.closest("[data-why]");
      if (!button) return;
      button.setAttribute("aria-expanded", String(button.getAttribute("aria-expanded") !== "true"));
    });
    this.foldButton.addEventListener("click", () => {
      this.showNone = !this.showNone;
      this.applyFilters();
    });
    // One click on an offered change sets its fields and asks again.
    this.card.addEventListener("click", (event) => {
      const button = event.target.closest("[data-suggestion]");
      if (!button) return;
      // Each value it carries sets its field; an empty one leaves the field as it is.
      const values = {
        format: "format",
        context: "context",
        concurrency: "concurrency",
        min_speed: "minSpeed",
        max_ttft: "maxTtft",
      };
      let first = null;
      for (const [name, key] of Object.entries(values)) {
        if (!button.dataset[key]) continue;
        this.form[name].value = button.dataset[key];
        first = first || this.form[name];
      }
      change();
      (first || this.form.format).focus();
    });
  }

  // --- state --------------------------------------------------------------------------

  readUrl() {
    const params = new URLSearchParams(location.search);
    if (![...params.keys()].length) return;
    const version = params.get("v") || URL_VERSION;
    if (version !== URL_VERSION) return; // a future link: keep the default, which always answers
    const notes = [];
    const offered = Object.fromEntries(
      FILTERS.map((name) => [
        name,
        Array.from(this.root.querySelector(`[data-filter="${name}"]`).options, (o) => o.value),
      ]),
    );
    const view = readView(params, offered, this.columns);
    for (const [name, value] of Object.entries(view.filters))
      this.root.querySelector(`[data-filter="${name}"]`).value = value;
    if (view.sort) {
      this.sort = view.sort;
      this.sortRows();
      this.applyFilters();
    }
    const model = params.get("model");
    if (model !== null) {
      if (this.catalogModels.has(model) || (model === "custom" && params.get("custom"))) this.form.model.value = model;
      else notes.push(fill(this.t.fallback, { value: model, default: this.form.model.selectedOptions[0].textContent }));
    }
    if (model !== null && this.catalogModels.has(model)) this.useNativeFormat(); // unless the link names one
    const format = params.get("format");
    if (format !== null) {
      if (this.catalogFormats.has(format)) this.form.format.value = format;
      else
        notes.push(fill(this.t.fallback, { value: format, default: this.form.format.selectedOptions[0].textContent }));
    }
    for (const name of ["context", "concurrency", ...TARGET_FIELDS]) {
      if (params.get(name) !== null) this.form[name].value = params.get(name);
    }
    for (const name of OPTIONS) {
      const value = params.get(name);
      if (value !== null && [...this.form[name].options].some((o) => o.value === value)) this.form[name].value = value;
    }
    if (model === "custom") {
      try {
        const carried = params.get("custom") || "";
        const number = (n) => this.f.number(n, 0);
        if (carried.length > this.customLink) {
          throw { note: fill(this.t.custom_too_big, { size: number(carried.length), max: number(this.customLink) }) };
        }
        const custom = decodeCustom(carried);
        const problem = customProblem(custom, this.customDepth, this.customChars);
        if (problem) throw { note: fill(this.t[problem.code], problem) };
        if (custom && typeof custom === "object") {
          if (custom.config) this.form.config.value = JSON.stringify(custom.config, null, 1);
          for (const key of ["total", "active", "layers", "kv_heads", "head_dim"]) {
            if (custom.totals && custom.totals[key] !== undefined) this.form[key].value = String(custom.totals[key]);
          }
        }
      } catch (error) {
        notes.push(error?.note ? error.note : fill(this.t.bad_json, { detail: "custom" }));
        this.form.model.value = this.root.dataset.defaultModel; // the default always answers
      }
    }
    this.urlNotes = notes;
    this.waiting = true;
    this.update();
  }

  // The chosen model's native format, when the catalog names one the form offers.
  useNativeFormat() {
    const native = this.form.model.selectedOptions[0]?.dataset.native;
    if (native && this.catalogFormats.has(native)) this.form.format.value = native;
  }

  // The question asked last (`request`) and the table's view (filters, sort) in the address bar.
  writeUrl(asked = this.asked) {
    if (this.compact) return;
    const request = asked || this.request();
    if (!request) return;
    this.asked = request;
    const filters = Object.fromEntries(
      FILTERS.map((name) => [name, this.root.querySelector(`[data-filter="${name}"]`).value]),
    );
    const view = viewParams(filters, this.sort, DEFAULT_SORT)
      .map(([k, v]) => `&${k}=${encodeURIComponent(v)}`)
      .join("");
    history.replaceState(null, "", `${location.pathname}?${queryFor(request, this.customLink)}${view}`);
  }

  fieldError(name, text) {
    const slot = this.root.querySelector(`[data-error-for="${name}"]`);
    if (slot) slot.textContent = text || "";
    const field = this.form.elements[name];
    if (field?.setAttribute) field.setAttribute("aria-invalid", text ? "true" : "false");
  }

  // An error stays until the next answer (a notice goes beside its button: Live.notice).
  message(text) {
    this.messageEl.hidden = !text;
    this.messageEl.textContent = text || "";
  }

  // The request the form describes, or null with the messages shown beside the fields.
  request() {
    let ok = true;
    const request = { format: this.form.format.value };
    // An image or video model has no context, users, runtime, KV cache or layout to choose: those
    // fields are hidden while it is chosen, and ignored (what they hold never blocks its answer).
    const diffusion = this.form.model.selectedOptions[0]?.parentElement?.dataset.kind === "diffusion";
    for (const name of ["context", "concurrency"]) {
      const input = this.form[name];
      const min = Number(input.min),
        max = Number(input.max); // the form's own limits
      const value = wholeIn(input.value, min, max);
      if (value === null && diffusion) {
        this.fieldError(name, "");
        request[name] = Number(this.root.dataset[name === "context" ? "defaultContext" : "defaultConcurrency"]);
      } else if (value === null) {
        this.fieldError(
          name,
          this.t.out_of_range.replace("{min}", this.f.number(min, 0)).replace("{max}", this.f.number(max, 0)),
        );
        ok = false;
      } else {
        this.fieldError(name, "");
        request[name] = value;
      }
    }
    // Nor a target: its fields are ignored too.
    for (const name of diffusion ? [] : TARGET_FIELDS) {
      const input = this.form[name];
      const min = Number(input.min),
        max = Number(input.max);
      const value = decimalIn(input.value, min, max);
      if (value === null) {
        this.fieldError(name, fill(this.t.out_of_range_decimal, { min: this.f.brief(min), max: this.f.brief(max) }));
        ok = false;
      } else {
        this.fieldError(name, "");
        request[name] = value;
      }
    }
    for (const name of OPTIONS) {
      const value = this.form[name] ? this.form[name].value : "";
      if (value && value !== "auto" && !diffusion) request[name] = value;
    }
    const model = this.form.model.value;
    this.custom.hidden = model !== "custom";
    for (const name of ["context", "concurrency", ...TARGET_FIELDS, "runtime", "kv_cache"]) {
      const field = this.form[name].closest(".configurator__field");
      if (field.hidden !== diffusion) field.hidden = diffusion;
    }
    const source = this.root.querySelector("[data-target-source]");
    if (source && source.hidden !== diffusion) source.hidden = diffusion;
    const layout = this.form.querySelector(".configurator__layout");
    if (layout.hidden !== diffusion) layout.hidden = diffusion;
    // A choice made there (a link may carry one) is never out of sight.
    if (!layout.open && [...layout.querySelectorAll("select")].some((select) => select.selectedIndex > 0))
      layout.open = true;
    for (const name of ["config", "totals", "runtime", "kv_cache", "layout"]) this.fieldError(name, "");
    if (model === "custom") {
      const text = this.form.config.value.trim();
      if (!this.hasCustomInput()) {
        ok = false; // nothing typed yet: help, not an error
      } else if (text.length > this.customChars) {
        // Refused before it is parsed, sent or put in the address bar.
        const number = (n) => this.f.number(n, 0);
        this.fieldError(
          "config",
          fill(this.t.custom_too_big, { size: number(text.length), max: number(this.customChars) }),
        );
        ok = false;
      } else if (text) {
        try {
          request.config = JSON.parse(text);
          const problem = customProblem(request.config, this.customDepth, this.customChars);
          if (problem) {
            this.fieldError("config", fill(this.t[problem.code], problem));
            ok = false;
          }
        } catch (error) {
          this.fieldError("config", fill(this.t.bad_json, { detail: String(error.message).slice(0, 120) }));
          ok = false;
        }
      } else {
        const totals = {};
        for (const key of ["total", "active", "layers", "kv_heads", "head_dim"]) {
          const raw = this.form[key].value.trim().replace(",", ".");
          const value = Number(raw);
          if (raw !== "" && !Number.isFinite(value)) {
            this.fieldError("totals", fill(this.t.custom_not_finite, { key: this.t[key], value: raw.slice(0, 40) }));
            ok = false;
          }
          totals[key] =
            raw === "" || !Number.isFinite(value) ? null : key === "total" || key === "active" ? value * 1e9 : value;
        }
        request.totals = totals;
      }
    } else {
      request.model = model;
    }
    return ok ? request : null;
  }

  hasCustomInput() {
    return ["config", "total", "active", "layers", "kv_heads", "head_dim"].some(
      (key) => this.form[key].value.trim() !== "",
    );
  }

  isDefaultWorkload(request) {
    return (
      request.model &&
      OPTIONS.every((name) => !request[name]) &&
      String(request.context) === this.root.dataset.defaultContext &&
      String(request.concurrency) === this.root.dataset.defaultConcurrency &&
      // The target's defaults (an image model sends none).
      (request.min_speed === undefined || String(request.min_speed) === this.root.dataset.defaultMinSpeed) &&
      (request.max_ttft === undefined || String(request.max_ttft) === this.root.dataset.defaultMaxTtft)
    );
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
    const kept = this.isDefaultWorkload(request) ? this.keptAnswer(request.model, request.format) : null;
    if (kept) {
      // The build computed this very question with the same engine, and its answer is already
      // in memory: nothing is quicker, ready or not.
      out = { ok: true, result: kept };
      this.waiting = false;
    } else if (engineState() === "ready") {
      this.waiting = false;
      this.setPending("pending", request);
      out = await askEngine(request, this.locale);
    } else if (this.isDefaultWorkload(request)) {
      this.setPending("pending", request);
      const built = await this.builtAnswer(request.model, request.format);
      out = built ? { ok: true, result: built } : null;
      this.waiting = !out; // the build's answer is the engine's: no need to ask again when ready
    } else {
      this.waiting = true;
      this.setPending("pending", request);
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
    this.showModelRead(out.result.model_read);
    this.show(out.result, request);
    if (this.revealAnswer && request.config) {
      this.revealAnswer = false;
      this.reveal();
    }
    afterPaint(() => generation === this.generation && this.writeUrl(request)); // the address bar can wait for the table
    // A catalog model answered while Pyodide loads: its other formats' answers are fetched once
    // this one is painted, so that a format chosen next answers at once too.
    if (request.model && engineState() !== "ready" && this.isDefaultWorkload(request)) {
      afterPaint(() => generation === this.generation && this.prefetchFormats(request.model));
    }
  }

  // The answer's card in view, moving the page as little as possible (no animation for a reader
  // who asked for less motion).
  reveal() {
    const smooth = !matchMedia("(prefers-reduced-motion: reduce)").matches;
    const first = (this.root.querySelector("[data-model-read]:not([hidden])") || this.card).getBoundingClientRect().top;
    const last = this.card.getBoundingClientRect().bottom;
    const header = 64; // Material's header stays over the page's top
    if (first >= header && last <= innerHeight) return;
    // What was read and the card, their bottom at the screen's; their top first when they are taller.
    scrollBy({ top: Math.min(last + 16 - innerHeight, first - header), behavior: smooth ? "smooth" : "auto" });
  }

  // The card and the table say that they do not answer the fields yet: aria-busy, what is being
  // computed, and dimmed after a short delay (so that a quick answer neither flashes nor
  // restyles the whole table twice).
  setPending(state, _request) {
    setIfChanged(this.card.dataset, "state", state);
    setAttr(this.card, "aria-busy", "true");
    setAttr(this.table, "aria-busy", "true");
    if (this.dimTimer === null) {
      this.dimTimer = setTimeout(() => {
        this.card.dataset.dim = "";
        this.table.dataset.dim = "";
      }, DIM_MS);
    }
    const help = this.form.model.value === "custom" && !this.hasCustomInput();
    // Over the question's line (CSS): showing it moves nothing else on the page.
    this.live.pending(state, this.waiting && engineState() !== "ready", help ? this.t.custom_help : this.t.invalid);
  }

  // What the engine read of the reader's own model, worded for the page.
  showModelRead(read) {
    const slot = this.root.querySelector("[data-model-read]");
    if (!slot) return;
    slot.hidden = !read;
    if (!read) return;
    const f = this.f;
    const words = {
      total: f.number(read.params_total / 1e9, 2),
      active: f.number(read.params_active / 1e9, 2),
      layers: f.number(read.layers, 0),
      kv_heads: f.number(read.kv_heads, 0),
      kv: f.number(read.kv_bytes_per_token / 1024, 0),
    };
    slot.textContent = this.t.model_read.replace(/\{(\w+)\}/g, (all, key) => (key in words ? words[key] : all));
  }

  // The build's answers at the default workload. The format the widget starts with: one file
  // holding every model's (the page preloads it), so that any model then answers at once.
  builtAnswers(format) {
    return this.builtFile(this.answers, format, format, `${encodeURIComponent(format)}.json`, (data) =>
      data.format === format && data.answers ? data.answers : null,
    );
  }

  // Another format: the chosen model's answer alone (a few kB), not every model's.
  builtOneAnswer(model, format) {
    const path = `${encodeURIComponent(format)}/${encodeURIComponent(model)}.json`;
    return this.builtFile(this.oneAnswers, `${format}/${model}`, format, path, (data) =>
      data.format === format && data.model === model && data.answer ? { [model]: data.answer } : null,
    );
  }

  // One of this locale's answers files for `format`, fetched once (`cache`, by `key`), only as
  // the build wrote it (a file that does not match the manifest is not used); `pick` reads
  // {model: answer} from it, or null when it is not the file asked for. What it holds is kept.
  builtFile(cache, key, format, path, pick) {
    if (!cache.has(key)) {
      const answers = fetchTrusted(this.root, `answers/${this.locale}/${path}`)
        .then((data) => (data ? pick(data) : null))
        .catch(() => null);
      answers.then((found) => found && this.keep(format, found));
      cache.set(key, answers);
    }
    return cache.get(key);
  }

  prefetchFormats(model) {
    if (engineState() === "ready") return;
    for (const format of this.catalogFormats) {
      if (!this.answers.has(format) && !this.keptAnswer(model, format)) this.builtOneAnswer(model, format);
    }
  }

  keep(format, answers) {
    this.loadedAnswers.set(format, Object.assign(this.loadedAnswers.get(format) || {}, answers));
  }

  // A build-time answer already downloaded, or null (never waits for the network).
  keptAnswer(model, format) {
    const answers = this.loadedAnswers.get(format);
    return answers && Object.hasOwn(answers, model) ? answers[model] : null;
  }

  async builtAnswer(model, format) {
    // Both fill loadedAnswers first: their handler was attached first.
    if (this.answers.has(format)) await this.builtAnswers(format);
    else await this.builtOneAnswer(model, format);
    return this.keptAnswer(model, format);
  }

  // --- drawing ------------------------------------------------------------------------

  show(result, request) {
    this.result = result;
    const kind = result.kind;
    setIfChanged(this.table.dataset, "kind", kind);
    const caption = fill(this.t.caption, { model: result.model_name });
    const captionEl = this.table.querySelector("caption");
    if (captionEl.textContent !== caption) captionEl.textContent = caption;
    this.table.querySelectorAll("th[data-col]").forEach((th) => {
      const label = columnLabel(this.t, th.dataset.col, kind);
      const button = th.querySelector("button");
      if (button.textContent !== label) button.textContent = label;
      setAttr(button, "aria-label", fill(this.t.sort_by, { column: label }));
      const help = columnHelp(this.t, th.dataset.col, kind);
      if (th.title !== help) th.title = help;
    });
    // The same nodes come back: patch the cells that changed rather than parse a new table, so
    // the browser restyles and repaints only what moved. Every row's data attributes (what
    // sorting, filters and the chart read) are set now, and the cells of the rows on screen are
    // patched before the frame, the others right after it.
    const rows = this.rowsByNode();
    const later = [];
    const onScreen = this.onScreenPositions();
    const patch = (tr, r, position) => {
      if (onScreen && (tr.hidden || position < onScreen[0] || position > onScreen[1])) later.push([tr, r]);
      else this.patchCells(tr, r, kind);
    };
    const sameNodes = result.rows.length === rows.size && result.rows.every((r) => rows.has(r.node));
    if (sameNodes && this.column(this.sort.col).sort === "number") {
      // Sorted on raw values, each row of the table then shows the node of its new place: no row
      // moves, since a row moved (or put before another) is restyled whole, with every row after
      // it (Material's `.md-typeset table:not([class]) + *` reads each row's previous sibling).
      const { col, dir } = this.sort;
      const keyed = result.rows.map((r, i) => {
        const data = rowData(r, kind, i, this.columns);
        return { r, data, verdict: data.verdict, order: data.order, value: sortValue(data, col) };
      });
      keyed.sort((a, b) => compareRows(a, b, dir, this.locale));
      // A reason a reader unfolded stays unfolded under its node, wherever the node goes.
      const open = new Set(
        Array.from(
          this.tbody.querySelectorAll('[data-why][aria-expanded="true"]'),
          (b) => b.closest("tr").dataset.node,
        ),
      );
      Array.from(this.tbody.rows).forEach((tr, position) => {
        const { r, data } = keyed[position];
        if (tr.dataset.node !== r.node) this.placeNode(tr, r, open.has(r.node));
        this.patchData(tr, data);
      });
      this._rows = null; // the rows now show other nodes
      this.showSortState();
      this.applyFilters();
      for (const [position, tr] of Array.from(this.tbody.rows).entries()) patch(tr, keyed[position].r, position);
    } else if (sameNodes) {
      // A text column sorts on what the cells show: patched first, then the rows moved.
      const byNode = new Map(result.rows.map((r, i) => [r.node, [r, i]]));
      const datas = new Map();
      for (const [node, [r, i]] of byNode) {
        const data = rowData(r, kind, i, this.columns);
        datas.set(rows.get(node), data);
        this.patchData(rows.get(node), data);
      }
      this.sortRows(datas);
      this.applyFilters();
      for (const [position, tr] of Array.from(this.tbody.rows).entries())
        patch(tr, byNode.get(tr.dataset.node)[0], position);
    } else {
      this.tbody.innerHTML = result.rows
        .map((r, i) => rowHtml(r, kind, i, this.t, this.f, this.gpuNames, this.columns))
        .join("\n");
      this.watchRows();
      this.sortRows();
      this.applyFilters();
    }
    this.pendingRows = later;
    this.showAnswer(result, request);
    afterPaint(() => {
      performance.mark("configurator-painted");
      // The chart's width is read while the page's layout is still the one just painted (free),
      // not after the other rows are patched (which would lay the whole table out again at once).
      const width = this.chart.clientWidth;
      if (this.pendingRows === later) this.flushRows();
      this.drawChart(width); // below the table: drawn once the table is on screen
    });
  }

  // The positions (first, last) of the rows on screen, with a margin; null until the browser has said.
  onScreenPositions() {
    if (this.visibleRows === null) return null;
    const positions = Array.from(this.tbody.rows).flatMap((tr, i) => (this.visibleRows.has(tr) ? [i] : []));
    if (!positions.length) return [0, -1];
    return [Math.max(0, positions[0] - 3), positions[positions.length - 1] + 3];
  }

  // The card names the workload it answers and patches its slots (the build wrote its markup).
  showAnswer(result, request) {
    const view = answerView(result, {
      t: this.t,
      f: this.f,
      gpuNames: this.gpuNames,
      formatName: this.formatNames[request.format] || request.format,
      workload: {
        context: request.context,
        concurrency: request.concurrency,
        min_speed: request.min_speed,
        max_ttft: request.max_ttft,
      },
    });
    const node = result.summary.recommended || "";
    const card = this.card;
    const data = {
      model: request.model || "custom",
      format: request.format,
      context: String(request.context),
      concurrency: String(request.concurrency),
      minSpeed: request.min_speed == null ? "" : String(request.min_speed),
      maxTtft: request.max_ttft == null ? "" : String(request.max_ttft),
      node,
      fastest: result.summary.fastest || "",
      bestPerMtok: result.summary.best_per_mtok || "",
      state: "answer",
    };
    for (const [key, value] of Object.entries(data)) setIfChanged(card.dataset, key, value);
    for (const [name, el] of Object.entries(this.slots)) {
      if (name === "pending") continue;
      const text = view[name] || "";
      setText(el, text);
      const figure = name.endsWith("_label") ? null : el.closest("[data-figure], [data-alt]");
      if (figure) setIfChanged(figure, "hidden", !text);
    }
    this.live.answered(view, result, { t: this.t, f: this.f, gpuNames: this.gpuNames });
    card.querySelector('[data-slot-group="found"]').hidden = !node;
    card.querySelector('[data-slot-group="none"]').hidden = Boolean(node);
    const suggestions = suggestionViews(result, {
      t: this.t,
      f: this.f,
      gpuNames: this.gpuNames,
      formatNames: this.formatNames,
    });
    const key = JSON.stringify(suggestions);
    if (this._suggestions !== key) {
      this._suggestions = key;
      const box = card.querySelector("[data-suggestions]");
      box.replaceChildren(
        ...suggestions.map((s) => {
          const button = document.createElement("button");
          button.type = "button";
          button.className = "md-button";
          button.dataset.suggestion = "";
          for (const key of SUGGESTION_KEYS) button.dataset[key.replace(/_(\w)/g, (_, c) => c.toUpperCase())] = s[key];
          button.dataset.node = s.node;
          button.textContent = s.text;
          return button;
        }),
      );
    }
    setAttr(card, "aria-busy", "false");
    setAttr(this.table, "aria-busy", "false");
    clearTimeout(this.dimTimer);
    this.dimTimer = null;
    delete card.dataset.dim;
    delete this.table.dataset.dim;
    const said = announcement(view, this.t);
    if (this._announced !== said) {
      this._announced = said;
      setText(card.querySelector("[data-announce]"), said);
    }
  }

  rowsByNode() {
    if (!this._rows) this._rows = new Map(Array.from(this.tbody.rows, (tr) => [tr.dataset.node, tr]));
    return this._rows;
  }

  // Which rows are on screen (or nearly): null until the browser has said.
  watchRows() {
    this._rows = null;
    if (this.observer) this.observer.disconnect();
    this.visibleRows = null;
    if (!("IntersectionObserver" in window)) return;
    const visible = new Set();
    this.observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (entry.isIntersecting) visible.add(entry.target);
          else visible.delete(entry.target);
        }
        this.visibleRows = visible;
      },
      { rootMargin: "0px" },
    );
    for (const tr of this.tbody.rows) this.observer.observe(tr);
  }

  flushRows() {
    const kind = this.table.dataset.kind;
    for (const [tr, r] of this.pendingRows) this.patchCells(tr, r, kind);
    this.pendingRows = [];
  }

  patchData(tr, data) {
    for (const [key, value] of Object.entries(data)) setIfChanged(tr.dataset, key, value);
  }

  // A row given another node: what names it (the node cell's texts are patched with the others).
  placeNode(tr, r, open) {
    const why = `cfg-why-${r.node}`;
    const button = tr.querySelector("[data-why]");
    setAttr(button, "aria-controls", why);
    setAttr(button, "aria-label", fill(this.t.why_label, { node: nodeName(this.t, r, this.gpuNames) }));
    setAttr(button, "aria-expanded", String(open));
    tr.querySelector(".verdict__reason").id = why;
  }

  patchCells(tr, r, kind) {
    // data-verdict (read by filters and sorting) is already set; data-shown is what the row's
    // look follows, so a row off screen is restyled when its cells are, after the frame.
    setIfChanged(tr.dataset, "shown", shownLook(r.verdict));
    const cells = tr.cells;
    const texts = rowTexts(r, kind, this.t, this.f);
    this.columns.forEach(({ id: col }, i) => {
      if (cells[i].dataset.label !== undefined) setIfChanged(cells[i].dataset, "label", columnLabel(this.t, col, kind));
      if (col === "memory") this.patchBar(cells[i], barView(r, kind, this.t, this.f));
      else if (col === "verdict") {
        setText(cells[i].querySelector("[data-text]"), texts.verdict);
        setText(cells[i].querySelector(".verdict__reason"), texts.reason);
      } else if (col === "node") {
        const code = cells[i].querySelector("code");
        if (code.textContent !== r.node) {
          setText(code, r.node);
          setText(cells[i].querySelector(".node__name"), nodeName(this.t, r, this.gpuNames));
        }
      } else setText(cells[i], texts[col]);
    });
  }

  patchBar(cell, bar) {
    const svg = cell.querySelector("svg");
    const span = cell.querySelector(".bar__text");
    if (!svg || !span) {
      cell.innerHTML = barHtml(bar);
      return;
    }
    if (svg.getAttribute("aria-label") !== bar.label) {
      svg.setAttribute("aria-label", bar.label);
      setText(svg.querySelector("title"), bar.label);
    }
    setText(span, bar.text);
    const rects = svg.querySelectorAll("rect");
    if (
      rects.length !== bar.rects.length ||
      bar.rects.some((p, i) => rects[i].getAttribute("class") !== `bar__${p.name}`)
    ) {
      for (const rect of rects) rect.remove();
      svg.insertAdjacentHTML("beforeend", rectsHtml(bar));
      return;
    }
    bar.rects.forEach((p, i) => {
      if (rects[i].getAttribute("x") !== p.x) rects[i].setAttribute("x", p.x);
      if (rects[i].getAttribute("width") !== p.width) rects[i].setAttribute("width", p.width);
    });
  }

  get gpuNames() {
    if (!this._gpuNames) {
      this._gpuNames = Object.fromEntries(
        Array.from(this.root.querySelectorAll('[data-filter="gpu"] option'), (o) => [o.value, o.textContent]),
      );
    }
    return this._gpuNames;
  }

  rowsFromDom() {
    // The build-time rows already carry everything sorting and filtering need, in the default order.
    this.showSortState();
    this.watchRows();
    this.applyFilters();
  }

  column(id) {
    return this.columns.find((c) => c.id === id);
  }

  sortBy(col) {
    this.sort = nextSort(this.sort, col);
    if (this.column(col).sort === "text") this.flushRows(); // text columns read the cells
    this.sortRows();
    this.applyFilters();
    this.flushRows();
  }

  // Rows in the current order, on raw values (`datas`: each row's data attributes as just
  // written, else read from the row). Only the rows out of place are moved, as few as can be:
  // a moved row is restyled and laid out whole.
  sortRows(datas) {
    const { col, dir } = this.sort;
    const index = this.columns.findIndex((c) => c.id === col);
    const text = this.columns[index].sort === "text";
    const keyed = Array.from(this.tbody.rows, (tr) => {
      const data = datas?.get(tr) || tr.dataset;
      const value = text ? this.cellText(tr.cells[index]) : sortValue(data, col);
      return { tr, verdict: data.verdict, order: data.order, value };
    });
    keyed.sort((a, b) => compareRows(a, b, dir, this.locale));
    const position = new Map(keyed.map((k, i) => [k.tr, i]));
    const moving = positionsToMove(Array.from(this.tbody.rows, (tr) => position.get(tr)));
    for (let i = keyed.length - 1; i >= 0; i--) {
      if (moving.has(i)) this.tbody.insertBefore(keyed[i].tr, i + 1 < keyed.length ? keyed[i + 1].tr : null);
    }
    this.showSortState();
  }

  // What a text column shows and sorts on: its [data-text] (the verdict, not its reason).
  cellText(cell) {
    return (cell.querySelector("[data-text]") || cell).textContent.trim();
  }

  showSortState() {
    const { col, dir } = this.sort;
    this.table.querySelectorAll("th[data-col]").forEach((th) => {
      setAttr(th, "aria-sort", th.dataset.col === col ? (dir > 0 ? "ascending" : "descending") : "none");
    });
  }

  applyFilters() {
    const filters = {};
    for (const select of this.root.querySelectorAll("[data-filter]")) filters[select.dataset.filter] = select.value;
    const folding = !this.showNone && filters.verdict !== "none";
    let folded = 0;
    Array.from(this.tbody.rows).forEach((tr) => {
      const filtered = Boolean(
        (filters.verdict && tr.dataset.verdict !== filters.verdict) ||
          (filters.gpu && tr.dataset.gpu !== filters.gpu) ||
          (filters.link && tr.dataset.link !== filters.link),
      );
      const fold = !filtered && tr.dataset.verdict === "none";
      if (fold) folded += 1;
      const hidden = filtered || (folding && fold);
      if (tr.hidden !== hidden) tr.hidden = hidden;
    });
    const button = this.foldButton;
    setIfChanged(button, "hidden", folded === 0 || filters.verdict === "none");
    setText(button, this.showNone ? this.t.hide_none : fill(this.t.show_none, { n: this.f.number(folded, 0) }));
    setAttr(button, "aria-expanded", String(this.showNone));
  }

  // `width`: the chart's, when the caller read it at a cheaper moment (0: it was hidden).
  drawChart(width = 0) {
    if (this.compact) return;
    // Drawn from the table's own data, so the build-time table gets its chart too.
    const kind = this.table.dataset.kind;
    const names = new Map(
      Array.from(this.tbody.rows, (tr) => [
        tr.dataset.node,
        tr.querySelector(".node__name")?.textContent || tr.dataset.node,
      ]),
    );
    const points = Array.from(this.tbody.rows)
      .filter((tr) => tr.dataset.verdict !== "none" && tr.dataset.tokS !== "" && tr.dataset.vPerMtok !== "")
      .map((tr) => ({
        node: tr.dataset.node,
        name: names.get(tr.dataset.node),
        x: Number(tr.dataset.tokS),
        y: Number(tr.dataset.vPerMtok),
      }));
    if (!points.length) {
      this.chart.hidden = true;
      return;
    }
    const highlight = {};
    const card = this.card.dataset; // the build's answer names its card's nodes
    const summary = this.result
      ? this.result.summary
      : { recommended: card.node, fastest: card.fastest, best_per_mtok: card.bestPerMtok };
    if (summary.fastest) highlight[summary.fastest] = this.t.alt_fastest;
    const best = kind === "diffusion" ? "alt_best_per_mtok_diffusion" : "alt_best_per_mtok";
    if (summary.best_per_mtok) highlight[summary.best_per_mtok] = this.t[best];
    if (summary.recommended) highlight[summary.recommended] = this.t.chart_recommended;
    this.chart.hidden = false;
    const svg = chartSvg(points, {
      width: width || this.chart.clientWidth,
      t: this.t,
      f: this.f,
      diffusion: kind === "diffusion",
      highlight,
    });
    if (this._chart !== svg) {
      this._chart = svg;
      this.chart.innerHTML = svg;
    }
  }

  // --- sharing ------------------------------------------------------------------------

  async copyLink() {
    const button = this.root.querySelector("[data-copy-link]");
    // The clipboard may refuse, or never answer (a page without focus): after a second, the
    // link is shown to copy by hand.
    const written = navigator.clipboard
      ? navigator.clipboard.writeText(location.href).then(() => true)
      : Promise.resolve(false);
    const copied = await Promise.race([
      written,
      new Promise((resolve) => setTimeout(() => resolve(false), 1000)),
    ]).catch(() => false);
    this.live.notice(button, copied ? this.t.copied : location.href);
  }

  // The rows the reader kept, in the reader's order, with the question they answer first.
  downloadCsv() {
    const request = this.request() || this.asked || {};
    const result = this.result || this.keptAnswer(this.root.dataset.defaultModel, this.root.dataset.defaultFormat);
    if (!result) return;
    const byNode = new Map(result.rows.map((r) => [r.node, r]));
    const rows = Array.from(this.tbody.rows)
      .filter((tr) => !tr.hidden && byNode.has(tr.dataset.node))
      .map((tr) => byNode.get(tr.dataset.node));
    const lead = [
      introText(this.t, this.f, this.live.question || this.live.fieldsQuestion(this.form, request)),
      location.href,
    ];
    const text = csvFile({ lead, rows, t: this.t, kind: result.kind, gpuNames: this.gpuNames, locale: this.locale });
    this.live.download(
      csvName(this.t.csv_file, { ...request, diffusion: result.kind === "diffusion" }),
      text,
      "text/csv;charset=utf-8",
    );
  }
}

for (const root of document.querySelectorAll("[data-configurator]")) new Configurator(root);
