// The result card: the workload it answers, its slots' texts, the suggestions offered when no
// node meets the target, and its pending look (aria-busy, dimmed after a short delay, so that a
// quick answer neither flashes nor restyles the whole table twice). The build wrote its markup.

import { announcement, answerView, suggestionViews } from "./answer.js";
import { setAttr, setIfChanged, setText } from "./dom.js";
import { REQUEST } from "./protocol.js";

const DIM_MS = 200; // a pending answer dims after this long

// A data attribute's name in `dataset`: min_speed -> minSpeed.
export const datasetKey = (key) => key.replace(/_(\w)/g, (_, c) => c.toUpperCase());

// What the engine read of the reader's own model, worded for the page (`read`: the answer's model_read).
export function modelReadText(t, f, read) {
  const words = {
    total: f.number(read.params_total / 1e9, 2),
    active: f.number(read.params_active / 1e9, 2),
    layers: f.number(read.layers, 0),
    kv_heads: f.number(read.kv_heads, 0),
    kv: f.number(read.kv_bytes_per_token / 1024, 0),
  };
  return t.model_read.replace(/\{(\w+)\}/g, (all, key) => (key in words ? words[key] : all));
}

// The card's data attributes for an answer to `request` (what names the workload it answers).
export function cardData(result, request) {
  return {
    model: request.model || "custom",
    format: request.format,
    context: String(request.context),
    concurrency: String(request.concurrency),
    minSpeed: request.min_speed == null ? "" : String(request.min_speed),
    maxTtft: request.max_ttft == null ? "" : String(request.max_ttft),
    node: result.summary.recommended || "",
    fastest: result.summary.fastest || "",
    bestPerMtok: result.summary.best_per_mtok || "",
    state: "answer",
  };
}

export class Card {
  // `table`: dimmed and busy with the card; `live`: the texts that follow the answer (live.js).
  constructor(root, table, live) {
    this.root = root;
    this.el = root.querySelector("[data-answer]");
    this.table = table;
    this.live = live;
    this.slots = Object.fromEntries(Array.from(this.el.querySelectorAll("[data-slot]"), (el) => [el.dataset.slot, el]));
    this.dimTimer = null;
    this.suggestions = null;
    this.announced = null;
  }

  // The card and the table say that they do not answer the fields yet.
  pending(state) {
    setIfChanged(this.el.dataset, "state", state);
    setAttr(this.el, "aria-busy", "true");
    setAttr(this.table, "aria-busy", "true");
    if (this.dimTimer === null) {
      this.dimTimer = setTimeout(() => {
        this.el.dataset.dim = "";
        this.table.dataset.dim = "";
      }, DIM_MS);
    }
  }

  // What the engine read of a reader's own model, or nothing.
  modelRead(read, t, f) {
    const slot = this.root.querySelector("[data-model-read]");
    if (!slot) return;
    slot.hidden = !read;
    if (read) slot.textContent = modelReadText(t, f, read);
  }

  // The card names the workload it answers and patches its slots. `ctx`: {t, f, gpuNames, formatNames}.
  show(result, request, ctx) {
    const { t, f, gpuNames, formatNames } = ctx;
    const view = answerView(result, {
      t,
      f,
      gpuNames,
      formatName: formatNames[request.format] || request.format,
      workload: {
        context: request.context,
        concurrency: request.concurrency,
        min_speed: request.min_speed,
        max_ttft: request.max_ttft,
      },
    });
    const card = this.el;
    const data = cardData(result, request);
    for (const [key, value] of Object.entries(data)) setIfChanged(card.dataset, key, value);
    for (const [name, el] of Object.entries(this.slots)) {
      if (name === "pending") continue;
      const text = view[name] || "";
      setText(el, text);
      const figure = name.endsWith("_label") ? null : el.closest("[data-figure], [data-alt]");
      if (figure) setIfChanged(figure, "hidden", !text);
    }
    this.live.answered(view, result, { t, f, gpuNames });
    card.querySelector('[data-slot-group="found"]').hidden = !data.node;
    card.querySelector('[data-slot-group="none"]').hidden = Boolean(data.node);
    this.showSuggestions(suggestionViews(result, { t, f, gpuNames, formatNames }));
    setAttr(card, "aria-busy", "false");
    setAttr(this.table, "aria-busy", "false");
    clearTimeout(this.dimTimer);
    this.dimTimer = null;
    delete card.dataset.dim;
    delete this.table.dataset.dim;
    const said = announcement(view, t);
    if (this.announced !== said) {
      this.announced = said;
      setText(card.querySelector("[data-announce]"), said);
    }
  }

  // A button for each change the engine found, carrying the field values it sets.
  showSuggestions(suggestions) {
    const key = JSON.stringify(suggestions);
    if (this.suggestions === key) return;
    this.suggestions = key;
    this.el.querySelector("[data-suggestions]").replaceChildren(
      ...suggestions.map((s) => {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "md-button";
        button.dataset.suggestion = "";
        for (const key of REQUEST.suggestion) button.dataset[datasetKey(key)] = s[key];
        button.dataset.node = s.node;
        button.textContent = s.text;
        return button;
      }),
    );
  }
}
