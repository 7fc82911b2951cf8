"""/why: "why did I get nothing today?", answered for this chat (forum topic) in a few short
lines, at most about 600 characters, from `Core.why` (`watcher.core.why.WhyAnswer`): arXiv's
last announcement and which source read it, what came here since by follow, or the reason
nothing did (no announcement tonight, the batch not read yet, a source failing, nothing
followed in it, a pause, quiet hours or a digest holding it), and the next announcement in
the chat's time zone. It reads only, so anyone may ask.
"""

from __future__ import annotations

import html
from datetime import datetime, tzinfo
from zoneinfo import ZoneInfo

from telegram import Update

from bot.handlers.common import Context, ServiceHandlers, place_of, reply
from bot.i18n import N_, _, ngettext
from bot.i18n.dates import short_day, time_of_day
from watcher.core.why import WhyAnswer

MAX_FOLLOWS_NAMED = 4  # follows named with what they found; the rest are counted
WHY_HELP = (
    N_("why nothing came today"),
    (
        N_(
            "When arXiv last announced and which source read it, what this chat (topic) got from "
            "it by follow, or why nothing came (no announcement, not read yet, a source failing, "
            "nothing followed in it, paused, quiet hours, a digest), and the next announcement in "
            "this chat's time zone: <code>/why</code>"
        ),
    ),
)
# The sources that read arXiv's announcements (`watcher.core.mailing_report.SOURCE_NAMES`).
SOURCES = {"listing": N_("the listing"), "OAI": "OAI-PMH", "API": N_("the API")}
# Why no announcement tonight, by weekday (Monday first).
NOT_ON = (
    N_("No announcement tonight: arXiv does not announce on Mondays."),
    N_("No announcement tonight: arXiv does not announce on Tuesdays."),
    N_("No announcement tonight: arXiv does not announce on Wednesdays."),
    N_("No announcement tonight: arXiv does not announce on Thursdays."),
    N_("No announcement tonight: arXiv does not announce on Fridays."),
    N_("No announcement tonight: arXiv does not announce on Saturdays."),
    N_("No announcement tonight: arXiv does not announce on Sundays."),
)


class WhyCommand(ServiceHandlers):
    """/why."""

    async def why(self, update: Update, context: Context) -> None:
        place = place_of(update)
        answer = await self.service.why.why(place.chat_id, place.thread_id)
        await reply(update, context, why_text(answer))


def why_text(answer: WhyAnswer) -> str:
    """The answer's lines (HTML), in the language speaking now."""
    arxiv = ZoneInfo(answer.calendar.zone)
    lines = [_batch(answer, arxiv)]
    if answer.failing:
        names = _and([_source(s) for s in answer.failing])
        working = [_source(s) for s in SOURCES if s not in answer.failing]
        failing = (
            _(
                "{names} stopped reading arXiv; {working} still work.",
                names=names,
                working=_and(working),
            )
            if working
            else _("{names} stopped reading arXiv.", names=names)
        )
        lines.append(failing[:1].upper() + failing[1:])
    lines.append(_got(answer))
    lines.extend(_holding(answer))
    if not answer.calendar.announces_on(answer.today):
        lines.append(
            _("No announcement tonight: it is an arXiv holiday.")
            if answer.calendar.usual_evening(answer.today)
            else _(NOT_ON[answer.today.weekday()])
        )
    if answer.next is not None:
        lines.append(
            _(
                "Next announcement: {here} ({zone}), {arxiv}.",
                here=_day(answer.next.at, answer.digest.zone),
                zone=answer.digest.zone_name,
                arxiv=_day(answer.next.at, arxiv, wall=True),
            )
        )
    return "\n".join(line for line in lines if line)


def _source(source: str) -> str:
    return _(SOURCES[source]) if source in SOURCES else source


def _and(items: list[str]) -> str:
    """ "a, b and c" in the language speaking now."""
    if len(items) < 2:
        return "".join(items)
    return _("{some} and {last}", some=", ".join(items[:-1]), last=items[-1])


def _batch(answer: WhyAnswer, arxiv: tzinfo) -> str:
    last, news = answer.last, answer.mailing
    if last is None:
        return _("arXiv has not announced in the last two weeks.")
    when = _day(last.at, arxiv, wall=True)
    if answer.read and news.seen_at is not None:
        source = _(SOURCES[news.source]) if news.source in SOURCES else _("a source")
        seen = _clock(news.seen_at, arxiv)
        if answer.listed is None:
            return _(
                "arXiv last announced {when}: {source} read it at {seen}.",
                when=when,
                source=source,
                seen=seen,
            )
        return ngettext(
            "arXiv last announced {when}: {source} read it at {seen}, {count} new paper.",
            "arXiv last announced {when}: {source} read it at {seen}, {count} new papers.",
            answer.listed,
            when=when,
            source=source,
            seen=seen,
            count=format(answer.listed, ","),
        )
    harvest = _clock(last.at + answer.harvest_after, arxiv)
    api = _clock(last.at + answer.api_after, arxiv)
    if answer.listings:
        return _(
            "arXiv last announced {when}; that batch is not read yet: the listing is probed "
            "from {probed}, OAI-PMH looks from {harvest}, the API from {api}.",
            when=when,
            probed=_clock(last.at, arxiv),
            harvest=harvest,
            api=api,
        )
    return _(
        "arXiv last announced {when}; that batch is not read yet: OAI-PMH looks from "
        "{harvest}, the API from {api}.",
        when=when,
        harvest=harvest,
        api=api,
    )


def _got(answer: WhyAnswer) -> str:
    if not answer.follows:
        return _("This chat follows no one: /subscribe NAME or /watch TOPIC in CATEGORY.")
    if answer.got:
        named = ", ".join(f"{html.escape(f.label)} {n}" for f, n in answer.got[:MAX_FOLLOWS_NAMED])
        more = len(answer.got) - MAX_FOLLOWS_NAMED
        if more > 0:
            named = ngettext(
                "{named} and {n} more follow", "{named} and {n} more follows", more, named=named
            )
        return _("Here since then: {follows}.", follows=named)
    if not answer.read:
        return ""
    follows = len(answer.follows)
    if answer.listed is None:
        return ngettext(
            "Nothing by the one person or topic followed here, in that batch.",
            "Nothing by the {n} people and topics followed here, in that batch.",
            follows,
        )
    return ngettext(
        "Nothing by the one person or topic followed here, out of {count} new papers read.",
        "Nothing by the {n} people and topics followed here, out of {count} new papers read.",
        follows,
        count=format(answer.listed, ","),
    )


def _holding(answer: WhyAnswer) -> list[str]:
    speaking, digest, here = answer.speaking, answer.digest, answer.digest.zone
    lines = []
    if speaking.paused:
        lines.append(
            ngettext(
                "This chat is paused: {n} paper waits for /resume.",
                "This chat is paused: {n} papers wait for /resume.",
                speaking.waiting,
            )
        )
    elif speaking.quiet_now(answer.now) and speaking.quiet_until is not None:
        lines.append(
            ngettext(
                "Quiet hours until {until}: {n} paper waits till then.",
                "Quiet hours until {until}: {n} papers wait till then.",
                speaking.waiting,
                until=_clock(speaking.quiet_until, here),
            )
        )
    if digest.schedule is not None and digest.held and digest.next_at is not None:
        lines.append(
            ngettext(
                "{n} paper held for the digest of {day}.",
                "{n} papers held for the digest of {day}.",
                digest.held,
                day=_day(digest.next_at, here),
            )
        )
    return lines


def _clock(moment: datetime, zone: tzinfo) -> str:
    local = moment.astimezone(zone)
    return f"{time_of_day(local)} {_zone_name(local)}"


def _day(moment: datetime, zone: tzinfo, *, wall: bool = False) -> str:
    """ "Sun 6 Dec 20:00 ET" (`wall`: with the zone's short name), else "Mon 7 Dec 01:00";
    in the language speaking now."""
    local = moment.astimezone(zone)
    day = f"{short_day(local)} {time_of_day(local)}"
    return f"{day} {_zone_name(local)}" if wall else day


def _zone_name(local: datetime) -> str:
    if getattr(local.tzinfo, "key", "") == "America/New_York":
        return "ET"
    return local.tzname() or "UTC"
