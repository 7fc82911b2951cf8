"""The renderers speak the language speaking now (issue 31): announcements (full and compact, a
revision, the 🔎 line, the journal reference, every button), the "While you were away" summary,
a digest and the failing notices, in Simplified Chinese, with the paper's own title, abstract,
authors, comment and journal reference byte-identical; and in the pseudo-locale
(`tests.harness.pseudo_locale`), where nothing English may be left outside what is never
translated. The render cache keys on the language, so one chat's language never leaks into
another's message.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from bot.delivery.compose import PaperMessages
from bot.digest import render_digest_parts, since_text
from bot.failing_notice import admin_notice, chat_notice
from bot.i18n import current_language, speaking
from bot.render import (
    CompactEntry,
    Finder,
    Message,
    render_compact,
    render_paper,
    render_summary,
)
from bot.render.actions import Cause, confirm_row
from bot.render.saved import render_saved_page
from tests.harness.pseudo_locale import english_left, install_pseudo
from tests.harness.rendering import check_message, follows, lines_of, make_record
from watcher.arxiv.records import Record
from watcher.arxiv.taxonomy import category_name
from watcher.core.views import SavedEntry
from watcher.follows.followed import Followed
from watcher.kinds import FollowKind, NewsKind
from watcher.store.digests import DigestContent, DigestItem

TITLE = "Physically Partitioned KVCache Format for CPU–GPU Load Balancing in MoE Inference"
FIRST_SENTENCE = (
    "We present a cache format that splits the keys and values of a mixture of experts across "
    "host and device memory."
)
ABSTRACT = FIRST_SENTENCE + " Our results show a speedup of two on eight GPUs."
AUTHORS = ("Ziyu Wang", "Dezun Dong", "Jane Roe")
COMMENT = "12 pages, 5 figures, accepted at SC26"
JOURNAL = "Proceedings of the International Conference for High Performance Computing 2026"
TOPIC = "RDMA congestion control"
CATEGORY = "Distributed, Parallel, and Cluster Computing"  # arXiv's own name of cs.DC
# What is the paper's or the person's own, never translated.
OWN = [TITLE, ABSTRACT, FIRST_SENTENCE, *AUTHORS, COMMENT, JOURNAL, TOPIC, CATEGORY]


def paper(*, version: int = 1, changes: Iterable[str] | None = None) -> Record:
    record = make_record(
        title=TITLE,
        abstract=ABSTRACT,
        authors=AUTHORS,
        comment=COMMENT,
        version=version,
        categories=("cs.DC", "cs.LG"),
    )
    return replace(
        record, journal_ref=JOURNAL, changes=frozenset(changes) if changes is not None else None
    )


def announcement(record: Record, kind: NewsKind = NewsKind.NEW, *, topic: bool = False) -> Message:
    cause = Cause(17, TOPIC, topic=True) if topic else Cause(7, "Dezun Dong")
    return render_paper(
        record, marked=follows, kind=kind, category_name=category_name, topics=[TOPIC], cause=cause
    )


def buttons(message: Message) -> list[list[str]]:
    return [[button.text for button in row] for row in message.buttons]


def failing(*, identity: str | None = None, kind: FollowKind = FollowKind.PERSON) -> Followed:
    return Followed(
        id=5, name="Gone Person" if identity else "Always Fails", aliases=(), record_count=0,
        last_attempt=None, last_success=None, consecutive_failures=8, next_poll=None,
        last_error="arXiv knows no author id gone_g_1" if identity else "arXiv answered HTTP 500",
        subscribers=3, kind=kind, identity=identity,
        topic="Always Fails" if kind == FollowKind.TOPIC else None,
    )  # fmt: skip


def digest_content() -> DigestContent:
    """A destination's digest, in the language speaking now (the core reads the chat's)."""
    items = (DigestItem(paper(), NewsKind.NEW), DigestItem(paper(version=2), NewsKind.REVISION))
    since = datetime(2026, 12, 4, 1, 0, tzinfo=UTC)  # Fri 4 Dec, 09:00 in Shanghai
    zone = ZoneInfo("Asia/Shanghai")
    return DigestContent(items, since, zone, (("Dezun Dong",),), current_language())


# --- Simplified Chinese -----------------------------------------------------------------------


@pytest.fixture
def chinese() -> Iterator[None]:
    with speaking("zh-Hans"):
        yield


@pytest.mark.usefixtures("chinese")
def test_an_announcement_in_chinese_keeps_the_papers_own_words() -> None:
    message = announcement(paper())
    text = check_message(message)

    assert lines_of(text) == [
        "🆕 新论文 · arXiv:2604.01234v1",
        f"🔎 {TOPIC}",
        TITLE,
        "👥 Ziyu Wang, ★ Dezun Dong, Jane Roe",
        f"📂 cs.DC — {CATEGORY} · 另见 cs.LG",
        "📅 提交于 2026-04-03",
        f"💬 {COMMENT}",
        f"📰 {JOURNAL}",
        ABSTRACT,
    ]
    assert f"<b>{TITLE}</b>" in message.html
    assert f"<blockquote>{ABSTRACT}</blockquote>" in message.html
    assert "🆕 <b>新论文</b>" in message.html
    assert buttons(message) == [
        ["📄 摘要", "📥 PDF", "🌐 HTML"],
        ["❝ 引用", "🔖 收藏", "↗ 分享", "📋 复制 ID"],
        ["🔕 退订 Dezun Dong"],
    ]
    assert buttons(announcement(paper(), topic=True))[-1] == ["🔕 退订此主题"]
    assert [b.text for b in confirm_row(7, "2604.01234", topic=False)] == ["是的，退订", "保留"]


@pytest.mark.usefixtures("chinese")
def test_a_revision_in_chinese_says_what_changed() -> None:
    message = announcement(paper(version=2, changes={"title", "journal_ref"}), NewsKind.REVISION)
    lines = lines_of(check_message(message))

    assert lines[0] == "🔄 已更新至 v2 · arXiv:2604.01234v2"
    assert lines[3] == "✏️ 改动：标题, 期刊引用"
    assert "✏️ <b>改动：</b>标题, 期刊引用" in message.html
    assert "📅 v1 2026-04-03 · v2 2026-04-10" in lines
    assert lines[-1] == "📝 摘要未变：见摘要页面。"
    unchanged = announcement(paper(version=2, changes=()), NewsKind.REVISION)
    assert "✏️ 标题、作者和摘要均未变：改动在论文正文中。" in lines_of(unchanged.plain)


@pytest.mark.usefixtures("chinese")
def test_compact_lines_in_chinese() -> None:
    crowded = make_record(arxiv_id="2604.05678", version=3, title=TITLE,
                          authors=("A One", "B Two", "C Three", "D Four", "E Five"))  # fmt: skip
    untitled = make_record(arxiv_id="2604.09999", title="")
    entries = [
        CompactEntry(paper(), NewsKind.NEW, follows),
        CompactEntry(crowded, NewsKind.REVISION, lambda name: True),
        CompactEntry(untitled, NewsKind.NEW, follows),
    ]
    (page,) = render_compact(entries)

    assert lines_of(check_message(page.message)) == [
        f"{TITLE} · ★ Dezun Dong · cs.DC",
        f"🔄 {TITLE} (v3) · ★ A One, ★ B Two, ★ C Three 及另外 2 人 · cs.DC",
        "（无标题） · ★ Dezun Dong · cs.DC",
    ]


@pytest.mark.usefixtures("chinese")
def test_the_summary_in_chinese() -> None:
    revised = replace(paper(version=2), arxiv_id="2604.04321")
    message = render_summary(
        [(paper(), NewsKind.NEW), (revised, NewsKind.REVISION)],
        [[Finder("Dezun Dong", topic=False)], [Finder(TOPIC, topic=True)]],
    )

    assert lines_of(check_message(message)) == [
        "📬 你离开期间：1 篇新论文，1 篇有更新",
        "★ Dezun Dong",
        f"• {TITLE}",
        f"🔎 {TOPIC}",
        f"• {TITLE} (v2)",
    ]
    many = [(replace(paper(), arxiv_id=f"2604.{n:05d}"), NewsKind.NEW) for n in range(200)]
    crowded = lines_of(check_message(render_summary(many)))
    assert crowded[0] == "📬 你离开期间：200 篇新论文"
    assert crowded[-1].startswith("…… 还有 ") and crowded[-1].endswith(" 篇")


@pytest.mark.usefixtures("chinese")
def test_a_digest_in_chinese_dates_its_start_on_the_chats_clock() -> None:
    (part,) = render_digest_parts(digest_content())

    assert part.html.startswith("📚 <b>自12月4日周五以来的 1 篇新论文</b>")
    assert "🔄 <b>1 篇论文的新版本</b>" in part.html
    assert f"><b>{TITLE}</b></a>" in part.html
    assert f"<i>{FIRST_SENTENCE}</i>" in part.html


def test_the_digests_start_in_english_has_no_leading_zero() -> None:
    assert since_text(digest_content()) == "Fri 4 Dec"  # strftime's %d said "Fri 04 Dec"
    with speaking("zh-Hans"):
        assert since_text(digest_content()) == "12月4日周五"


@pytest.mark.usefixtures("chinese")
def test_the_failing_notices_in_chinese() -> None:
    assert chat_notice(failing(identity="arxiv:gone_g_1")).splitlines() == [
        "⚠️ Gone Person (arxiv:gone_g_1) 查询失败：arXiv knows no author id gone_g_1。",
        "这个作者 ID 不会再带来论文。发送 /unsubscribe arxiv:gone_g_1 退订，或改为按姓名订阅。",
    ]
    topic = chat_notice(failing(kind=FollowKind.TOPIC))
    assert topic.splitlines()[1] == (
        "机器人会继续重试；发送 /unwatch Always Fails 即可退订（/subscriptions 显示其状态）。"
    )
    assert admin_notice([failing()]).splitlines() == [
        "⚠️ <b>个别订阅持续失败</b>（服务整体正常；/stats 中可见）：",
        "• Always Fails：连续失败 8 次，最近一次：arXiv answered HTTP 500；3 个聊天订阅了它",
    ]


def test_the_render_cache_keys_on_the_language() -> None:
    """One paper to a Chinese chat, then to an English one with the same follows: without the
    language in `PaperMessages`' key, the English chat would get the Chinese message."""
    papers = PaperMessages()
    with speaking("zh-Hans"):
        chinese = papers.compose(paper(), NewsKind.NEW, chat_id=1, thread_id=0)
    english = papers.compose(paper(), NewsKind.NEW, chat_id=2, thread_id=0)

    assert chinese.message.plain.startswith("🆕 新论文")
    assert english.message.plain.startswith("🆕 New paper")
    assert papers.compose(paper(), NewsKind.NEW, chat_id=3, thread_id=0) is english  # cached


# --- the pseudo-locale: nothing escaped _() ---------------------------------------------------


def everything_rendered() -> list[tuple[str, str]]:
    """Every message and button text of this area, with what each names: (what, text)."""
    saved = [
        SavedEntry("2604.01234", TITLE, datetime(2026, 4, 5, tzinfo=UTC), paper()),
        SavedEntry("2501.00001", TITLE, datetime(2026, 4, 6, tzinfo=UTC), None),
    ]
    revised = paper(version=2, changes={"title", "authors", "abstract", "categories", "comment",
                                        "journal_ref", "doi"})  # fmt: skip
    messages = {
        "announcement": announcement(paper()),
        "topic's announcement": announcement(paper(), topic=True),
        "revision": announcement(revised, NewsKind.REVISION),
        "unchanged revision": announcement(paper(version=2, changes=()), NewsKind.REVISION),
        "compact": render_compact(
            [
                CompactEntry(paper(version=2), NewsKind.REVISION, lambda name: True),
                CompactEntry(make_record(title=""), NewsKind.NEW, follows),
            ]
        )[0].message,
        "summary": render_summary(
            [(paper(), NewsKind.NEW), (paper(version=2), NewsKind.REVISION)] * 100,
            [[Finder("Dezun Dong", topic=False)], [Finder(TOPIC, topic=True)], []] * 67,
        ),
        "saved": render_saved_page(saved, page=1, per_page=2, total=9, marked=follows),
    }
    for number, part in enumerate(render_digest_parts(digest_content())):
        messages[f"digest part {number}"] = Message(part.html, part.plain)
    texts = [(what, message.html) for what, message in messages.items()]
    texts += [(what, message.plain) for what, message in messages.items()]
    texts += [
        (f"{what}'s button", button.text)
        for what, message in messages.items()
        for row in message.buttons
        for button in row
    ]
    texts += [("confirmation", b.text) for b in confirm_row(7, "2604.01234", topic=False)]
    texts += [("confirmation", b.text) for b in confirm_row(7, "2604.01234", topic=True)]
    texts += [
        ("identity's notice", chat_notice(failing(identity="arxiv:gone_g_1"))),
        ("name's notice", chat_notice(failing())),
        ("topic's notice", chat_notice(failing(kind=FollowKind.TOPIC))),
        ("admins' notice", admin_notice([failing(), failing(identity="arxiv:gone_g_1")])),
    ]
    return texts


def test_nothing_english_is_left_in_the_pseudo_locale() -> None:
    """The proof that every label, button, count and heading of announcements, compact lines,
    summaries, digests, /saved pages and failing notices goes through the catalog: rendered in
    the pseudo-locale, where every translated sentence is wrapped ⟦…⟧, what is left once the
    paper's and the people's own words (title, abstract, authors, comment, journal reference,
    topic, arXiv's category name, arXiv's answer) are taken out holds no English.

    A new English label added without `_()` (say `Span("Read later")`, or a button "Open") stays
    plain in the pseudo-locale: `english_left` returns it (["Read later"]) and this test fails,
    naming the message it was found in.
    """
    exempt = [*OWN, "Gone Person", "Always Fails", "arXiv knows no author id gone_g_1",
              "arXiv answered HTTP 500"]  # fmt: skip
    with speaking(install_pseudo()):
        rendered = everything_rendered()
        since = since_text(digest_content())
    left = {what: english_left(text, exempt) for what, text in rendered}
    assert {what: words for what, words in left.items() if words} == {}
    assert english_left(since) == []
    # It sees English: the same messages in English are full of it.
    assert any(english_left(text, exempt) for __, text in everything_rendered())
