# One command per job. `make run` and `make test` install what they need into .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Test processes at once: most tests wait on sockets and subprocesses, so more than the cores pay.
TEST_WORKERS ?= 4

.PHONY: run test test-sqlite test-postgres lint typecheck bench install clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

## Run the service on the embedded SQLite default (console mode without TELEGRAM_BOT_TOKEN).
run: $(STAMP)
	$(BIN)/arxiv-watcher run

## Lint, type-check, the whole suite on SQLite, then on PostgreSQL the tests that reach a database
## (see tests/conftest.py: the database_url fixture or the `database` marker).
test: lint typecheck test-sqlite test-postgres

test-sqlite: $(STAMP)
	TEST_DATABASE=sqlite $(BIN)/python -m pytest -q -n $(TEST_WORKERS)

test-postgres: $(STAMP)
	scripts/ensure-postgres
	TEST_DATABASE=postgres $(BIN)/python -m pytest -q -n $(TEST_WORKERS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python bench/fanout.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
