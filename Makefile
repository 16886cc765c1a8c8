# `make demo` and `make test` each create .venv on first use and install what they need.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench clean

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
	$(BIN)/python -m pip install -q -e ".[test]"
	touch $(VENV)/.installed $@

demo: $(VENV)/.installed-demo
	$(BIN)/python examples/digits_cnn.py

test: $(VENV)/.installed-test lint
	$(BIN)/python -m pytest tests -q -p no:cacheprovider

# the import contracts of pyproject.toml (layers; array libraries only in the backends),
# ruff's lint and format checks, mypy on lucid/
lint: $(VENV)/.installed-test
	$(BIN)/lint-imports
	$(BIN)/ruff check lucid tests benchmarks examples
	$(BIN)/ruff format --check lucid tests benchmarks examples
	$(BIN)/mypy

bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/ops.py
	$(BIN)/python benchmarks/train.py
	$(BIN)/python benchmarks/distributed.py

clean:
	rm -rf $(VENV) *.egg-info
