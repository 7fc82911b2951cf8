"""What a chat is told when it asks to follow someone or something: the one answer to each outcome
of `watcher.core.subscribing`, for /subscribe (alone, NAME, AUTHOR-ID), the homonym question's
buttons and /watch. Pure functions: HTML text, whatever the user typed escaped.
"""

from __future__ import annotations

import html

from bot.handlers.budget import minutes
from bot.handlers.common import MAX_NAMES_IN_A_SENTENCE, Place, bold_names, papers, refusal
from bot.i18n import N_, _, ngettext, say
from watcher.core.subscribing import (
    AllFollowed,
    Already,
    BudgetSpent,
    NeedsChoice,
    NotFound,
    NothingWatched,
    Outcome,
    OverLimit,
    Start,
    Subscribed,
    TooCommon,
    TooSlow,
    TopicOutcome,
    Unreachable,
    WatchedOutcome,
)
from watcher.core.views import MAX_SUBSCRIPTIONS
from watcher.errors import ArxivError
from watcher.follows.followed import Followed
from watcher.follows.identity import EXAMPLE_ARXIV_PAGE, Identity
from watcher.follows.rules import PersonRule
from watcher.follows.topics import Topic
from watcher.settings import Settings


def _full(example: str) -> str:
    """The refusal when the chat follows the most allowed; `example` stops one."""
    return refusal(
        _(
            "This chat already follows {most} authors and topics, the most allowed, so stop one "
            "first.",
            most=MAX_SUBSCRIPTIONS,
        ),
        example,
    )


def full() -> str:
    """The chat follows `MAX_SUBSCRIPTIONS` already (a name was asked for)."""
    return _full("/unsubscribe Dezun Dong")


def full_of_topics() -> str:
    """The chat follows `MAX_SUBSCRIPTIONS` already (a topic was asked for)."""
    return _full("/unwatch 1")


_ARXIV_PAGE_EXAMPLE = f"/subscribe {EXAMPLE_ARXIV_PAGE}"


def watched_answer(place: Place, outcome: WatchedOutcome) -> str:
    """/subscribe alone: the chat follows the authors the service watches."""
    if isinstance(outcome, NothingWatched):
        return refusal(_("I watch nobody yet, so follow someone by name."), "/subscribe Dezun Dong")
    if isinstance(outcome, AllFollowed):
        return _(
            "{here} already follows {names}. /recent shows the newest papers.",
            here=place.here,
            names=bold_names(outcome.watched),
        )
    if isinstance(outcome, OverLimit):
        return full()
    added = outcome.added
    details = "; ".join(
        _(
            "<b>{name}</b> ({papers} on record)",
            name=html.escape(f.label),
            papers=papers(f.record_count),
        )
        if f.backfilled
        else _("<b>{name}</b> (papers not fetched yet)", name=html.escape(f.label))
        for f in added[:MAX_NAMES_IN_A_SENTENCE]
    )
    if len(added) > MAX_NAMES_IN_A_SENTENCE:
        rest = len(added) - MAX_NAMES_IN_A_SENTENCE
        details = ngettext("{names}; and {n} more", "{names}; and {n} more", rest, names=details)
    return _(
        "✅ {here} now follows {names}. New papers will be posted here.",
        here=place.here,
        names=details,
    )


def person_answer(place: Place, rule: PersonRule, outcome: Outcome, settings: Settings) -> str:
    """/subscribe NAME, whatever became of it but the homonym question."""
    shown = f"<b>{html.escape(str(rule))}</b>"
    if isinstance(outcome, Subscribed) and outcome.start is Start.NEW:
        followed = outcome.followed
        values = {
            "here": place.here,
            "name": html.escape(followed.label),
            "papers": papers(outcome.found),
        }
        if followed.categories:
            return _(
                "✅ {here} now follows <b>{name}</b>: arXiv lists {papers} under that name "
                "there. Their history is being fetched; new papers will be posted here.",
                **values,
            )
        return _(
            "✅ {here} now follows <b>{name}</b>: arXiv lists {papers} under that name. Their "
            "history is being fetched; new papers will be posted here.",
            **values,
        )
    if isinstance(outcome, NotFound):
        if "," in rule.display:  # "Dong, Dezun, Xu Yemao": commas between names only split
            return refusal(  # when each part is a full name (`bot.arguments.follow_parts`)
                _(
                    "arXiv lists no papers by {name}, so this chat does not follow that name; to "
                    "follow several people, separate their names with ;.",
                    name=shown,
                ),
                "/subscribe Dezun Dong; Yemao Xu",
            )
        return refusal(
            _(
                "arXiv lists no papers by {name}, so this chat does not follow that name; check "
                "the spelling of the full name.",
                name=shown,
            ),
            "/subscribe Dezun Dong",
        )
    if isinstance(outcome, TooCommon):
        return refusal(
            _(
                "arXiv lists {total} papers under {name}, more than one name may bring (at most "
                "{limit}), so write the given names out in full.",
                total=f"{outcome.total:,}",
                name=shown,
                limit=f"{outcome.limit:,}",
            ),
            "/subscribe Dezun Dong",
        )
    assert not isinstance(outcome, NeedsChoice), "the homonym question is asked by the handler"
    return _common_answer(place, str(rule), outcome, settings)


def identity_answer(place: Place, identity: Identity, outcome: Outcome, settings: Settings) -> str:
    """/subscribe AUTHOR-ID, whatever became of it."""
    if isinstance(outcome, Subscribed) and outcome.start is Start.NEW:
        return _(
            "✅ {here} now follows <b>{name}</b>: arXiv lists {papers} they claimed. Their "
            "history is being fetched; new papers will be posted here (only those they claim on "
            "arXiv).",
            here=place.here,
            name=html.escape(outcome.followed.label),
            papers=papers(outcome.found),
        )
    if isinstance(outcome, NotFound):
        return unknown_identity(identity)
    return _common_answer(place, identity.shown, outcome, settings)


def _common_answer(place: Place, name: str, outcome: Outcome, settings: Settings) -> str:
    """The answers a name and an author id share: `name` is what the chat asked for."""
    if isinstance(outcome, Already):
        return _already(place, outcome.followed)
    if isinstance(outcome, OverLimit):
        return full()
    if isinstance(outcome, BudgetSpent):
        return budget_spent(outcome)
    if isinstance(outcome, TooSlow):
        return _(
            "⚠️ arXiv is slow to answer just now, so this chat does not follow <b>{name}</b> "
            "yet. Please try again in a few minutes.",
            name=html.escape(name),
        )
    if isinstance(outcome, Unreachable):
        return _unreachable(name, outcome.error)
    assert isinstance(outcome, Subscribed), outcome
    followed = outcome.followed
    here, name, count = place.here, html.escape(followed.label), papers(followed.record_count)
    if outcome.start is Start.RESUMED:
        return _(
            "✅ {here} now follows <b>{name}</b> ({papers} on record). Their latest papers are "
            "being checked on arXiv; new ones will be posted here.",
            here=here,
            name=name,
            papers=count,
        )
    if not followed.backfilled:
        return _(
            "✅ {here} now follows <b>{name}</b>. Their papers are being fetched from arXiv; new "
            "ones will be posted here.",
            here=here,
            name=name,
        )
    return _(
        "✅ {here} now follows <b>{name}</b>: {papers} found on arXiv. New ones will be posted "
        "here; /recent shows the newest.",
        here=here,
        name=name,
        papers=count,
    )


BUSY_PER_DAY = 10  # papers a day past which /watch of a whole category suggests /digest


def budget_spent(outcome: BudgetSpent) -> str:
    """The one answer, for names, author ids and topics alike, when the chat's budget of new
    follows (or of arXiv look-ups) is spent for now (`watcher.store.budgets`)."""
    return _(
        "This chat has asked for enough new names and topics for now; try again in {wait}.",
        wait=minutes(outcome.wait),
    )


def chosen_answer(
    place: Place, rule: PersonRule, outcome: Subscribed | Already | OverLimit | BudgetSpent
) -> str:
    """A button of the homonym question: the name in one category (`rule` has it), or whole."""
    if isinstance(outcome, OverLimit):
        return full()
    if isinstance(outcome, BudgetSpent):
        return budget_spent(outcome)
    if isinstance(outcome, Already):
        return _already(place, outcome.followed)
    here, name = place.here, html.escape(outcome.followed.label)
    if outcome.start is Start.KEPT:  # another chat follows it already: nothing to fetch
        return _(
            "✅ {here} now follows <b>{name}</b> ({papers} on record). New papers will be "
            "posted here.",
            here=here,
            name=name,
            papers=papers(outcome.followed.record_count),
        )
    if not rule.categories:
        return _(
            "✅ {here} now follows <b>{name}</b>: arXiv lists {papers} under that name. Their "
            "history is being fetched; new papers will be posted here.",
            here=here,
            name=name,
            papers=papers(outcome.found),
        )
    return _(
        "✅ {here} now follows <b>{name}</b>: their papers listed in {categories}, primary or "
        "cross-list. Their history is being fetched; new papers will be posted here.",
        here=here,
        name=name,
        categories=", ".join(rule.categories),
    )


def topic_answer(
    place: Place,
    topic: Topic,
    outcome: TopicOutcome,
    settings: Settings,
    *,
    week: int | None = None,
) -> str:
    """/watch TOPIC, whatever became of it; for a whole category, `week` is how many of its
    papers the last week brought (None: not known)."""
    if isinstance(outcome, Already):
        return _(
            "{here} already watches <b>{topic}</b>. /subscriptions lists what it follows.",
            here=place.here,
            topic=html.escape(str(topic)),
        ) + (f"\n{per_day(week)}" if topic.whole else "")
    if isinstance(outcome, OverLimit):
        return full_of_topics()
    if isinstance(outcome, BudgetSpent):
        return budget_spent(outcome)
    here, shown, categories = place.here, html.escape(str(topic)), ", ".join(topic.categories)
    if topic.whole:
        watched = _(
            "✅ {here} now watches <code>{topic}</code>: every new paper in {categories} "
            "(primary or cross-list) will be posted here. Papers that came out before now are "
            "not announced.",
            here=here,
            topic=shown,
            categories=categories,
        )
        return f"{watched}\n{per_day(week)}"
    return _(
        "✅ {here} now watches <code>{topic}</code>: new papers in {categories} whose title or "
        "abstract holds {terms} will be posted here. Papers that came out before now are not "
        "announced.",
        here=here,
        topic=shown,
        categories=categories,
        terms=_terms(topic),
    )


def per_day(week: int | None) -> str:
    """How many papers a day a whole category usually brings, from the last week's count, and
    /digest when that is more than `BUSY_PER_DAY`."""
    if week is None:
        return _(
            "How many papers a day that means is not known yet (I have not kept all of it for a "
            "week); a busy category brings dozens, and /digest daily 8am gathers a day's papers "
            "into one message."
        )
    daily = week / 7
    if week and daily < 1:
        line = _("That usually means fewer than one paper a day ({week} last week).", week=week)
    else:
        line = ngettext(
            "That usually means about {n} paper a day ({week} last week).",
            "That usually means about {n} papers a day ({week} last week).",
            round(daily),
            week=week,
        )
    if daily > BUSY_PER_DAY:
        line += " " + _("That is a lot of messages: /digest daily 8am sends them as one a day.")
    return line


def _terms(topic: Topic) -> str:
    """What a topic was understood to look for, term by term: `"a b"`, `c` and not `d`; with
    alternatives, `"a b" and either c or d`."""
    required = [_code(p) for p in topic.required]
    groups = [
        _("either {choices}", choices=_listed([_code(p) for p in group], _OR))
        if len(group) == 2
        else _("one of {choices}", choices=_listed([_code(p) for p in group], _OR))
        for group in topic.alternatives
    ]
    shown = _listed([*required, *groups], _AND)
    if len(required) > 1 and not groups:
        shown = _("every one of {terms}", terms=shown)
    excluded = [_code(p) for p in topic.excluded]
    if not excluded:
        return shown
    return _("{terms}, but none of {excluded}", terms=shown, excluded=", ".join(excluded))


def _code(phrase: tuple[str, ...]) -> str:
    return f"<code>{html.escape(_term(phrase))}</code>"


_AND, _OR = N_("{items} and {last}"), N_("{items} or {last}")


def _listed(items: list[str], joiner: str) -> str:
    """`a`, `a and b`, `a, b and c` (with `_OR` for `joiner`: `a, b or c`)."""
    if len(items) == 1:
        return items[0]
    return _(joiner, items=", ".join(items[:-1]), last=items[-1])


def _term(phrase: tuple[str, ...]) -> str:
    return phrase[0] if len(phrase) == 1 else '"' + " ".join(phrase) + '"'


def unknown_identity(identity: Identity) -> str:
    """The answer to an author id (or ORCID iD) that arXiv has no author feed for. Its example
    never offers the very id arXiv just said it does not know: then it follows by name."""
    example = _ARXIV_PAGE_EXAMPLE
    if identity.value in example:
        example = "/subscribe Dezun Dong"
    return refusal(html.escape(_("{problem}.", problem=say(identity.unknown))), example)


def _unreachable(name: str, error: ArxivError) -> str:
    return _(
        "⚠️ I could not reach arXiv just now ({error}), so this chat does not follow "
        "<b>{name}</b> yet. Please try again in a few minutes.",
        error=html.escape(str(error)[:200]),
        name=html.escape(name),
    )


def _already(place: Place, followed: Followed) -> str:
    return _(
        "{here} already follows <b>{name}</b>. /subscriptions lists what it follows.",
        here=place.here,
        name=html.escape(followed.label),
    )
