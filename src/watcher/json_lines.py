"""LOG_FORMAT=json's formatter (`JsonLines`): one JSON object a line, by python-json-logger,
its traceback redacted by the handler's redacting filter. `watcher.logs` imports it only when
that format is asked for, so python-json-logger is not loaded otherwise."""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType

from pythonjsonlogger.json import JsonFormatter

_JSON_NAMES = {"asctime": "time", "levelname": "level", "name": "logger"}
_ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None] | tuple[None, None, None]


class JsonLines(JsonFormatter):
    """One JSON object a line; the traceback, formatted here from the exception, is redacted."""

    def __init__(self, redact: Callable[[str], str]) -> None:
        super().__init__(
            "%(asctime)s %(levelname)s %(name)s %(message)s", rename_fields=_JSON_NAMES
        )
        self.redact = redact

    def formatException(self, ei: _ExcInfo) -> str:
        text = super().formatException(ei)
        return self.redact(text if isinstance(text, str) else "\n".join(text))
