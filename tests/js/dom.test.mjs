// Only what changed is written to the page.
import assert from "node:assert/strict";
import { test } from "node:test";

import { setAttr, setIfChanged, setText } from "../../overrides/assets/javascripts/configurator/dom.js";

// A stand-in that counts writes.
function element(attrs = {}) {
  const el = { writes: 0, attrs: { ...attrs } };
  el.getAttribute = (name) => el.attrs[name] ?? null;
  el.setAttribute = (name, value) => {
    el.writes += 1;
    el.attrs[name] = value;
  };
  return el;
}

test("an attribute or property holding the value already is not written", () => {
  const el = element({ "aria-busy": "true" });
  setAttr(el, "aria-busy", "true");
  setAttr(el, "aria-busy", "false");
  assert.equal(el.writes, 1);
  const target = {
    set hidden(value) {
      this.written = (this.written || 0) + 1;
      this.value = value;
    },
    get hidden() {
      return this.value;
    },
  };
  setIfChanged(target, "hidden", true);
  setIfChanged(target, "hidden", true);
  assert.equal(target.written, 1);
});

test("a lone text node's data is changed in place; other content is replaced", () => {
  const node = { nodeType: 3, data: "old" };
  const el = { firstChild: node, lastChild: node, textContent: "old" };
  setText(el, "new");
  assert.equal(node.data, "new");
  const mixed = { firstChild: { nodeType: 1 }, lastChild: null, textContent: "x" };
  setText(mixed, "y");
  assert.equal(mixed.textContent, "y");
});
