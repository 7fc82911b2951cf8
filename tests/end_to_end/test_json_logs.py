"""LOG_FORMAT=json through the real service (issue 22, item 4): every line the service logs is one
JSON object with time, level, logger and message; a line about a chat or a source carries it as a
field; and the bot token appears in no line, whatever the format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.fakes.telegram import FakeTelegram, Fault
from tests.harness.cli_helpers import service_on_fakes
from tests.harness.patience import PATIENCE

pytestmark = pytest.mark.slow

TOKEN = "123456:TEST-json-logs-token-abcdefghij"
PERSON = 21
PAPER = make_record(arxiv_id="2611.98765", title="Logging in JSON Lines", authors=["Dezun Dong"])


def test_every_log_line_is_one_json_object_with_its_fields_and_no_token(
    tmp_path: Path, database_url: str
) -> None:
    with FakeArxiv(dezun_dong_records()) as arxiv, FakeTelegram(TOKEN) as telegram:
        service = service_on_fakes(
            arxiv, telegram, cwd=tmp_path, database_url=database_url, LOG_FORMAT="JSON"
        )
        try:
            service.wait_for(lambda: "stored silently" in service.output)
            telegram.user_sends(PERSON, "/subscribe")
            telegram.wait_sync(lambda: telegram.sent(PERSON), PATIENCE)
            telegram.inject(Fault.server_error(502))  # the paper's first send fails: a warning
            arxiv.add(PAPER)
            telegram.wait_sync(
                lambda: any(PAPER.title in m.text for m in telegram.sent(PERSON)), PATIENCE
            )
        finally:
            code = service.stop()
    assert code == 0, service.output

    lines = [json.loads(line) for line in service.stderr if line.strip()]
    assert lines and all(isinstance(line, dict) for line in lines)
    assert all({"time", "level", "logger", "message"} <= line.keys() for line in lines)
    assert TOKEN not in service.output and TOKEN.split(":")[1] not in service.output
    polled = [line for line in lines if line["message"].startswith("polled Dezun Dong")]
    assert polled and all(line["source"] == "api" for line in polled)
    (retried,) = [line for line in lines if "failed (attempt 1)" in line["message"]]
    assert retried["level"] == "WARNING"
    assert (retried["chat_id"], retried["paper"]) == (PERSON, PAPER.arxiv_id)
