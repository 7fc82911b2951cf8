"""The rows of the command table (`bot.handlers.commands`) for what a chat follows: /subscribe,
/authors, /unsubscribe, /watch, /unwatch, /exclude, /subscriptions, /export and /import, each
with its menu line, /help line and details, as English templates marked for the catalog.
"""

from __future__ import annotations

from bot.handlers.command_kinds import IN_GROUPS, Command, Group
from bot.handlers.exclude import EXCLUDE_DETAILS
from bot.i18n import N_

FOLLOWING_COMMANDS: tuple[Command, ...] = (
    Command(
        "subscribe",
        N_("Follow the watched authors, a NAME [in CATEGORY], or an author id"),
        lambda h: h.subscriptions.subscribe,
        Group.FOLLOWING,
        N_("NAME"),
        N_("follow an author"),
        (
            N_("/subscribe alone follows the authors I watch in this chat."),
            N_(
                "/subscribe NAME follows an author: <code>/subscribe Dezun Dong</code>. Quotes "
                "are fine, and up to {max_follows_at_once} names separated by ; or new lines "
                "(or commas, when each part is a full name): <code>/subscribe Dezun Dong; Yemao "
                "Xu</code>"
            ),
            N_(
                "NAME in CATEGORY,...: only their papers in up to {max_rule_categories} "
                "categories: <code>/subscribe Wei Wang in cs.DC,cs.NI</code>"
            ),
            N_(
                "An arXiv author id or ORCID iD follows one person exactly (the papers they "
                "claimed on arXiv): <code>/subscribe https://arxiv.org/a/dong_d_1</code>"
            ),
            N_("A name that seems to be several people gets a question: which of its categories."),
            N_(
                "A new chat may add {first_allowance} new names and topics at once, then a few "
                "an hour; ones I already follow, and names arXiv does not know, cost nothing."
            ),
            N_(
                "A chat follows at most {max_subscriptions} authors and topics. In a group or "
                "channel only its administrators can change this; in a forum each topic has its "
                "own."
            ),
        ),
    ),
    Command(
        "authors",
        N_("A paper's authors, to follow one: /authors 2604.01234"),
        lambda h: h.coauthors.authors,
        Group.FOLLOWING,
        N_("ID"),
        N_("follow a paper's authors"),
        (
            N_(
                "A paper's authors, each with a button that follows that person here as "
                "/subscribe NAME would (the question for a name of several people, the limits): "
                "<code>/authors 2604.01234</code>; an arxiv.org link works too."
            ),
            N_(
                "{authors_per_page} authors a page, with Previous and Next for long lists; ★ "
                "marks those this chat follows already."
            ),
            N_(
                "A paper I do not keep is asked of arXiv, which spends one of this chat's look-ups."
            ),
            N_(
                "Anyone may list them; in a group or channel only its administrators may follow "
                "with a button, and in a forum it follows in the topic the list is in."
            ),
        ),
    ),
    Command(
        "unsubscribe",
        N_("Stop following NAME, or everything"),
        lambda h: h.subscriptions.unsubscribe,
        Group.FOLLOWING,
        N_("NAME"),
        N_("stop following an author"),
        (
            N_(
                "<code>/unsubscribe Dezun Dong</code>; several names separated by ; or new "
                "lines (or commas between full names)."
            ),
            N_("/unsubscribe alone stops everything, once you confirm."),
            N_(
                "Or press 🔕 Unfollow (🔕 Mute topic) under a paper: it stops the follow that "
                "found it, here only, once you confirm."
            ),
            IN_GROUPS,
        ),
    ),
    Command(
        "watch",
        N_('Follow a topic: /watch "phrase" word in cs.DC'),
        lambda h: h.topics.watch,
        Group.FOLLOWING,
        N_("TOPIC in CATEGORY"),
        N_("follow a topic"),
        (
            N_(
                'New papers whose title or abstract holds every word and "quoted phrase" (whole '
                "words in any of their forms, as an English stemmer tells them: network also "
                "finds networks, RDMA never RDMAX; any case; -word excludes one and its forms; "
                "at most {max_terms} terms), in 1 to {max_topic_categories} categories: "
                '<code>/watch "remote direct memory access" RDMA in cs.DC</code>'
            ),
            N_(
                "OR (in capitals) between words or phrases wants either one; parentheses group "
                'them: <code>/watch rdma OR infiniband in cs.DC</code>, <code>/watch "graph '
                'neural" (gpu OR fpga) -survey in cs.LG</code>'
            ),
            N_("Papers from before the topic was created are not announced."),
            N_(
                "No words: every new paper of up to {max_topic_categories} categories, and how "
                "many a day that usually is: <code>/watch in cs.DC</code>"
            ),
            IN_GROUPS,
        ),
    ),
    Command(
        "unwatch",
        N_("Stop watching a topic"),
        lambda h: h.topics.unwatch,
        Group.FOLLOWING,
        "N",
        N_("stop watching a topic"),
        (
            N_("/unwatch alone lists this chat's topics, numbered: <code>/unwatch 1</code>"),
            IN_GROUPS,
        ),
    ),
    Command(
        "exclude",
        N_("Words never to see here: /exclude survey"),
        lambda h: h.exclude.exclude,
        Group.FOLLOWING,
        N_("WORD"),
        N_("never send papers with this word"),
        EXCLUDE_DETAILS,
    ),
    Command(
        "subscriptions",
        N_("What this chat follows"),
        lambda h: h.subscriptions.subscriptions,
        Group.FOLLOWING,
        "",
        N_("what this chat follows"),
        (
            N_(
                "The people and topics this chat follows, with their papers and last check, "
                "then every setting: digest, time zone, quiet hours, pause, format, sound, "
                "revisions."
            ),
        ),
    ),
    Command(
        "export",
        N_("A file of this chat's follows: /export, or /export opml"),
        lambda h: h.takeout.export,
        Group.FOLLOWING,
        "[opml]",
        N_("this chat's follows as a file"),
        (
            N_(
                "A text file, one follow a line with the settings on top (time zone, digest, "
                "revisions, paused, quiet hours, silent, format; in a forum topic, that "
                "topic's), then the papers saved here (/saved), one a line, then the excluded "
                "words (/exclude); <code>/export opml</code>: an OPML of arXiv feeds for an RSS "
                "reader."
            ),
        ),
    ),
    Command(
        "import",
        N_("Follow what a file lists: reply /import to it"),
        lambda h: h.takeout.import_file,
        Group.FOLLOWING,
        "",
        N_("follow what a file lists"),
        (
            N_(
                "Reply /import to a file /export made (or an OPML of arXiv author and category "
                "feeds), or send the file with /import as its caption. I list what I will "
                "follow and skip, the settings I will set (a file saying paused pauses here) "
                "and the papers I will save, and ask first."
            ),
            IN_GROUPS,
        ),
    ),
)
