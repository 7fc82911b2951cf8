"""The answers to /paper: what the look-up (`watcher.core.lookup`) decided, as one reply.

Pure: the outcome and the names to mark ★ in, a message or an HTML text out.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from bot.handlers.budget import minutes
from bot.i18n import _
from bot.render import Message, render_paper_lookup
from watcher.arxiv.taxonomy import category_name
from watcher.core.lookup import Found, LookupOutcome, Missing, NoSuchVersion
from watcher.core.subscribing import BudgetSpent, TooSlow, Unreachable


def paper_answer(outcome: LookupOutcome, *, marked: Callable[[str], bool]) -> Message | str:
    """The reply to /paper for `outcome`; `marked` says which author names get a ★."""
    if isinstance(outcome, Found | NoSuchVersion):
        message = render_paper_lookup(outcome.record, marked=marked, category_name=category_name)
        note = _note(outcome)
        if not note:
            return message
        note = f"\n\n{note}"
        return Message(message.html + html.escape(note), message.plain + note, message.buttons)
    if isinstance(outcome, Missing):
        shown = html.escape(outcome.arxiv_id)
        if outcome.reason:
            return _(
                "arXiv has no paper arXiv:{paper}: it answered “{reason}”. An id looks like "
                "2604.01234, 2604.01234v2 or math/0601001.",
                paper=shown,
                reason=html.escape(outcome.reason),
            )
        return _(
            "arXiv has no paper arXiv:{paper}. Check its digits; a paper announced this evening "
            "reaches arXiv's API only after midnight US Eastern.",
            paper=shown,
        )
    if isinstance(outcome, BudgetSpent):
        return _(
            "This chat has asked arXiv for enough papers for now; try again in {wait}. Stored "
            "papers are still shown at once.",
            wait=minutes(outcome.wait),
        )
    if isinstance(outcome, TooSlow):
        return _("⚠️ arXiv is slow to answer just now. Please try again in a few minutes.")
    assert isinstance(outcome, Unreachable), outcome
    return _(
        "⚠️ arXiv could not be asked just now ({error}). Please try again in a few minutes.",
        error=html.escape(str(outcome.error)),
    )


def _note(outcome: Found | NoSuchVersion) -> str:
    """The line under a paper: where it came from, and which version it is."""
    record = outcome.record
    if isinstance(outcome, NoSuchVersion):
        return _(
            "(arXiv has no v{asked} of this paper; this is v{version}, the newest I know.)",
            asked=outcome.asked,
            version=record.version,
        )
    if outcome.newest is not None:
        return _(
            "(This is v{version}, from arXiv; the newest is v{newest}.)",
            version=record.version,
            newest=outcome.newest,
        )
    if outcome.fetched:
        return _("(Fetched from arXiv just now.)")
    return ""
