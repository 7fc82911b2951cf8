"""The one table of the bot's commands: each command's name, its line in Telegram's command menu
(`COMMANDS`, published with setMyCommands), the handler it is routed to (`Command.route`), its
one line in /help (`HELP`, grouped: following, reading, settings) and its details under
`/help NAME`. The limits /help states are read from the constants that set them. What a row is
made of is `bot.handlers.command_kinds`.
"""

from __future__ import annotations

import html

from telegram import BotCommand, Update

from bot.arguments import DEFAULT_COUNT, MAX_COUNT, MAX_FOLLOWS_AT_ONCE
from bot.handlers.author_list import PER_PAGE as AUTHORS_PER_PAGE
from bot.handlers.command_kinds import IN_GROUPS, PER_TOPIC, Command, Group
from bot.handlers.common import Context, reply
from bot.handlers.exclude import EXCLUDE_DETAILS
from bot.handlers.why import WHY_HELP
from watcher.core.reading_list import MAX_SAVED
from watcher.core.subscribing import FIRST_ALLOWANCE
from watcher.core.views import MAX_SUBSCRIPTIONS
from watcher.follows.rules import MAX_RULE_CATEGORIES
from watcher.follows.search_words import MAX_SEARCH_BYTES, MAX_SEARCH_WORDS
from watcher.follows.topics import MAX_CATEGORIES as MAX_TOPIC_CATEGORIES
from watcher.follows.topics import MAX_TERMS


async def show_help(update: Update, context: Context) -> None:
    """/help: one short line per command, grouped; /help COMMAND: that command in full."""
    args = context.args or []
    if not args:
        await reply(update, context, HELP)
        return
    wanted = args[0].removeprefix("/").split("@", 1)[0].casefold()
    command = next((c for c in COMMAND_TABLE if c.name == wanted), None)
    if command is None or len(args) > 1:
        await reply(
            update,
            context,
            f"I have no command {html.escape(args[0][:40])}; /help lists them.\n"
            "For example: <code>/help watch</code>",
        )
        return
    await reply(update, context, command_help(command))


def command_help(command: Command) -> str:
    """`/help NAME`: the command's line, then its details and examples."""
    return "\n".join([f"<b>{html.escape(command.line)}</b>", *command.details])


COMMAND_TABLE: tuple[Command, ...] = (
    Command(
        "subscribe",
        "Follow the watched authors, a NAME [in CATEGORY], or an author id",
        lambda h: h.subscriptions.subscribe,
        Group.FOLLOWING,
        "NAME",
        "follow an author",
        (
            "/subscribe alone follows the authors I watch in this chat.",
            "/subscribe NAME follows an author: <code>/subscribe Dezun Dong</code>. Quotes are "
            f"fine, and up to {MAX_FOLLOWS_AT_ONCE} names separated by ; or new lines (or "
            "commas, when each part is a full name): <code>/subscribe Dezun Dong; Yemao Xu</code>",
            f"NAME in CATEGORY,...: only their papers in up to {MAX_RULE_CATEGORIES} "
            "categories: <code>/subscribe Wei Wang in cs.DC,cs.NI</code>",
            "An arXiv author id or ORCID iD follows one person exactly (the papers they claimed "
            "on arXiv): <code>/subscribe https://arxiv.org/a/dong_d_1</code>",
            "A name that seems to be several people gets a question: which of its categories.",
            f"A new chat may add {FIRST_ALLOWANCE} new names and topics at once, then a few an "
            "hour; ones I already follow, and names arXiv does not know, cost nothing.",
            f"A chat follows at most {MAX_SUBSCRIPTIONS} authors and topics. {IN_GROUPS}",
        ),
    ),
    Command(
        "authors",
        "A paper's authors, to follow one: /authors 2604.01234",
        lambda h: h.coauthors.authors,
        Group.FOLLOWING,
        "ID",
        "follow a paper's authors",
        (
            "A paper's authors, each with a button that follows that person here as "
            "/subscribe NAME would (the question for a name of several people, the limits): "
            "<code>/authors 2604.01234</code>; an arxiv.org link works too.",
            f"{AUTHORS_PER_PAGE} authors a page, with Previous and Next for long lists; ★ marks "
            "those this chat follows already.",
            "A paper I do not keep is asked of arXiv, which spends one of this chat's look-ups.",
            "Anyone may list them; in a group or channel only its administrators may follow "
            "with a button, and in a forum it follows in the topic the list is in.",
        ),
    ),
    Command(
        "unsubscribe",
        "Stop following NAME, or everything",
        lambda h: h.subscriptions.unsubscribe,
        Group.FOLLOWING,
        "NAME",
        "stop following an author",
        (
            "<code>/unsubscribe Dezun Dong</code>; several names separated by ; or new lines (or "
            "commas between full names).",
            "/unsubscribe alone stops everything, once you confirm.",
            "Or press 🔕 Unfollow (🔕 Mute topic) under a paper: it stops the follow that found "
            "it, here only, once you confirm.",
            IN_GROUPS,
        ),
    ),
    Command(
        "watch",
        'Follow a topic: /watch "phrase" word in cs.DC',
        lambda h: h.topics.watch,
        Group.FOLLOWING,
        "TOPIC in CATEGORY",
        "follow a topic",
        (
            'New papers whose title or abstract holds every word and "quoted phrase" (whole '
            "words in any of their forms, as an English stemmer tells them: network also finds "
            "networks, RDMA never RDMAX; any case; -word excludes one and its forms; at most "
            f"{MAX_TERMS} terms), in 1 to "
            f"{MAX_TOPIC_CATEGORIES} categories: "
            '<code>/watch "remote direct memory access" RDMA in cs.DC</code>',
            "OR (in capitals) between words or phrases wants either one; parentheses group "
            "them: <code>/watch rdma OR infiniband in cs.DC</code>, "
            '<code>/watch "graph neural" (gpu OR fpga) -survey in cs.LG</code>',
            "Papers from before the topic was created are not announced.",
            f"No words: every new paper of up to {MAX_TOPIC_CATEGORIES} categories, and how "
            "many a day that usually is: <code>/watch in cs.DC</code>",
            IN_GROUPS,
        ),
    ),
    Command(
        "unwatch",
        "Stop watching a topic",
        lambda h: h.topics.unwatch,
        Group.FOLLOWING,
        "N",
        "stop watching a topic",
        ("/unwatch alone lists this chat's topics, numbered: <code>/unwatch 1</code>", IN_GROUPS),
    ),
    Command(
        "exclude",
        "Words never to see here: /exclude survey",
        lambda h: h.exclude.exclude,
        Group.FOLLOWING,
        "WORD",
        "never send papers with this word",
        EXCLUDE_DETAILS,
    ),
    Command(
        "subscriptions",
        "What this chat follows",
        lambda h: h.subscriptions.subscriptions,
        Group.FOLLOWING,
        "",
        "what this chat follows",
        (
            "The people and topics this chat follows, with their papers and last check, then "
            "every setting: digest, time zone, quiet hours, pause, format, sound, revisions.",
        ),
    ),
    Command(
        "export",
        "A file of this chat's follows: /export, or /export opml",
        lambda h: h.takeout.export,
        Group.FOLLOWING,
        "[opml]",
        "this chat's follows as a file",
        (
            "A text file, one follow a line with the settings on top (time zone, digest, "
            "revisions, paused, quiet hours, silent, format; in a forum topic, that topic's), "
            "then the papers saved here (/saved), one a line, then the excluded words "
            "(/exclude); "
            "<code>/export opml</code>: an OPML of arXiv feeds for an RSS reader.",
        ),
    ),
    Command(
        "import",
        "Follow what a file lists: reply /import to it",
        lambda h: h.takeout.import_file,
        Group.FOLLOWING,
        "",
        "follow what a file lists",
        (
            "Reply /import to a file /export made (or an OPML of arXiv author and category "
            "feeds), or send the file with /import as its caption. I list what I will follow "
            "and skip, the settings I will set (a file saying paused pauses here) and the "
            "papers I will save, and ask first.",
            IN_GROUPS,
        ),
    ),
    Command(
        "recent",
        "The newest papers: /recent [N]",
        lambda h: h.questions.recent,
        Group.READING,
        "[N]",
        "the newest papers",
        (
            f"The N newest papers of this chat's follows (default {DEFAULT_COUNT}, at most "
            f"{MAX_COUNT}): <code>/recent 10</code>",
        ),
    ),
    Command(
        "subject",
        "Newest papers in a category: /subject cs.DC",
        lambda h: h.questions.subject,
        Group.READING,
        "CATEGORY [N]",
        "the newest papers in a category",
        (
            f"Up to {MAX_RULE_CATEGORIES} categories, separated by commas or spaces, then how "
            f"many (at most {MAX_COUNT}): <code>/subject cs.DC,cs.NI 5</code>",
        ),
    ),
    Command(
        "subjects",
        "Categories of the stored papers",
        lambda h: h.questions.subjects,
        Group.READING,
        "",
        "the categories of the papers",
        ("The categories of this chat's papers, with how many each: <code>/subjects</code>",),
    ),
    Command(
        "search",
        "Search the stored papers: /search allreduce",
        lambda h: h.questions.search,
        Group.READING,
        "WORDS",
        "stored papers with these words",
        (
            "The stored papers (those of every chat's follows, not all of arXiv) whose title or "
            "abstract holds every word, newest first, 5 a page (the newest 1,000 at most): "
            "<code>/search allreduce</code>, "
            "<code>/search gradient compression in cs.DC</code>.",
            "Words match by their stems, as topics do (network finds networks); common words "
            "such as the or of are left out. At most "
            f"{MAX_SEARCH_WORDS} words and {MAX_SEARCH_BYTES} letters. No OR: /watch has it.",
        ),
    ),
    Command(
        "paper",
        "Any arXiv paper in full: /paper 2604.01234",
        lambda h: h.questions.paper,
        Group.READING,
        "ID",
        "one paper in full",
        (
            "An arXiv id, a versioned id or an arxiv.org link: <code>/paper 2604.01234</code>; "
            "in a private chat, the id or link alone does the same.",
            "A paper I do not keep (or another version) is asked of arXiv, which spends one of "
            "this chat's look-ups; looking it up announces it to no one.",
        ),
    ),
    Command(
        "saved",
        "This chat's reading list: /saved, or /saved bib",
        lambda h: h.saved.saved,
        Group.READING,
        "[bib]",
        "the papers saved here",
        (
            "🔖 Save under a paper (an announcement, or /paper ID) keeps it on this chat's "
            f"reading list, at most {MAX_SAVED} papers; pressed again (🗑 Unsave) it takes it "
            f"off. /saved lists them, newest saved first, {DEFAULT_COUNT} a page, with 🗑 N to "
            "take one off.",
            "<code>/saved bib</code> sends them all as one .bib file, each entry as ❝ Cite "
            "writes it. /export and /import carry the list too.",
            "In a group or channel anyone can read the list; only its administrators can save "
            "and unsave.",
        ),
    ),
    Command(
        "digest",
        "One message a day or week: /digest daily 8am, or off",
        lambda h: h.digest.digest,
        Group.SETTINGS,
        "daily|weekly|off",
        "one message a day or a week",
        (
            "Instead of one message per paper: <code>/digest daily 8am</code>, "
            "<code>/digest weekdays 08:00</code> (Monday to Friday) or "
            "<code>/digest weekly mon 08:00</code>; /digest off goes back.",
            "/digest alone shows the setting and the next digest, at this chat's (topic's) "
            "/timezone.",
            PER_TOPIC,
        ),
    ),
    Command(
        "timezone",
        "This chat's time zone: /timezone Europe/Berlin",
        lambda h: h.digest.timezone,
        Group.SETTINGS,
        "ZONE",
        "the chat's (topic's) clock",
        (
            "The time zone of digests and quiet hours (default UTC): "
            "<code>/timezone Europe/Berlin</code>, <code>/timezone Berlin</code> or "
            "<code>/timezone +8</code>",
            PER_TOPIC,
        ),
    ),
    Command(
        "pause",
        "Hold every message until /resume",
        lambda h: h.speaking.pause,
        Group.SETTINGS,
        "",
        "hold messages",
        (
            "Nothing goes out until /resume; papers found meanwhile wait, none is lost. "
            "/resume sends them, as one summary when there are many.",
            IN_GROUPS,
        ),
    ),
    Command(
        "resume",
        "Send what waited since /pause",
        lambda h: h.speaking.resume,
        Group.SETTINGS,
        "",
        "send what waited",
        ("What waited since /pause goes out, as one summary when there are many.", IN_GROUPS),
    ),
    Command(
        "quiet",
        "Quiet hours: /quiet 22:00-07:00, or off",
        lambda h: h.speaking.quiet,
        Group.SETTINGS,
        "HH:MM-HH:MM",
        "quiet hours",
        (
            "Papers found in the window (in this chat's or topic's /timezone) wait and arrive at "
            "its end: "
            "<code>/quiet 22:00-07:00</code>; <code>/quiet off</code> ends it.",
            IN_GROUPS,
        ),
    ),
    Command(
        "silent",
        "Announcements without a sound: /silent on|off",
        lambda h: h.speaking.silent,
        Group.SETTINGS,
        "on|off",
        "no sound",
        ("Announcements arrive without a notification sound: <code>/silent on</code>", IN_GROUPS),
    ),
    Command(
        "preview",
        "The abstract page's preview above papers: /preview on|off",
        lambda h: h.speaking.preview,
        Group.SETTINGS,
        "on|off",
        "link preview",
        (
            "<code>/preview on</code>: each paper in full shows arXiv's abstract page preview, "
            "small, above it; <code>/preview off</code> (the default): no link previews. "
            "<code>/preview</code> alone shows the setting.",
            IN_GROUPS,
        ),
    ),
    Command(
        "language",
        "The language I speak here: /language zh or en",
        lambda h: h.language.language,
        Group.SETTINGS,
        "zh|en",
        "language",
        (
            "<code>/language</code> alone shows the language I speak here, with a button for "
            "each; <code>/language zh</code> switches to Simplified Chinese (简体中文), "
            "<code>/language en</code> to English. Until it is set, I speak the language of "
            "the first person who wrote to me here.",
            "Paper titles, abstracts and names stay as arXiv has them.",
            PER_TOPIC,
        ),
    ),
    Command(
        "format",
        "One line per paper: /format compact, or full",
        lambda h: h.speaking.format,
        Group.SETTINGS,
        "full|compact",
        "how papers look",
        (
            "<code>/format compact</code>: one line per paper (linked title, followed authors "
            "★, category), papers found together in one message; <code>/format full</code>: "
            "each paper in full.",
            IN_GROUPS,
        ),
    ),
    Command("why", "Why nothing came today", lambda h: h.why.why, Group.READING, "", *WHY_HELP),
    Command(
        "revisions",
        "New versions of papers: /revisions on|off",
        lambda h: h.subscriptions.revisions,
        Group.SETTINGS,
        "on|off",
        "also announce new versions",
        (
            "Tell this chat (topic) about new versions of papers: <code>/revisions on</code>",
            "A new version says what changed (title, authors, abstract, categories, comments, "
            "journal reference); the abstract is shown again only when it changed.",
            PER_TOPIC,
        ),
    ),
    Command(
        "start",
        "What this bot does",
        lambda h: h.welcome.start,
        Group.SETTINGS,
        "",
        "what I do and whom I watch",
        ("What I do, whom I watch, and how to begin: <code>/start</code>",),
    ),
    Command(
        "id",
        "This chat's id, yours, and the topic's",
        lambda h: h.admin.ids,
        Group.SETTINGS,
        "",
        "the ids of this chat, you and the topic",
        (
            "The chat id, your user id and the forum topic's id; the operator puts a chat id "
            "in ADMIN_CHAT_IDS to allow /stats there: <code>/id</code>",
        ),
    ),
    Command(
        "stats",
        "Service health (administrators)",
        lambda h: h.admin.stats,
        Group.SETTINGS,
        "",
        "the service's health (its administrators)",
        (
            "Chats, follows, papers, deliveries and polls, for the service's administrators, "
            "and a source of arXiv that stopped parsing. These chats are also told, once, "
            "when one stops parsing and when it reads again.",
        ),
    ),
    Command(
        "help",
        "Every command, with examples",
        lambda h: show_help,
        Group.SETTINGS,
        "[COMMAND]",
        "this list, or one command in full",
        ("<code>/help watch</code> shows /watch in full.",),
    ),
)

# The menu Telegram shows next to the message field.
COMMANDS: list[BotCommand] = [BotCommand(command.name, command.menu) for command in COMMAND_TABLE]


def commands_menu() -> list[BotCommand]:
    """The command menu (setMyCommands) in the language speaking now."""
    return COMMANDS


HELP = "\n".join(
    [
        "<b>Commands</b>",
        *(
            line
            for group in Group
            for line in (
                "",
                f"<b>{group.value}</b>",
                *(c.line for c in COMMAND_TABLE if c.group is group),
            )
        ),
        "",
        "/help COMMAND shows one in full, with examples: <code>/help watch</code>",
    ]
)
