# Every target creates .venv (python3 -m venv) and installs sonnx into it when missing,
# so a fresh machine with only python3 needs nothing else.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.sonnx-installed

.PHONY: help venv example test lint typecheck pytest docs fuzz fuzz-smt bench examples clean

help:
	@echo "make example   check a shipped example model with sonnx-check"
	@echo "make test      lint, type-check and run the whole test suite (what CI runs)"
	@echo "make fuzz      long Hypothesis campaign (not in CI)"
	@echo "make fuzz-smt  the engines' differential campaign alone, 10,000 examples per generator (not in CI)"
	@echo "make bench     structural-check benchmark against onnx.checker (not in CI)"
	@echo "make examples  regenerate examples/*.onnx"

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

venv: $(STAMP)

example: $(STAMP)
	$(BIN)/sonnx-check examples/cnn_block.onnx

lint: $(STAMP)
	$(BIN)/ruff check src tests examples benchmarks proofs

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/python -m pytest -q

docs: $(STAMP)
	$(BIN)/python -m sphinx -W -b html docs docs/_build/html

test: lint typecheck pytest docs

fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest -q tests -k "hypothesis or property or fuzz"

fuzz-smt: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest -q --hypothesis-show-statistics \
		tests/smt/test_property_differential.py tests/smt/test_property_functions.py

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_structural.py

examples: $(STAMP)
	$(BIN)/python examples/make_examples.py

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
