// The page's words the new modules' tests fill, as macros/i18n/widget.py writes them in English (the
// templates only: each test states the values it fills them with).
export const t = {
  fallback: "“{value}” is not in the catalog; showing {default}.",
  out_of_range: "Enter a whole number from {min} to {max}.",
  out_of_range_decimal: "Enter a number from {min} to {max}.",
  bad_json: "This is not valid JSON: {detail}",
  custom_too_big: "Too long for a config.json: {size} characters, at most {max}.",
  custom_too_deep: "Nested more than {max} levels deep: this is not a config.json.",
  custom_not_finite: "“{key}” is {value}, a number this configurator cannot read: write a finite number.",
  model_read:
    "Read from your model: {total} billion parameters ({active} billion active), {layers} layers, {kv_heads} KV heads, {kv} KiB of KV cache per token.",
  total: "Total parameters (billions)",
  layers: "Layers",
};
