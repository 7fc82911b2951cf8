"""/watch with markup in the topic (issue 19, trap 3): tags are left out before the words are
read, and the answer shows exactly what was understood. End to end through the fake Bot API, on
the real store."""

from __future__ import annotations

from tests.harness.bots import USER, Bot
from watcher.follows.topics import parse_topic


async def test_tags_in_a_topic_are_left_out_and_the_answer_says_what_was_read(bot: Bot) -> None:
    answer = await bot.ask_one(USER, "/watch <b>bold</b> & stuff in cs.DC")

    assert answer.split("\n") == [
        "✅ This chat now watches bold stuff in cs.DC: new papers in cs.DC whose title or "
        "abstract holds every one of bold and stuff will be posted here. Papers that came out "
        "before now are not announced.",
        "I left out the markup (HTML tags) you typed: only words are looked for.",
    ]
    html = bot.last(USER).html
    assert "<code>bold stuff in cs.DC</code>" in html and "<code>bold</code>" in html
    (stored,) = [f.label for f in bot.store.followed() if f.kind == "topic"]
    assert stored == "bold stuff in cs.DC"


async def test_a_phrase_and_an_excluded_word_are_each_shown_as_understood(bot: Bot) -> None:
    answer = await bot.ask_one(USER, '/watch "Remote  Direct Memory Access" -Ethernet in cs.dc')

    assert answer.startswith(
        '✅ This chat now watches "remote direct memory access" -ethernet in cs.DC: new papers '
        'in cs.DC whose title or abstract holds "remote direct memory access", but none of '
        "ethernet will be posted here."
    )
    assert "markup" not in answer


def test_markup_and_entities_are_no_words_of_a_topic() -> None:
    assert parse_topic("<i>RDMA</i> &amp; <a href='x'>InfiniBand</a> in cs.NI") == parse_topic(
        "RDMA InfiniBand in cs.NI"
    )
