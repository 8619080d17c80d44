// The configurator widget: reads the form, asks the engine, draws the table, the summary and
// the chart, keeps the state in the URL. It holds no engine logic: every figure and every
// reason comes from the engine (Pyodide worker, or answers the build computed with it).
// Markup must match macros/configurator_html.py (rowHtml / row_html).

const COLUMNS = ["node", "gpu", "verdict", "memory", "per_user", "total", "ttft", "price_month", "per_mtok", "best_per_mtok", "max_users", "reason"];
const URL_VERSION = "1";
const LIMITS = { context: [1, 10000000], concurrency: [1, 4096] };
// Choices that change the engine's question beside the model and the workload (absent: the default).
const OPTIONS = ["runtime", "kv_cache"];

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" };
const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);

import { afterPaint, askEngine, engineState, fetchTrusted, onEngineStatus, startEngine } from "./engine-client.js";
import { customProblem, fill } from "./input-bounds.js";

// Writing a DOM property restyles even when the value is the same: write only what changed.
function setIfChanged(target, key, value) {
  if (target[key] !== value) target[key] = value;
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

function formatters(locale) {
  const number = (digits) => new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const usd = (digits) =>
    new Intl.NumberFormat(locale, { style: "currency", currency: "USD", minimumFractionDigits: digits, maximumFractionDigits: digits });
  const n0 = number(0), n1 = number(1), n2 = number(2), usd0 = usd(0), usd2 = usd(2);
  return {
    number: (value, digits) => ({ 0: n0, 1: n1, 2: n2 })[digits].format(value),
    usd: (value, cents) => (cents ? usd2 : usd0).format(value),
  };
}

// Base64url of UTF-8 JSON, for custom models in shared links.
function encodeCustom(value) {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  let binary = "";
  bytes.forEach((b) => (binary += String.fromCharCode(b)));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decodeCustom(text) {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
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
    this.chart = root.querySelector("[data-chart]");
    this.custom = root.querySelector("[data-custom]");
    this.compact = root.hasAttribute("data-compact");
    this.catalogModels = new Set(Array.from(this.form.model.options, (o) => o.value).filter((v) => v !== "custom"));
    this.catalogFormats = new Set(Array.from(this.form.format.options, (o) => o.value));
    this.customChars = Number(root.dataset.customChars) || 100000;
    this.customDepth = Number(root.dataset.customDepth) || 32;
    this.customLink = Number(root.dataset.customLink) || 32000;
    this.result = null;
    this.sort = null;
    this.answers = new Map(); // format -> promise of the build's answers for every model
    this.loadedAnswers = new Map(); // format -> those answers, once downloaded
    this.generation = 0;
    this.visibleRows = null;
    this.pendingRows = [];
    this.rowsFromDom();
    root.querySelector("[data-controls]").hidden = false;
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
    // The engine may already be on its way (configurator-boot.js, or another widget of the page).
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
      this.setStatus("loading", `${this.t.status_loading} (${message.step}/${message.steps})`);
    } else if (message.state === "ready") {
      performance.mark("configurator-ready");
      this.setStatus("ready", this.t.status_ready);
      if (this.waiting) this.update();
    } else if (message.state === "error") {
      this.setStatus("error", this.t.status_error);
    }
  }

  bind() {
    const change = () => {
      this.urlNotes = []; // the reader has moved on from the shared link: its notes no longer apply
      this.start();
      this.update();
    };
    this.form.addEventListener("change", change);
    let typing = null;
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
    this.root.querySelectorAll("[data-filter]").forEach((select) => select.addEventListener("change", () => this.applyFilters()));
    this.root.querySelectorAll("[data-sort]").forEach((button) => button.addEventListener("click", () => this.sortBy(button.dataset.sort)));
    this.root.querySelector("[data-copy-link]").addEventListener("click", () => this.copyLink());
    this.root.querySelector("[data-csv]").addEventListener("click", () => this.downloadCsv());
  }

  // --- state --------------------------------------------------------------------------

  readUrl() {
    const params = new URLSearchParams(location.search);
    if (![...params.keys()].length) return;
    const version = params.get("v") || URL_VERSION;
    if (version !== URL_VERSION) return; // a future link: keep the default, which always answers
    const notes = [];
    const model = params.get("model");
    if (model !== null) {
      if (this.catalogModels.has(model) || (model === "custom" && params.get("custom"))) this.form.model.value = model;
      else notes.push(fill(this.t.fallback, { value: model, default: this.form.model.selectedOptions[0].textContent }));
    }
    const format = params.get("format");
    if (format !== null) {
      if (this.catalogFormats.has(format)) this.form.format.value = format;
      else notes.push(fill(this.t.fallback, { value: format, default: this.form.format.selectedOptions[0].textContent }));
    }
    for (const name of ["context", "concurrency"]) {
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
        notes.push(error && error.note ? error.note : fill(this.t.bad_json, { detail: "custom" }));
        this.form.model.value = this.root.dataset.defaultModel; // the default always answers
      }
    }
    this.urlNotes = notes;
    this.waiting = true;
    this.update();
  }

  writeUrl(request) {
    if (this.compact) return;
    const params = new URLSearchParams({ v: URL_VERSION, model: request.model || "custom", format: request.format });
    if (request.context !== undefined) params.set("context", request.context);
    if (request.concurrency !== undefined) params.set("concurrency", request.concurrency);
    for (const name of OPTIONS) if (request[name]) params.set(name, request[name]);
    if (request.config || request.totals) {
      const custom = encodeCustom(request.config ? { config: request.config } : { totals: request.totals });
      if (custom.length <= this.customLink) params.set("custom", custom); // longer, no link could carry it
    }
    history.replaceState(null, "", `${location.pathname}?${params}`);
  }

  fieldError(name, text) {
    const slot = this.root.querySelector(`[data-error-for="${name}"]`);
    if (slot) slot.textContent = text || "";
    const field = this.form.elements[name];
    if (field && field.setAttribute) field.setAttribute("aria-invalid", text ? "true" : "false");
  }

  message(text) {
    this.messageEl.hidden = !text;
    this.messageEl.textContent = text || "";
  }

  // The request the form describes, or null with the messages shown beside the fields.
  request() {
    let ok = true;
    const request = { format: this.form.format.value };
    for (const name of ["context", "concurrency"]) {
      const raw = this.form[name].value.trim();
      const [min, max] = LIMITS[name];
      const value = Number(raw);
      if (!/^\d+$/.test(raw) || value < min || value > max) {
        this.fieldError(name, this.t.out_of_range.replace("{min}", this.f.number(min, 0)).replace("{max}", this.f.number(max, 0)));
        ok = false;
      } else {
        this.fieldError(name, "");
        request[name] = value;
      }
    }
    for (const name of OPTIONS) {
      const value = this.form[name] ? this.form[name].value : "";
      if (value && value !== "auto") request[name] = value;
    }
    const model = this.form.model.value;
    this.custom.hidden = model !== "custom";
    this.fieldError("config", "");
    this.fieldError("totals", "");
    if (model === "custom") {
      const text = this.form.config.value.trim();
      if (text.length > this.customChars) {
        // Refused before it is parsed, sent or put in the address bar.
        const number = (n) => this.f.number(n, 0);
        this.fieldError("config", fill(this.t.custom_too_big, { size: number(text.length), max: number(this.customChars) }));
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
          totals[key] = raw === "" || !Number.isFinite(value) ? null : key === "total" || key === "active" ? value * 1e9 : value;
        }
        request.totals = totals;
      }
    } else {
      request.model = model;
    }
    return ok ? request : null;
  }

  isDefaultWorkload(request) {
    return (
      request.model &&
      OPTIONS.every((name) => !request[name]) &&
      String(request.context) === this.root.dataset.defaultContext &&
      String(request.concurrency) === this.root.dataset.defaultConcurrency
    );
  }

  async update() {
    performance.mark("configurator-change");
    const generation = ++this.generation;
    const request = this.request();
    if (!request) return;
    let out = null;
    const kept = this.isDefaultWorkload(request) ? this.keptAnswer(request.model, request.format) : null;
    if (kept) {
      // The build computed this very question with the same engine, and its answer is already
      // in memory: nothing is quicker, ready or not.
      out = { ok: true, result: kept };
      this.waiting = false;
    } else if (engineState() === "ready") {
      this.waiting = false;
      out = await askEngine(request, this.locale);
    } else if (this.isDefaultWorkload(request)) {
      const built = await this.builtAnswer(request.model, request.format);
      out = built ? { ok: true, result: built } : null;
      this.waiting = !out; // the build's answer is the engine's: no need to ask again when ready
    } else {
      this.waiting = true;
      if (engineState() === "error") this.message(this.t.status_error);
      return;
    }
    if (generation !== this.generation || !out) return;
    if (!out.ok) {
      const detail = out.error === "internal" ? this.t.status_error : out.error;
      const field = /config|custom/i.test(detail) || request.config ? "config" : request.totals ? "totals" : null;
      if (field) this.fieldError(field, detail);
      this.message(detail);
      return;
    }
    this.message((this.urlNotes || []).join(" "));
    this.showModelRead(out.result.model_read);
    this.show(out.result);
    afterPaint(() => generation === this.generation && this.writeUrl(request)); // the address bar can wait for the table
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

  // The build's answers at the default workload, one file per format holding every model.
  builtAnswers(format) {
    if (!this.answers.has(format)) {
      // Only as the build wrote them: a file that does not match the manifest is not used.
      const bundle = fetchTrusted(this.root, `answers/${this.locale}/${encodeURIComponent(format)}.json`)
        .then((data) => (data && data.format === format && data.answers ? data.answers : null))
        .catch(() => null);
      bundle.then((answers) => answers && this.loadedAnswers.set(format, answers));
      this.answers.set(format, bundle);
    }
    return this.answers.get(format);
  }

  // A build-time answer already downloaded, or null (never waits for the network).
  keptAnswer(model, format) {
    const answers = this.loadedAnswers.get(format);
    return answers && Object.hasOwn(answers, model) ? answers[model] : null;
  }

  async builtAnswer(model, format) {
    await this.builtAnswers(format); // fills loadedAnswers first: its handler was attached first
    return this.keptAnswer(model, format);
  }

  // --- drawing ------------------------------------------------------------------------

  show(result) {
    this.result = result;
    const kind = result.kind;
    setIfChanged(this.table.dataset, "kind", kind);
    const caption = fill(this.t.caption, { model: result.model_name });
    const captionEl = this.table.querySelector("caption");
    if (captionEl.textContent !== caption) captionEl.textContent = caption;
    this.table.querySelectorAll("th[data-col]").forEach((th) => {
      const col = th.dataset.col;
      const key = kind === "diffusion" && this.t[`col_${col}_diffusion`] ? `col_${col}_diffusion` : `col_${col}`;
      const button = th.querySelector("button");
      if (button.textContent !== this.t[key]) button.textContent = this.t[key];
    });
    // The same nodes come back: patch the cells that changed rather than parse a new table, so
    // the browser restyles and repaints only what moved. Rows on screen are patched before the
    // frame; the others right after it, before the reader can scroll to them. Their data
    // attributes (what sorting, filters and the chart read) are all set now.
    const rows = this.rowsByNode();
    const later = [];
    if (result.rows.length === rows.size && result.rows.every((r) => rows.has(r.node))) {
      const deferring = this.visibleRows !== null && !this.sort;
      for (const r of result.rows) {
        const tr = rows.get(r.node);
        this.patchData(tr, this.rowData(r, kind));
        if (deferring && !this.visibleRows.has(tr)) later.push([tr, r]);
        else this.patchCells(tr, r, kind);
      }
    } else {
      this.tbody.innerHTML = result.rows.map((r) => this.rowHtml(r, kind)).join("\n");
      this.watchRows();
    }
    this.pendingRows = later;
    const summary = this.summaryHtml(result);
    if (this._summary !== summary) {
      this.root.querySelector("[data-summary]").innerHTML = summary;
      this._summary = summary;
    }
    if (this.sort) this.sortBy(this.sort.col, true);
    this.applyFilters();
    afterPaint(() => {
      performance.mark("configurator-painted");
      if (this.pendingRows === later) this.flushRows();
      this.drawChart(); // below the table: drawn once the table is on screen
    });
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

  summaryHtml(result) {
    const rows = Object.fromEntries(result.rows.map((r) => [r.node, r]));
    const node = (id) =>
      id == null || id === undefined
        ? escapeHtml(this.t.no_node)
        : `<code>${escapeHtml(id)}</code> (${escapeHtml(this.f.usd(rows[id].price_month_usd, false))}${escapeHtml(this.t.per_month)})`;
    return `${escapeHtml(this.t.summary_single)} ${node(result.summary.cheapest_single)}. ${escapeHtml(this.t.summary_any)} ${node(result.summary.cheapest_any)}.`;
  }

  // What a row carries for sorting, filtering and the chart.
  rowData(r, kind) {
    const raw = (v) => (v == null || v === undefined ? "" : String(v));
    const diffusion = kind === "diffusion";
    return {
      node: r.node,
      verdict: r.verdict,
      cards: String(diffusion ? (r.verdict !== "none" ? 1 : 0) : r.cards_used),
      tokS: raw(diffusion ? r.relative_speed : r.decode_tok_s_per_user),
      priceMonth: raw(r.price_month_usd),
      gpu: r.gpu,
      link: r.link_class,
    };
  }

  // What a row shows: the texts of cells 2 and 4 to 10 (the node and GPU cells never change
  // for a node; cell 3 is the bar), as the first render and the patch both write them.
  rowTexts(r, kind) {
    const t = this.t, f = this.f;
    let verdict = t[r.verdict];
    if (kind === "diffusion") {
      return [
        verdict,
        r.relative_speed == null ? "" : `×${f.number(r.relative_speed, 2)}`,
        r.usd_per_reference_hour == null ? "" : f.usd(r.usd_per_reference_hour, true),
        "",
        f.usd(r.price_month_usd, false),
        "",
        "",
        "",
        r.reason_text,
      ];
    }
    if (r.verdict === "split") {
      verdict += " · " + t.layout.replace("{cards}", r.cards_used).replace("{tp}", r.tensor_parallel).replace("{pp}", r.pipeline_parallel);
    }
    const fits = r.verdict !== "none";
    const best = r.best_usd_per_million_output_tokens;
    return [
      verdict,
      fits ? f.number(r.decode_tok_s_per_user, 1) : "",
      fits ? f.number(r.decode_tok_s_total, 1) : "",
      fits ? f.number(r.ttft_s, 2) : "",
      f.usd(r.price_month_usd, false),
      fits ? f.usd(r.usd_per_million_output_tokens, true) : "",
      best == null ? "" : t.best_at.replace("{price}", () => f.usd(best, true)).replace("{users}", () => f.number(r.best_concurrency, 0)),
      fits ? f.number(r.max_concurrency, 0) : "",
      r.reason_text,
    ];
  }

  rowHtml(r, kind) {
    const [verdict, ...numbers] = this.rowTexts(r, kind);
    const reason = numbers.pop();
    const cells = [
      `<td><code>${escapeHtml(r.node)}</code></td>`,
      `<td>${escapeHtml(this.gpuNames[r.gpu] || r.gpu)}</td>`,
      `<td>${escapeHtml(verdict)}</td>`,
      `<td>${this.barHtml(this.barView(r, kind))}</td>`,
      ...numbers.map((text) => `<td class="num">${escapeHtml(text)}</td>`),
      `<td>${escapeHtml(reason)}</td>`,
    ];
    const d = this.rowData(r, kind);
    const attrs =
      `data-node="${escapeHtml(d.node)}" data-verdict="${escapeHtml(d.verdict)}" data-cards="${d.cards}" ` +
      `data-tok-s="${d.tokS}" data-price-month="${d.priceMonth}" ` +
      `data-gpu="${escapeHtml(d.gpu)}" data-link="${escapeHtml(d.link)}" data-shown="${escapeHtml(d.verdict)}"`;
    return `<tr ${attrs}>${cells.join("")}</tr>`;
  }

  flushRows() {
    const kind = this.table.dataset.kind;
    for (const [tr, r] of this.pendingRows) this.patchCells(tr, r, kind);
    this.pendingRows = [];
  }

  patchData(tr, data) {
    for (const [key, value] of Object.entries(data)) setIfChanged(tr.dataset, key, value);
  }

  patchCells(tr, r, kind) {
    // data-verdict (read by filters and sorting) is already set; data-shown is what the row's
    // look follows, so a row off screen is restyled when its cells are, after the frame.
    setIfChanged(tr.dataset, "shown", r.verdict);
    const cells = tr.cells;
    this.rowTexts(r, kind).forEach((text, i) => setText(cells[i === 0 ? 2 : i + 3], text));
    this.patchBar(cells[3], this.barView(r, kind));
  }

  barView(r, kind) {
    const t = this.t, f = this.f;
    const capacity = r.capacity_gb;
    const parts = kind === "diffusion" ? [["weights", r.need_gb]] : [["weights", r.weights_gb], ["kv", r.kv_gb], ["reserve", r.reserve_gb]];
    const used = parts.reduce((sum, [, v]) => sum + v, 0);
    const scale = Math.max(capacity, used);
    parts.push(["free", Math.max(capacity - used, 0)]);
    let x = 0;
    const rects = [];
    for (const [name, value] of parts) {
      const width = (100 * value) / scale;
      rects.push({ name, x: x.toFixed(2), width: width.toFixed(2) }); // empty parts too: a patch then only moves them
      x += width;
    }
    return {
      rects,
      label: parts.map(([name, value]) => `${t["bar_" + name]} ${f.number(value, 1)} GB`).join(" · "),
      text: `${f.number(used, 1)} / ${f.number(capacity, 1)} GB`,
    };
  }

  barHtml(bar) {
    const rects = bar.rects.map((p) => `<rect class="bar__${p.name}" x="${p.x}" width="${p.width}" height="10"></rect>`).join("");
    return (
      `<svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label="${escapeHtml(bar.label)}">` +
      `<title>${escapeHtml(bar.label)}</title>${rects}</svg>` +
      `<span class="bar__text">${escapeHtml(bar.text)}</span>`
    );
  }

  patchBar(cell, bar) {
    const svg = cell.querySelector("svg");
    const span = cell.querySelector(".bar__text");
    if (!svg || !span) {
      cell.innerHTML = this.barHtml(bar);
      return;
    }
    if (svg.getAttribute("aria-label") !== bar.label) {
      svg.setAttribute("aria-label", bar.label);
      setText(svg.querySelector("title"), bar.label);
    }
    setText(span, bar.text);
    const rects = svg.querySelectorAll("rect");
    if (rects.length !== bar.rects.length || bar.rects.some((p, i) => rects[i].getAttribute("class") !== `bar__${p.name}`)) {
      rects.forEach((rect) => rect.remove());
      svg.insertAdjacentHTML("beforeend", bar.rects.map((p) => `<rect class="bar__${p.name}" x="${p.x}" width="${p.width}" height="10"></rect>`).join(""));
      return;
    }
    bar.rects.forEach((p, i) => {
      if (rects[i].getAttribute("x") !== p.x) rects[i].setAttribute("x", p.x);
      if (rects[i].getAttribute("width") !== p.width) rects[i].setAttribute("width", p.width);
    });
  }

  get gpuNames() {
    if (!this._gpuNames) {
      this._gpuNames = Object.fromEntries(Array.from(this.root.querySelectorAll('[data-filter="gpu"] option'), (o) => [o.value, o.textContent]));
    }
    return this._gpuNames;
  }

  rowsFromDom() {
    // The build-time rows already carry everything sorting and filtering need.
    this.table.querySelectorAll("th[data-col]").forEach((th) => th.setAttribute("aria-sort", "none"));
    this.watchRows();
  }

  sortBy(col, keep) {
    this.flushRows(); // sorting reads the cells
    const index = COLUMNS.indexOf(col);
    if (!keep) this.sort = this.sort && this.sort.col === col ? { col, dir: -this.sort.dir } : { col, dir: 1 };
    const { dir } = this.sort;
    const rows = Array.from(this.tbody.rows);
    const key = (tr) => {
      if (col === "per_user") return tr.dataset.tokS === "" ? null : Number(tr.dataset.tokS);
      if (col === "price_month") return Number(tr.dataset.priceMonth);
      if (col === "memory") return Number(tr.dataset.cards);
      const text = tr.cells[index].textContent.trim();
      if (tr.cells[index].classList.contains("num")) {
        const number = Number(text.replace(/[^\d,.-]/g, "").replace(/[\s\u202f\u00a0]/g, "").replace(this.locale === "fr" ? "," : /(?!)/, "."));
        return text === "" ? null : number;
      }
      return text;
    };
    rows.sort((a, b) => {
      const ka = key(a), kb = key(b);
      if (ka == null && kb == null) return 0;
      if (ka == null) return 1;
      if (kb == null) return -1;
      return (typeof ka === "number" ? ka - kb : String(ka).localeCompare(String(kb), this.locale)) * dir;
    });
    if (rows.some((tr, i) => this.tbody.rows[i] !== tr)) rows.forEach((tr) => this.tbody.appendChild(tr));
    this.table.querySelectorAll("th[data-col]").forEach((th) => {
      th.setAttribute("aria-sort", th.dataset.col === col ? (dir > 0 ? "ascending" : "descending") : "none");
    });
  }

  applyFilters() {
    const filters = {};
    this.root.querySelectorAll("[data-filter]").forEach((select) => (filters[select.dataset.filter] = select.value));
    Array.from(this.tbody.rows).forEach((tr) => {
      const hidden = Boolean(
        (filters.verdict && tr.dataset.verdict !== filters.verdict) ||
          (filters.gpu && tr.dataset.gpu !== filters.gpu) ||
          (filters.link && tr.dataset.link !== filters.link),
      );
      if (tr.hidden !== hidden) tr.hidden = hidden;
    });
  }

  drawChart() {
    if (this.compact) return;
    // Drawn from the table's own data, so the build-time table gets its chart too.
    const kind = this.table.dataset.kind;
    const points = Array.from(this.tbody.rows)
      .filter((tr) => tr.dataset.verdict !== "none" && tr.dataset.tokS !== "")
      .map((tr) => ({ node: tr.dataset.node, x: Number(tr.dataset.tokS), y: Number(tr.dataset.priceMonth) }));
    if (!points.length) {
      this.chart.hidden = true;
      return;
    }
    const W = 640, H = 360, L = 80, B = 50, T = 20, R = 20;
    const maxX = Math.max(...points.map((p) => p.x)) * 1.08 || 1;
    const maxY = Math.max(...points.map((p) => p.y)) * 1.08 || 1;
    const sx = (x) => L + (x / maxX) * (W - L - R);
    const sy = (y) => H - B - (y / maxY) * (H - B - T);
    const ticks = (max) => Array.from({ length: 5 }, (_, i) => (max * (i + 1)) / 5);
    const xLabel = kind === "diffusion" ? this.t.chart_x_diffusion : this.t.chart_x;
    const parts = [
      `<svg viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="cfg-chart-title"><title id="cfg-chart-title">${escapeHtml(this.t.chart_title)}</title>`,
      `<line class="axis" x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}"></line><line class="axis" x1="${L}" y1="${T}" x2="${L}" y2="${H - B}"></line>`,
    ];
    for (const x of ticks(maxX)) {
      parts.push(`<text class="tick" x="${sx(x)}" y="${H - B + 18}" text-anchor="middle">${escapeHtml(this.f.number(x, x < 10 ? 1 : 0))}</text>`);
    }
    for (const y of ticks(maxY)) {
      parts.push(`<text class="tick" x="${L - 8}" y="${sy(y) + 4}" text-anchor="end">${escapeHtml(this.f.usd(y, false))}</text>`);
    }
    parts.push(`<text class="label" x="${(L + W - R) / 2}" y="${H - 8}" text-anchor="middle">${escapeHtml(xLabel)}</text>`);
    parts.push(`<text class="label" x="16" y="${(T + H - B) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(T + H - B) / 2})">${escapeHtml(this.t.chart_y)}</text>`);
    for (const p of points) {
      parts.push(`<circle cx="${sx(p.x).toFixed(1)}" cy="${sy(p.y).toFixed(1)}" r="5"><title>${escapeHtml(p.node)}</title></circle>`);
    }
    parts.push("</svg>");
    this.chart.innerHTML = parts.join("");
    this.chart.hidden = false;
  }

  // --- sharing ------------------------------------------------------------------------

  async copyLink() {
    const button = this.root.querySelector("[data-copy-link]");
    try {
      await navigator.clipboard.writeText(location.href);
      this.message(this.t.copied);
    } catch {
      this.message(location.href);
    }
    button.blur();
  }

  downloadCsv() {
    const header = [
      "node", "gpu", "verdict", "cards", "decode_tok_s_per_user", "decode_tok_s_total", "ttft_s", "price_month_usd", "price_hour_usd",
      "usd_per_million_output_tokens", "usd_per_million_input_tokens", "best_usd_per_million_output_tokens", "best_concurrency",
      "max_concurrency", "max_context", "reason",
    ];
    const quote = (v) => {
      const text = v == null || v === undefined ? "" : String(v);
      return /[",\n;]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
    };
    const rows = this.result
      ? this.result.rows.map((r) => [
          r.node, r.gpu, r.verdict, r.cards_used ?? (r.verdict === "none" ? 0 : 1), r.decode_tok_s_per_user ?? r.relative_speed,
          r.decode_tok_s_total, r.ttft_s, r.price_month_usd, r.price_hour_usd, r.usd_per_million_output_tokens,
          r.usd_per_million_input_tokens, r.best_usd_per_million_output_tokens, r.best_concurrency, r.max_concurrency, r.max_context,
          r.reason_text,
        ])
      : Array.from(this.tbody.rows, (tr) => [
          tr.dataset.node, tr.dataset.gpu, tr.dataset.verdict, tr.dataset.cards, tr.dataset.tokS, "", "", tr.dataset.priceMonth,
          "", "", "", "", "", "", "", tr.cells[COLUMNS.length - 1].textContent,
        ]);
    const csv = [header, ...rows].map((row) => row.map(quote).join(",")).join("\r\n") + "\r\n";
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([csv], { type: "text/csv;charset=utf-8" }));
    link.download = `configurator-${this.form.model.value}-${this.form.format.value}.csv`;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  }
}

document.querySelectorAll("[data-configurator]").forEach((root) => new Configurator(root));
