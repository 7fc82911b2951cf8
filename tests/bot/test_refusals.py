"""Every refusal the bot sends (issue 19, trap 6): one sentence saying what was wrong, then one
example rendered as code (HTML <code>, never a Markdown backtick), at most `MOST` characters.

The refusals a person can meet by typing are sent through the fake Bot API as typed; the few that
need a far-side state (a full chat, an author id arXiv does not know, a name too common) are
read from the functions and constants that make them.
"""

from __future__ import annotations

import re

import pytest

from bot.handlers.common import POST_AS_YOURSELF, Place
from bot.handlers.follow_answers import (
    full,
    full_of_topics,
    identity_answer,
    person_answer,
    unknown_identity,
    watched_answer,
)
from tests.harness.bots import GROUP, USER, Bot
from watcher.core.subscribing import NotFound, NothingWatched, TooCommon
from watcher.follows.identity import Identity
from watcher.follows.rules import PersonRule

MOST = 300  # characters of a refusal, as the person reads it
_EXAMPLE = re.compile(r"\n[^\n<]*<code>[^<\n]+</code>$")

TYPED = [
    "/subscribe Li",
    '/subscribe Dezun"',
    "/subscribe " + "x" * 300,
    "/subscribe ?!... ---",
    "/subscribe Wei Wang in cs.DC,cs.NI,cs.AI,cs.LG",
    "/subscribe Wei Wang in cs.dcc",
    "/subscribe arxiv:Dong D",
    "/subscribe 0000-0002-1825-0098",
    "/subscribe " + "; ".join(f"Name{chr(97 + n)} Person" for n in range(11)),
    "/subscribe Nobody Atall",
    "/unsubscribe Yemao Xu",
    "/unsubscribe",
    "/watch",
    "/watch RDMA",
    "/watch RDMA in cs.DX",
    "/watch RDMA in cs.DC cs.NI cs.OS cs.AR",
    "/watch -ethernet in cs.NI",
    '/watch "" in cs.NI',
    '/watch "open quote in cs.NI',
    "/watch RDMA OR in cs.DC",
    "/watch (RDMA OR InfiniBand in cs.DC",
    "/watch " + "x" * 101 + " in cs.DC",
    "/unwatch",
    "/unwatch 3",
    "/unwatch RDMA in cs.NI",
    "/recent abc",
    "/recent 0",
    "/recent 1 2",
    "/subject",
    "/subject cs.dcc",
    "/subject cs.DC,cs.NX",
    "/subject cs.DC 2 3",
    "/paper",
    "/paper hello",
    "/paper 2604.01234 2604.01235",
    "/revisions maybe",
    "/digest sometimes",
    "/digest daily 25:00",
    "/digest weekly funday 08:00",
    "/timezone Mars/Olympus",
    "/timezone UTC+15",
    "/help frobnicate",
    "/frobnicate",
    "/stats",
]


def assert_refusal_shape(html: str, shown: str) -> None:
    assert "`" not in html, html
    assert len(shown) <= MOST, (len(shown), shown)
    assert html.count("\n") == 1, html  # one sentence, then one example
    assert _EXAMPLE.search(html), html
    assert html.count("<code>") == 1, html


@pytest.mark.parametrize("typed", TYPED)
async def test_each_refusal_is_a_sentence_and_an_example_as_code(bot: Bot, typed: str) -> None:
    await bot.ask_one(USER, typed)

    sent = bot.last(USER)
    assert sent.parse_mode == "HTML"
    assert_refusal_shape(sent.html, sent.text)


async def test_a_members_refusal_in_a_group_names_what_anyone_may_do(bot: Bot) -> None:
    for typed in ("/subscribe Dezun Dong", "/digest daily 08:00", "/watch RDMA in cs.DC"):
        await bot.ask_one(GROUP, typed, user_id=7, chat_type="group")
        sent = bot.last(GROUP)
        assert sent.text.startswith("Only this group's administrators can change")
        assert_refusal_shape(sent.html, sent.text)


async def test_the_refusals_made_from_the_far_sides_state_have_the_same_shape(bot: Bot) -> None:
    here = Place(USER)
    rule = PersonRule(("Wei Wang",))
    settings = bot.service.settings
    made = [
        full(),
        full_of_topics(),
        POST_AS_YOURSELF,
        watched_answer(here, NothingWatched()),
        person_answer(here, rule, NotFound(), settings),
        person_answer(here, rule, TooCommon(total=123_456, limit=10_000), settings),
        unknown_identity(Identity("orcid", "0000-0002-1825-0097")),
        unknown_identity(Identity("arxiv", "dong_d_9")),
        identity_answer(here, Identity("arxiv", "dong_d_9"), NotFound(), settings),
    ]
    for html in made:
        shown = re.sub(r"<[^>]+>", "", html)
        assert_refusal_shape(html, shown)
