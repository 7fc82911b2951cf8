"""The digest renderer the core calls when it claims a digest (`watcher.store.digests`): what one
chat's topic is owed, in; its messages (`bot.render.render_digest`), out, in the destination's
language (`DigestContent.language`). Pure, like the renderers: the followed authors are marked
by `watcher.follows.names.is_same_person`.

A digest with suggestions (`DigestContent.suggestions`) ends with its "Suggested for you"
section, in the last part, in the room that part leaves (`bot.render.suggested`): no 👍/👎
buttons there, as a digest part carries no keyboard; those that do not fit are counted
("… and N more: /suggest"), and /suggest sends them with their buttons.
"""

from __future__ import annotations

from bot.i18n import speaking
from bot.i18n.dates import short_day
from bot.render import render_digest
from bot.render.styled import BUDGET, message_of, visible_length
from bot.render.suggested import suggestion_section
from watcher.arxiv.taxonomy import category_name
from watcher.core.views import DigestContent, RenderedPart
from watcher.follows.names import is_same_person
from watcher.kinds import NewsKind


def render_digest_parts(content: DigestContent) -> list[RenderedPart]:
    """The messages of one destination's digest, at most `bot.render.MAX_DIGEST_MESSAGES`, in
    the destination's language."""
    with speaking(content.language):
        return _render(content)


def _render(content: DigestContent) -> list[RenderedPart]:

    def marked(author: str) -> bool:
        return any(is_same_person(author, names) for names in content.followed_names)

    papers = [(item.record, NewsKind.of(item.kind)) for item in content.items]
    pages = render_digest(
        papers,
        since=since_text(content),
        marked=marked,
        category_name=category_name,
    )
    parts = [RenderedPart(page.message.html, page.message.plain, page.covers) for page in pages]
    if parts and content.suggestions:
        last = parts[-1]
        section = suggestion_section(
            content.suggestions, room=BUDGET - visible_length(last.html) - 1
        )
        if section:
            extra = message_of(section)
            parts[-1] = RenderedPart(
                last.html + "\n" + extra.html, last.plain + "\n" + extra.plain, last.covers
            )
    return parts


def since_text(content: DigestContent) -> str:
    """The day the digest counts from, on the chat's clock, in the language speaking now:
    "Mon 30 Mar", "3月30日周一"."""
    return short_day(content.since.astimezone(content.zone))
