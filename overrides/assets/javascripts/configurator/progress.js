// How far the engine's loading is, from the worker's status messages ({state: "loading", step,
// steps} and, while the snapshot downloads, {loaded, total} in bytes): a share from 0 to 1 the
// card's bar and the status line show. The download is most of the wait on a slow network, so
// it takes most of the bar; the steps after it (restoring Pyodide, importing the engine) the rest.

const DOWNLOAD = 0.85; // the bar's share the download fills

export function loadingShare(message) {
  if (message?.state !== "loading") return message && message.state === "ready" ? 1 : 0;
  const steps = Number(message.steps) || 1;
  const step = Math.min(Math.max(Number(message.step) || 1, 1), steps);
  if (step === 1) {
    const total = Number(message.total);
    const loaded = Number(message.loaded);
    const part = total > 0 && loaded >= 0 ? Math.min(loaded / total, 1) : 0;
    return 0.02 + (DOWNLOAD - 0.02) * part;
  }
  // The steps after the download share what is left of the bar.
  return DOWNLOAD + ((1 - DOWNLOAD) * (step - 1)) / steps;
}

// "45 %" (French, with its narrow no-break space) or "45%": the locale's own percent.
export function percentText(locale, share) {
  return new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 0 }).format(
    Math.min(Math.max(share, 0), 1),
  );
}
