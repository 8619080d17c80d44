# The two set-up commands: `make site` builds the site, `make test` runs every test.
# Each installs what it needs into .venv and node_modules on a fresh machine.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
LOCK := requirements.lock
UV_VERSION := 0.13.8
NPM_STAMP := node_modules/.installed
LOCALE ?= fr
PORT ?= 8000
export NO_MKDOCS_2_WARNING := 1

.PHONY: site serve test test-fast lint format check clean bench lock messages

# Every Python package, direct or not, at the version and hashes of requirements.lock. The
# project itself is not installed (its code runs from this folder), so no build output is written.
$(STAMP): $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --require-hashes -r $(LOCK)
	touch $(STAMP)

# After an edit of the dependencies in pyproject.toml: pin the whole set again, with hashes.
lock:
	$(PYTHON) -m venv .cache/lock
	.cache/lock/bin/python -m pip install --quiet uv==$(UV_VERSION)
	.cache/lock/bin/uv pip compile pyproject.toml --extra test --generate-hashes --universal --python-version 3.11.5 -o $(LOCK)

# Pyodide comes from the npm registry: when npm cannot reach it, say so rather than "Error 1".
$(NPM_STAMP): package.json package-lock.json
	@npm ci --no-audit --no-fund --loglevel=error || { \
	  echo "make: npm ci could not install Pyodide (package-lock.json) from the npm registry ($$(npm config get registry))." >&2; \
	  echo "make: npm's message is above: check the network or the proxy (npm config get proxy), or that the registry is reachable, then run make again." >&2; \
	  exit 1; }
	touch $(NPM_STAMP)

# The site's words (macros/messages.py): extract every msgid of the code into locales/site.pot
# (babel.cfg says where), then merge it into each locale's catalog, locales/<locale>/LC_MESSAGES/site.po.
# New messages arrive untranslated, changed ones fuzzy: translate them (Poedit, or any editor) and
# the build accepts the catalog; it compiles it itself.
messages: $(STAMP)
	$(PY) -m macros.messages

site: $(STAMP) $(NPM_STAMP)
	$(PY) -m macros.fitengine check
	$(PY) -m macros.build.build_site site
	@echo "Built site/. To read it: python3 -m http.server -d site -b 127.0.0.1 $(PORT), then open http://127.0.0.1:$(PORT)/"

serve: $(STAMP)
	$(if $(shell $(PY) -c "import socket; socket.socket().bind(('127.0.0.1', $(PORT)))" 2>/dev/null && echo free),,$(error make serve: port $(PORT) on 127.0.0.1 is already in use; stop what holds it or choose another: make serve PORT=8001))
	$(VENV)/bin/mkdocs serve -a 127.0.0.1:$(PORT) -f $(if $(filter fr,$(LOCALE)),mkdocs.yml,mkdocs.$(LOCALE).yml)

# The tests that need no browser (engine, catalog, CLI, site build): a minute or so.
test-fast: $(STAMP) $(NPM_STAMP)
	$(PY) -m pytest -m "not browser"

test: $(STAMP) $(NPM_STAMP)
	$(PY) -m macros.fitengine check
	$(VENV)/bin/ruff check macros tests bench
	$(VENV)/bin/ruff format --check macros tests bench
	node_modules/.bin/biome ci --error-on-warnings
	node --test tests/js/
	$(PY) -m pytest

# Python with ruff, JavaScript with Biome (biome.json): lint and format, both checked, nothing written.
# `make format` writes both formatters' output.
lint: $(STAMP) $(NPM_STAMP)
	$(VENV)/bin/ruff check macros tests bench
	$(VENV)/bin/ruff format --check macros tests bench
	node_modules/.bin/biome ci --error-on-warnings

format: $(STAMP) $(NPM_STAMP)
	$(VENV)/bin/ruff format macros tests bench
	node_modules/.bin/biome format --write

check: $(STAMP)
	$(PY) -m macros.fitengine check

clean:
	rm -rf $(VENV) node_modules site build dist *.egg-info .cache .pytest_cache .ruff_cache .hypothesis test-artifacts

# Measures the site against the limits of its stack; writes bench/results.md and .json.
bench: $(STAMP) $(NPM_STAMP)
	$(PY) bench/run.py --runs $(or $(RUNS),5) --note "$(NOTE)"
