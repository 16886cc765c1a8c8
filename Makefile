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

$(VENV)/.installed-demo: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[demo]"
	touch $(VENV)/.installed $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[test]"
	touch $(VENV)/.installed $@

demo: $(VENV)/.installed-demo
	$(BIN)/python examples/digits_cnn.py

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest tests -q -p no:cacheprovider

bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/ops.py
	$(BIN)/python benchmarks/train.py
	$(BIN)/python benchmarks/distributed.py

clean:
	rm -rf $(VENV) *.egg-info
