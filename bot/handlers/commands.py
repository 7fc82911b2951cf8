"""The one table of the bot's commands: each command's name, its line in Telegram's command menu
(`COMMANDS`, published with setMyCommands), the handler it is routed to (`Command.route`), and its
lines in /help (`HELP`). The limits /help states are read from the constants that set them.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from telegram import BotCommand, Update

from bot.arguments import DEFAULT_COUNT, MAX_COUNT
from bot.handlers.admin import Admin
from bot.handlers.common import Context, reply
from bot.handlers.digest import DigestCommands
from bot.handlers.questions import Questions
from bot.handlers.subscriptions import Subscriptions
from bot.handlers.topics import Topics
from bot.handlers.welcome import Welcome
from watcher.homonyms import MANY_FIELDS, MANY_PAPERS, OFFERED_CATEGORIES
from watcher.rules import MAX_RULE_CATEGORIES
from watcher.subscribing import FIRST_ALLOWANCE
from watcher.topics import MAX_CATEGORIES as MAX_TOPIC_CATEGORIES

Callback = Callable[[Update, Context], Coroutine[Any, Any, None]]


@dataclass(frozen=True, slots=True)
class Handlers:
    """The handler groups a command may be routed to, built once by `bot.handlers.register`."""

    welcome: Welcome
    subscriptions: Subscriptions
    topics: Topics
    questions: Questions
    digest: DigestCommands
    admin: Admin


@dataclass(frozen=True, slots=True)
class Command:
    """One command: `/name`, its menu line, its handler among `Handlers`, its /help lines."""

    name: str
    menu: str
    route: Callable[[Handlers], Callback]
    help: tuple[str, ...]


async def show_help(update: Update, context: Context) -> None:
    """/help: every command with an example."""
    await reply(update, context, HELP)


COMMAND_TABLE: tuple[Command, ...] = (
    Command(
        "start",
        "What this bot does",
        lambda h: h.welcome.start,
        ("/start: what I do and whom I watch",),
    ),
    Command(
        "subscribe",
        "Follow the watched authors, a NAME [in CATEGORY], or an author id",
        lambda h: h.subscriptions.subscribe,
        (
            "/subscribe: follow the authors I watch in this chat",
            "/subscribe NAME: follow an author, e.g. <code>/subscribe Dezun Dong</code>",
            f"/subscribe NAME in CATEGORY,...: only their papers in up to {MAX_RULE_CATEGORIES} "
            "categories, e.g. <code>/subscribe Wei Wang in cs.DC,cs.NI</code>",
            "/subscribe AUTHOR-ID: follow one person exactly, by arXiv author id or ORCID iD, "
            "e.g. <code>/subscribe https://arxiv.org/a/dong_d_1</code> or "
            "<code>/subscribe 0000-0002-1825-0097</code>",
            f"A new chat may add {FIRST_ALLOWANCE} new names and topics at once, then a few an "
            "hour; ones I already follow, and names arXiv does not know, cost nothing",
        ),
    ),
    Command(
        "unsubscribe",
        "Stop following NAME, or everything",
        lambda h: h.subscriptions.unsubscribe,
        (
            "/unsubscribe NAME: stop one, e.g. <code>/unsubscribe Dezun Dong</code>; "
            "/unsubscribe alone stops everything",
        ),
    ),
    Command(
        "watch",
        'Follow a topic: /watch "phrase" word in cs.DC',
        lambda h: h.topics.watch,
        (
            "/watch TOPIC in CATEGORY: follow new papers whose title or abstract holds every "
            'word and "quoted phrase" (whole words, any case; <code>-word</code> excludes one; '
            f"1 to {MAX_TOPIC_CATEGORIES} categories), e.g. "
            '<code>/watch "remote direct memory access" RDMA in cs.DC</code>; papers from before '
            "it was created are not announced",
        ),
    ),
    Command(
        "unwatch",
        "Stop watching a topic",
        lambda h: h.topics.unwatch,
        ("/unwatch: list this chat's topics; /unwatch N stops one, e.g. <code>/unwatch 1</code>",),
    ),
    Command(
        "subscriptions",
        "What this chat follows",
        lambda h: h.subscriptions.subscriptions,
        ("/subscriptions: what this chat follows, people and topics",),
    ),
    Command(
        "recent",
        "The newest papers: /recent [N]",
        lambda h: h.questions.recent,
        (
            f"/recent [N]: the N newest papers (default {DEFAULT_COUNT}, at most {MAX_COUNT}), "
            "e.g. <code>/recent 10</code>",
        ),
    ),
    Command(
        "subject",
        "Newest papers in a category: /subject cs.DC",
        lambda h: h.questions.subject,
        (
            "/subject CATEGORY [N]: the newest papers in a category, e.g. "
            "<code>/subject cs.DC 5</code>",
        ),
    ),
    Command(
        "subjects",
        "Categories of the stored papers",
        lambda h: h.questions.subjects,
        ("/subjects: the categories of the stored papers",),
    ),
    Command(
        "paper",
        "One paper in full: /paper 2604.01234",
        lambda h: h.questions.paper,
        ("/paper ID: one paper in full, e.g. <code>/paper 2604.01234</code> or an arxiv.org link",),
    ),
    Command(
        "revisions",
        "New versions of papers: /revisions on|off",
        lambda h: h.subscriptions.revisions,
        (
            "/revisions on|off: tell this chat about new versions of papers, e.g. "
            "<code>/revisions on</code>",
        ),
    ),
    Command(
        "digest",
        "One message a day or week: /digest daily 08:00, or off",
        lambda h: h.digest.digest,
        (
            "/digest daily TIME | weekdays TIME | weekly DAY TIME | off: one message a day, "
            "each weekday or a week instead of one per paper, e.g. <code>/digest daily 8am</code>, "
            "<code>/digest weekly mon 08:00</code>; /digest alone shows it and the next one",
        ),
    ),
    Command(
        "timezone",
        "This chat's time zone: /timezone Europe/Berlin",
        lambda h: h.digest.timezone,
        (
            "/timezone ZONE: the time zone of the digest time (default UTC), e.g. "
            "<code>/timezone Europe/Berlin</code>, <code>/timezone Berlin</code> or "
            "<code>/timezone +8</code>",
        ),
    ),
    Command(
        "stats",
        "Service health (administrators)",
        lambda h: h.admin.stats,
        ("/stats: the service's health (administrators only)",),
    ),
    Command("help", "Every command, with examples", lambda h: show_help, ("/help: this list",)),
)

# The menu Telegram shows next to the message field.
COMMANDS: list[BotCommand] = [BotCommand(command.name, command.menu) for command in COMMAND_TABLE]

HELP = "\n".join(
    [
        "<b>Commands</b>",
        *(line for command in COMMAND_TABLE for line in command.help),
        "",
        "In groups, only administrators can change what the group follows (/subscribe, "
        "/unsubscribe, /revisions, /digest, /timezone); anyone can ask. In a forum group each "
        "topic follows its own authors, and their papers (and digests) are posted in that topic.",
        "",
        f"A name can be several people: when arXiv lists more than {MANY_PAPERS} papers under "
        f"it, or its papers span {MANY_FIELDS} fields (cs, math, physics...; all of physics, "
        "hep-th, astro-ph, cond-mat and the like, counts as one field), I offer its "
        f"{OFFERED_CATEGORIES} most common categories. "
        "An author id is exact (the person's own arXiv author page), but lists only the papers "
        "the person claimed on arXiv.",
    ]
)
