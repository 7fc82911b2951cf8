"""The Dockerfile and .dockerignore: a slim Python base, dependencies in their own layer, an
unprivileged user, the service started in exec form, only real settings in the image's
environment, no secret, and a build context that keeps local state out and what the build
copies in. The files are read, never built (`tests.harness.deploy_files`).
"""

from __future__ import annotations

import re
import subprocess

from tests.harness.deploy_files import (
    BOT_TOKEN_SHAPE,
    COMMAND,
    DOCKERFILE,
    DOCKERIGNORE,
    IMAGE_RUNTIME,
    SECRET_NAME,
    URL_PASSWORD,
    env_assignments,
    exec_form,
    final_stage,
    healthcheck_command,
    read_dockerfile,
    setting_names,
)
from tests.harness.paths import REPO

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
