""".env.example agrees with `Settings`: it lists every setting and only real ones (or the
variables only Compose reads), each with a line saying what it does and with its true default,
and it writes down no token and only a placeholder password.
"""

from __future__ import annotations

import re

import pytest

from tests.harness.deploy_files import (
    COMPOSE_ONLY,
    ENV_EXAMPLE,
    env_example_values,
    raw_default,
    read_env_example,
    setting_names,
)
from watcher.settings import Settings


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No setting leaks in from the environment the tests happen to run in."""
    for name in [*setting_names(), *COMPOSE_ONLY]:
        monkeypatch.delenv(name, raising=False)


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
