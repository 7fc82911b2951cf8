"""Every message of this area fits Telegram's 4096 characters, and every button's callback data
its 64 bytes, in every language (English, Simplified Chinese, and the pseudo-locale, whose
sentences are a little longer than English), with the longest values a paper or a chat
realistically has: a long title, hundreds of authors with long names, the longest abstract of
the real records, long comments, journal references, classes, topics and follow labels, and the
longest arXiv ids.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.digest import render_digest_parts
from bot.failing_notice import admin_notice, chat_notice
from bot.handlers.why import why_text
from bot.i18n import speaking
from bot.i18n.dates import short_day
from bot.render import (
    MAX_CALLBACK_DATA_BYTES,
    MAX_MESSAGE_LENGTH,
    CompactEntry,
    Finder,
    Message,
    render_compact,
    render_paper,
    render_paper_list,
    render_paper_lookup,
    render_summary,
)
from bot.render.actions import Cause, confirm_row, save_button
from bot.render.saved import render_saved_page
from bot.render.suggested import render_suggestions
from tests.harness.pseudo_locale import install_pseudo
from tests.harness.rendering import RECORDS_FILE, check_message, make_record, utf16_units
from watcher.arxiv.records import Record
from watcher.arxiv.taxonomy import category_name
from watcher.calendars.announcements import AnnouncementCalendar
from watcher.calendars.schedule import DigestSchedule
from watcher.core.suggestions import MAX_COUNT as MAX_SUGGESTED
from watcher.core.suggestions import Explanation, SuggestedPaper
from watcher.core.views import SavedEntry
from watcher.core.why import WhyAnswer
from watcher.follows.followed import Followed
from watcher.kinds import FollowKind, MessageFormat, NewsKind
from watcher.store.digests import DigestContent, DigestItem, DigestSettings
from watcher.store.mailings import MailingNews
from watcher.store.speaking import SpeakingSettings

KINDS = (NewsKind.NEW, NewsKind.REVISION)
LANGUAGES = ["en", "zh-Hans", install_pseudo()]
LONGEST_ID = "cond-mat.mes-hall/0501234"  # longer than any real id, old style or new
LONGEST_FOLLOW_ID = 2**63 - 1
WHY_LENGTH = 600  # /why's answer: a few short lines (`bot.handlers.why`)
LONGEST_ZONE = "America/Argentina/ComodRivadavia"  # the longest IANA name
NAME = "Maximilian-Alexander Wolfeschlegelsteinhausen-Bergerdorff von Hohenzollern-Sigmaringen"


def longest_abstract() -> str:
    records = json.loads(RECORDS_FILE.read_text(encoding="utf-8"))
    return str(max((r["abstract"] for r in records), key=len))


def longest(arxiv_id: str = LONGEST_ID, *, version: int = 99) -> Record:
    record = make_record(
        arxiv_id=arxiv_id,
        version=version,
        title=" ".join(["Unified Long-Horizon Benchmarks for Heterogeneous Accelerators"] * 5),
        abstract=longest_abstract() * 2,
        authors=tuple(f"{NAME} {n}" for n in range(400)),
        categories=("cond-mat.mes-hall", *[f"physics.acc-ph{n}" for n in range(30)]),
        primary_category="cond-mat.mes-hall",
        comment="Extended version with appendices; " * 20,
    )
    return replace(
        record,
        journal_ref="Journal of Extremely Long Journal Names and Their Proceedings " * 6,
        msc_class="68M14, 68M20, 68W10, 68W15, 90B18 " * 10,
        acm_class="C.2.4; C.4; D.1.3; D.4.7 " * 10,
        changes=frozenset({"title", "authors", "abstract", "categories", "comment",
                           "journal_ref", "doi"}),
    )  # fmt: skip


def messages() -> list[Message]:
    record, topic = longest(), "benchmarks for heterogeneous accelerators " * 5
    person = Cause(LONGEST_FOLLOW_ID, NAME * 2)
    found = [Finder(NAME * 2, topic=False), Finder(topic, topic=True)]
    rendered = [
        render_paper(record, marked=lambda name: True, kind=kind, category_name=category_name,
                     topics=[topic] * 5, cause=cause)
        for kind in (NewsKind.NEW, NewsKind.REVISION)
        for cause in (person, Cause(LONGEST_FOLLOW_ID, topic, topic=True))
    ]  # fmt: skip
    rendered.append(render_paper_lookup(record, marked=lambda name: True))
    entries = [CompactEntry(longest(f"2604.{n:05d}"), NewsKind.REVISION, lambda name: True)
               for n in range(40)]  # fmt: skip
    rendered += [page.message for page in render_compact(entries)]
    many = [(longest(f"2604.{n:05d}"), KINDS[n % 2]) for n in range(500)]
    rendered.append(render_summary(many, [found[n % 2 :] for n in range(500)]))
    records = [longest(f"2604.{n:05d}") for n in range(20)]
    rendered.append(render_paper_list(records, title=topic * 3, page=499, per_page=20,
                                      total=99_999, callback_prefix="r:20", note=topic * 3,
                                      marked=lambda name: True))  # fmt: skip
    saved = [SavedEntry(LONGEST_ID, topic * 3, datetime(2026, 4, 5, tzinfo=UTC), None)] * 20
    rendered.append(render_saved_page(saved, page=9999, per_page=20, total=99_999))
    items = tuple(DigestItem(longest(f"2604.{n:05d}"), KINDS[n % 2]) for n in range(300))
    since = datetime(2026, 12, 4, tzinfo=UTC)
    content = DigestContent(items, since, ZoneInfo("Pacific/Kiritimati"), ((NAME,),))
    rendered += [Message(part.html, part.plain) for part in render_digest_parts(content)]
    # "Suggested for you": ten of the longest, like the longest title, or ten long words shared.
    like = Explanation(like=record.title, shared=())
    words = Explanation(like=None, shared=tuple(["interconnection" * 3] * 10))
    suggested = [SuggestedPaper(longest(f"2604.{n:05d}"), (like, words)[n % 2], 0.5)
                 for n in range(MAX_SUGGESTED)]  # fmt: skip
    rendered.append(render_suggestions(suggested, day=short_day(since)))
    rendered.append(render_suggestions([SuggestedPaper(record, like, 0.5)], day="x"))
    for few in (items[:1], items):  # room in the last part, and hardly any
        digest = replace(content, items=few, suggestions=tuple(suggested))
        rendered += [Message(part.html, part.plain) for part in render_digest_parts(digest)]
    return rendered


def notices() -> list[str]:
    followed = Followed(
        id=LONGEST_FOLLOW_ID, name=NAME * 3, aliases=(), record_count=0, last_attempt=None,
        last_success=None, last_error="arXiv answered HTTP 503: " + "Service Unavailable " * 50,
        consecutive_failures=99_999, next_poll=None, subscribers=99_999,
    )  # fmt: skip
    identity = replace(followed, identity="arxiv:" + "wolfeschlegel_m_1" * 4)
    topic = replace(followed, kind=FollowKind.TOPIC, topic=NAME * 3)
    admins = admin_notice([followed] * 12)
    return [chat_notice(followed), chat_notice(identity), chat_notice(topic), admins]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_fits_in_every_language(language: str) -> None:
    with speaking(language):
        rendered = messages()
        told = notices()
    for message in rendered:
        check_message(message)  # valid HTML, within our 4000 of Telegram's 4096
        assert utf16_units(message.plain) <= MAX_MESSAGE_LENGTH
    for text in told:
        assert utf16_units(text) <= MAX_MESSAGE_LENGTH


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_callback_data_fits_in_64_bytes(language: str) -> None:
    with speaking(language):
        rendered = messages()
        more = [save_button(LONGEST_ID, saved=True), save_button(LONGEST_ID, saved=False)]
        more += confirm_row(LONGEST_FOLLOW_ID, LONGEST_ID, topic=True)
    buttons = [button for message in rendered for row in message.buttons for button in row]
    buttons += more
    data = [button.callback_data for button in buttons if button.callback_data is not None]
    # The buttons that carry the longest ids are all there: Cite, Save, Unfollow, /saved's.
    assert any(d.startswith(f"a:u:{LONGEST_FOLLOW_ID}:{LONGEST_ID}") for d in data)
    assert any(d.startswith("v:x:9999:") for d in data)
    assert any(d == f"sg:-:{LONGEST_ID}" for d in data)  # 👎 under a suggestion
    assert all(len(d.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES for d in data)


def longest_why() -> WhyAnswer:
    """/why's longest answer with the listing's count: a Friday night (no announcement), the
    batch read with 99,999 new papers and none of the 9,999 follows in it, a source failing,
    paused, a digest holding papers, in the longest zone."""
    calendar = AnnouncementCalendar()
    now = datetime(2026, 12, 4, 21, 0, tzinfo=ZoneInfo("America/New_York"))  # a Friday
    last = calendar.latest_at_or_before(now)
    assert last is not None
    follow = Followed(
        id=LONGEST_FOLLOW_ID, name=NAME, aliases=(), record_count=0, last_attempt=None,
        last_success=None, last_error=None, consecutive_failures=0, next_poll=None,
        subscribers=1,
    )  # fmt: skip
    return WhyAnswer(
        now=now, calendar=calendar, last=last, next=calendar.next_after(now),
        mailing=MailingNews(last.mailing, "listing", last.at + timedelta(minutes=59),
                            last.mailing, 99),
        listed=99_999, failing=("OAI",), follows=(follow,) * 9_999, got=(),
        speaking=SpeakingSettings(True, now, None, None, None, False, MessageFormat.FULL,
                                  False, 99_999),
        digest=DigestSettings(LONGEST_ZONE, ZoneInfo(LONGEST_ZONE), DigestSchedule(time(8)),
                              now + timedelta(days=1), 99_999),
        harvest_after=timedelta(hours=2, minutes=30), api_after=timedelta(hours=4, minutes=5),
        listings=True,
    )  # fmt: skip


@pytest.mark.parametrize("language", LANGUAGES)
def test_why_with_the_listings_count_stays_a_few_short_lines(language: str) -> None:
    with speaking(language):
        text = why_text(longest_why())
    assert text.count("99,999") == 2  # the count, in the batch's line and in "none matched"
    assert len(text.split("\n")) == 7
    assert len(text) <= WHY_LENGTH
