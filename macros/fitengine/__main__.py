"""`python -m macros.fitengine`: the command line lives in macros/cli.py (it reads files; the engine does not)."""

from macros.cli import main

raise SystemExit(main())
