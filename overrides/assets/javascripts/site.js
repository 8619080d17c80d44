// The site's own small enhancements to Material's pages. No engine logic lives here.
(function () {
  // Wide tables scroll sideways inside Material's wrapper: make each wrapper reachable from the
  // keyboard and named for screen readers, so the hidden columns can be scrolled into view.
  function labelScrollRegions() {
    document.querySelectorAll(".md-typeset__scrollwrap").forEach(function (wrap) {
      if (!wrap.hasAttribute("tabindex")) {
        wrap.setAttribute("tabindex", "0");
        wrap.setAttribute("role", "region");
        wrap.setAttribute("aria-label", document.documentElement.lang === "fr" ? "Tableau défilant" : "Scrolling table");
      }
    });
  }

  // The language switcher links each page to its translation, whose path differs per locale.
  // Material reroutes clicks on links into another locale by matching paths, which sends the
  // reader to that locale's home: keep the click to ourselves so the link is followed as written.
  function keepSwitcherLinks() {
    document.querySelectorAll(".md-select__link[hreflang]").forEach(function (link) {
      link.addEventListener("click", function (event) {
        event.stopPropagation();
      });
    });
  }

  function enhance() {
    labelScrollRegions();
    keepSwitcherLinks();
  }

  if (typeof document$ !== "undefined") {
    document$.subscribe(enhance);
  } else {
    window.addEventListener("load", enhance);
  }
})();
