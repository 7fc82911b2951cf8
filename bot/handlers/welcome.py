"""Finding one's way: /start (what the bot does, whom it watches), /help (every command with an
example), and the answers to an unknown command or to plain text.
"""

from __future__ import annotations

import html

from telegram import Update
from telegram.constants import ChatType

from bot.handlers.common import Context, ServiceHandlers, bold_list, place_of, reply
from watcher.aio import in_db_thread

HELP = "\n".join(
    [
        "<b>Commands</b>",
        "/start: what I do and whom I watch",
        "/subscribe: follow the authors I watch in this chat",
        "/subscribe NAME: follow an author, e.g. <code>/subscribe Dezun Dong</code>",
        "/subscribe NAME in CATEGORY,...: only their papers in up to 3 categories, e.g. "
        "<code>/subscribe Wei Wang in cs.DC,cs.NI</code>",
        "/subscribe AUTHOR-ID: follow one person exactly, by arXiv author id or ORCID iD, e.g. "
        "<code>/subscribe https://arxiv.org/a/dong_d_1</code> or "
        "<code>/subscribe 0000-0002-1825-0097</code>",
        "/unsubscribe NAME: stop one, e.g. <code>/unsubscribe Dezun Dong</code>; "
        "/unsubscribe alone stops everything",
        "/watch TOPIC in CATEGORY: follow new papers whose title or abstract holds every "
        'word and "quoted phrase" (whole words, any case; <code>-word</code> excludes one; '
        "1 to 3 categories), e.g. "
        '<code>/watch "remote direct memory access" RDMA in cs.DC</code>; papers from before '
        "it was created are not announced",
        "/unwatch: list this chat's topics; /unwatch N stops one, e.g. <code>/unwatch 1</code>",
        "/subscriptions: what this chat follows, people and topics",
        "/recent [N]: the N newest papers (default 5, at most 20), e.g. <code>/recent 10</code>",
        "/subject CATEGORY [N]: the newest papers in a category, e.g. "
        "<code>/subject cs.DC 5</code>",
        "/subjects: the categories of the stored papers",
        "/paper ID: one paper in full, e.g. <code>/paper 2604.01234</code> or an arxiv.org link",
        "/revisions on|off: tell this chat about new versions of papers, e.g. "
        "<code>/revisions on</code>",
        "/digest daily HH:MM | weekly DAY HH:MM | off: one message a day or a week instead of "
        "one per paper, e.g. <code>/digest daily 08:00</code>, "
        "<code>/digest weekly mon 08:00</code>; /digest alone shows it and the next one",
        "/timezone ZONE: the time zone of the digest time (default UTC), e.g. "
        "<code>/timezone Europe/Berlin</code> or <code>/timezone UTC+8</code>",
        "/stats: the service's health (administrators only)",
        "/help: this list",
        "",
        "In groups, only administrators can change what the group follows (/subscribe, "
        "/unsubscribe, /revisions, /digest, /timezone); anyone can ask. In a forum group each "
        "topic follows its own authors, and their papers (and digests) are posted in that topic.",
        "",
        "A name can be several people: when arXiv lists more than 300 papers under it, or its "
        "papers span 3 fields (cs, math, physics...; all of physics, hep-th, astro-ph, cond-mat "
        "and the like, counts as one field), I offer its 3 most common categories. "
        "An author id is exact (the person's own arXiv author page), but lists only the papers "
        "the person claimed on arXiv.",
    ]
)


class Welcome(ServiceHandlers):
    """/start, /help, and pointers to /help for anything the bot does not understand."""

    async def start(self, update: Update, context: Context) -> None:
        """/start: what the bot does, whom it watches, how to subscribe."""
        place = place_of(update)
        following = await in_db_thread(
            self.chats.subscribed_ids, place.chat_id, thread_id=place.thread_id
        )
        watched = bold_list([str(rule) for rule in self.settings.followed_specs])
        lines = [
            "👋 I watch arXiv for new papers by the authors you follow, and post each new "
            "abstract here once.",
            f"I watch {watched}." if watched else "I watch nobody yet.",
            "",
        ]
        if following:
            lines.append(
                f"{place.here} follows {len(following)} author{'s' if len(following) > 1 else ''}: "
                "see /subscriptions."
            )
        elif watched:
            lines.append("• /subscribe: follow the authors I watch, in this chat")
        lines += [
            "• /subscribe NAME: follow anyone, e.g. /subscribe Dezun Dong",
            "• /recent: the newest papers",
            "• /help: every command",
        ]
        await reply(update, context, "\n".join(lines))

    async def help(self, update: Update, context: Context) -> None:
        """/help: every command with an example."""
        await reply(update, context, HELP)

    async def unknown_command(self, update: Update, context: Context) -> None:
        """A command this bot does not have: point at /help (unless it was for another bot)."""
        if _addressed_to_other_bot(update, context.bot.username):
            return
        message = update.effective_message
        command = message.text.split(maxsplit=1)[0] if message and message.text else "That"
        await reply(
            update, context, f"I do not know {html.escape(command[:40])}. /help lists the commands."
        )

    async def plain_text(self, update: Update, context: Context) -> None:
        """Plain text in a private chat: point at /help."""
        await reply(update, context, "I answer commands only. /help lists them.")


def _addressed_to_other_bot(update: Update, bot_username: str) -> bool:
    message = update.effective_message
    if message is None or not message.text:
        return False
    command = message.text.split(maxsplit=1)[0]
    _, at, suffix = command.partition("@")
    if at:
        return suffix.casefold() != bot_username.casefold()
    # In groups and channels other bots may share unaddressed commands: stay quiet there.
    return message.chat.type != ChatType.PRIVATE
