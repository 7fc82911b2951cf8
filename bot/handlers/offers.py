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

from bot.render import Button, Message
from watcher.core.homonym_question import ANY_CATEGORY, Asked
from watcher.follows.homonyms import MANY_PAPERS, SURVEY_SAMPLE

PREFIX = "h:"
ANYWAY = "a"
STALE = (
    "This button no longer works (answered already, or not this chat's); send /subscribe NAME "
    "to be asked again."
)
_SHORTEST_NAME = 32  # characters of a name a button shows; a longer one is cut with "…"


def expired(name: str) -> str:
    """The answer to a press on a question that expired (a toast holds 200 characters)."""
    return f"This question has expired; send /subscribe {_short(name, 60)} to be asked again."


def parse_press(data: str) -> tuple[str, int | None] | None:
    """The question's token and the pick (a category's index, or `ANY_CATEGORY`) a button's
    `data` stands for; None for data no button of this question carries."""
    if not data.startswith(PREFIX):
        return None
    token, _, choice = data.removeprefix(PREFIX).partition(":")
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
    shown = f"<b>{html.escape(name)}</b>"
    if survey.total > MANY_PAPERS:
        why = f"arXiv lists {survey.total:,} papers under it"
    else:
        why = f"its papers span {', '.join(sorted(survey.fields))}"
    text = (
        f"🤔 The name {shown} looks like several people: {why}. Pick one by category below "
        "(their papers listed there, primary or cross-list), or "
        + (
            "follow the name in any category."
            if offer.anyway
            else "send a fuller name: that many papers cannot be followed whole."
        )
    )
    sampled = survey.total > SURVEY_SAMPLE  # the counts are of the newest papers alone
    rows: list[tuple[Button, ...]] = [
        (
            Button(
                f"{_short(name)} in {category} · "
                + (f"{count} of the newest {SURVEY_SAMPLE}" if sampled else _papers(count)),
                callback_data=f"{PREFIX}{token}:{index}",
            ),
        )
        for index, (category, count) in enumerate(offer.categories)
    ]
    if offer.anyway:
        rows.append(
            (
                Button(
                    f"{_short(name)} in any category · {_papers(survey.total)}",
                    callback_data=f"{PREFIX}{token}:{ANYWAY}",
                ),
            )
        )
    return Message.from_html(text, tuple(rows))


def _papers(count: int) -> str:
    return f"{count:,} paper{'' if count == 1 else 's'}"


def _short(name: str, longest: int = _SHORTEST_NAME) -> str:
    return name if len(name) <= longest else name[: longest - 1] + "…"
