"""docker-compose.yml agrees with the code: it sets only real settings, pins and checks the
PostgreSQL service, runs the migrations before the bot, points the bot's DATABASE_URL at the
postgres service, and writes down no secret. Operators deploy with `docker compose up`; no Docker
engine runs where the tests run, so the file is read (`tests.harness.deploy_files`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

import yaml
from sqlalchemy.engine import make_url

from tests.harness.deploy_files import (
    BOT_TOKEN_SHAPE,
    COMPOSE_FILE,
    COMPOSE_ONLY,
    DOCKERFILE,
    SECRET_NAME,
    URL_PASSWORD,
    argv_of,
    compose_services,
    env_example_values,
    healthcheck_argv,
    interpolate,
    interpolated_names,
    load_compose,
    read_env_example,
    service_environment,
    setting_names,
    strings_in,
    subcommands_in,
)
from watcher.runtime.db import create_db_engine
from watcher.settings import load_settings

# -- docker-compose.yml ---------------------------------------------------------------------------


def test_compose_sets_only_real_settings_or_compose_variables() -> None:
    allowed = set(setting_names()) | COMPOSE_ONLY
    environment = {
        name for service in compose_services().values() for name in service_environment(service)
    }
    interpolated = set().union(*map(interpolated_names, strings_in(load_compose())))
    unknown = sorted((environment | interpolated) - allowed)
    assert not unknown, f"docker-compose.yml uses variables that nothing reads: {unknown}"
    undocumented = sorted(interpolated - {line.name for line in read_env_example()})
    assert not undocumented, f".env.example does not mention {undocumented}"


def test_postgres_service_is_pinned_persistent_and_checked() -> None:
    compose = load_compose()
    postgres = compose_services()["postgres"]
    assert re.fullmatch(r"postgres:\d+(\.\d+)*(-[a-z0-9.]+)?", postgres["image"]), postgres["image"]
    named_volumes = set(compose.get("volumes") or {})
    mounts = [str(mount).split(":") for mount in postgres.get("volumes", [])]
    assert any(
        source in named_volumes and target == "/var/lib/postgresql/data"
        for source, target, *_ in mounts
    ), "the database needs a named volume on /var/lib/postgresql/data"
    assert "pg_isready" in " ".join(healthcheck_argv(postgres["healthcheck"]["test"]))


def test_bot_waits_for_postgres_restarts_and_checks_its_health() -> None:
    bot = compose_services()["bot"]
    build = bot["build"]
    context = build if isinstance(build, str) else build.get("context", ".")
    assert (COMPOSE_FILE.parent / context / "Dockerfile").resolve() == DOCKERFILE
    assert bot["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert bot["restart"] == "unless-stopped"
    assert subcommands_in(healthcheck_argv(bot["healthcheck"]["test"])) == [("health",)]
    env_files = argv_of(bot["env_file"])
    assert ".env" in env_files


def test_migrations_run_before_the_bot() -> None:
    services = compose_services()
    bot = services["bot"]
    if ("db", "upgrade") in subcommands_in(argv_of(bot.get("command"))):
        return  # the bot's own command migrates first
    migrators = [
        name
        for name, condition in bot["depends_on"].items()
        if condition.get("condition") == "service_completed_successfully"
        and ("db", "upgrade") in subcommands_in(argv_of(services[name].get("command")))
    ]
    assert migrators, "bot must wait for a one-shot `arxiv-watcher db upgrade` service"
    for name in migrators:
        migrator = services[name]
        assert migrator["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert migrator.get("restart", "no") == "no", "a one-shot service must not restart"


def bot_database_url(environ: Mapping[str, str]) -> str:
    template = service_environment(compose_services()["bot"])["DATABASE_URL"]
    return interpolate(template, environ)


def test_bot_database_url_reaches_the_postgres_service() -> None:
    values = env_example_values()
    assert not values.get("DATABASE_URL"), "under compose .env.example leaves DATABASE_URL empty"
    postgres = {
        name: interpolate(value, values)
        for name, value in service_environment(compose_services()["postgres"]).items()
    }
    url = make_url(bot_database_url(values))
    assert url.host in compose_services(), "DATABASE_URL must name the database service"
    assert url.host == "postgres"
    assert url.port == 5432
    assert url.username == postgres["POSTGRES_USER"]
    assert url.password == postgres["POSTGRES_PASSWORD"] == values["POSTGRES_PASSWORD"]
    assert url.database == postgres["POSTGRES_DB"]
    engine = create_db_engine(bot_database_url(values))
    assert (engine.dialect.name, engine.dialect.driver) == ("postgresql", "psycopg")
    engine.dispose()


def test_bot_database_url_from_env_file_wins() -> None:
    elsewhere = "postgresql://someone:pw@db.example.org:5432/watch"
    assert bot_database_url({**env_example_values(), "DATABASE_URL": elsewhere}) == elsewhere


def test_compose_file_writes_down_no_secret() -> None:
    compose = load_compose()
    leaks = []
    # What the file yields with no .env at all is what it writes down itself.
    for text in strings_in(compose):
        value = interpolate(text, {}, lenient=True)
        if BOT_TOKEN_SHAPE.search(value):
            leaks.append(f"a bot token in {text!r}")
        leaks += [f"a password in {text!r}" for m in URL_PASSWORD.finditer(value) if m["password"]]
    for name, service in compose_services().items():
        for variable, text in service_environment(service).items():
            if SECRET_NAME.search(variable) and interpolate(text, {}, lenient=True):
                leaks.append(f"{name}: {variable} has a value of its own")
    assert not leaks, leaks


# -- the metrics listener and the monitoring profile ------------------------------------------


def test_bot_serves_metrics_that_the_monitoring_profile_scrapes() -> None:
    services = compose_services()
    listen = interpolate(service_environment(services["bot"])["METRICS_LISTEN"], {})
    address = load_settings(metrics_listen=listen).metrics_address
    assert address is not None and address[0] == "0.0.0.0", listen
    assert "ports" not in services["bot"], "the metrics stay inside compose's network"
    for name in ("postgres", "migrate", "bot"):
        assert "profiles" not in services[name], f"{name} must run without a profile"
    for name in ("prometheus", "grafana"):
        assert services[name]["profiles"] == ["monitoring"]
        assert ":" in services[name]["image"] and not services[name]["image"].endswith(":latest")
    mounts = {
        target: COMPOSE_FILE.parent / source
        for name in ("prometheus", "grafana")
        for source, target, *_ in (str(m).split(":") for m in services[name]["volumes"])
        if source.startswith("./")
    }
    assert all(path.exists() for path in mounts.values()), mounts
    config = yaml.safe_load(mounts["/etc/prometheus/prometheus.yml"].read_text())
    (job,) = config["scrape_configs"]
    assert job["metrics_path"] == "/metrics"
    (discovery,) = job["dns_sd_configs"]
    assert discovery["names"] == ["bot"] and discovery["port"] == address[1]


def test_grafana_provisions_the_dashboard_from_prometheus() -> None:
    services = compose_services()
    mounts = {
        target: COMPOSE_FILE.parent / source
        for source, target, *_ in (str(m).split(":") for m in services["grafana"]["volumes"])
        if source.startswith("./")
    }
    provisioning = mounts["/etc/grafana/provisioning"]
    (source,) = yaml.safe_load((provisioning / "datasources/prometheus.yml").read_text())[
        "datasources"
    ]
    assert source["url"] == "http://prometheus:9090"
    (provider,) = yaml.safe_load((provisioning / "dashboards/arxiv-watcher.yml").read_text())[
        "providers"
    ]
    dashboards = mounts[provider["options"]["path"]]
    (dashboard,) = [json.loads(path.read_text()) for path in dashboards.glob("*.json")]
    uids = {
        target["datasource"]["uid"] for panel in dashboard["panels"] for target in panel["targets"]
    }
    assert uids == {source["uid"]}
