# The two set-up commands: `make site` builds the site, `make test` runs every test.
# Each installs what it needs into .venv and node_modules on a fresh machine.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
NPM_STAMP := node_modules/.installed
LOCALE ?= fr
PORT ?= 8000
export NO_MKDOCS_2_WARNING := 1

.PHONY: site serve test lint check clean bench

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet ".[test]"
	touch $(STAMP)

$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --silent
	touch $(NPM_STAMP)

site: $(STAMP) $(NPM_STAMP)
	$(PY) -m macros.fitengine check
	$(PY) -m macros.build_site site
	@echo "Built site/. To read it: python3 -m http.server -d site -b 127.0.0.1 $(PORT), then open http://127.0.0.1:$(PORT)/"

serve: $(STAMP)
	$(VENV)/bin/mkdocs serve -a 127.0.0.1:$(PORT) -f $(if $(filter fr,$(LOCALE)),mkdocs.yml,mkdocs.$(LOCALE).yml)

test: $(STAMP) $(NPM_STAMP)
	$(PY) -m macros.fitengine check
	$(VENV)/bin/ruff check macros tests bench
	$(VENV)/bin/ruff format --check macros tests bench
	node --test tests/js/
	$(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check macros tests bench
	$(VENV)/bin/ruff format --check macros tests bench

check: $(STAMP)
	$(PY) -m macros.fitengine check

clean:
	rm -rf $(VENV) node_modules site .cache .pytest_cache .ruff_cache .hypothesis

# Measures the site against the limits of its stack; writes bench/results.md and .json.
bench: $(STAMP) $(NPM_STAMP)
	$(PY) bench/run.py --runs $(or $(RUNS),5) --note "$(NOTE)"
