"""What the operator reads about arXiv's mailings: the last one seen, where from, how late.

Pure: given the store's `MailingNews` and the announcement calendar, one line for `authors`,
/stats and `health`. A mailing's delay is from its announcement instant, the evening before its
date (`watcher.calendars.announcements`), to the moment its first source showed it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from watcher.calendars.announcements import AnnouncementCalendar
from watcher.store.mailings import MailingNews

SOURCE_NAMES = {"listing": "the listing", "OAI": "OAI-PMH", "API": "the API"}


def describe_delay(delay: timedelta) -> str:
    """ "4 min", "2 h 31 min", "1 day 3 h": how long after the announcement."""
    minutes = max(0, int(delay.total_seconds() // 60))
    if minutes < 120:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min"
    return f"{hours // 24} days {hours % 24} h"


def mailing_delay(news: MailingNews, calendar: AnnouncementCalendar) -> timedelta | None:
    """How long after its announcement the last mailing seen was first shown."""
    if news.mailing is None or news.seen_at is None:
        return None
    announced = calendar.on(news.mailing - timedelta(days=1)).at
    return news.seen_at - announced


def describe_mailing(news: MailingNews, calendar: AnnouncementCalendar) -> str | None:
    """ "last mailing 2026-12-02, first from the listing at 2026-12-02 01:01 UTC, 1 min after
    the announcement; 3 listing probes for it (2 beyond the first)"; None before any."""
    parts: list[str] = []
    delay = mailing_delay(news, calendar)
    if news.mailing is not None and news.seen_at is not None and delay is not None:
        parts.append(
            f"last mailing {news.mailing}, first from {SOURCE_NAMES.get(news.source or '', '?')}"
            f" at {_utc(news.seen_at)}, {describe_delay(delay)} after the announcement"
        )
    if news.probed is not None and news.listing_probes:
        probes = f"{news.listing_probes} listing probe{'s' if news.listing_probes != 1 else ''}"
        extra = news.listing_probes - 1
        beyond = f" ({extra} beyond the first)" if extra else ""
        unseen = "" if news.probed == news.mailing else ", not seen on the listing"
        parts.append(f"{probes} for the mailing of {news.probed}{beyond}{unseen}")
    return "; ".join(parts) or None


def _utc(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M} UTC"
