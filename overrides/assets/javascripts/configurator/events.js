// The widget's wiring: which of the reader's actions asks what of the widget (configurator.js).

import { datasetKey } from "./card.js";
import { REQUEST } from "./protocol.js";

const TYPING_MS = 300; // a value typed is asked once the reader pauses this long

export function bindEvents(w) {
  const { root, form } = w;
  let typing = null;
  const change = () => {
    clearTimeout(typing); // a value typed and then confirmed (Enter, leaving the field) is asked once
    w.urlNotes = []; // the reader has moved on from the shared link: its notes no longer apply
    w.start();
    w.update();
  };
  // A model chosen starts in its native format (the select's own listener runs before the form's).
  form.model.addEventListener("change", () => w.useNativeFormat());
  form.addEventListener("change", change);
  form.addEventListener("input", (event) => {
    if (event.target.tagName === "SELECT") return;
    clearTimeout(typing);
    typing = setTimeout(change, TYPING_MS);
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    change();
  });
  form.addEventListener("focusin", () => w.start(), { once: true });
  // A pasted config.json is answered below the fields: its answer is brought into view.
  form.config.addEventListener("paste", () => (w.revealAnswer = true));
  root.querySelectorAll("[data-filter]").forEach((select) => {
    select.addEventListener("change", () => {
      w.rows.applyFilters();
      w.writeUrl();
    });
  });
  root.querySelectorAll("[data-sort]").forEach((button) => {
    button.addEventListener("click", () => {
      w.rows.sortBy(button.dataset.sort);
      w.writeUrl();
    });
  });
  root.querySelector("[data-copy-link]").addEventListener("click", () => w.copyLink());
  root.querySelector("[data-csv]").addEventListener("click", () => w.downloadCsv());
  // A row's reason unfolds under its verdict: the button says whether it is open.
  w.rows.tbody.addEventListener("click", (event) => {
    const button = event.target.closest("[data-why]");
    if (!button) return;
    button.setAttribute("aria-expanded", String(button.getAttribute("aria-expanded") !== "true"));
  });
  w.rows.foldButton.addEventListener("click", () => w.rows.toggleNone());
  // One click on an offered change sets its fields and asks again.
  w.card.el.addEventListener("click", (event) => {
    const button = event.target.closest("[data-suggestion]");
    if (!button) return;
    // Each value it carries sets its field; an empty one leaves the field as it is.
    let first = null;
    for (const name of REQUEST.suggestion) {
      const value = button.dataset[datasetKey(name)];
      if (!value) continue;
      form[name].value = value;
      first = first || form[name];
    }
    change();
    (first || form.format).focus();
  });
}
