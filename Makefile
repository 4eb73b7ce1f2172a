# Set-up and everyday commands. Only python3.11 (or python3 >= 3.11) and make are needed.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: play test check lint setup bench catalogs rulebooks clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)

play: $(STAMP)
	$(BIN)/biblios-kit play

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python benchmarks/engine.py

catalogs: $(STAMP)
	$(BIN)/python -m biblios_kit.i18n_tools update
	$(BIN)/python -m biblios_kit.i18n_tools check

rulebooks: $(STAMP)
	$(BIN)/python -m biblios_kit.rulebook.generate docs/rules

clean:
	rm -rf $(VENV) build dist .pytest_cache
