"""The service starts without what only some paths need: Alembic (only for a pending migration)
and psycopg (only on PostgreSQL), each about 10 MB resident (bench/README.md, Memory); and, on
the default settings, none of the parsers and listeners that only some runs use (`LAZY`; what
each costs: bench/README.md, "Lighter at rest"), each imported when it is used."""

from __future__ import annotations

import subprocess
import sys

from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect, text

from tests.harness.databases import BACKEND
from tests.harness.paths import REPO
from watcher.runtime.db import (
    alembic_config,
    create_db_engine,
    open_database,
    pending_migrations,
    script_head,
)

OPTIONAL = ("alembic", "psycopg")
# What `run` does before it polls, on the database at argv[1]: migrate it, follow WATCH_AUTHORS.
BUILD_THE_CORE = (
    "import sys\n"
    "from watcher.runtime.db import open_database\n"
    "from watcher.runtime.service import arxiv_client, build_context\n"
    "from watcher.settings import load_settings\n"
    "settings = load_settings(database_url=sys.argv[1])\n"
    "engine = open_database(settings.database_url, migrate=False)\n"
    "build_context(settings, engine, arxiv_client(settings))"
)

# Imported only by the runs that use them: the listing pages' parser (lxml), the OAI-PMH and
# OPML parser (defusedxml), the webhook listener (tornado, also PTB's own webhook server), LaTeX in
# a paper (pylatexenc), LOG_FORMAT=json (python-json-logger), METRICS_LISTEN (the operators'
# listener).
LAZY = (
    "lxml",
    "defusedxml",
    "tornado",
    "telegram.ext._utils.webhookhandler",
    "bot.webhook",
    "pylatexenc",
    "pythonjsonlogger",
    "watcher.json_lines",
    "watcher.runtime.observability",
)
# `run` on the default settings with a bot token, up to its first poll: logging set up, the core
# built, the Telegram front end found through its entry point and its application built.
START_THE_SERVICE = (
    BUILD_THE_CORE.replace(
        "load_settings(database_url=sys.argv[1])",
        "load_settings(database_url=sys.argv[1], telegram_bot_token='123456:' + 'x' * 35)",
    ).replace("build_context(", "core = build_context(")
    + "\nfrom watcher.logs import setup_logging\n"
    "setup_logging(settings.log_level, log_format=settings.log_format)\n"
    "from watcher.runtime.service import load_frontend\n"
    "frontend = load_frontend(core)\n"
    "from bot.app import build_application\n"
    "build_application(core, rate_limiter=frontend.rate_limiter, events=frontend)"
)


def loaded_after(code: str, *args: str, among: tuple[str, ...] = OPTIONAL) -> list[str]:
    """Which of `among` a fresh interpreter has imported after running `code`."""
    probe = f"{code}\nimport sys\nprint(' '.join(m for m in {among!r} if sys.modules.get(m)))"
    answer = subprocess.run(
        [sys.executable, "-c", probe, *args],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    )
    return answer.stdout.split()


def test_script_head_is_alembics_head(engine: Engine) -> None:
    assert script_head() == ScriptDirectory.from_config(alembic_config(engine)).get_current_head()


def test_importing_the_service_and_the_bot_loads_neither() -> None:
    assert loaded_after("import watcher.cli.command_line, watcher.runtime.service, bot.app") == []


def test_starting_the_service_on_the_default_settings_loads_none_of_the_lazy_ones(
    database_url: str,
) -> None:
    assert loaded_after(START_THE_SERVICE, database_url, among=LAZY) == []


def test_each_lazy_import_is_loaded_when_its_path_runs() -> None:
    """The other side of the test above: the probe sees each module once its path runs."""
    uses = {
        "lxml": "from watcher.arxiv.listing_page import parse_listing_page\n"
        "from watcher.errors import ArxivBadListing\n"
        "try:\n    parse_listing_page(b'<html></html>', url='u')\n"
        "except ArxivBadListing:\n    pass",
        "defusedxml": "from watcher.follows.follow_opml import read_opml\nread_opml('<opml/>')",
        "bot.webhook": "import bot.webhook",
        "pylatexenc": "from watcher.arxiv.latex import latex_to_text\nlatex_to_text('$\\\\alpha$')",
        "watcher.json_lines": "from watcher.logs import setup_logging\n"
        "setup_logging('INFO', log_format='json')",
    }
    for module, code in uses.items():
        assert module in loaded_after(code, among=LAZY), module


def test_opening_a_database_at_the_head_does_not_load_alembic(
    engine: Engine, database_url: str
) -> None:
    code = "import sys\nfrom watcher.runtime.db import open_database\nopen_database(sys.argv[1])"
    driver = ["psycopg"] if BACKEND == "postgres" else []
    assert loaded_after(code, database_url) == driver


def test_a_service_migrating_a_new_database_does_not_load_alembic(database_url: str) -> None:
    """The first start of a bare service (no `db upgrade` before it) migrates in a child
    process: the service itself stays lean, and the database ends at the head."""
    driver = ["psycopg"] if BACKEND == "postgres" else []
    assert loaded_after(BUILD_THE_CORE, database_url) == driver
    engine = create_db_engine(database_url)
    try:
        assert pending_migrations(engine) == []
    finally:
        engine.dispose()


def test_a_failed_migration_in_the_child_stops_the_start_with_its_cause(engine: Engine) -> None:
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = 'f00dfeed0001'"))
    url = engine.url.render_as_string(hide_password=False)
    answer = subprocess.run(
        [sys.executable, "-c", BUILD_THE_CORE, url], cwd=REPO, capture_output=True, text=True
    )
    assert answer.returncode != 0
    assert "f00dfeed0001" in answer.stderr  # the child's own error: the revision it cannot find
    assert "the database migrations failed" in answer.stderr


def test_a_new_database_still_gets_every_migration(database_url: str) -> None:
    engine = open_database(database_url)
    try:
        assert pending_migrations(engine) == []
        assert "paper" in inspect(engine).get_table_names()
    finally:
        engine.dispose()


def test_a_database_one_migration_behind_is_brought_to_the_head(engine: Engine) -> None:
    head = script_head()
    command.downgrade(alembic_config(engine), "-1")
    assert pending_migrations(engine) == [head]
    url = engine.url.render_as_string(hide_password=False)
    engine.dispose()
    again = open_database(url)
    try:
        assert pending_migrations(again) == []
    finally:
        again.dispose()
    check = create_db_engine(url)
    try:
        with check.connect() as connection:
            assert connection.execute(text("SELECT version_num FROM alembic_version")).all() == [
                (head,)
            ]
    finally:
        check.dispose()


def test_the_service_and_the_bot_share_one_tls_context(database_url: str) -> None:
    """Each TLS context holds its own copy of the certificate roots (0.8-2.9 MB, bench/README.md,
    "Lighter at rest"): the arXiv client and PTB's two clients take the one of `watcher.tls`."""
    keep_the_application = START_THE_SERVICE.replace(
        "build_application(", "app = build_application("
    )
    count = (
        "\nimport gc, ssl\n"
        "print(len({id(o) for o in gc.get_objects() if isinstance(o, ssl.SSLContext)}))"
    )
    answer = subprocess.run(
        [sys.executable, "-c", keep_the_application + count, database_url],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    )
    assert answer.stdout.split()[-1] == "1"


def test_sqlalchemys_postgresql_dialect_is_loaded_only_on_postgresql(database_url: str) -> None:
    """About 2 MB resident (bench/README.md, "Lighter at rest"): the upserts import their
    dialect's statement when they run, and the partial index names only SQLite's `where` until
    `with_postgresql_options`. The start, then an upsert (a listing's probes are saved)."""
    upsert = "\nimport datetime\ncore.store.record_listing_probes(datetime.date(2026, 12, 3), 1)"
    dialect = ("sqlalchemy.dialects.postgresql",)
    expected = list(dialect) if BACKEND == "postgres" else []
    assert loaded_after(START_THE_SERVICE + upsert, database_url, among=dialect) == expected
