// Material for MkDocs' palette restore (partials/javascripts/palette.html), as a file: the
// scheme the reader chose with the toggle, else the system's (the "automatic" option), set on
// the body before the page is drawn, so that a dark page does not flash light first. Runs right
// after the palette's form (the header), before Material's bundle takes over the toggle.
(() => {
  let palette = __md_get("__palette");
  const first = document.querySelector("[data-md-component=palette] input");
  if (!palette && first) palette = { color: { media: first.getAttribute("data-md-color-media") } };
  if (!palette?.color) return;
  const color = Object.assign({}, palette.color);
  if (color.media === "(prefers-color-scheme)") {
    const light = matchMedia("(prefers-color-scheme: light)").matches;
    const input = document.querySelector(`[data-md-color-media='(prefers-color-scheme: ${light ? "light" : "dark"})']`);
    if (!input) return;
    color.media = input.getAttribute("data-md-color-media");
    color.scheme = input.getAttribute("data-md-color-scheme");
    color.primary = input.getAttribute("data-md-color-primary");
    color.accent = input.getAttribute("data-md-color-accent");
  }
  for (const key in color) if (color[key]) document.body.setAttribute(`data-md-color-${key}`, color[key]);
})();

// The toggle's first click changes what the reader sees. Following the system (the first
// option), Material's next option is light: on a light system that click changed nothing
// visible. There the "follow the system" option's toggle leads to dark instead (its label, its
// name, and Enter on the form, which Material moves to the next option).
(() => {
  var form = document.querySelector("[data-md-component=palette]");
  if (!form) return;
  var auto = form.querySelector("input");
  if (auto?.getAttribute("data-md-color-media") !== "(prefers-color-scheme)") return;
  // On a dark system the next option, light, already changes the scheme.
  if (!matchMedia("(prefers-color-scheme: light)").matches) return;
  var target = form.querySelector("[data-md-color-media='(prefers-color-scheme: dark)']");
  // The toggle that names a switch to dark is the one shown beside the light option.
  var named = form.querySelector("[data-md-color-media='(prefers-color-scheme: light)'] + label");
  var label = auto.nextElementSibling;
  if (!target || !named || !label) return;
  label.setAttribute("for", target.id);
  label.setAttribute("title", named.getAttribute("title"));
  auto.setAttribute("aria-label", named.getAttribute("title"));
  form.addEventListener(
    "keydown",
    (event) => {
      if (event.key !== "Enter" || !auto.checked) return;
      event.preventDefault();
      event.stopPropagation();
      target.click();
      target.focus();
    },
    true,
  );
})();
