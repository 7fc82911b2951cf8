"""The shipping files agree with the code.

The files are docker-compose.yml, Dockerfile, .dockerignore and .env.example.

Operators deploy with `docker compose up`, and no Docker engine runs where the tests run, so the
files are checked by reading them: every variable they set is a real setting, every setting is
documented with its true default, every `arxiv-watcher` command they run exists (asked of the
real CLI), and no secret is written into them.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy.engine import make_url

from tests.harness.paths import REPO
from watcher.db import create_db_engine
from watcher.settings import Settings

COMPOSE_FILE = REPO / "docker-compose.yml"
DOCKERFILE = REPO / "Dockerfile"
DOCKERIGNORE = REPO / ".dockerignore"
ENV_EXAMPLE = REPO / ".env.example"

COMMAND = "arxiv-watcher"
# Read by the PostgreSQL image and by Compose's interpolation, never by arxiv-watcher itself.
COMPOSE_ONLY = frozenset({"POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB"})
# What the image sets for Python and pip rather than for arxiv-watcher.
IMAGE_RUNTIME = frozenset(
    {
        "PATH",
        "PYTHONUNBUFFERED",
        "PYTHONDONTWRITEBYTECODE",
        "PIP_NO_CACHE_DIR",
        "PIP_DISABLE_PIP_VERSION_CHECK",
    }
)
SECRET_NAME = re.compile(r"PASSWORD|TOKEN|SECRET|API_KEY", re.IGNORECASE)
BOT_TOKEN_SHAPE = re.compile(r"\d{6,}:[A-Za-z0-9_-]{30,}")
URL_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@]*:(?P<password>[^/\s@]*)@")
SHELL_OPERATORS = frozenset({"&&", "||", ";", "|"})


# -- settings ---------------------------------------------------------------------------------


def setting_names() -> dict[str, str]:
    """Environment variable name → `Settings` field name."""
    prefix = Settings.model_config.get("env_prefix") or ""
    names = {}
    for field_name, field in Settings.model_fields.items():
        # An alias would change the variable's name; teach this helper before adding one.
        assert field.alias is None, field_name
        assert field.validation_alias is None, field_name
        names[f"{prefix}{field_name}".upper()] = field_name
    return names


def raw_default(field_name: str) -> object:
    return Settings.model_fields[field_name].get_default(call_default_factory=True)


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No setting leaks in from the environment the tests happen to run in."""
    for name in [*setting_names(), *COMPOSE_ONLY]:
        monkeypatch.delenv(name, raising=False)


# -- .env.example -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EnvLine:
    """One `NAME=value` line of .env.example; `active` is False for `# NAME=value`."""

    name: str
    value: str
    active: bool
    description: str
    number: int


ENV_ASSIGNMENT = re.compile(r"(?P<hash>#\s*)?(?P<name>[A-Z][A-Z0-9_]*)=(?P<value>.*)")


def read_env_example() -> list[EnvLine]:
    """Each variable line with the comment lines just above it as its description."""
    lines: list[EnvLine] = []
    comment: list[str] = []
    text = ENV_EXAMPLE.read_text(encoding="utf-8")
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        match = ENV_ASSIGNMENT.fullmatch(stripped)
        if match:
            active = match["hash"] is None
            description = " ".join(comment)
            lines.append(EnvLine(match["name"], match["value"], active, description, number))
            comment = []
        elif stripped.startswith("#"):
            comment.append(stripped.lstrip("#").strip())
        else:
            comment = []
    return lines


def env_example_values() -> dict[str, str]:
    """What Compose reads from a .env copied unchanged from .env.example."""
    return {line.name: line.value for line in read_env_example() if line.active}


# -- docker-compose.yml -----------------------------------------------------------------------


def load_compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8"))
    assert isinstance(data, dict), "docker-compose.yml is not a mapping"
    return data


def compose_services() -> dict[str, dict[str, Any]]:
    services = load_compose().get("services")
    assert isinstance(services, dict), "docker-compose.yml has no services"
    assert services, "docker-compose.yml has no services"
    return services


def service_environment(service: Mapping[str, Any]) -> dict[str, str]:
    environment = service.get("environment") or {}
    if isinstance(environment, list):
        pairs = (item.partition("=") for item in environment)
        return {name: value for name, _, value in pairs}
    return {str(name): "" if value is None else str(value) for name, value in environment.items()}


def strings_in(value: object) -> Iterator[str]:
    """Every string value in a parsed YAML document (comments are already gone)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


INTERPOLATED_NAME = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


def interpolated_names(text: str) -> set[str]:
    """Variables Compose substitutes in `text`; `$$` is a literal dollar left to the container."""
    return set(INTERPOLATED_NAME.findall(text.replace("$$", "")))


def interpolate(template: str, environ: Mapping[str, str], *, lenient: bool = False) -> str:
    """Compose's substitution: `$NAME`, `${NAME}`, `${NAME:-default}`, `${NAME:?error}`, nested.

    `lenient` lets a missing required variable become empty instead of failing, to see what the
    file yields by itself.
    """
    out: list[str] = []
    position = 0
    while position < len(template):
        if template.startswith("$$", position):
            out.append("$")
            position += 2
        elif template.startswith("${", position):
            end = closing_brace(template, position)
            out.append(substitute(template[position + 2 : end], environ, lenient=lenient))
            position = end + 1
        elif bare := re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)").match(template, position):
            out.append(environ.get(bare[1], ""))
            position = bare.end()
        else:
            out.append(template[position])
            position += 1
    return "".join(out)


def closing_brace(text: str, start: int) -> int:
    depth = 0
    position = start
    while position < len(text):
        if text.startswith("${", position):
            depth += 1
            position += 2
            continue
        if text[position] == "}":
            depth -= 1
            if depth == 0:
                return position
        position += 1
    raise AssertionError(f"unclosed ${{ in {text!r}")


def substitute(body: str, environ: Mapping[str, str], *, lenient: bool) -> str:
    match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])(.*))?", body, re.DOTALL)
    assert match, f"unsupported interpolation ${{{body}}}"
    name, operator, rest = match.groups()
    value = environ.get(name)
    if operator is None:
        return value or ""
    unusable = not value if operator.startswith(":") else value is None
    if operator.endswith("-"):
        return interpolate(rest, environ, lenient=lenient) if unusable else str(value)
    if unusable and not lenient:
        raise AssertionError(f"Compose would stop: {name} is required ({rest})")
    return value or ""


def argv_of(value: object) -> list[str]:
    """A command as Compose or Docker runs it: exec list, or a shell string split into words."""
    if value is None:
        return []
    if isinstance(value, str):
        return shlex.split(value)
    assert isinstance(value, list), value
    assert all(isinstance(item, str) for item in value), value
    return list(value)


def healthcheck_argv(test: object) -> list[str]:
    argv = argv_of(test)
    if argv[:1] == ["CMD"]:
        return argv[1:]
    if argv[:1] == ["CMD-SHELL"]:
        return shlex.split(" ".join(argv[1:]))
    if argv[:1] == ["NONE"]:
        return []
    return argv


# -- Dockerfile -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Instruction:
    keyword: str
    arguments: str


def read_dockerfile() -> list[Instruction]:
    """The instructions, continuation lines joined and comments dropped, as Docker reads them."""
    instructions: list[Instruction] = []
    pending = ""
    for raw in DOCKERFILE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line.startswith("#") or (not line and not pending):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, _, arguments = (pending + line).strip().partition(" ")
        instructions.append(Instruction(keyword.upper(), arguments.strip()))
        pending = ""
    assert not pending, "the Dockerfile ends inside a continued line"
    return instructions


def final_stage(instructions: list[Instruction]) -> list[Instruction]:
    starts = [index for index, item in enumerate(instructions) if item.keyword == "FROM"]
    assert starts, "the Dockerfile has no FROM"
    return instructions[starts[-1] :]


def env_assignments(instructions: list[Instruction], keyword: str = "ENV") -> dict[str, str]:
    assigned: dict[str, str] = {}
    for item in instructions:
        if item.keyword != keyword:
            continue
        words = shlex.split(item.arguments)
        if keyword == "ENV" and words and "=" not in words[0]:
            assigned[words[0]] = " ".join(words[1:])  # the old `ENV NAME value` form
            continue
        for word in words:
            name, _, value = word.partition("=")
            assigned[name] = value
    return assigned


def exec_form(arguments: str) -> list[str] | None:
    """The JSON argument list of an exec-form instruction, or None for the shell form."""
    try:
        argv = json.loads(arguments)
    except json.JSONDecodeError:
        return None
    if isinstance(argv, list) and all(isinstance(item, str) for item in argv):
        return argv
    return None


def healthcheck_command(arguments: str) -> str:
    match = re.fullmatch(r"(?:--\S+\s+)*CMD\s+(.*)", arguments, re.DOTALL)
    assert match, f"HEALTHCHECK without CMD: {arguments!r}"
    return match[1]


def dockerfile_argvs() -> list[list[str]]:
    argvs = []
    for item in read_dockerfile():
        if item.keyword in {"CMD", "ENTRYPOINT", "RUN"}:
            arguments = item.arguments
        elif item.keyword == "HEALTHCHECK" and item.arguments != "NONE":
            arguments = healthcheck_command(item.arguments)
        else:
            continue
        argvs.append(exec_form(arguments) or shlex.split(arguments))
    return argvs


# -- the commands the files run ----------------------------------------------------------------


def compose_argvs() -> list[list[str]]:
    argvs = []
    for service in compose_services().values():
        argvs.append(argv_of(service.get("entrypoint")))
        argvs.append(argv_of(service.get("command")))
        argvs.append(healthcheck_argv((service.get("healthcheck") or {}).get("test")))
    return argvs


def subcommands_in(argv: list[str]) -> list[tuple[str, ...]]:
    """Each `arxiv-watcher <words>` in argv, up to its first option or shell operator."""
    found: list[tuple[str, ...]] = []
    for index, word in enumerate(argv):
        if " " in word.strip():  # a script handed to `sh -c`
            found += subcommands_in(shlex.split(word))
        if Path(word).name != COMMAND:
            continue
        words: list[str] = []
        for following in argv[index + 1 :]:
            if following.startswith("-") or following in SHELL_OPERATORS:
                break
            words.append(following)
        found.append(tuple(words))
    return found


def subcommands_run() -> list[tuple[str, ...]]:
    found = {sub for argv in compose_argvs() + dockerfile_argvs() for sub in subcommands_in(argv)}
    return sorted(found)


# -- .env.example against Settings --------------------------------------------------------------


def test_env_example_lists_every_setting() -> None:
    listed = {line.name for line in read_env_example()}
    missing = sorted(set(setting_names()) - listed)
    assert not missing, f".env.example does not document {missing}"


def test_env_example_sets_only_real_settings_or_compose_variables() -> None:
    names = [line.name for line in read_env_example()]
    unknown = sorted(set(names) - set(setting_names()) - COMPOSE_ONLY)
    assert not unknown, f".env.example sets variables that no setting reads: {unknown}"
    duplicates = sorted({name for name in names if names.count(name) > 1})
    assert not duplicates, f".env.example lists these twice: {duplicates}"


def test_env_example_documents_the_compose_variables() -> None:
    missing = sorted(COMPOSE_ONLY - set(env_example_values()))
    assert not missing, f".env.example must set (not just mention) {missing} for compose"


def test_every_env_example_line_says_what_it_does() -> None:
    undescribed = [line.name for line in read_env_example() if not line.description]
    assert not undescribed, f"no comment line above: {undescribed}"


@pytest.mark.usefixtures("clean_environment")
def test_env_example_defaults_are_the_settings_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    names = setting_names()
    baseline = Settings(_env_file=None)
    wrong = []
    for line in read_env_example():
        field_name = names.get(line.name)
        if field_name is None:
            continue
        if not line.value and not line.active:
            # `# NAME=` documents a setting that is unset by default.
            if raw_default(field_name) not in (None, "", []):
                wrong.append(f"{line.name}: written unset, default is {raw_default(field_name)!r}")
            continue
        with monkeypatch.context() as patch:
            patch.setenv(line.name, line.value)
            try:
                parsed = getattr(Settings(_env_file=None), field_name)
            except ValueError as error:
                wrong.append(f"{line.name}={line.value!r} is refused: {error}")
                continue
        expected = getattr(baseline, field_name)
        if parsed != expected:
            wrong.append(f"{line.name}={line.value!r} means {parsed!r}, default is {expected!r}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.usefixtures("clean_environment")
def test_a_copy_of_env_example_loads_as_the_defaults() -> None:
    loaded = Settings(_env_file=ENV_EXAMPLE)
    assert loaded.model_dump() == Settings(_env_file=None).model_dump()


def test_token_line_is_empty_and_says_where_tokens_come_from() -> None:
    (line,) = [line for line in read_env_example() if line.name == "TELEGRAM_BOT_TOKEN"]
    assert line.active, "the token line must be `TELEGRAM_BOT_TOKEN=`, not commented out"
    assert line.value == "", "the token line must be empty: `TELEGRAM_BOT_TOKEN=`"
    assert "@BotFather" in line.description


def test_password_placeholder_says_change_me_and_fits_in_a_url() -> None:
    password = env_example_values()["POSTGRES_PASSWORD"]
    assert "change me" in password.lower().replace("-", " ").replace("_", " ")
    # It is pasted into DATABASE_URL, where `@`, `:` or `/` would break the URL.
    assert re.fullmatch(r"[A-Za-z0-9_-]+", password)


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


# -- Dockerfile ---------------------------------------------------------------------------------


def test_image_builds_on_slim_python() -> None:
    bases = [item.arguments.split()[0] for item in read_dockerfile() if item.keyword == "FROM"]
    assert bases
    for base in bases:
        assert re.fullmatch(r"python:3\.1[12]-slim(-\w+)?", base), base


def test_dependencies_get_their_own_layer_before_the_source() -> None:
    steps = [f"{item.keyword} {item.arguments}" for item in read_dockerfile()]
    source = next(i for i, step in enumerate(steps) if re.match(r"COPY .*\bsrc\b", step))
    before = steps[:source]
    manifest = next(i for i, step in enumerate(before) if re.match(r"COPY .*pyproject\.toml", step))
    assert any(re.match(r"RUN .*pip install", step) for step in before[manifest + 1 :]), (
        "install the dependencies between copying pyproject.toml and copying the source"
    )


def test_image_runs_as_an_unprivileged_user() -> None:
    users = [item.arguments for item in final_stage(read_dockerfile()) if item.keyword == "USER"]
    assert users, "the final stage never switches USER"
    assert users[-1].split(":")[0] not in {"root", "0"}


def test_image_starts_the_service_in_exec_form() -> None:
    stage = final_stage(read_dockerfile())
    (cmd,) = [item.arguments for item in stage if item.keyword == "CMD"]
    assert exec_form(cmd) == [COMMAND, "run"], "CMD must be the exec form, for SIGTERM to arrive"
    for item in stage:
        if item.keyword == "HEALTHCHECK":
            assert exec_form(healthcheck_command(item.arguments)) == [COMMAND, "health"]


def test_image_environment_names_real_settings_and_the_data_volume() -> None:
    stage = final_stage(read_dockerfile())
    environment = env_assignments(stage)
    assert environment.get("PYTHONUNBUFFERED") == "1"
    assert environment.get("DATA_DIR") == "/data"
    volumes = [
        exec_form(item.arguments) or item.arguments.split()
        for item in stage
        if item.keyword == "VOLUME"
    ]
    assert any("/data" in volume for volume in volumes), "DATA_DIR must be a VOLUME"
    unknown = sorted(set(env_assignments(read_dockerfile())) - set(setting_names()) - IMAGE_RUNTIME)
    assert not unknown, f"the Dockerfile sets variables that nothing reads: {unknown}"


def test_image_holds_no_secret() -> None:
    instructions = read_dockerfile()
    named = set(env_assignments(instructions)) | set(env_assignments(instructions, "ARG"))
    assert not [name for name in named if SECRET_NAME.search(name)]
    text = DOCKERFILE.read_text(encoding="utf-8")
    assert not BOT_TOKEN_SHAPE.search(text)
    assert not [m for m in URL_PASSWORD.finditer(text) if m["password"]]


def dockerignore_patterns() -> list[str]:
    lines = DOCKERIGNORE.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A .dockerignore pattern as Docker reads it: from the context root, `**` any depth."""
    out = []
    position = 0
    while position < len(pattern):
        if pattern.startswith("**/", position):
            out.append("(?:.*/)?")
            position += 3
        elif pattern.startswith("**", position):
            out.append(".*")
            position += 2
        elif pattern[position] == "*":
            out.append("[^/]*")
            position += 1
        elif pattern[position] == "?":
            out.append("[^/]")
            position += 1
        elif pattern[position] == "[":
            end = pattern.index("]", position)
            out.append(pattern[position : end + 1])
            position = end + 1
        else:
            out.append(re.escape(pattern[position]))
            position += 1
    return re.compile("".join(out))


def dockerignored(path: str) -> bool:
    """Whether Docker leaves `path` out of the build context (the last matching line wins)."""
    parts = path.split("/")
    prefixes = ["/".join(parts[:count]) for count in range(1, len(parts) + 1)]
    excluded = False
    for pattern in dockerignore_patterns():
        regex = glob_regex(pattern.removeprefix("!").strip("/"))
        # Leaving out a directory leaves out everything in it.
        if any(regex.fullmatch(prefix) for prefix in prefixes):
            excluded = not pattern.startswith("!")
    return excluded


def test_dockerignore_keeps_local_state_and_secrets_out() -> None:
    local = [".venv/bin/python", ".git/HEAD", "data/arxiv-watcher.db", ".env"]
    shipped = [path for path in local if not dockerignored(path)]
    assert not shipped, f".dockerignore lets these into the build context: {shipped}"


def test_dockerignore_keeps_what_the_build_copies() -> None:
    copied = [
        source.rstrip("/")
        for item in read_dockerfile()
        if item.keyword == "COPY" and not item.arguments.startswith("--from")
        for source in item.arguments.split()[:-1]
    ]
    assert copied
    for source in copied:
        assert (REPO / source).exists(), f"COPY {source}: no such file in the repository"
    listed = subprocess.run(
        ["git", "ls-files", "--", *copied],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert listed, f"git tracks none of {copied}"
    dropped = [path for path in listed if dockerignored(path)]
    assert not dropped, f".dockerignore leaves out files the image needs: {dropped}"


# -- the CLI the files call ---------------------------------------------------------------------


def test_the_files_run_the_service_the_migrations_and_the_health_check() -> None:
    assert {("run",), ("db", "upgrade"), ("health",)} <= set(subcommands_run())


def test_the_command_the_files_call_is_the_packaged_console_script() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["scripts"][COMMAND] == "watcher.cli:main"


@pytest.mark.slow
@pytest.mark.parametrize("subcommand", subcommands_run(), ids=" ".join)
def test_each_command_the_files_run_exists(subcommand: tuple[str, ...], tmp_path: Path) -> None:
    environ = {k: v for k, v in os.environ.items() if k.upper() not in setting_names()}
    result = subprocess.run(
        [sys.executable, "-m", "watcher", *subcommand, "--help"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environ,
        timeout=90,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "usage:" in result.stdout
