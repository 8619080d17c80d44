// The form's values and limits as a request reads them, on a stand-in form.
import assert from "node:assert/strict";
import { test } from "node:test";

import { formBounds, formValues, isDiffusion } from "../../overrides/assets/javascripts/configurator/form.js";
import { REQUEST, TOTALS_FIELDS } from "../../overrides/assets/javascripts/configurator/protocol.js";

function form(kind = "llm") {
  const f = {};
  for (const name of [...REQUEST.whole, ...REQUEST.target]) f[name] = { value: "7", min: "1", max: "99" };
  for (const name of REQUEST.options) f[name] = { value: "" };
  for (const name of ["config", ...TOTALS_FIELDS]) f[name] = { value: "" };
  f.model = { value: "m", selectedOptions: [{ parentElement: { dataset: { kind } } }] };
  f.format = { value: "bf16" };
  return f;
}

test("every field a request reads is taken, as text", () => {
  const values = formValues(form());
  assert.deepEqual(
    Object.keys(values).sort(),
    ["model", "format", ...REQUEST.whole, ...REQUEST.target, ...REQUEST.options, "config", ...TOTALS_FIELDS].sort(),
  );
  assert.equal(values.context, "7");
  const missing = form();
  delete missing.data_parallel; // a form without a field leaves it out
  assert.equal("data_parallel" in formValues(missing), false);
});

test("the inputs' own limits, as numbers", () => {
  assert.deepEqual(formBounds(form()).max_ttft, { min: 1, max: 99 });
});

test("an image or video model is one of the diffusion group", () => {
  assert.equal(isDiffusion(form("diffusion")), true);
  assert.equal(isDiffusion(form()), false);
});
