# Set-up and everyday commands. Only python3.11 (or python3 >= 3.11) and make are needed.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
KERNEL_STAMP := $(VENV)/.kernel
# The sources of the modules compiled with mypyc: the kernel and the bots (listed once, in
# biblios_kit/_kernel.py's GROUPS, which hatch_build.py compiles).
KERNEL := $(shell $(PYTHON) biblios_kit/_kernel.py)

.PHONY: play test check lint setup bench catalogs rulebooks clean kernel-sources

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP) $(KERNEL_STAMP)

# Recompile the kernel and the bots when one of their sources changes (until then they run
# interpreted: see _kernel.py).
$(KERNEL_STAMP): $(KERNEL) biblios_kit/_kernel.py hatch_build.py | $(STAMP)
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(KERNEL_STAMP)

setup: $(STAMP) $(KERNEL_STAMP)

play: setup
	$(BIN)/biblios-kit play

# Every core runs test modules (a module stays in one process: its fixtures start once).
PARALLEL := -n auto --dist loadfile

test: setup
	$(BIN)/python -m pytest $(PARALLEL)

# The inner loop: everything but the tests marked slow (tests/tiers.py lists the whole-app modules, sweeps and many-game tests left to make test).
check: setup
	$(BIN)/python -m pytest $(PARALLEL) -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: setup
	$(BIN)/python benchmarks/engine.py

catalogs: $(STAMP)
	$(BIN)/python -m biblios_kit.i18n_tools update
	$(BIN)/python -m biblios_kit.i18n_tools check

rulebooks: $(STAMP)
	$(BIN)/python -m biblios_kit.rulebook.generate docs/rules

kernel-sources:
	@echo $(KERNEL)

clean:
	rm -rf $(VENV) build dist .pytest_cache
