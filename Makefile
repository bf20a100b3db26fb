# referee: `make run` starts the program, `make test` runs every check.
# Both create .venv on first use and install what they need into it.
# .venv's Python: the newest 3.13 or 3.12 found, else python3 (scripts/find-python.sh).
PYTHON ?= $(shell sh scripts/find-python.sh)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Four workers on two cores: a worker waits on its servers and browsers a good part of
# the time (on 2026-11-27 the parallel part of a clean clone's run took 10:11 on four,
# 10:35 on three, 44 minutes apart; earlier, 12:16 on three and 13:23 on two).
WORKERS ?= 4
# Python writes its compiled modules here even where the machine's environment says not
# to (PYTHONDONTWRITEBYTECODE, set on these machines): else every test process compiles,
# and pytest rewrites, every module it imports, each time (issue 53: a collection of the
# tests took 14.4 s of CPU so, and 5.4 s from the cache; the tests start hundreds of
# processes). The compiled files go to __pycache__ folders, which git ignores.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test check lint lint-code typecheck unit unit-parallel unit-alone doctest docs bench \
	clean services

# uv (put into .venv by pip) installs the project in under half pip's time (issue 53:
# 35 s against 84 s from empty caches here); pip installs it if uv cannot be had.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check 'uv>=0.5' \
		&& $(BIN)/uv pip install --quiet --python $(BIN)/python --compile-bytecode -e '.[dev]' \
		|| $(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

# `make run ARGS="--db postgresql+asyncpg://USER@HOST/referee --workers 2"`: many tables.
run: $(STAMP)
	$(BIN)/referee serve $(ARGS)

# Everything, in two steps (issue 53): first side by side, each one's output printed whole
# as it ends (-O), the lint, the types, the doctests, the docs site and every test but
# the timed ones, whose workers leave the cores idle a quarter of the time on their own;
# then the timed tests, alone on the machine. `make lint`, `make unit` and the rest run
# one part alone.
test: $(STAMP) services
	$(MAKE) --no-print-directory -j 5 -O lint typecheck doctest docs unit-parallel
	$(MAKE) --no-print-directory unit-alone

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

# pytest-xdist workers for every test but the timed and load ones, each module's run on
# each backend on one worker (--dist loadscope, as tests/conftest.py's ByModuleAndBackend
# splits it: its server and database are made once there; each worker starts its own
# throwaway PostgreSQL cluster), the longest first, by their measured times
# (tests/schedule.py, tests/durations.json); then those (marked `alone`:
# tests/conftest.py's ALONE) in one process, with the machine's two cores to themselves:
# beside other tests they failed by chance (issue 53). Coverage adds up over both runs,
# and its floor (96%) is checked on the whole. First, once, the project's modules are
# compiled and the tests collected, so that the workers (each of which collects every
# test) and the servers they start read their compiled modules from the cache (above).
unit: unit-parallel
	$(MAKE) --no-print-directory unit-alone

unit-parallel: $(STAMP) services
	$(BIN)/python -m compileall -q src/referee
	@out=$$($(BIN)/pytest -p no:cacheprovider --collect-only -q 2>&1) \
		|| { echo "$$out"; exit 1; }  # (quiet, but for a test that cannot be collected)
	$(BIN)/pytest -n $(WORKERS) --dist loadscope -m "not alone" --cov --cov-report= --cov-fail-under=0 --durations=15

unit-alone: $(STAMP) services
	$(BIN)/pytest -m alone --cov --cov-append --cov-report=term:skip-covered --durations=15

doctest: $(STAMP)
	$(BIN)/pytest -p no:cacheprovider --doctest-glob='*.md' --doctest-modules README.md docs src/referee --ignore=src/referee/rooms/db/migrations

# The documentation site (MkDocs, Material theme) into site/; --strict: a broken link,
# anchor or API reference fails the build, --quiet or not (MkDocs alone counts no warning
# under --quiet: scripts/mkdocs_strict.py, tests/test_docs_site.py). `make test` runs it.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

bench: $(STAMP)
	bash bench/run.sh

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache bench/.venv-d20 site
