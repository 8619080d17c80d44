// What the widgets check in what a reader pastes or a link carries, before anything is sent to
// the engine's worker. Pure functions (no DOM): tests/js/input-bounds.test.mjs runs them in Node.

// Why a custom model cannot be sent, or null: nested deeper or holding more values than a
// config.json (the engine's bounds, configurator/protocol.js LIMITS), or holding a number JSON
// cannot carry (1e400 parses as Infinity and would cross as null).
// Iterative, so a link nesting thousands of levels deep cannot overflow the stack.
export function customProblem(value, depthLimit, valueLimit) {
  const stack = [[value, 1, ""]];
  let count = 0;
  while (stack.length) {
    const [item, depth, key] = stack.pop();
    if (depth > depthLimit) return { code: "custom_too_deep", max: depthLimit };
    if (++count > valueLimit) return { code: "custom_too_big", size: count, max: valueLimit };
    if (typeof item === "number" && !Number.isFinite(item))
      return { code: "custom_not_finite", key, value: String(item) };
    if (item && typeof item === "object") {
      for (const [childKey, child] of Object.entries(item))
        stack.push([child, depth + 1, Array.isArray(item) ? key : childKey]);
    }
  }
  return null;
}
