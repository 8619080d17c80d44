// Wide tables scroll sideways inside Material's wrapper: make each wrapper reachable from the
// keyboard and named for screen readers, so the hidden columns can be scrolled into view.
(function () {
  function label() {
    document.querySelectorAll(".md-typeset__scrollwrap").forEach(function (wrap) {
      if (!wrap.hasAttribute("tabindex")) {
        wrap.setAttribute("tabindex", "0");
        wrap.setAttribute("role", "region");
        wrap.setAttribute("aria-label", document.documentElement.lang === "fr" ? "Tableau défilant" : "Scrolling table");
      }
    });
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(label);
  } else {
    window.addEventListener("load", label);
  }
})();
