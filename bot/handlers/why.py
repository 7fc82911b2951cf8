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

from bot.handlers.common import Context, ServiceHandlers, papers, place_of, reply
from watcher.core.mailing_report import SOURCE_NAMES
from watcher.core.why import WhyAnswer

MAX_FOLLOWS_NAMED = 4  # follows named with what they found; the rest are counted
WHY_HELP = (
    "why nothing came today",
    (
        "When arXiv last announced and which source read it, what this chat (topic) got from "
        "it by follow, or why nothing came (no announcement, not read yet, a source failing, "
        "nothing followed in it, paused, quiet hours, a digest), and the next announcement in "
        "this chat's time zone: <code>/why</code>",
    ),
)


class WhyCommand(ServiceHandlers):
    """/why."""

    async def why(self, update: Update, context: Context) -> None:
        place = place_of(update)
        answer = await self.service.why.why(place.chat_id, place.thread_id)
        await reply(update, context, why_text(answer))


def why_text(answer: WhyAnswer) -> str:
    """The answer's lines (HTML)."""
    arxiv = ZoneInfo(answer.calendar.zone)
    lines = [_batch(answer, arxiv)]
    if answer.failing:
        names = [SOURCE_NAMES.get(s, s) for s in answer.failing]
        working = [n for s, n in SOURCE_NAMES.items() if s not in answer.failing]
        still = f"; {' and '.join(working)} still work" if working else ""
        lines.append(f"{' and '.join(names).capitalize()} stopped reading arXiv{still}.")
    lines.append(_got(answer))
    lines.extend(_holding(answer))
    if not answer.calendar.announces_on(answer.today):
        reason = (
            "it is an arXiv holiday"
            if answer.calendar.usual_evening(answer.today)
            else f"arXiv does not announce on {answer.today:%A}s"
        )
        lines.append(f"No announcement tonight: {reason}.")
    if answer.next is not None:
        here = answer.digest.zone
        lines.append(
            f"Next announcement: {_day(answer.next.at, here)} ({answer.digest.zone_name}), "
            f"{_day(answer.next.at, arxiv, wall=True)}."
        )
    return "\n".join(line for line in lines if line)


def _batch(answer: WhyAnswer, arxiv: tzinfo) -> str:
    last, news = answer.last, answer.mailing
    if last is None:
        return "arXiv has not announced in the last two weeks."
    said = f"arXiv last announced {_day(last.at, arxiv, wall=True)}"
    if answer.read and news.seen_at is not None:
        listed = f", {answer.listed:,} new papers" if answer.listed is not None else ""
        source = SOURCE_NAMES.get(news.source or "", "a source")
        return f"{said}: {source} read it at {_clock(news.seen_at, arxiv)}{listed}."
    harvest = _clock(last.at + answer.harvest_after, arxiv)
    api = _clock(last.at + answer.api_after, arxiv)
    listing = f"the listing is probed from {_clock(last.at, arxiv)}, " if answer.listings else ""
    return (
        f"{said}; that batch is not read yet: {listing}OAI-PMH looks from {harvest}, "
        f"the API from {api}."
    )


def _got(answer: WhyAnswer) -> str:
    if not answer.follows:
        return "This chat follows no one: /subscribe NAME or /watch TOPIC in CATEGORY."
    if answer.got:
        named = [f"{html.escape(f.label)} {n}" for f, n in answer.got[:MAX_FOLLOWS_NAMED]]
        more = len(answer.got) - MAX_FOLLOWS_NAMED
        rest = f" and {more} more follows" if more > 0 else ""
        return f"Here since then: {', '.join(named)}{rest}."
    if not answer.read:
        return ""
    follows = len(answer.follows)
    whom = f"the {follows} people and topics" if follows > 1 else "the one person or topic"
    out_of = f"out of {answer.listed:,} new papers read" if answer.listed is not None else ""
    return f"Nothing by {whom} followed here, {out_of or 'in that batch'}."


def _holding(answer: WhyAnswer) -> list[str]:
    speaking, digest, here = answer.speaking, answer.digest, answer.digest.zone
    lines = []
    if speaking.paused:
        lines.append(f"This chat is paused: {papers(speaking.waiting)} wait for /resume.")
    elif speaking.quiet_now(answer.now) and speaking.quiet_until is not None:
        lines.append(
            f"Quiet hours until {_clock(speaking.quiet_until, here)}: "
            f"{papers(speaking.waiting)} wait till then."
        )
    if digest.schedule is not None and digest.held and digest.next_at is not None:
        lines.append(
            f"{papers(digest.held).capitalize()} held for the digest of "
            f"{_day(digest.next_at, here)}."
        )
    return lines


def _clock(moment: datetime, zone: tzinfo) -> str:
    local = moment.astimezone(zone)
    return f"{local:%H:%M} {_zone_name(local)}"


def _day(moment: datetime, zone: tzinfo, *, wall: bool = False) -> str:
    """ "Sun 6 Dec 20:00 ET" (`wall`: with the zone's short name), else "Mon 7 Dec 01:00"."""
    local = moment.astimezone(zone)
    day = f"{local:%a} {local.day} {local:%b %H:%M}"
    return f"{day} {_zone_name(local)}" if wall else day


def _zone_name(local: datetime) -> str:
    if getattr(local.tzinfo, "key", "") == "America/New_York":
        return "ET"
    return local.tzname() or "UTC"
