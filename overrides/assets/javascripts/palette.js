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
    const input = document.querySelector(
      `[data-md-color-media='(prefers-color-scheme: ${light ? "light" : "dark"})']`,
    );
    if (!input) return;
    color.media = input.getAttribute("data-md-color-media");
    color.scheme = input.getAttribute("data-md-color-scheme");
    color.primary = input.getAttribute("data-md-color-primary");
    color.accent = input.getAttribute("data-md-color-accent");
  }
  for (const key in color) if (color[key]) document.body.setAttribute(`data-md-color-${key}`, color[key]);
})();
