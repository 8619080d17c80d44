// The build's snapshot of Pyodide fetched for the engine's worker (configurator-worker.js): its
// parts side by side, read as they arrive (the page shows the download's progress), each checked
// against the manifest's SHA-256 and put in its place in the heap. Imported by the worker beside
// snapshot-plan.js, which says where each part goes.

// A response's bytes, read as they arrive so that the page can show the download's progress
// (`onBytes`: told each chunk's length); `expected`, the manifest's size, sizes the buffer once.
export async function bytesOf(response, expected, onBytes) {
  if (!response.body || !expected) return response.arrayBuffer();
  const out = new Uint8Array(expected);
  const reader = response.body.getReader();
  let at = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (at + value.length > expected) throw new Error("the snapshot is longer than the build's manifest says");
    out.set(value, at);
    at += value.length;
    onBytes(value.length);
  }
  return at === expected ? out.buffer : out.buffer.slice(0, at);
}

// The download's progress, said (`say(loaded, total)`) at most once per hundredth of it.
export function progressReporter(total, say) {
  let loaded = 0;
  let said = -1;
  return (bytes) => {
    loaded += bytes;
    const hundredth = Math.floor((100 * loaded) / total);
    if (hundredth === said) return;
    said = hundredth;
    say(loaded, total);
  };
}

// Fills `heap` with the snapshot's bytes, only if they are the ones the manifest names: its parts
// are fetched side by side (each small enough for the HTTP cache to keep), each checked as soon
// as it arrives and put in its place (the heap's pages of zeros are not shipped: `heap` is new,
// so zeros already). `arrived`: every part answered (its headers); `filled`: all in and checked.
// With `options` { cache: "only-if-cached", mode: "same-origin" } nothing goes to the network:
// a part not in the HTTP cache fails both. `deps`: the worker's {plans (snapshot-plan.js), fetchOk,
// sha256, say (the progress, to the page), mark (a step on the worker's timeline)}.
export function fetchSnapshot(shared, plan, heap, options, deps) {
  const { plans, fetchOk, sha256, say, mark } = deps;
  let at = 0;
  const offsets = plan.snapshot.parts.map((part) => {
    const offset = at;
    at += part.bytes;
    return offset;
  });
  const responses = plan.snapshot.parts.map((part) => fetchOk(new URL(`engine/${part.path}`, shared), options));
  const onBytes = progressReporter(at, say);
  const filled = Promise.all(
    plan.snapshot.parts.map(async (part, i) => {
      const bytes = await bytesOf(await responses[i], part.bytes, onBytes);
      if (bytes.byteLength !== part.bytes || (await sha256(bytes)) !== part.sha256) {
        throw new Error(`the snapshot's part ${part.path} does not match the build's manifest`);
      }
      plans.place(heap, plan.snapshot.stored, offsets[i], new Uint8Array(bytes));
    }),
  ).then(() => mark("worker-snapshot-checked"));
  const arrived = Promise.all(responses);
  arrived.catch(() => {});
  filled.catch(() => {}); // awaited by the caller; this only keeps an early failure from going unhandled
  return { heap, arrived, filled };
}
