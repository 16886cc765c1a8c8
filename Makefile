# `make demo` and `make test` each create .venv on first use and install what they need.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[test]"
	touch $(VENV)/.installed $@

demo: $(VENV)/.installed
	$(BIN)/python examples/fit_curve.py

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest tests -q -p no:cacheprovider

bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/ops.py

clean:
	rm -rf $(VENV) *.egg-info
