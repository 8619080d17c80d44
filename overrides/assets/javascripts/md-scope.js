// Material for MkDocs' storage helpers (partials/javascripts/base.html), as a file: the same
// globals, with the scope read from the script tag instead of templated into inline code.
((script) => {
  window.__md_scope = new URL(script.dataset.scope, location);
  window.__md_hash = (e) => [...e].reduce((e, _) => (e << 5) - e + _.charCodeAt(0), 0);
  window.__md_get = (e, _ = localStorage, t = __md_scope) => JSON.parse(_.getItem(`${t.pathname}.${e}`));
  window.__md_set = (e, _, t = localStorage, a = __md_scope) => {
    try {
      t.setItem(`${a.pathname}.${e}`, JSON.stringify(_));
    } catch {}
  };
})(document.currentScript);
