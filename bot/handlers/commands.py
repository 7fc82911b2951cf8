"""The one table of the bot's commands: each command's name, its line in Telegram's command menu
(`commands_menu`, published with setMyCommands), the handler it is routed to (`Command.route`),
its one line in /help (`help_overview`, grouped: following, reading, settings) and its details
under `/help NAME` (`command_help`). What a row is made of is `bot.handlers.command_kinds`;
the rows of the commands that change what a chat follows are `bot.handlers.follow_commands`.

Every text of a row is an English template marked for the catalog (`N_`); it is said in the
language speaking now when the menu or /help is built. The limits /help states are placeholders
(`{max_count}`), filled at that moment from the constants that set them (`LIMITS`).
"""

from __future__ import annotations

import html

from telegram import BotCommand, Update

from bot.arguments import DEFAULT_COUNT, MAX_COUNT, MAX_FOLLOWS_AT_ONCE
from bot.handlers.author_list import PER_PAGE as AUTHORS_PER_PAGE
from bot.handlers.command_kinds import IN_GROUPS, PER_TOPIC, Command, Group
from bot.handlers.common import Context, refusal, reply
from bot.handlers.follow_commands import FOLLOWING_COMMANDS
from bot.handlers.suggest import SUGGEST_DETAILS, SUGGEST_LIMITS
from bot.handlers.why import WHY_HELP
from bot.i18n import N_, _
from watcher.core.reading_list import MAX_SAVED
from watcher.core.subscribing import FIRST_ALLOWANCE
from watcher.core.views import MAX_SUBSCRIPTIONS
from watcher.follows.excluded_words import MAX_EXCLUDED, MAX_EXCLUDED_LENGTH
from watcher.follows.rules import MAX_RULE_CATEGORIES
from watcher.follows.search_words import MAX_SEARCH_BYTES, MAX_SEARCH_WORDS
from watcher.follows.topics import MAX_CATEGORIES as MAX_TOPIC_CATEGORIES
from watcher.follows.topics import MAX_TERMS

# The limits /help states, by the name of their placeholder in the details' templates.
LIMITS: dict[str, int] = {
    "authors_per_page": AUTHORS_PER_PAGE,
    "default_count": DEFAULT_COUNT,
    "first_allowance": FIRST_ALLOWANCE,
    "max_count": MAX_COUNT,
    "max_excluded": MAX_EXCLUDED,
    "max_excluded_length": MAX_EXCLUDED_LENGTH,
    "max_follows_at_once": MAX_FOLLOWS_AT_ONCE,
    "max_rule_categories": MAX_RULE_CATEGORIES,
    "max_saved": MAX_SAVED,
    "max_search_bytes": MAX_SEARCH_BYTES,
    "max_search_words": MAX_SEARCH_WORDS,
    "max_subscriptions": MAX_SUBSCRIPTIONS,
    "max_terms": MAX_TERMS,
    "max_topic_categories": MAX_TOPIC_CATEGORIES,
    **SUGGEST_LIMITS,
}


async def show_help(update: Update, context: Context) -> None:
    """/help: one short line per command, grouped; /help COMMAND: that command in full."""
    args = context.args or []
    if not args:
        await reply(update, context, help_overview())
        return
    wanted = args[0].removeprefix("/").split("@", 1)[0].casefold()
    command = next((c for c in COMMAND_TABLE if c.name == wanted), None)
    if command is None or len(args) > 1:
        wrong = _(
            "I have no command {command}; /help lists them.", command=html.escape(args[0][:40])
        )
        await reply(update, context, refusal(wrong, "/help watch"))
        return
    await reply(update, context, command_help(command))


def command_help(command: Command) -> str:
    """`/help NAME`, in the language speaking now: the command's line, then its details and
    examples."""
    details = [_(detail, **LIMITS) for detail in command.details]
    return "\n".join([f"<b>{html.escape(command.line)}</b>", *details])


def commands_menu() -> list[BotCommand]:
    """The menu Telegram shows next to the message field, in the language speaking now (for
    setMyCommands; each description 3 to 256 characters)."""
    return [BotCommand(command.name, _(command.menu)) for command in COMMAND_TABLE]


def help_overview() -> str:
    """/help, in the language speaking now: one short line per command, in its group."""
    title = _("Commands")
    lines = [f"<b>{title}</b>"]
    for group in Group:
        lines += ["", f"<b>{group.heading}</b>"]
        lines += [command.line for command in COMMAND_TABLE if command.group is group]
    lines += ["", _("/help COMMAND shows one in full, with examples: <code>/help watch</code>")]
    return "\n".join(lines)


COMMAND_TABLE: tuple[Command, ...] = (
    *FOLLOWING_COMMANDS,
    Command(
        "recent",
        N_("The newest papers: /recent [N]"),
        lambda h: h.questions.recent,
        Group.READING,
        "[N]",
        N_("the newest papers"),
        (
            N_(
                "The N newest papers of this chat's follows (default {default_count}, at most "
                "{max_count}): <code>/recent 10</code>"
            ),
        ),
    ),
    Command(
        "subject",
        N_("Newest papers in a category: /subject cs.DC"),
        lambda h: h.questions.subject,
        Group.READING,
        N_("CATEGORY [N]"),
        N_("the newest papers in a category"),
        (
            N_(
                "Up to {max_rule_categories} categories, separated by commas or spaces, then "
                "how many (at most {max_count}): <code>/subject cs.DC,cs.NI 5</code>"
            ),
        ),
    ),
    Command(
        "subjects",
        N_("Categories of the stored papers"),
        lambda h: h.questions.subjects,
        Group.READING,
        "",
        N_("the categories of the papers"),
        (N_("The categories of this chat's papers, with how many each: <code>/subjects</code>"),),
    ),
    Command(
        "search",
        N_("Search the stored papers: /search allreduce"),
        lambda h: h.questions.search,
        Group.READING,
        N_("WORDS"),
        N_("stored papers with these words"),
        (
            N_(
                "The stored papers (those of every chat's follows, not all of arXiv) whose "
                "title or abstract holds every word, newest first, 5 a page (the newest 1,000 "
                "at most): <code>/search allreduce</code>, <code>/search gradient compression "
                "in cs.DC</code>."
            ),
            N_(
                "Words match by their stems, as topics do (network finds networks); common "
                "words such as the or of are left out. At most {max_search_words} words and "
                "{max_search_bytes} letters. No OR: /watch has it."
            ),
        ),
    ),
    Command(
        "paper",
        N_("Any arXiv paper in full: /paper 2604.01234"),
        lambda h: h.questions.paper,
        Group.READING,
        N_("ID"),
        N_("one paper in full"),
        (
            N_(
                "An arXiv id, a versioned id or an arxiv.org link: <code>/paper "
                "2604.01234</code>; in a private chat, the id or link alone does the same."
            ),
            N_(
                "A paper I do not keep (or another version) is asked of arXiv, which spends one "
                "of this chat's look-ups; looking it up announces it to no one."
            ),
        ),
    ),
    Command(
        "saved",
        N_("This chat's reading list: /saved, or /saved bib"),
        lambda h: h.saved.saved,
        Group.READING,
        "[bib]",
        N_("the papers saved here"),
        (
            N_(
                "🔖 Save under a paper (an announcement, or /paper ID) keeps it on this chat's "
                "reading list, at most {max_saved} papers; pressed again (🗑 Unsave) it takes it "
                "off. /saved lists them, newest saved first, {default_count} a page, with 🗑 N "
                "to take one off."
            ),
            N_(
                "<code>/saved bib</code> sends them all as one .bib file, each entry as ❝ Cite "
                "writes it. /export and /import carry the list too."
            ),
            N_(
                "In a group or channel anyone can read the list; only its administrators can "
                "save and unsave."
            ),
        ),
    ),
    Command(
        "suggest",
        N_("Papers like this chat's, after each batch: /suggest on"),
        lambda h: h.suggest.suggest,
        Group.READING,
        "[on|off|N]",
        N_("papers you may like"),
        SUGGEST_DETAILS,
    ),
    Command(
        "digest",
        N_("One message a day or week: /digest daily 8am, or off"),
        lambda h: h.digest.digest,
        Group.SETTINGS,
        "daily|weekly|off",
        N_("one message a day or a week"),
        (
            N_(
                "Instead of one message per paper: <code>/digest daily 8am</code>, "
                "<code>/digest weekdays 08:00</code> (Monday to Friday) or <code>/digest weekly "
                "mon 08:00</code>; /digest off goes back."
            ),
            N_(
                "/digest alone shows the setting and the next digest, at this chat's (topic's) "
                "/timezone."
            ),
            PER_TOPIC,
        ),
    ),
    Command(
        "timezone",
        N_("This chat's time zone: /timezone Europe/Berlin"),
        lambda h: h.digest.timezone,
        Group.SETTINGS,
        N_("ZONE"),
        N_("the chat's (topic's) clock"),
        (
            N_(
                "The time zone of digests and quiet hours (default UTC): <code>/timezone "
                "Europe/Berlin</code>, <code>/timezone Berlin</code> or <code>/timezone "
                "+8</code>"
            ),
            PER_TOPIC,
        ),
    ),
    Command(
        "pause",
        N_("Hold every message until /resume"),
        lambda h: h.speaking.pause,
        Group.SETTINGS,
        "",
        N_("hold messages"),
        (
            N_(
                "Nothing goes out until /resume; papers found meanwhile wait, none is lost. "
                "/resume sends them, as one summary when there are many."
            ),
            IN_GROUPS,
        ),
    ),
    Command(
        "resume",
        N_("Send what waited since /pause"),
        lambda h: h.speaking.resume,
        Group.SETTINGS,
        "",
        N_("send what waited"),
        (N_("What waited since /pause goes out, as one summary when there are many."), IN_GROUPS),
    ),
    Command(
        "quiet",
        N_("Quiet hours: /quiet 22:00-07:00, or off"),
        lambda h: h.speaking.quiet,
        Group.SETTINGS,
        N_("HH:MM-HH:MM"),
        N_("quiet hours"),
        (
            N_(
                "Papers found in the window (in this chat's or topic's /timezone) wait and "
                "arrive at its end: <code>/quiet 22:00-07:00</code>; <code>/quiet off</code> "
                "ends it."
            ),
            IN_GROUPS,
        ),
    ),
    Command(
        "silent",
        N_("Announcements without a sound: /silent on|off"),
        lambda h: h.speaking.silent,
        Group.SETTINGS,
        "on|off",
        N_("no sound"),
        (
            N_("Announcements arrive without a notification sound: <code>/silent on</code>"),
            IN_GROUPS,
        ),
    ),
    Command(
        "preview",
        N_("The abstract page's preview above papers: /preview on|off"),
        lambda h: h.speaking.preview,
        Group.SETTINGS,
        "on|off",
        N_("link preview"),
        (
            N_(
                "<code>/preview on</code>: each paper in full shows arXiv's abstract page "
                "preview, small, above it; <code>/preview off</code> (the default): no link "
                "previews. <code>/preview</code> alone shows the setting."
            ),
            IN_GROUPS,
        ),
    ),
    Command(
        "language",
        N_("The language I speak here: /language zh or en"),
        lambda h: h.language.language,
        Group.SETTINGS,
        "zh|en",
        N_("language"),
        (
            N_(
                "<code>/language</code> alone shows the language I speak here, with a button for "
                "each; <code>/language zh</code> switches to Simplified Chinese (简体中文), "
                "<code>/language en</code> to English. Until it is set, I speak the language of "
                "the first person who wrote to me here."
            ),
            N_("Paper titles, abstracts and names stay as arXiv has them."),
            PER_TOPIC,
        ),
    ),
    Command(
        "format",
        N_("One line per paper: /format compact, or full"),
        lambda h: h.speaking.format,
        Group.SETTINGS,
        "full|compact",
        N_("how papers look"),
        (
            N_(
                "<code>/format compact</code>: one line per paper (linked title, followed "
                "authors ★, category), papers found together in one message; <code>/format "
                "full</code>: each paper in full."
            ),
            IN_GROUPS,
        ),
    ),
    Command("why", N_("Why nothing came today"), lambda h: h.why.why, Group.READING, "", *WHY_HELP),
    Command(
        "revisions",
        N_("New versions of papers: /revisions on|off"),
        lambda h: h.subscriptions.revisions,
        Group.SETTINGS,
        "on|off",
        N_("also announce new versions"),
        (
            N_("Tell this chat (topic) about new versions of papers: <code>/revisions on</code>"),
            N_(
                "A new version says what changed (title, authors, abstract, categories, "
                "comments, journal reference); the abstract is shown again only when it changed."
            ),
            PER_TOPIC,
        ),
    ),
    Command(
        "start",
        N_("What this bot does"),
        lambda h: h.welcome.start,
        Group.SETTINGS,
        "",
        N_("what I do and whom I watch"),
        (N_("What I do, whom I watch, and how to begin: <code>/start</code>"),),
    ),
    Command(
        "id",
        N_("This chat's id, yours, and the topic's"),
        lambda h: h.admin.ids,
        Group.SETTINGS,
        "",
        N_("the ids of this chat, you and the topic"),
        (
            N_(
                "The chat id, your user id and the forum topic's id; the operator puts a chat "
                "id in ADMIN_CHAT_IDS to allow /stats there: <code>/id</code>"
            ),
        ),
    ),
    Command(
        "stats",
        N_("Service health (administrators)"),
        lambda h: h.admin.stats,
        Group.SETTINGS,
        "",
        N_("the service's health (its administrators)"),
        (
            N_(
                "Chats, follows, papers, deliveries and polls, for the service's "
                "administrators, and a source of arXiv that stopped parsing. These chats are "
                "also told, once, when one stops parsing and when it reads again."
            ),
        ),
    ),
    Command(
        "help",
        N_("Every command, with examples"),
        lambda h: show_help,
        Group.SETTINGS,
        N_("[COMMAND]"),
        N_("this list, or one command in full"),
        (N_("<code>/help watch</code> shows /watch in full."),),
    ),
)
