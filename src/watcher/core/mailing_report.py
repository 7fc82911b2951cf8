"""What the operator reads about arXiv's mailings: the last one seen, where from, how late.

Pure: given the store's `MailingNews` and the announcement calendar, one line for `authors`,
/stats and `health`: a `watcher.sentences.Sentence`, which the bot says in the chat's
language and `str()` gives in English. A mailing's delay is from its announcement instant, the
evening before its date (`watcher.calendars.announcements`), to the moment its first source
showed it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from watcher.calendars.announcements import AnnouncementCalendar
from watcher.sentences import Sentence, sentence
from watcher.store.mailings import MailingNews

SOURCE_NAMES = {
    "listing": sentence("the listing"),
    "OAI": sentence("OAI-PMH"),
    "API": sentence("the API"),
}


def describe_delay(delay: timedelta) -> Sentence:
    """ "4 min", "2 h 31 min", "3 days 1 h": how long after the announcement."""
    minutes = max(0, int(delay.total_seconds() // 60))
    if minutes < 120:
        return sentence("{minutes} min", minutes=minutes)
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return sentence("{hours} h {minutes} min", hours=hours, minutes=minutes)
    return sentence("{days} days {hours} h", days=hours // 24, hours=hours % 24)


def mailing_delay(news: MailingNews, calendar: AnnouncementCalendar) -> timedelta | None:
    """How long after its announcement the last mailing seen was first shown."""
    if news.mailing is None or news.seen_at is None:
        return None
    announced = calendar.on(news.mailing - timedelta(days=1)).at
    return news.seen_at - announced


def describe_mailing(news: MailingNews, calendar: AnnouncementCalendar) -> Sentence | None:
    """ "last mailing 2026-12-02, first from the listing at 2026-12-02 01:01 UTC, 1 min after
    the announcement; 3 listing probes for the mailing of 2026-12-02 (2 beyond the first)";
    None before any."""
    seen: Sentence | None = None
    delay = mailing_delay(news, calendar)
    if news.mailing is not None and news.seen_at is not None and delay is not None:
        seen = sentence(
            "last mailing {mailing}, first from {source} at {at}, {delay} after the announcement",
            mailing=news.mailing,
            source=SOURCE_NAMES.get(news.source or "", "?"),
            at=_utc(news.seen_at),
            delay=describe_delay(delay),
        )
    probed = _probes(news)
    if seen is not None and probed is not None:
        return sentence("{seen}; {probed}", seen=seen, probed=probed)
    return seen or probed


def _probes(news: MailingNews) -> Sentence | None:
    """How many times the listing was read for the latest mailing it was probed for."""
    if news.probed is None or not news.listing_probes:
        return None
    count, extra, day = news.listing_probes, news.listing_probes - 1, news.probed
    if news.probed != news.mailing:
        if count == 1:
            return sentence(
                "1 listing probe for the mailing of {day}, not seen on the listing", day=day
            )
        return sentence(
            "{count} listing probes for the mailing of {day} ({extra} beyond the first), not "
            "seen on the listing",
            count=count,
            day=day,
            extra=extra,
        )
    if count == 1:
        return sentence("1 listing probe for the mailing of {day}", day=day)
    return sentence(
        "{count} listing probes for the mailing of {day} ({extra} beyond the first)",
        count=count,
        day=day,
        extra=extra,
    )


def _utc(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M} UTC"
