// What follows the reader's fields around the card, so that nothing on the page states another
// question than theirs or looks current while it is not: the intro that names the workload, the
// card's pending line with the engine's loading progress, the chart's caption, the compact
// summary a phone keeps in view, and the notices shown beside the button they confirm. The
// widget (configurator.js) calls it; the texts come from the pure modules beside it.

import { fill, users } from "./format.js";
import { loadingShare, percentText } from "./progress.js";
import { introText, shortQuestion } from "./question.js";
import { summaryView } from "./summary.js";

const NOTICE_MS = 4000;

function setText(element, text) {
  if (element && element.textContent !== text) element.textContent = text;
}

export class Live {
  constructor(root, t, f, locale) {
    this.root = root;
    this.t = t;
    this.f = f;
    this.locale = locale;
    this.intro = root.querySelector("[data-intro]");
    this.summary = root.querySelector("[data-summary]");
    this.progress = root.querySelector("[data-progress]");
    this.pendingSlot = root.querySelector('[data-slot="pending"]');
    this.chartQuestion = root.querySelector("[data-chart-question]");
    this.share = 0;
    this.question = null;
    this.waiting = false;
  }

  // The question the fields ask (`request`: what the widget sends the engine; null when a field
  // is invalid, and then the form's own values name it as far as they can).
  fieldsQuestion(form, request) {
    const option = form.model.selectedOptions[0];
    const diffusion = option?.parentElement?.dataset.kind === "diffusion";
    const data = this.root.dataset;
    const r = request || {};
    return {
      id: form.model.value,
      model: form.model.value === "custom" ? this.t.custom_legend : option ? option.textContent : form.model.value,
      format: form.format.selectedOptions[0]?.textContent || form.format.value,
      diffusion,
      resolution: option?.dataset.resolution || "",
      context: r.context ?? Number(form.context.value),
      concurrency: r.concurrency ?? Number(form.concurrency.value),
      input: Number(data.defaultInput),
      output: Number(data.defaultOutput),
      min_speed: r.min_speed ?? Number(form.min_speed.value),
      max_ttft: r.max_ttft ?? Number(form.max_ttft.value),
    };
  }

  // The fields changed: the intro says their question at once, answered yet or not.
  asked(question) {
    this.question = question;
    setText(this.intro, introText(this.t, this.f, question));
    if (this.summary) {
      const d = this.summary.dataset;
      d.model = question.id;
      d.context = String(question.context);
      d.concurrency = String(question.concurrency);
    }
  }

  // The card's line while no answer to the fields is shown: what is being computed and, while
  // the engine loads and the answer waits for it, how far the loading is. `state`: "pending" or
  // "invalid"; `waiting`: the answer waits for the engine; `text` for an invalid state.
  pending(state, waiting, text) {
    this.waiting = state === "pending" && waiting;
    if (this.summary) this.summary.dataset.dim = "";
    if (state !== "pending") {
      setText(this.pendingSlot, text);
      return;
    }
    const question = shortQuestion(this.t, this.f, this.question);
    setText(
      this.pendingSlot,
      this.waiting
        ? fill(this.t.pending_loading, { question, percent: percentText(this.locale, this.share) })
        : fill(this.t.pending, { question }),
    );
  }

  // A status message from the worker: the bar and the texts that show the loading's progress.
  // Returns the status line's text.
  loading(message) {
    if (message.state === "loading") {
      this.share = Math.max(this.share, loadingShare(message));
      if (this.progress) {
        this.progress.hidden = false;
        this.progress.value = this.share;
        this.progress.setAttribute("aria-valuetext", percentText(this.locale, this.share));
      }
      if (this.waiting) this.pending("pending", true);
      return `${this.t.status_loading} ${percentText(this.locale, this.share)}`;
    }
    this.share = message.state === "ready" ? 1 : this.share;
    if (this.progress) {
      // Put back as the build wrote it: the card's markup is the build's once the engine is ready.
      this.progress.hidden = true;
      this.progress.value = 0;
      this.progress.removeAttribute("aria-valuetext");
    }
    return "";
  }

  // An answer is shown (`view`: the card's texts): the summary and the chart's caption follow it.
  answered(view, result, ctx) {
    this.waiting = false;
    setText(this.pendingSlot, "");
    setText(this.chartQuestion, view.question || "");
    if (!this.summary) return;
    const s = summaryView(view, result, ctx);
    const target = s.target
      ? fill(s.target, { users: users(this.t, this.f, this.question ? this.question.concurrency : 1) })
      : "";
    setText(this.summary.querySelector("[data-summary-node]"), s.node);
    setText(this.summary.querySelector("[data-summary-figures]"), s.figures);
    setText(this.summary.querySelector("[data-summary-target]"), target);
    this.summary.dataset.look = s.look;
    this.summary.dataset.node = result.summary.recommended || "";
    delete this.summary.dataset.dim;
  }

  // A confirmation beside the button it confirms, over the page (nothing moves), for a moment.
  notice(button, text) {
    const slot = button.parentElement.querySelector("[data-notice]");
    clearTimeout(this.noticeTimer);
    setText(slot, text);
    this.noticeTimer = setTimeout(() => setText(slot, ""), NOTICE_MS);
  }

  // A file the reader downloads (the CSV).
  download(name, text, type) {
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], { type }));
    link.download = name;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  }
}
