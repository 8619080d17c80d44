"""The build's machinery: the MkDocs hooks (build_hooks.py), the one-process build of every locale
(build_site.py, `python -m macros.build.build_site site`), the build-time answers and the
engine's answers kept per catalog (build_answers.py, engine_cache.py), Pyodide and its start-up
snapshot (pyodide_dist.py, pyodide_snapshot.py and .mjs, snapshot_site.py), and the site's root
files, head tags and sitemaps (site_root.py, site_meta.py)."""
