# The two set-up commands: `make site` builds the site, `make test` runs every test.
# Each installs what it needs into .venv (and node_modules) on a fresh machine.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test lint check clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet ".[test]"
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m macros.fitengine check
	$(VENV)/bin/ruff check macros tests
	$(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check macros tests

check: $(STAMP)
	$(PY) -m macros.fitengine check

clean:
	rm -rf $(VENV) site .pytest_cache .ruff_cache .hypothesis
