// Sharing the answer: the link copied to the clipboard, and the table as a CSV file.

import { csvFile, csvName } from "./csv.js";
import { introText } from "./question.js";

// Whether `text` was copied. The clipboard may refuse, or never answer (a page without focus):
// after `waitMs` it counts as refused, and the caller shows the text to copy by hand.
export function copyText(clipboard, text, waitMs = 1000) {
  const written = clipboard ? clipboard.writeText(text).then(() => true) : Promise.resolve(false);
  return Promise.race([written, new Promise((resolve) => setTimeout(() => resolve(false), waitMs))]).catch(() => false);
}

// The CSV of the rows the reader kept (`rows`: the engine's, in the reader's order), with the
// question they answer and its link first: {name, text}. `ctx`: {t, f, gpuNames, locale}.
export function csvDownload({ result, rows, request, question, href }, ctx) {
  const { t, f, gpuNames, locale } = ctx;
  const lead = [introText(t, f, question), href];
  return {
    name: csvName(t.csv_file, { ...request, diffusion: result.kind === "diffusion" }),
    text: csvFile({ lead, rows, t, kind: result.kind, gpuNames, locale }),
  };
}
