"""The answers about what a chat follows, and about papers, in the chat's language (issue 31):
/subscribe's and /watch's outcomes (`bot.handlers.follow_answers`), the homonym question
(`bot.handlers.offers`), /unsubscribe and /subscriptions' lines (`bot.handlers.subscriptions`),
/unwatch (`bot.handlers.topics`), /recent, /subject and /search when they have no list
(`bot.handlers.questions`), /paper (`bot.handlers.paper_answers`), /authors
(`bot.handlers.author_list`, `bot.handlers.coauthors`) and a paper's Unfollow button
(`bot.handlers.paper_buttons`).

Each renderer is read in Simplified Chinese (the sentences say it, the commands and `<code>`
examples stay as they are) and in the pseudo-locale, where no English sentence may be left.
What other modules say inside these answers (`Place.here`, a refusal's "For example:", the
names of categories) is theirs: it is left out of the pseudo-locale's check, as the names and
titles are.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.arguments import Refused
from bot.handlers.author_list import author_page
from bot.handlers.coauthors import _missing, _not_followed
from bot.handlers.common import Place, refusal
from bot.handlers.follow_answers import (
    budget_spent,
    chosen_answer,
    full,
    full_of_topics,
    identity_answer,
    per_day,
    person_answer,
    topic_answer,
    watched_answer,
)
from bot.handlers.offers import STALE, expired, question
from bot.handlers.paper_answers import paper_answer
from bot.handlers.paper_buttons import _already_gone, _done, _question
from bot.handlers.questions import _list, _search_list
from bot.handlers.subscriptions import _checked, _unsubscribed
from bot.handlers.topics import _listing, _unwatch_argument, _unwatched
from bot.i18n import _, speaking
from bot.render import Message
from bot.render.actions import UNFOLLOW, Action
from tests.fakes.corpus import make_record
from tests.harness.pseudo_locale import english_left, install_pseudo
from watcher.arxiv.taxonomy import category_name
from watcher.core.coauthors import AuthorEntry, AuthorList, AuthorMoved, PaperGone, author_mark
from watcher.core.homonym_question import Asked
from watcher.core.lookup import Found, Missing, NoSuchVersion
from watcher.core.questions import NobodyFollowed, NoneInCategory, NoneStored, Scope, SearchPage
from watcher.core.subscribing import (
    AllFollowed,
    Already,
    BudgetSpent,
    NotFound,
    NothingWatched,
    OverLimit,
    Start,
    Subscribed,
    TooCommon,
    TooSlow,
    Unreachable,
    WatchedJoined,
)
from watcher.core.unfollowing import NoSuchNumber, NotFollowed, Stopped
from watcher.errors import ArxivError, UsageError
from watcher.follows.followed import Followed
from watcher.follows.homonyms import NameSurvey
from watcher.follows.identity import Identity
from watcher.follows.rules import PersonRule
from watcher.follows.search_words import SearchQuery
from watcher.follows.topics import parse_topic
from watcher.kinds import FollowKind
from watcher.store.offers import Offer

CHAT = Place(-100)
FORUM_TOPIC = Place(-100, 7)
WHEN = datetime(2026, 12, 1, 9, tzinfo=UTC)
NAMES = ("Dezun Dong", "Yemao Xu", "Wei Wang")
TITLE = "Scalable Allreduce over RDMA Networks"


def follow(name: str = "Dezun Dong", **overrides: object) -> Followed:
    values: dict[str, object] = {
        "id": 1,
        "name": name,
        "aliases": (),
        "record_count": 12,
        "last_attempt": WHEN,
        "last_success": WHEN,
        "last_error": None,
        "consecutive_failures": 0,
        "next_poll": None,
    }
    values.update(overrides)
    return Followed(**values)  # type: ignore[arg-type]


def _theirs() -> list[str]:
    """What other modules put in these answers, in the language speaking now."""
    lead = refusal("", "x").split("\n")[1].removesuffix(" <code>x</code>")
    return [CHAT.here, FORUM_TOPIC.here, lead]


def answers() -> list[str]:
    """Every answer of these renderers that needs no list of papers, in the language speaking
    now."""
    rule = PersonRule(("Dezun Dong",))
    several = PersonRule(("Dong, Dezun, Xu Yemao",))
    in_categories = PersonRule(("Wei Wang",), categories=("cs.DC", "cs.NI"))
    identity = Identity("arxiv", "dong_d_1")
    dong = follow()
    fresh = follow(record_count=0, last_success=None)
    topic = parse_topic('"remote direct memory access" RDMA in cs.DC')
    either = parse_topic("allreduce (RDMA OR InfiniBand OR NVLink) -survey in cs.DC,cs.NI")
    whole = parse_topic("in cs.DC")
    topic_follow = follow(
        "allreduce", kind=FollowKind.TOPIC, topic="allreduce", categories=("cs.DC",)
    )
    spent = BudgetSpent(wait=1500)
    error = ArxivError("HTTP 503 from export.arxiv.org")
    failing = follow(consecutive_failures=4, last_error="HTTP 503 from export.arxiv.org")
    unknown = follow(consecutive_failures=1, last_error="arXiv knows no author id dong_d_9")
    texts: list[str] = [
        full(),
        full_of_topics(),
        watched_answer(CHAT, NothingWatched()),
        watched_answer(CHAT, AllFollowed((dong,))),
        watched_answer(FORUM_TOPIC, WatchedJoined((dong, fresh, *[dong] * 11))),
        budget_spent(spent),
        per_day(None),
        per_day(3),
        per_day(7),
        per_day(700),
        expired("Wei Wang"),
        _(STALE),
    ]
    for outcome in (
        Subscribed(dong, Start.NEW, found=12),
        Subscribed(dong, Start.RESUMED),
        Subscribed(fresh, Start.KEPT),
        Subscribed(dong, Start.KEPT),
        Already(dong),
        OverLimit(),
        spent,
        TooSlow(),
        Unreachable(error),
    ):
        texts.append(person_answer(CHAT, rule, outcome, settings=None))  # type: ignore[arg-type]
        texts.append(identity_answer(CHAT, identity, outcome, settings=None))  # type: ignore[arg-type]
    texts += [
        person_answer(CHAT, in_categories, Subscribed(dong, Start.NEW, 3), None),  # type: ignore[arg-type]
        person_answer(CHAT, rule, NotFound(), None),  # type: ignore[arg-type]
        person_answer(CHAT, several, NotFound(), None),  # type: ignore[arg-type]
        person_answer(CHAT, rule, TooCommon(total=123_456, limit=10_000), None),  # type: ignore[arg-type]
        chosen_answer(CHAT, rule, Subscribed(dong, Start.NEW, found=40)),
        chosen_answer(CHAT, in_categories, Subscribed(dong, Start.NEW, found=40)),
        chosen_answer(CHAT, rule, Subscribed(dong, Start.KEPT)),
    ]
    for shown in (topic, either, whole):
        for outcome in (Subscribed(topic_follow, Start.NEW), Already(topic_follow)):
            texts.append(topic_answer(CHAT, shown, outcome, None, week=70))  # type: ignore[arg-type]
    texts += [
        _unsubscribed(CHAT, rule, Stopped(dong), None),
        _unsubscribed(CHAT, PersonRule(("D Dong",)), NotFollowed(), dong),
        _unsubscribed(FORUM_TOPIC, rule, NotFollowed(), None),
        _checked(dong, UTC),
        _checked(fresh, UTC),
        _checked(failing, UTC),
        _checked(follow(consecutive_failures=1, last_error="timeout"), UTC),
        _checked(unknown, UTC),
        _listing(CHAT, []),
        _listing(CHAT, [topic_follow] * 3),
        _unwatched(CHAT, NoSuchNumber(number=4, count=2), None),
        _unwatched(CHAT, NoSuchNumber(number=1, count=0), None),
        _unwatched(CHAT, NotFollowed(), topic),
        _unwatched(CHAT, Stopped(topic_follow), topic),
        _done(CHAT, dong),
        _done(CHAT, topic_follow),
        _already_gone(FORUM_TOPIC),
        _question(CHAT, dong, Action(UNFOLLOW, "2604.01234", dong.id)).html,
        _question(FORUM_TOPIC, topic_follow, Action(UNFOLLOW, "2604.01234", 1)).html,
    ]
    for typed in (["cs.DC"], ["xx.YY"]):
        with pytest.raises(UsageError) as refused:
            _unwatch_argument(typed)
        error = refused.value  # as the bot answers it (`reply_usage`), not its English str()
        texts.append(refusal(error.wrong, error.example) if isinstance(error, Refused) else "")
    scope = Scope((dong,), own=True)
    texts += [
        _text(_list(NobodyFollowed(), None, 5, 0)),
        _text(_list(NoneStored(scope), None, 5, 0)),
        _text(_list(NoneInCategory(scope, (("cs.NI", 3),)), ("cs.DC",), 5, 0)),
        _text(_list(NoneInCategory(scope, ()), ("cs.DC", "cs.NI"), 5, 0)),
        _text(_search_list(SearchPage(SearchQuery(("allreduce",), None), (), 0, ()), 0)),
    ]
    record = make_record(arxiv_id="2604.01234", version=2, title=TITLE, authors=list(NAMES))
    texts += [
        _text(paper_answer(Missing("2604.99999"), marked=lambda _name: False)),
        _text(paper_answer(Missing("2604.99999", "bad id"), marked=lambda _name: False)),
        _text(paper_answer(spent, marked=lambda _name: False)),
        _text(paper_answer(TooSlow(), marked=lambda _name: False)),
        _text(paper_answer(Unreachable(error), marked=lambda _name: False)),
        _missing(Missing("2604.99999")),
        _missing(Missing("2604.99999", "bad id")),
        _not_followed(PaperGone("2604.01234")),
        _not_followed(AuthorMoved("2604.01234")),
    ]
    notes = [
        paper_answer(NoSuchVersion(record, asked=5), marked=lambda _name: False),
        paper_answer(Found(record, fetched=False, newest=3), marked=lambda _name: False),
        paper_answer(Found(record, fetched=True), marked=lambda _name: False),
    ]
    texts += [_text(note).rsplit("\n\n", 1)[-1] for note in notes]  # the line under the paper
    many = AuthorList(
        record,
        tuple(AuthorEntry(n, f"Author {n}", n == 0, author_mark(f"Author {n}")) for n in range(45)),
    )
    for page in (author_page(many, 1, asked_version=1), author_page(many, 2)):
        lines = page.html.split("\n")
        texts += [lines[0], lines[2], lines[-1]]  # the head, the version's note, the help
        texts += [
            button.text for row in page.buttons for button in row if "Author" not in button.text
        ]
    survey = NameSurvey(total=4000, categories=(("cs.DC", 40), ("math.OC", 9)))
    for anyway in (True, False):
        offer = Offer(CHAT.chat_id, 0, ("Wei Wang",), survey.categories, anyway, survey.total)
        asked = question(Asked(offer, survey, "t0k3n"))
        texts.append(asked.html)
        texts += [button.text for row in asked.buttons for button in row]
    small = NameSurvey(total=120, categories=(("cs.DC", 40), ("math.OC", 9)))
    offer = Offer(CHAT.chat_id, 0, ("Wei Wang",), small.categories, True, small.total)
    asked = question(Asked(offer, small, "t0k3n"))
    texts += [asked.html, *(button.text for row in asked.buttons for button in row)]
    return texts


def _text(answer: Message | str) -> str:
    return answer.html if isinstance(answer, Message) else answer


def test_the_answers_about_follows_and_papers_are_in_chinese() -> None:
    with speaking("zh-Hans"):
        said = "\n".join(answers())
        topic = topic_answer(
            CHAT,
            parse_topic("allreduce (RDMA OR InfiniBand) -survey in cs.DC"),
            Subscribed(follow(kind=FollowKind.TOPIC), Start.NEW),
            None,  # type: ignore[arg-type]
        )
        listed = _listing(
            CHAT,
            [follow("allreduce", kind=FollowKind.TOPIC, topic="allreduce", categories=("cs.DC",))]
            * 2,
        )
    assert "现已订阅 <b>Dezun Dong</b>" in said
    assert "arXiv 上没有 <b>Dezun Dong</b> 的论文" in said
    assert "通常每天约 100 篇论文（上周 700 篇）" in said
    assert "<code>/unsubscribe Dezun Dong</code>" in said  # the example stays as typed
    assert "<code>/subscribe Dezun Dong; Yemao Xu</code>" in said
    assert "此按钮已失效" in said
    assert "退订主题 <b>allreduce in cs.DC</b> 吗？其他订阅不受影响。" in said
    assert "4,000 篇论文" in said  # the homonym question's button
    assert "👥 arXiv:2604.01234v2 的作者（共 45 位，第 2/3 页）" in said
    assert "◀ 上一页" in said and "下一页 ▶" in said
    assert (
        "包含 <code>allreduce</code> 和 <code>infiniband</code> 或 <code>rdma</code> 二者之一，"
        "但不含 <code>survey</code> 的新论文"
    ) in topic
    assert listed.splitlines()[-1] == "/unwatch N 退订第 N 个主题，例如 /unwatch 1。"


def test_no_english_sentence_is_left_in_the_pseudo_locale() -> None:
    with speaking(install_pseudo()):
        said = answers()
        theirs = _theirs()
    exempt = [*NAMES, TITLE, *theirs, category_name("cs.DC") or "", category_name("cs.NI") or ""]
    left = {text: english_left(text, exempt) for text in said}
    assert {text: words for text, words in left.items() if words} == {}
