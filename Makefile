# `make demo` and `make test` each create .venv on first use and install what they need.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench clean docs chromium

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-demo: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[demo]"
	touch $(VENV)/.installed $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[test,docs,demo]"
	touch $(VENV)/.installed $(VENV)/.installed-docs $(VENV)/.installed-demo $@

$(VENV)/.installed-docs: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[docs]"
	touch $(VENV)/.installed $@

demo: $(VENV)/.installed-demo
	$(BIN)/python examples/digits_cnn.py

# the suite, after the linters, the docs build and the browser the docs' test drives
test: $(VENV)/.installed-test lint chromium docs
	$(BIN)/python -m pytest tests -q -p no:cacheprovider

# the documentation site (docs/site/README.md): Sphinx + Furo, warnings are errors; opens
# from docs/site/_build/html/index.html, offline
DOCS_BUILD := $(BIN)/python -m sphinx -b html -W --keep-going -q -j auto docs/site docs/site/_build/html
docs: $(VENV)/.installed-docs
	$(DOCS_BUILD)

# Debian's Chromium, driven by Playwright in tests/docs (Playwright's own browser download
# needs a network CI does not have); apt-get needs root, as on CI
chromium:
	@test -x /usr/bin/chromium || (apt-get update -q && apt-get install -y -q chromium)

# the import contracts of pyproject.toml (layers; array libraries only in the backends),
# ruff's lint and format checks, mypy on lucid/
lint: $(VENV)/.installed-test
	$(BIN)/lint-imports
	$(BIN)/ruff check lucid tests benchmarks examples docs/site
	$(BIN)/ruff format --check lucid tests benchmarks examples docs/site
	$(BIN)/mypy

bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/ops.py
	$(BIN)/python benchmarks/train.py
	$(BIN)/python benchmarks/distributed.py

clean:
	rm -rf $(VENV) *.egg-info docs/site/_build docs/site/generated
