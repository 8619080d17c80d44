"""`python -m macros.fitengine`: the engine's command line, as the README documents it.

The one place where the engine's folder reaches the site: the command line reads files and
the catalog's YAML, which the engine never does, so it lives in macros/cli.py. This launcher
is not part of the engine (it is not shipped to the browser, and `import macros.fitengine`
never runs it); tests/test_imports.py allows this import and no other.
"""

from macros.cli import main

raise SystemExit(main())
