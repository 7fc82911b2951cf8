"""Readers of the shipping files for the tests that check them against the code: the settings
(`setting_names`, `raw_default`), .env.example (`read_env_example`), docker-compose.yml with
Compose's interpolation (`compose_services`, `interpolate`), the Dockerfile's instructions
(`read_dockerfile`), and the `arxiv-watcher` subcommands the files run (`subcommands_run`).
No Docker engine is needed: the files are read, never run.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tests.harness.paths import REPO
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
