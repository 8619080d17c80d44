// The site's own small enhancements to Material's pages. No engine logic lives here.
(() => {
  // The page's words, written by the build in its own language (macros/i18n/site.py, SITE).
  const wordsElement = document.getElementById("site-words");
  const words = wordsElement ? JSON.parse(wordsElement.textContent) : {};

  // Material fetches sitemap.xml beside every <link rel="alternate"> of the head, expecting one
  // per locale's root, to reroute links between locales by path. The head names each page's own
  // counterparts (absolute, for search engines), and the switcher's links are already exact: keep
  // them out of that look-up, which runs on DOMContentLoaded, and put them back right after it.
  const alternates = Array.prototype.slice.call(document.querySelectorAll('head link[rel="alternate"][hreflang]'));
  alternates.forEach((link) => {
    link.setAttribute("rel", "x-alternate");
  });
  document.addEventListener(
    "DOMContentLoaded",
    () => {
      alternates.forEach((link) => {
        link.setAttribute("rel", "alternate");
      });
    },
    { once: true },
  );

  // Wide tables scroll sideways inside Material's wrapper: make each wrapper reachable from the
  // keyboard and named for screen readers, so the hidden columns can be scrolled into view.
  // Each is named by its first columns, so that a page's regions can be told apart (a name two
  // share is numbered).
  function regionName(wrap, taken) {
    const heads = Array.prototype.slice.call(wrap.querySelectorAll("thead th"), 0, 3);
    const columns = heads
      .map((th) => th.textContent.trim())
      .filter(Boolean)
      .join(", ");
    const name =
      columns && words.scroll_region_named
        ? words.scroll_region_named.replace("{columns}", columns)
        : words.scroll_region;
    const seen = (taken[name] || 0) + 1;
    taken[name] = seen;
    return seen > 1 ? `${name} (${seen})` : name;
  }

  function labelScrollRegions() {
    const taken = {};
    document.querySelectorAll(".md-typeset__scrollwrap").forEach((wrap) => {
      if (!wrap.hasAttribute("tabindex")) {
        wrap.setAttribute("tabindex", "0");
        wrap.setAttribute("role", "region");
        const name = regionName(wrap, taken);
        if (name) wrap.setAttribute("aria-label", name);
      }
    });
  }

  // The language switcher links each page to its translation, whose path differs per locale.
  // Material reroutes clicks on links into another locale by matching paths, which sends the
  // reader to that locale's home: keep the click to ourselves so the link is followed as written.
  function keepSwitcherLinks() {
    document.querySelectorAll(".md-select__link[hreflang]").forEach((link) => {
      link.addEventListener("click", (event) => {
        event.stopPropagation();
      });
    });
  }

  // Material's search dialog has no name of its own: give it its field's (already translated).
  function nameSearchDialog() {
    const dialog = document.querySelector('.md-search[role="dialog"]');
    const field = document.querySelector(".md-search__input");
    if (dialog && field && !dialog.hasAttribute("aria-label")) {
      dialog.setAttribute("aria-label", field.getAttribute("aria-label") || field.placeholder);
    }
  }

  function enhance() {
    nameSearchDialog();
    labelScrollRegions();
    keepSwitcherLinks();
  }

  if (typeof document$ !== "undefined") {
    document$.subscribe(enhance);
  } else {
    window.addEventListener("load", enhance);
  }
})();
