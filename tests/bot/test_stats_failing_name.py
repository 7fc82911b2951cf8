"""/stats when arXiv keeps failing one followed name: once its query is split, that name alone
is listed failing, first, with arXiv's answer; its former query mates are not (see
`watcher.polling.failing_groups`). The real bot and poller, the fake arXiv and Bot API over HTTP."""

from __future__ import annotations

from tests.fakes.corpus import make_record
from tests.harness.bots import ADMIN_CHAT, Bot
from watcher.polling.failing_groups import ALONE_AFTER

NAMES = [f"Given{chr(97 + n)} Family" for n in range(12)]
FAILING = NAMES[3]


async def test_stats_lists_the_name_arxiv_fails_on_alone_first_with_its_cause(bot: Bot) -> None:
    for number, name in enumerate(NAMES):
        bot.arxiv.add(make_record(arxiv_id=f"2501.{number:05d}", authors=[name]))
        bot.store.follow([name])
    poller = bot.service.poller
    await poller.poll()  # each history, by a first poll of its own
    bot.arxiv.fail_queries(f'au:"{FAILING}"', "500")

    for _ in range(ALONE_AFTER + 1):  # each a poll of every name, past the backoffs
        await poller.poll(force=True)

    answer = await bot.ask_one(ADMIN_CHAT, "/stats")
    listed = [line for line in answer.split("\n") if line.startswith("• ")]
    assert len(listed) == len(NAMES) + 1  # and Dezun Dong
    assert listed[0].startswith(f"• {FAILING}: 1 paper, last success ")
    assert listed[0].endswith("failed in a row, last: arXiv answered HTTP 500")
    assert all("failed in a row" not in line for line in listed[1:])
