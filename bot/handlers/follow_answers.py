"""What a chat is told when it asks to follow someone or something: the one answer to each outcome
of `watcher.core.subscribing`, for /subscribe (alone, NAME, AUTHOR-ID), the homonym question's
buttons and /watch. Pure functions: HTML text, whatever the user typed escaped.
"""

from __future__ import annotations

import html

from bot.handlers.budget import minutes
from bot.handlers.common import MAX_NAMES_IN_A_SENTENCE, Place, bold_names, papers, refusal
from bot.i18n import _, say
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

FULL = refusal(
    f"This chat already follows {MAX_SUBSCRIPTIONS} authors and topics, the most allowed, so "
    "stop one first.",
    "/unsubscribe Dezun Dong",
)
FULL_OF_TOPICS = refusal(
    f"This chat already follows {MAX_SUBSCRIPTIONS} authors and topics, the most allowed, so "
    "stop one first.",
    "/unwatch 1",
)
_ARXIV_PAGE_EXAMPLE = f"/subscribe {EXAMPLE_ARXIV_PAGE}"


def watched_answer(place: Place, outcome: WatchedOutcome) -> str:
    """/subscribe alone: the chat follows the authors the service watches."""
    if isinstance(outcome, NothingWatched):
        return refusal("I watch nobody yet, so follow someone by name.", "/subscribe Dezun Dong")
    if isinstance(outcome, AllFollowed):
        return (
            f"{place.here} already follows {bold_names(outcome.watched)}. "
            "/recent shows the newest papers."
        )
    if isinstance(outcome, OverLimit):
        return FULL
    added = outcome.added
    details = "; ".join(
        f"<b>{html.escape(f.label)}</b> ({papers(f.record_count)} on record)"
        if f.backfilled
        else f"<b>{html.escape(f.label)}</b> (papers not fetched yet)"
        for f in added[:MAX_NAMES_IN_A_SENTENCE]
    )
    if len(added) > MAX_NAMES_IN_A_SENTENCE:
        details += f"; and {len(added) - MAX_NAMES_IN_A_SENTENCE} more"
    return f"✅ {place.here} now follows {details}. New papers will be posted here."


def person_answer(place: Place, rule: PersonRule, outcome: Outcome, settings: Settings) -> str:
    """/subscribe NAME, whatever became of it but the homonym question."""
    shown = f"<b>{html.escape(str(rule))}</b>"
    if isinstance(outcome, Subscribed) and outcome.start is Start.NEW:
        followed = outcome.followed
        return (
            f"✅ {place.here} now follows <b>{html.escape(followed.label)}</b>: arXiv lists "
            f"{papers(outcome.found)} under that name{' there' if followed.categories else ''}. "
            "Their history is being fetched; new papers will be posted here."
        )
    if isinstance(outcome, NotFound):
        if "," in rule.display:  # "Dong, Dezun, Xu Yemao": commas between names only split
            return refusal(  # when each part is a full name (`bot.arguments.follow_parts`)
                f"arXiv lists no papers by {shown}, so this chat does not follow that name; "
                "to follow several people, separate their names with ;.",
                "/subscribe Dezun Dong; Yemao Xu",
            )
        return refusal(
            f"arXiv lists no papers by {shown}, so this chat does not follow that name; check the "
            "spelling of the full name.",
            "/subscribe Dezun Dong",
        )
    if isinstance(outcome, TooCommon):
        return refusal(
            f"arXiv lists {outcome.total:,} papers under {shown}, more than one name may bring "
            f"(at most {outcome.limit:,}), so write the given names out in full.",
            "/subscribe Dezun Dong",
        )
    assert not isinstance(outcome, NeedsChoice), "the homonym question is asked by the handler"
    return _common_answer(place, str(rule), outcome, settings)


def identity_answer(place: Place, identity: Identity, outcome: Outcome, settings: Settings) -> str:
    """/subscribe AUTHOR-ID, whatever became of it."""
    if isinstance(outcome, Subscribed) and outcome.start is Start.NEW:
        return (
            f"✅ {place.here} now follows <b>{html.escape(outcome.followed.label)}</b>: arXiv "
            f"lists {papers(outcome.found)} they claimed. Their history is being fetched; new "
            "papers will be posted here (only those they claim on arXiv)."
        )
    if isinstance(outcome, NotFound):
        return unknown_identity(identity)
    return _common_answer(place, identity.shown, outcome, settings)


def _common_answer(place: Place, name: str, outcome: Outcome, settings: Settings) -> str:
    """The answers a name and an author id share: `name` is what the chat asked for."""
    if isinstance(outcome, Already):
        return _already(place, outcome.followed)
    if isinstance(outcome, OverLimit):
        return FULL
    if isinstance(outcome, BudgetSpent):
        return budget_spent(outcome)
    if isinstance(outcome, TooSlow):
        return (
            f"⚠️ arXiv is slow to answer just now, so this chat does not follow "
            f"<b>{html.escape(name)}</b> yet. Please try again in a few minutes."
        )
    if isinstance(outcome, Unreachable):
        return _unreachable(name, outcome.error)
    assert isinstance(outcome, Subscribed), outcome
    followed = outcome.followed
    shown = f"<b>{html.escape(followed.label)}</b>"
    if outcome.start is Start.RESUMED:
        return (
            f"✅ {place.here} now follows {shown} ({papers(followed.record_count)} on record). "
            "Their latest papers are being checked on arXiv; new ones will be posted here."
        )
    if not followed.backfilled:
        return (
            f"✅ {place.here} now follows {shown}. Their papers are being fetched from arXiv; "
            "new ones will be posted here."
        )
    return (
        f"✅ {place.here} now follows {shown}: {papers(followed.record_count)} found on arXiv. "
        "New ones will be posted here; /recent shows the newest."
    )


BUSY_PER_DAY = 10  # papers a day past which /watch of a whole category suggests /digest


def budget_spent(outcome: BudgetSpent) -> str:
    """The one answer, for names, author ids and topics alike, when the chat's budget of new
    follows (or of arXiv look-ups) is spent for now (`watcher.store.budgets`)."""
    return (
        "This chat has asked for enough new names and topics for now; try again in "
        f"{minutes(outcome.wait)}."
    )


def chosen_answer(
    place: Place, rule: PersonRule, outcome: Subscribed | Already | OverLimit | BudgetSpent
) -> str:
    """A button of the homonym question: the name in one category (`rule` has it), or whole."""
    if isinstance(outcome, OverLimit):
        return FULL
    if isinstance(outcome, BudgetSpent):
        return budget_spent(outcome)
    if isinstance(outcome, Already):
        return _already(place, outcome.followed)
    shown = f"<b>{html.escape(outcome.followed.label)}</b>"
    if outcome.start is Start.KEPT:  # another chat follows it already: nothing to fetch
        return (
            f"✅ {place.here} now follows {shown} ({papers(outcome.followed.record_count)} on "
            "record). New papers will be posted here."
        )
    if not rule.categories:
        return (
            f"✅ {place.here} now follows {shown}: arXiv lists {papers(outcome.found)} under "
            "that name. Their history is being fetched; new papers will be posted here."
        )
    return (
        f"✅ {place.here} now follows {shown}: their papers listed in "
        f"{', '.join(rule.categories)}, primary or cross-list. Their history is being "
        "fetched; new papers will be posted here."
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
        return (
            f"{place.here} already watches <b>{html.escape(str(topic))}</b>. "
            "/subscriptions lists what it follows."
        ) + (f"\n{per_day(week)}" if topic.whole else "")
    if isinstance(outcome, OverLimit):
        return FULL_OF_TOPICS
    if isinstance(outcome, BudgetSpent):
        return budget_spent(outcome)
    if topic.whole:
        return (
            f"✅ {place.here} now watches <code>{html.escape(str(topic))}</code>: every new paper "
            f"in {', '.join(topic.categories)} (primary or cross-list) will be posted here. "
            f"Papers that came out before now are not announced.\n{per_day(week)}"
        )
    return (
        f"✅ {place.here} now watches <code>{html.escape(str(topic))}</code>: new papers in "
        f"{', '.join(topic.categories)} whose title or abstract holds {_terms(topic)} will be "
        "posted here. Papers that came out before now are not announced."
    )


def per_day(week: int | None) -> str:
    """How many papers a day a whole category usually brings, from the last week's count, and
    /digest when that is more than `BUSY_PER_DAY`."""
    if week is None:
        return (
            "How many papers a day that means is not known yet (I have not kept all of it for "
            "a week); a busy category brings dozens, and /digest daily 8am gathers a day's "
            "papers into one message."
        )
    daily = week / 7
    if week and daily < 1:
        shown = "fewer than one paper"
    else:
        shown = f"about {round(daily)} paper{'s' * (round(daily) != 1)}"
    line = f"That usually means {shown} a day ({week} last week)."
    if daily > BUSY_PER_DAY:
        line += " That is a lot of messages: /digest daily 8am sends them as one a day."
    return line


def _terms(topic: Topic) -> str:
    """What a topic was understood to look for, term by term: `"a b"`, `c` and not `d`; with
    alternatives, `"a b" and either c or d`."""
    required = [_code(p) for p in topic.required]
    groups = [
        ("either " if len(group) == 2 else "one of ") + _listed([_code(p) for p in group], "or")
        for group in topic.alternatives
    ]
    shown = _listed([*required, *groups], "and")
    if len(required) > 1 and not groups:
        shown = "every one of " + shown
    excluded = [_code(p) for p in topic.excluded]
    return shown + (f", but none of {', '.join(excluded)}" if excluded else "")


def _code(phrase: tuple[str, ...]) -> str:
    return f"<code>{html.escape(_term(phrase))}</code>"


def _listed(items: list[str], joiner: str) -> str:
    """`a`, `a and b`, `a, b and c` (with `or` for `joiner`: `a, b or c`)."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {joiner} {items[-1]}"


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
    return (
        f"⚠️ I could not reach arXiv just now ({html.escape(str(error)[:200])}), so this chat "
        f"does not follow <b>{html.escape(name)}</b> yet. Please try again in a few minutes."
    )


def _already(place: Place, followed: Followed) -> str:
    return (
        f"{place.here} already follows <b>{html.escape(followed.label)}</b>. "
        "/subscriptions lists what it follows."
    )
