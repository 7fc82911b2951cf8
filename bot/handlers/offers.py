"""The homonym question's buttons: "this name looks like several people; which one?"

When `/subscribe NAME` finds a name that looks like several people (`watcher.follows.homonyms`), the
core keeps the question (`watcher.core.homonym_question`) and gives its token; the chat gets one
button per common category of the name, each showing the name, the category and its papers, and
one to follow the name in any category when it may be followed whole. The button's callback
data is `h:<token>:<choice>` (a category's index, or `a` for any category), a few bytes whatever
the name (Telegram allows 64), so a button works after a restart. A press is handed back to the
core as the token and the pick (`parse_press`); an expired question is answered with the command
to send again, and a forged, foreign or answered one with what to do. Rendering is pure.
"""

from __future__ import annotations

import html

from bot.i18n import N_, _, ngettext
from bot.render import Button, Message
from watcher.core.homonym_question import ANY_CATEGORY, Asked
from watcher.follows.homonyms import MANY_PAPERS, SURVEY_SAMPLE

PREFIX = "h:"
ANYWAY = "a"
STALE = N_(
    "This button no longer works (answered already, or not this chat's); send /subscribe NAME "
    "to be asked again."
)
_SHORTEST_NAME = 32  # characters of a name a button shows; a longer one is cut with "…"


def expired(name: str) -> str:
    """The answer to a press on a question that expired (a toast holds 200 characters)."""
    return _(
        "This question has expired; send /subscribe {name} to be asked again.",
        name=_short(name, 60),
    )


def parse_press(data: str) -> tuple[str, int | None] | None:
    """The question's token and the pick (a category's index, or `ANY_CATEGORY`) a button's
    `data` stands for; None for data no button of this question carries."""
    if not data.startswith(PREFIX):
        return None
    token, _sep, choice = data.removeprefix(PREFIX).partition(":")
    if choice == ANYWAY:
        return token, ANY_CATEGORY
    if choice.isascii() and choice.isdigit():
        return token, int(choice)
    return None


def question(asked: Asked) -> Message:
    """The homonym question's text and buttons, one a row: the name in each category with its
    papers, then the name in any category (if it may be followed whole)."""
    offer, survey, token = asked.offer, asked.survey, asked.token
    name = offer.names[0]
    shown = html.escape(name)
    if survey.total > MANY_PAPERS:
        why = _("arXiv lists {total} papers under it", total=f"{survey.total:,}")
    else:
        why = _("its papers span {fields}", fields=", ".join(sorted(survey.fields)))
    text = (
        _(
            "🤔 The name <b>{name}</b> looks like several people: {why}. Pick one by category "
            "below (their papers listed there, primary or cross-list), or follow the name in any "
            "category.",
            name=shown,
            why=why,
        )
        if offer.anyway
        else _(
            "🤔 The name <b>{name}</b> looks like several people: {why}. Pick one by category "
            "below (their papers listed there, primary or cross-list), or send a fuller name: "
            "that many papers cannot be followed whole.",
            name=shown,
            why=why,
        )
    )
    sampled = survey.total > SURVEY_SAMPLE  # the counts are of the newest papers alone
    rows: list[tuple[Button, ...]] = [
        (
            Button(
                _(
                    "{name} in {category} · {count} of the newest {sample}",
                    name=_short(name),
                    category=category,
                    count=count,
                    sample=SURVEY_SAMPLE,
                )
                if sampled
                else _(
                    "{name} in {category} · {papers}",
                    name=_short(name),
                    category=category,
                    papers=_papers(count),
                ),
                callback_data=f"{PREFIX}{token}:{index}",
            ),
        )
        for index, (category, count) in enumerate(offer.categories)
    ]
    if offer.anyway:
        rows.append(
            (
                Button(
                    _(
                        "{name} in any category · {papers}",
                        name=_short(name),
                        papers=_papers(survey.total),
                    ),
                    callback_data=f"{PREFIX}{token}:{ANYWAY}",
                ),
            )
        )
    return Message.from_html(text, tuple(rows))


def _papers(count: int) -> str:
    return ngettext("{count} paper", "{count} papers", count, count=f"{count:,}")


def _short(name: str, longest: int = _SHORTEST_NAME) -> str:
    return name if len(name) <= longest else name[: longest - 1] + "…"
