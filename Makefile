# referee: `make run` starts the program, `make test` runs every check.
# Both create .venv on first use and install what they need into it.
# .venv's Python: the newest 3.13 or 3.12 found, else python3 (scripts/find-python.sh).
PYTHON ?= $(shell sh scripts/find-python.sh)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test check lint lint-code typecheck unit doctest docs bench clean services

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

# `make run ARGS="--db postgresql+asyncpg://USER@HOST/referee --workers 2"`: many tables.
run: $(STAMP)
	$(BIN)/referee serve $(ARGS)

test: lint typecheck unit doctest docs

# The fast loop (issue 53), in under a minute: the code's lint (not the Markdown's),
# types, and the tests that need no browser, PostgreSQL, served room or console-script
# process, on two workers (pytest-xdist), with Hypothesis's smaller "check" profile
# and without the tests marked slow. `make test` runs everything.
FAST := $(filter-out tests/test_docs.py tests/test_docs_lint.py tests/test_collector.py \
	tests/test_synced.py tests/test_refusals.py tests/test_trial.py tests/test_swn_sim.py \
	tests/test_cli.py tests/test_cli_fudge.py tests/test_cli_gurps.py tests/test_table_text.py \
	tests/test_help_examples.py tests/test_sheet_review.py tests/test_command_loading.py \
	tests/test_discord_gateway.py, \
	$(shell grep -L -E 'rooms_server|chromium|playwright|postgresql|pgtemp|serving' tests/test_*.py))
check: lint-code typecheck
	HYPOTHESIS_PROFILE=check $(BIN)/pytest -p no:cacheprovider -n 2 -m "not slow" $(FAST)

lint: lint-code
	$(BIN)/pymarkdown scan --recurse README.md CHANGELOG.md docs  # rules: .pymarkdown

lint-code: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports  # the layers: pyproject.toml's [tool.importlinter] contracts

typecheck: $(STAMP)
	$(BIN)/mypy

services:
	bash scripts/install-services.sh

# Two pytest-xdist workers for every test but the timed and load ones, a module each at a
# time (--dist loadscope: a module's server, PostgreSQL database and Chromium are made
# once, in its worker; each worker starts its own throwaway PostgreSQL cluster); then
# those (marked `alone`: tests/conftest.py's ALONE) in one process, with the machine's
# two cores to themselves: on two workers they failed by chance (issue 53). Coverage
# adds up over both runs, and its floor is checked on the whole.
unit: $(STAMP) services
	$(BIN)/pytest -n 2 --dist loadscope -m "not alone" --cov --cov-report= --cov-fail-under=0 --durations=15
	$(BIN)/pytest -m alone --cov --cov-append --cov-report=term:skip-covered --durations=15

doctest: $(STAMP)
	$(BIN)/pytest -p no:cacheprovider --doctest-glob='*.md' --doctest-modules README.md docs src/referee --ignore=src/referee/rooms/db/migrations

# The documentation site (MkDocs, Material theme) into site/; --strict: a broken link,
# anchor or API reference fails the build. `make test` runs it.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

bench: $(STAMP)
	bash bench/run.sh

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache bench/.venv-d20 site
