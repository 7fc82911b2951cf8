# arxiv-watcher as a container image.
#
# `docker compose up` runs it next to PostgreSQL (see docker-compose.yml). Alone it keeps its
# SQLite file in the /data volume:
#   docker run --env-file .env -v arxiv-watcher-data:/data arxiv-watcher
# Settings come from the environment at run time (see .env.example); none are baked in here.

# ---- build: a virtualenv holding the dependencies, then the package ------------------------
FROM python:3.11-slim-bookworm AS build

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PATH=/opt/venv/bin:$PATH
RUN python -m venv /opt/venv
WORKDIR /src

# uv reads the lock file; it stays in the build stage (the runtime image copies only /opt/venv).
# The same version as the Makefile's UV_VERSION (tests/core/test_deploy_lock.py checks).
ARG UV_VERSION=0.13.9
RUN python -m venv /opt/uv && /opt/uv/bin/pip install uv==${UV_VERSION}

# Dependencies get a layer of their own, keyed on pyproject.toml and uv.lock alone, so editing the
# source does not reinstall them. They are exactly the versions uv.lock pins, checked against its
# hashes; `--locked` stops the build if the lock no longer matches pyproject.toml.
COPY pyproject.toml uv.lock ./
RUN /opt/uv/bin/uv export --locked --no-dev --no-emit-project --output-file requirements.txt \
    && pip install --require-hashes --no-deps -r requirements.txt

# The package itself; --no-deps because every dependency is already in place above.
# README.md is the project's `readme`, which the build needs.
COPY README.md ./
COPY src ./src
COPY bot ./bot
RUN pip install --no-deps .

# ---- runtime: the virtualenv on a fresh slim image, run as an unprivileged user ------------
FROM python:3.11-slim-bookworm

# PYTHONUNBUFFERED: log lines reach `docker logs` as they happen, not when a buffer fills.
# DATA_DIR: where the SQLite file goes when DATABASE_URL is empty (the compose file sets it).
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PATH=/opt/venv/bin:$PATH \
    DATA_DIR=/data

RUN useradd --system --user-group --uid 10001 --home-dir /app --no-create-home watcher \
    && mkdir -p /app /data \
    && chown watcher:watcher /data
COPY --from=build /opt/venv /opt/venv

WORKDIR /app
USER watcher
# Created after the chown above, so a fresh named volume starts out writable by `watcher`.
VOLUME ["/data"]

# Unhealthy until the first poll succeeds (it runs at start), and again when polling stalls.
HEALTHCHECK --interval=60s --timeout=15s --start-period=10m --retries=3 \
    CMD ["arxiv-watcher", "health"]

# Exec form: Python is PID 1 and gets SIGTERM itself, so `docker stop` shuts down cleanly.
CMD ["arxiv-watcher", "run"]
