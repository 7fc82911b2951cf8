"""`watcher.polling.failures.failure_cause`: the one line a failed poll is recorded and shown
with."""

from __future__ import annotations

import sqlite3

from sqlalchemy.exc import OperationalError

from watcher.errors import ArxivAPIError, ArxivHTTPError, first_line
from watcher.polling.failures import failure_cause


def test_a_bug_is_named_by_its_type_and_the_first_line_of_its_message() -> None:
    assert failure_cause(RuntimeError("\n  no such key \nand more")) == "RuntimeError: no such key"
    assert failure_cause(ValueError("bad value\nTraceback follows")) == "ValueError: bad value"


def test_an_error_without_a_message_is_named_by_its_type_alone() -> None:
    assert failure_cause(TimeoutError()) == "TimeoutError"
    assert first_line(TimeoutError()) == "TimeoutError"


def test_a_database_error_says_the_drivers_own_first_line() -> None:
    driver = sqlite3.OperationalError("database is locked\n[SQL: INSERT ...]")
    wrapped = OperationalError("INSERT INTO paper ...", {"id": 1}, driver)
    assert failure_cause(wrapped) == "saving failed: OperationalError: database is locked"


def test_an_arxiv_error_is_its_own_message_cut_to_a_bounded_length() -> None:
    assert failure_cause(ArxivHTTPError(503)) == "arXiv answered HTTP 503"
    cause = failure_cause(ArxivAPIError("x" * 10_000))
    assert len(cause) == 500 and cause.endswith("…")
