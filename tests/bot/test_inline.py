"""Inline mode end to end (issue 33, item 1): `@bot QUERY` typed in any chat, queued by the fake
Bot API as an `inline_query` update and answered by the running bot with `answerInlineQuery`
(validated by the fake as Telegram does): a paper by id or link, a person's papers by exact name
(no look-alike's), words, the papers announced to the asker, and "nothing found"; in the
asker's language (no sentence left in English under the pseudo-locale); and the front end asks
Telegram for inline queries by name.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from sqlalchemy import Engine

from tests.fakes.corpus import LOOKALIKES_BY_THE_AUTHOR, lookalike_records, make_record
from tests.fakes.telegram import InlineAnswer
from tests.harness.bots import USER, Bot, running_front_end
from tests.harness.pseudo_locale import english_left, install_pseudo
from watcher.arxiv.records import Record
from watcher.follows.names import is_same_person
from watcher.store import MatchedRecord

OTHER_USER = 77


async def ask_inline(
    bot: Bot, query: str, *, user_id: int = USER, language_code: str | None = None
) -> InlineAnswer:
    """Type `@bot query` as `user_id` and wait for the bot's answer."""
    query_id = bot.telegram.inline_query(user_id, query, language_code=language_code)
    await bot.until(lambda: bot.telegram.inline_answer(query_id))
    answer = bot.telegram.inline_answer(query_id)
    assert answer is not None
    return answer


def ids(answer: InlineAnswer) -> list[str]:
    return [result["id"] for result in answer.results]


def id_requests(bot: Bot) -> list[str]:
    return [r.params["id_list"] for r in bot.arxiv.api_requests() if r.params.get("id_list")]


def buttons(result: dict[str, object]) -> list[tuple[str, str]]:
    markup = result["reply_markup"]
    assert isinstance(markup, dict)
    return [(b["text"], b["url"]) for row in markup["inline_keyboard"] for b in row]


def stored_lookalikes(bot: Bot) -> None:
    """Every look-alike paper stored, linked to no follow: the name's answer must skip them."""
    bot.store.save_records(
        [MatchedRecord(record, frozenset()) for record in lookalike_records()],
        announce_for=frozenset(),
    )


async def test_a_stored_papers_id_or_link_is_answered_with_its_card(bot: Bot) -> None:
    paper = bot.store.recent(limit=1)[0]

    answer = await ask_inline(bot, paper.arxiv_id)

    [result] = answer.results
    assert result["id"] == paper.arxiv_id
    assert result["type"] == "article"
    assert result["title"] == paper.title
    text = answer.texts[0]
    assert text.startswith(f"{paper.title}\n{', '.join(a.name for a in paper.authors)}\n")
    assert f"{paper.primary_category} · arXiv:{paper.arxiv_id}" in text
    assert buttons(result) == [("📄 Abstract", paper.abs_url), ("📥 PDF", paper.pdf_url)]
    html = result["input_message_content"]["message_text"]
    assert html.startswith(f'<a href="{paper.abs_url}"><b>')
    assert answer.is_personal and 0 < answer.cache_time <= 60
    for link in (f"https://arxiv.org/abs/{paper.arxiv_id}v1", f"arXiv:{paper.arxiv_id}"):
        assert ids(await ask_inline(bot, link)) == [paper.arxiv_id]
    assert id_requests(bot) == []  # stored: arXiv is never asked


async def test_a_name_gives_that_persons_newest_papers_and_no_look_alikes(bot: Bot) -> None:
    stored_lookalikes(bot)
    everything = bot.store.recent(limit=1000)

    def of(name: str) -> list[str]:
        return [
            p.arxiv_id for p in everything if any(is_same_person(a.name, [name]) for a in p.authors)
        ][:10]

    his = of("Dezun Dong")
    assert set(LOOKALIKES_BY_THE_AUTHOR) <= set(his) or len(his) == 10

    for typed in ("Dezun Dong", "dezun dong", "Dong, Dezun", "“Dezun Dong”"):
        answer = await ask_inline(bot, typed)
        assert ids(answer) == his, typed
    # A name nobody follows is found through the authors it was stored with, exactly.
    assert ids(await ask_inline(bot, "Daoyi Dong")) == ["2604.07712"] == of("Daoyi Dong")
    assert ids(await ask_inline(bot, "D. Dong")) == of("D. Dong") == ["2604.07725"]
    answer = await ask_inline(bot, "Dezun Dong Li")
    assert ids(answer) == of("Dezun Dong Li") and not set(ids(answer)) & set(his)


async def test_a_name_typed_without_its_accents_finds_that_person_only(bot: Bot) -> None:
    """arXiv writes names with their accents (its API feeds carry "Dirk Wübben", "José Raúl
    Romero"): a name stored only as "Zoë Müller" is found typed plainly, and the look-alikes
    "Zoey Müller" and "Zoe Mueller" (newer papers, other people) are never in her answer."""
    hers = [
        make_record(arxiv_id=f"2605.0{n}001", authors=["Zoë Müller", "Ann Lee"], published=when)
        for n, when in (
            (1, datetime(2026, 5, 1, tzinfo=UTC)),
            (2, datetime(2026, 5, 2, tzinfo=UTC)),
        )
    ]
    others = [
        make_record(arxiv_id="2605.09001", authors=["Zoey Müller"]),
        make_record(arxiv_id="2605.09002", authors=["Zoe Mueller"]),
    ]
    bot.store.save_records(
        [MatchedRecord(r, frozenset()) for r in hers + others], announce_for=frozenset()
    )

    for typed in ("Zoe Muller", "zoe muller", "Muller, Zoe", "Zoë Müller"):
        assert ids(await ask_inline(bot, typed)) == ["2605.02001", "2605.01001"], typed
    assert ids(await ask_inline(bot, "Zoey Muller")) == ["2605.09001"]


async def test_an_unknown_id_is_fetched_once_then_served_from_the_store(bot: Bot) -> None:
    fetched = make_record(arxiv_id="2612.00101", authors=["Nobody Followed"])
    bot.arxiv.records.append(fetched)

    first = await ask_inline(bot, "https://arxiv.org/abs/2612.00101")
    again = await ask_inline(bot, "2612.00101", user_id=OTHER_USER)

    assert ids(first) == ids(again) == ["2612.00101"]
    assert first.results[0]["title"] == fetched.title
    assert id_requests(bot) == ["2612.00101"]
    assert bot.store.paper("2612.00101") == fetched
    assert bot.store.paper_followed_ids("2612.00101") == set()  # announced to nobody


async def test_words_give_the_newest_stored_papers_holding_them(bot: Bot) -> None:
    paper = bot.store.recent(limit=1)[0]
    word = max(paper.title.split(), key=len).strip(".,:;")

    answer = await ask_inline(bot, word)

    assert paper.arxiv_id in ids(answer)
    assert 1 <= len(answer.results) <= 10


def nothing_found(answer: InlineAnswer) -> str:
    [result] = answer.results
    assert (result["id"], result["title"]) == ("nothing", "Nothing found")
    return answer.texts[0]


async def test_an_over_long_query_or_one_finding_nothing_gets_nothing_found(bot: Bot) -> None:
    assert nothing_found(await ask_inline(bot, "graph " * 50)) == (
        "That is too long to look for: at most 256 characters."
    )
    assert nothing_found(await ask_inline(bot, "zqxv wvut")) == (
        "No stored paper matches “zqxv wvut”. Type an arXiv id, an author's full name or a few "
        "words of a title."
    )
    assert nothing_found(await ask_inline(bot, "2609.99999")) == (
        "arXiv has no paper arXiv:2609.99999."
    )
    assert nothing_found(await ask_inline(bot, "the of and")).startswith("No stored paper")
    assert id_requests(bot) == ["2609.99999"]


async def test_an_empty_query_gives_the_papers_announced_to_the_asker(bot: Bot) -> None:
    dezun = bot.store.find_followed("Dezun Dong")
    assert dezun is not None
    bot.chats.seen(USER, kind="private")
    bot.chats.subscribe(USER, dezun.id)
    news: Record = make_record(arxiv_id="2612.00777", authors=["Dezun Dong"])
    bot.store.save_records(
        [MatchedRecord(news, frozenset({dezun.id}))], announce_for=frozenset({dezun.id})
    )

    assert ids(await ask_inline(bot, "")) == ["2612.00777"]
    assert nothing_found(await ask_inline(bot, "  ", user_id=OTHER_USER)).startswith(
        "No paper has been announced to you yet."
    )


async def test_a_chinese_reader_is_answered_in_chinese(bot: Bot) -> None:
    paper = bot.store.recent(limit=1)[0]

    answer = await ask_inline(bot, paper.arxiv_id, language_code="zh-hans")
    assert [text for text, _url in buttons(answer.results[0])] == ["📄 摘要", "📥 PDF"]
    assert answer.results[0]["title"] == paper.title  # a title is never translated

    [nothing] = (await ask_inline(bot, "zqxv wvut", language_code="zh-CN")).results
    assert nothing["title"] == "未找到论文"
    assert nothing["input_message_content"]["message_text"].startswith("本地库中没有")


async def test_the_front_end_asks_for_inline_queries(engine: Engine, database_url: str) -> None:
    async with running_front_end(engine, database_url) as bot:
        answer = await ask_inline(bot, "Dezun Dong")
        assert len(answer.results) == 10
        polls = [r for r in bot.telegram.requests if r.method == "getUpdates"]
        assert polls
        assert all("inline_query" in json.loads(r.params["allowed_updates"]) for r in polls)


async def test_no_sentence_of_an_inline_answer_escapes_the_catalog(bot: Bot) -> None:
    language = install_pseudo()
    paper = bot.store.recent(limit=1)[0]
    exempt = [paper.title, paper.abstract, *(a.name for a in paper.authors)]
    for query in (paper.arxiv_id, "zqxv wvut", "2609.99999", "x" * 300, ""):
        answer = await ask_inline(bot, query, language_code=language)
        for result in answer.results:
            shown = [result["title"], result["input_message_content"]["message_text"]]
            shown += [text for text, _url in buttons(result)] if "reply_markup" in result else []
            assert english_left("\n".join(shown), exempt) == [], query
