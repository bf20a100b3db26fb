# referee: `make run` starts the program, `make test` runs every check.
# Both create .venv on first use and install what they need into it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck unit doctest bench clean services

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/referee serve

test: lint typecheck unit doctest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

services:
	bash scripts/install-services.sh

unit: $(STAMP) services
	$(BIN)/pytest --cov --cov-report=term:skip-covered

doctest: $(STAMP)
	$(BIN)/pytest -p no:cacheprovider --doctest-glob='README.md' --doctest-modules README.md src/referee --ignore=src/referee/rooms/migrations

bench: $(STAMP)
	bash bench/run.sh

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache bench/.venv-d20
