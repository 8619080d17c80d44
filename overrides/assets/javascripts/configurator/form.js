// The form's side of a request: its fields' values and limits as the page holds them, which
// fields show for the model chosen, and the messages beside them (request.js checks the values).

import { REQUEST } from "./protocol.js";
import { CUSTOM_FIELDS } from "./request.js";

// The fields an image or video model has no use for, hidden while one is chosen.
const LLM_FIELDS = [...REQUEST.whole, ...REQUEST.target, "runtime", "kv_cache"];

// An image or video model is chosen (its option sits in the diffusion group).
export function isDiffusion(form) {
  return form.model.selectedOptions[0]?.parentElement?.dataset.kind === "diffusion";
}

// {name: text} of every field a request reads.
export function formValues(form) {
  const values = {};
  for (const name of ["model", "format", ...REQUEST.whole, ...REQUEST.target, ...REQUEST.options, ...CUSTOM_FIELDS]) {
    if (form[name]) values[name] = form[name].value;
  }
  return values;
}

// The inputs' own limits, {name: {min, max}}.
export function formBounds(form) {
  return Object.fromEntries(
    [...REQUEST.whole, ...REQUEST.target].map((name) => [
      name,
      { min: Number(form[name].min), max: Number(form[name].max) },
    ]),
  );
}

// Shows the fields the chosen model uses, and the layout's choices whenever one is made.
export function showFields(root, form, diffusion) {
  root.querySelector("[data-custom]").hidden = form.model.value !== "custom";
  for (const name of LLM_FIELDS) {
    const field = form[name].closest(".configurator__field");
    if (field.hidden !== diffusion) field.hidden = diffusion;
  }
  const source = root.querySelector("[data-target-source]");
  if (source && source.hidden !== diffusion) source.hidden = diffusion;
  const layout = form.querySelector(".configurator__layout");
  if (layout.hidden !== diffusion) layout.hidden = diffusion;
  // A choice made there (a link may carry one) is never out of sight.
  if (!layout.open && [...layout.querySelectorAll("select")].some((select) => select.selectedIndex > 0))
    layout.open = true;
}

// The message beside a field ("" clears it), and the field marked invalid while there is one.
export function fieldError(root, form, name, text) {
  const slot = root.querySelector(`[data-error-for="${name}"]`);
  if (slot) slot.textContent = text || "";
  const field = form.elements[name];
  if (field?.setAttribute) field.setAttribute("aria-invalid", text ? "true" : "false");
}
