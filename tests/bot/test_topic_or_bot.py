"""/watch with OR (issue 32, item 3) through the fake Bot API: the issue's two examples accepted,
shown canonically, polled in API mode by one query with OR, and a matching paper announced
while a paper that does not match is not; bad OR and parentheses refused with an example."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine

from tests.fakes.corpus import make_record
from tests.harness.bots import USER, Bot, running_front_end
from watcher.arxiv.records import Record
from watcher.follows.topics import parse_topic

EITHER = "/watch rdma OR infiniband in cs.DC"
GNN = '/watch "graph neural" (gpu OR fpga) -survey in cs.LG'
EITHER_SHOWN = "(infiniband OR rdma) in cs.DC"
GNN_SHOWN = '"graph neural" (fpga OR gpu) -survey in cs.LG'
OR_EXAMPLE = 'For example: /watch "graph neural" (gpu OR fpga) -survey in cs.LG'


def paper(number: int, title: str, abstract: str, category: str) -> Record:
    return make_record(
        arxiv_id=f"2612.{32000 + number}",
        title=title,
        abstract=abstract,
        published=datetime.now(UTC),
        authors=["Ada Topicwriter"],  # nobody followed: only a topic finds it
        primary_category=category,
        categories=(category,),
    )


async def test_the_two_examples_are_watched_shown_canonically_and_announce_only_matches(
    engine: Engine, database_url: str
) -> None:
    async with running_front_end(engine, database_url) as bot:
        either = await bot.ask_one(USER, EITHER)
        gnn = await bot.ask_one(USER, GNN)

        assert either.startswith(
            f"✅ This chat now watches {EITHER_SHOWN}: new papers in cs.DC whose title or "
            "abstract holds either infiniband or rdma will be posted here."
        )
        assert gnn.startswith(
            f"✅ This chat now watches {GNN_SHOWN}: new papers in cs.LG whose title or abstract "
            'holds "graph neural" and either fpga or gpu, but none of survey will be posted here.'
        )
        again = await bot.ask_one(USER, "/watch (InfiniBand OR RDMA) in cs.dc")
        assert again.startswith(f"This chat already watches {EITHER_SHOWN}.")
        listing = await bot.ask_one(USER, "/subscriptions")
        assert f"1. {GNN_SHOWN}: 0 papers" in listing
        assert f"2. {EITHER_SHOWN}: 0 papers" in listing
        await bot.service.poller.poll(force=True)  # the topics' first, silent polls

        matching = [
            paper(1, "RDMA Transports for Clusters", "Faster messages.", "cs.DC"),
            paper(2, "Congestion Control", "We study InfiniBand fabrics.", "cs.DC"),
            paper(3, "Graph Neural Networks on an FPGA", "An accelerator.", "cs.LG"),
        ]
        other = [
            paper(4, "Congestion Control Again", "We study RoCE.", "cs.DC"),  # neither word
            paper(5, "RDMA Transports Elsewhere", "Faster messages.", "cs.LG"),  # not cs.DC
            paper(6, "Graph Neural Networks on a GPU", "A survey.", "cs.LG"),  # excluded
            paper(7, "Graph Neural Networks on a TPU", "An accelerator.", "cs.LG"),
        ]
        for record in (*matching, *other):
            bot.arxiv.add(record)
        report = await bot.service.poller.poll(force=True)

        assert sorted(r.arxiv_id for r in report.new) == [r.arxiv_id for r in matching]
        for record in matching:
            await bot.until(
                lambda r=record: any(r.title in m.text for m in bot.telegram.sent(USER))
            )
        await bot.settled()
        sent = [m.text for m in bot.telegram.sent(USER)]
        for record in other:
            assert not any(record.title in text for text in sent), record.title
        (announced,) = [text for text in sent if matching[1].title in text]
        assert f"🔎 {EITHER_SHOWN}" in announced  # the topic that found it, as listed
        # API mode: each topic is one arXiv query with OR between its alternatives.
        queries = {
            r.params["search_query"] for r in bot.arxiv.api_requests() if "search_query" in r.params
        }
        either_query = parse_topic(EITHER.removeprefix("/watch ")).query
        assert '(ti:"infiniband" OR abs:"infiniband" OR ti:"rdma" OR abs:"rdma")' in either_query
        assert either_query in queries
        assert parse_topic(GNN.removeprefix("/watch ")).query in queries

        stopped = await bot.ask_one(USER, "/unwatch infiniband OR rdma in cs.DC")
        assert stopped == f"✅ This chat no longer watches {EITHER_SHOWN}."


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("/watch rdma OR in cs.DC", "OR needs a word or phrase on each side."),
        ("/watch (rdma OR infiniband in cs.DC", "A ( is not closed: close each group"),
        ("/watch rdma OR infiniband) in cs.DC", "A ) closes no (: open each group"),
        ("/watch () rdma in cs.DC", "Empty parentheses: put the alternatives in them."),
        ("/watch rdma or infiniband in cs.DC", "Write OR in capitals for either of two words"),
        ("/watch (rdma infiniband) in cs.DC", "Inside parentheses put OR between the altern"),
    ],
)
async def test_bad_or_gets_one_sentence_and_an_example_with_or_and_changes_nothing(
    bot: Bot, text: str, answer: str
) -> None:
    reply = await bot.ask_one(USER, text)

    assert reply.startswith(answer)
    assert reply.endswith(OR_EXAMPLE) and reply.count("\n") == 1
    assert [f for f in bot.store.followed() if f.kind == "topic"] == []
