// "Measure it yourself": sends the pasted output and the chosen node to the page's engine
// worker, which parses and judges it; this script only shows the verdict and the matrix.

import { escapeHtml, fill } from "./configurator/format.js";
import { LIMITS, WORKER_ERRORS } from "./configurator/protocol.js";
import { checkMeasurement, engineState, onEngineStatus, startEngine } from "./engine-client.js";

const FAULTY_SHOWN = 8; // pairs listed before the matrix; the rest are marked in it

function linkClass(label) {
  if (label === "X") return "self";
  if (/^NV\d+$/.test(label)) return "nvlink";
  return label === "SYS" ? "sys" : "pcie";
}

class Measure {
  constructor(root) {
    this.root = root;
    this.locale = root.dataset.locale;
    this.t = JSON.parse(root.querySelector("[data-labels]").textContent);
    this.form = root.querySelector("[data-form]");
    this.status = root.querySelector("[data-status]");
    this.result = root.querySelector("[data-result]");
    root.querySelector("[data-nojs]").hidden = true;
    this.form.hidden = false;
    this.pending = false;
    this.maxPaste = LIMITS.paste; // the engine's limit
    this.maxCards = Number(root.dataset.maxCards); // the catalog's largest node: no matrix is drawn beyond it
    // No node is chosen for the reader: until they pick theirs, the panel says so.
    this.nodeHelp = root.querySelector("[data-node-help]");
    const nodeChosen = () => (this.nodeHelp.hidden = this.form.node.value !== "");
    this.form.node.addEventListener("change", nodeChosen);
    nodeChosen();
    this.form.addEventListener("focusin", () => startEngine(this.root), { once: true });
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.check();
    });
    onEngineStatus((message) => {
      if (message.state === "ready" && this.pending) this.check();
      if (message.state === "error") this.status.textContent = this.t.error;
    });
  }

  async check() {
    const length = this.form.text.value.length;
    if (length > this.maxPaste) {
      // Refused here, at once: a paste of megabytes is not sent to the engine.
      const number = new Intl.NumberFormat(this.locale);
      this.pending = false;
      this.status.textContent = "";
      this.result.dataset.verdict = "";
      this.result.replaceChildren(
        this.errorElement(fill(this.t.too_long, { size: number.format(length), max: number.format(this.maxPaste) })),
      );
      return;
    }
    if (!this.form.node.value) {
      this.pending = false;
      this.status.textContent = "";
      this.result.dataset.verdict = "";
      this.result.replaceChildren(this.errorElement(this.t.choose_first));
      this.form.node.focus();
      return;
    }
    startEngine(this.root);
    if (engineState() !== "ready") {
      this.pending = true;
      this.status.textContent = this.t.loading;
      return;
    }
    this.pending = false;
    this.status.textContent = "";
    const out = await checkMeasurement(this.form.kind.value, this.form.text.value, this.form.node.value, this.locale);
    if (!out.ok) {
      this.result.dataset.verdict = "";
      // The engine's code in the page's words when it has them (err_<code>), else its own sentence.
      const words = out.code ? this.t[`err_${out.code}`] : undefined;
      const number = new Intl.NumberFormat(this.locale);
      const values = Object.fromEntries(
        Object.entries(out.params || {}).map(([key, value]) => [
          key,
          typeof value === "number" ? number.format(value) : value,
        ]),
      );
      const text = out.error === WORKER_ERRORS.internal ? this.t.error : words ? fill(words, values) : out.error;
      this.result.replaceChildren(this.errorElement(text));
      return;
    }
    this.show(out.result);
  }

  errorElement(text) {
    const p = document.createElement("p");
    p.className = "measure__error";
    p.textContent = text;
    return p;
  }

  show(result) {
    const t = this.t;
    this.result.dataset.verdict = result.verdict;
    const items = result.reasons
      .map((r) => `<li data-severity="${escapeHtml(r.severity)}">${escapeHtml(r.text)}</li>`)
      .join("");
    let html = `<p class="measure__verdict" data-verdict="${escapeHtml(result.verdict)}">${escapeHtml(t[`verdict_${result.verdict}`])}</p><ul>${items}</ul>`;
    const drawn = result.matrix && result.matrix.length <= this.maxCards;
    if (!drawn && "gpus" in result && this.form.kind.value === "topo") {
      html += `<p class="measure__note" data-not-drawn>${escapeHtml(t.not_drawn)}</p>`;
    } else if (drawn) {
      const n = result.matrix.length;
      const head = Array.from({ length: n }, (_, j) => `<th scope="col">GPU${j}</th>`).join("");
      // A cell that is not what the node should show (the engine says which) is marked, with
      // the expected value beside the one read.
      const differs = result.differs || [];
      const cell = (label, i, j) => {
        if (!differs[i]?.[j]) return `<td class="link link--${linkClass(label)}">${escapeHtml(label)}</td>`;
        const want = result.expected[i][j] === "PCIe" ? t.class_pcie : result.expected[i][j];
        return (
          `<td class="link link--${linkClass(label)} link--differs" data-expected="${escapeHtml(result.expected[i][j])}">` +
          `${escapeHtml(label)}<span class="link__expected">${escapeHtml(fill(t.expected, { label: want }))}</span></td>`
        );
      };
      const rows = result.matrix
        .map((row, i) => `<tr><th scope="row">GPU${i}</th>${row.map((label, j) => cell(label, i, j)).join("")}</tr>`)
        .join("");
      const marked = differs.some((row) => row.some(Boolean));
      // The pairs that differ, listed before the matrix: on a phone the matrix scrolls and its
      // marked cells may sit out of view.
      const faulty = [];
      result.matrix.forEach((row, i) => {
        row.forEach((label, j) => {
          if (j > i && differs[i]?.[j])
            faulty.push({ i, j, label, want: result.expected[i][j] === "PCIe" ? t.class_pcie : result.expected[i][j] });
        });
      });
      if (faulty.length) {
        const pairs = faulty
          .slice(0, FAULTY_SHOWN)
          .map((p) => `<li>${escapeHtml(fill(t.faulty_pair, { a: p.i, b: p.j, label: p.label, want: p.want }))}</li>`)
          .join("");
        const more = faulty.length - FAULTY_SHOWN;
        html +=
          `<p class="measure__pairs-title">${escapeHtml(t.faulty_pairs)}</p>` +
          `<ul class="measure__pairs" data-faulty-pairs="${faulty.length}">${pairs}</ul>` +
          (more > 0
            ? `<p class="measure__note">${escapeHtml(fill(more === 1 ? t.faulty_more_one : t.faulty_more_many, { n: more }))}</p>`
            : "");
      }
      const legend = ["nvlink", "pcie", "sys"].map(
        (c) => `<span class="link link--${c}">${escapeHtml(t[`class_${c}`])}</span>`,
      );
      if (marked) legend.push(`<span class="link link--differs">${escapeHtml(t.differs)}</span>`);
      // The matrix scrolls inside its own box: on a phone it never widens the page.
      html +=
        `<div class="measure__scroll" tabindex="0" role="region" aria-label="${escapeHtml(t.matrix_region)}">` +
        `<table class="measure__matrix"><caption>${escapeHtml(t.matrix)}</caption><thead><tr><td></td>${head}</tr></thead><tbody>${rows}</tbody></table></div>` +
        `<p class="measure__legend">${legend.join(" ")}</p>`;
    }
    this.result.innerHTML = html;
  }
}

for (const root of document.querySelectorAll("[data-measure]")) new Measure(root);
