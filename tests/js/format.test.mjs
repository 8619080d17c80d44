// Numbers as each locale writes them (Intl), and the labels' placeholders.
import assert from "node:assert/strict";
import { test } from "node:test";

import { escapeHtml, fill, formatters, users } from "../../overrides/assets/javascripts/configurator/format.js";

test("French groups digits with a narrow no-break space and a decimal comma; English with commas", () => {
  const fr = formatters("fr"),
    en = formatters("en");
  assert.equal(fr.number(8192, 0), "8\u202f192");
  assert.equal(en.number(8192, 0), "8,192");
  assert.equal(fr.number(0.5, 2), "0,50");
  assert.equal(en.usd(3475, false), "$3,475");
  assert.equal(en.usd(0.5, true), "$0.50");
});

test("placeholders are filled, unknown ones left as they are, values never re-read as placeholders", () => {
  assert.equal(fill("{a} and {b}", { a: "{b}", b: 2 }), "{b} and 2");
  assert.equal(fill("{missing}", {}), "{missing}");
});

test("one user and several users read differently", () => {
  const t = { users_one: "{n} user", users_many: "{n} users" };
  const f = formatters("en");
  assert.equal(users(t, f, 1), "1 user");
  assert.equal(users(t, f, 1200), "1,200 users");
});

test("markup characters are escaped", () => {
  assert.equal(
    escapeHtml(`<img src=x onerror="a('1')">&`),
    "&lt;img src=x onerror=&quot;a(&#x27;1&#x27;)&quot;&gt;&amp;",
  );
});

test("a figure the reader set keeps the decimals it has, no more (up to two)", () => {
  const fr = formatters("fr"),
    en = formatters("en");
  assert.equal(en.brief(12.5), "12.5");
  assert.equal(en.brief(2), "2");
  assert.equal(fr.brief(0.45), "0,45");
  assert.equal(en.brief(1 / 3), "0.33");
  assert.equal(fr.brief(1000), "1\u202f000");
});
