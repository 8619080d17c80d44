// The compact summary a phone keeps in view while the form is edited: the node the card
// names, its price, the speed per user, the first token and whether the target is met, each a
// text the card itself shows (answerView), so the two never disagree.

import { nodeName } from "./answer.js";
import { fill } from "./format.js";

// view: answerView's texts; result: the engine's answer. Returns {node, figures, target, look}
// (look: "met", "missed" or "none", what the summary's mark follows).
export function summaryView(view, result, ctx) {
  const { t, f, gpuNames } = ctx;
  const diffusion = result.kind === "diffusion";
  if (view.node) {
    const figures = [view.price, view.per_user, diffusion ? "" : fill(t.summary_ttft, { ttft: view.ttft })].filter(
      Boolean,
    );
    return { node: view.node, figures: figures.join(" · "), target: diffusion ? "" : t.summary_met, look: "met" };
  }
  const closest = result.summary.closest ? result.rows.find((r) => r.node === result.summary.closest) : null;
  if (!closest || diffusion) return { node: t.summary_none, figures: "", target: "", look: "none" };
  const figures = [
    f.usd(closest.price_month_usd, false) + t.per_month,
    fill(t.tok_s, { value: f.number(closest.decode_tok_s_per_user, 1) }),
    fill(t.summary_ttft, { ttft: fill(t.seconds, { value: f.number(closest.ttft_s, 2) }) }),
  ];
  return {
    node: nodeName(t, closest, gpuNames),
    figures: figures.join(" · "),
    target: t.summary_missed,
    look: "missed",
  };
}
