# One command per job. `make run` and `make test` install what they need into .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Test processes at once: most tests wait on sockets and subprocesses, so more than the cores pay.
TEST_WORKERS ?= 4

.PHONY: run test test-sqlite test-postgres lint typecheck bench install lock clean i18n

# uv installs exactly what uv.lock pins (with hashes). It is bootstrapped into the venv by pip at
# this version; the Dockerfile's UV_VERSION says the same (tests/core/test_deploy_lock.py).
UV_VERSION := 0.13.9
UV := $(BIN)/uv
# The system's certificate roots, as pip uses, so an install works behind a proxy whose
# certificate only the system trusts (uv's own roots would answer UnknownIssuer).
export UV_SYSTEM_CERTS := true
UV_STAMP := $(VENV)/.uv-$(UV_VERSION)

$(UV_STAMP):
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet uv==$(UV_VERSION)
	touch $(UV_STAMP)

# --locked: stop if uv.lock no longer matches pyproject.toml (`make lock` updates it).
# --compile-bytecode: the machines set PYTHONDONTWRITEBYTECODE, so without it every process that
# starts (the service, the CLI, each test worker) compiles its imports again.
$(STAMP): pyproject.toml uv.lock $(UV_STAMP)
	$(UV) sync --quiet --locked --compile-bytecode --extra dev
	touch $(STAMP)

install: $(STAMP)

## Resolve pyproject.toml's ranges again into uv.lock (after editing the dependencies, or to
## take newer releases: `make lock LOCK_ARGS=--upgrade`), then install from it.
lock: $(UV_STAMP)
	$(UV) lock $(LOCK_ARGS)
	$(MAKE) --no-print-directory install

## Run the service on the embedded SQLite default (console mode without TELEGRAM_BOT_TOKEN).
run: $(STAMP)
	$(BIN)/arxiv-watcher run

## Lint, then side by side the type-check, the whole suite on SQLite and, on PostgreSQL, the tests
## that reach a database (see tests/conftest.py: the database_url fixture or the `database`
## marker). Much of a test's time is spent waiting on sockets and processes, so the passes
## together take little longer than the longer one, and a cold mypy (half a minute of one core)
## hides beside them; each one's output is printed whole when it ends, and any failing fails the run.
test: lint
	$(MAKE) --no-print-directory -j3 --output-sync=target typecheck test-sqlite test-postgres

# worksteal: a worker that runs out of tests takes queued ones from a worker still busy with a
# slow one, so the run does not end waiting on tests queued behind it.
PYTEST := $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist worksteal --durations=15

test-sqlite: $(STAMP)
	TEST_DATABASE=sqlite $(PYTEST)

test-postgres: $(STAMP)
	scripts/ensure-postgres
	TEST_DATABASE=postgres $(PYTEST)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python bench/fanout.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

## The bot's languages: extract every marked sentence from the code into bot/locales/messages.pot,
## then bring each language's catalog (bot/locales/<language>/LC_MESSAGES/messages.po) up to
## date: new sentences arrive untranslated, changed ones fuzzy, for a translator to settle.
## Adding a language: `$(BIN)/pybabel init -i bot/locales/messages.pot -d bot/locales -l LANG`.
I18N_KEYWORDS := --no-default-keywords -k _ -k N_ -k ngettext:1,2 -k sentence
i18n: $(STAMP)
	$(BIN)/pybabel extract -F bot/locales/babel.cfg $(I18N_KEYWORDS) --sort-by-file \
		--no-wrap --project arxiv-watcher --copyright-holder "arxiv-watcher contributors" \
		-o bot/locales/messages.pot .
	$(BIN)/pybabel update -i bot/locales/messages.pot -d bot/locales --no-wrap \
		--ignore-pot-creation-date
