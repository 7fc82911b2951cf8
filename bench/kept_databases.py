"""Databases a benchmark loads once and asks again: `--keep` loads into one that outlives the run,
`--loaded URL` asks one loaded before (bench/queries.py), since loading 1M papers takes minutes."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import create_engine, text


@contextlib.contextmanager
def loaded_database(url: str) -> Iterator[str]:
    """`url` as it is, kept afterwards (`--loaded`)."""
    yield url


@contextlib.contextmanager
def kept_database(url: str | None, n: int) -> Iterator[str]:
    """An empty database kept afterwards (`--keep`), for later runs with `--loaded`: schema
    `bench_kept_N` of the PostgreSQL at `url`, or (None) the SQLite file
    `/tmp/bench-kept-N.db`. Either must not exist yet; dropping it is the caller's job."""
    if url is None:
        path = Path(f"/tmp/bench-kept-{n}.db")
        if path.exists():
            raise SystemExit(f"{path} exists: ask it with --loaded sqlite:///{path}, or remove it")
        kept, drop = f"sqlite:///{path}", f"rm {path}"
    else:
        schema = f"bench_kept_{n}"
        admin = create_engine(url, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        admin.dispose()
        separator = "&" if "?" in url else "?"
        kept = f"{url}{separator}options=-csearch_path%3D{schema}"
        drop = f"DROP SCHEMA {schema} CASCADE"
    yield kept
    print(f"  kept: --loaded '{kept}' (afterwards: {drop})", flush=True)
