"""How a failed poll or harvest is described and when it is tried again.

Shared by every source (`watcher.polling.sources`): one short cause line for the log, the poll state
and the operator; a delay that doubles per failure in a row, capped, and that cannot overflow
however many failures there were; arXiv's `Retry-After` honoured up to a day.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy.exc import SQLAlchemyError

from watcher.errors import ArxivBadFeed, ArxivBadListing, ArxivError, ArxivHTTPError, first_line

RETRY_FIRST = 60.0  # seconds before the first retry of a failed poll (POLL_RETRY_FIRST)
# This many failed polls in a row of every follow make the service unhealthy
# (`watcher.runtime.health`); a follow failing as long is told to its chats: one or two are a
# blip that the first retries cure; three (at least 1 + 2 + 4 times POLL_RETRY_FIRST) are not.
UNHEALTHY_FAILURES = 3
# The doubling stops here: 2**62 times any delay is far past any cap, and a float does not
# overflow on it, however many failures in a row there were.
_MAX_DOUBLINGS = 62
_MAX_ERROR_LENGTH = 500  # of the cause kept in the poll state and logged
# arXiv's Retry-After is honoured up to this: a longer one is a broken header, and an author
# must never go unpolled for ever (nor may the date arithmetic overflow on it).
MAX_RETRY_AFTER = timedelta(days=1)


def retry_delay(failures: int, *, first: float, cap: timedelta) -> timedelta:
    """The wait after `failures` failed polls in a row: `first` seconds, doubling each time,
    never more than `cap`. Computed in floats on a capped exponent, so it cannot overflow."""
    doublings = min(max(failures - 1, 0), _MAX_DOUBLINGS)
    return timedelta(seconds=min(first * 2.0**doublings, cap.total_seconds()))


def next_try(error: BaseException, failures: int, *, first: float, cap: timedelta) -> timedelta:
    """`retry_delay`, or longer when arXiv's Retry-After asked for longer (up to a day)."""
    retry = retry_delay(failures, first=first, cap=cap)
    if isinstance(error, ArxivHTTPError) and error.retry_after:
        asked = timedelta(seconds=min(error.retry_after, MAX_RETRY_AFTER.total_seconds()))
        retry = max(retry, asked)  # arXiv's own word
    return retry


def expected(error: BaseException) -> bool:
    """arXiv or the database failing, as they do; anything else is a bug worth a traceback."""
    return isinstance(error, ArxivError | SQLAlchemyError)


def is_parse_failure(error: BaseException) -> bool:
    """arXiv answered, but with what no longer parses: its markup or format changed (or the
    answer came cut). The operator is told of these (`watcher.polling.source_alerts`)."""
    return isinstance(error, ArxivBadFeed | ArxivBadListing)


def failure_cause(error: BaseException) -> str:
    """One short line saying why a poll failed: for a database error the driver's own message
    (SQLAlchemy's wrapper leads with hints such as the autoflush one, and quotes every
    parameter), for anything unexpected its type too."""
    if isinstance(error, ArxivError):
        text = str(error)
    elif isinstance(error, SQLAlchemyError):
        original = getattr(error, "orig", None)
        cause = original if original is not None else error
        text = f"saving failed: {_named(cause)}"
    else:
        text = _named(error)
    return text if len(text) <= _MAX_ERROR_LENGTH else text[: _MAX_ERROR_LENGTH - 1] + "…"


def _named(error: BaseException) -> str:
    """The error's type and the first line of its message; the type alone when it has none."""
    name, line = type(error).__name__, first_line(error)
    return name if line == name else f"{name}: {line}"
