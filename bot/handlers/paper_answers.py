"""The answers to /paper: what the look-up (`watcher.core.lookup`) decided, as one reply.

Pure: the outcome and the names to mark ★ in, a message or an HTML text out.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from bot.handlers.budget import minutes
from bot.render import Message, render_paper_lookup
from watcher.arxiv.taxonomy import category_name
from watcher.core.lookup import Found, LookupOutcome, Missing, NoSuchVersion
from watcher.core.subscribing import BudgetSpent, TooSlow, Unreachable

TRY_LATER = "Please try again in a few minutes."


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
            return (
                f"arXiv has no paper arXiv:{shown}: it answered “{html.escape(outcome.reason)}”. "
                "An id looks like 2604.01234, 2604.01234v2 or math/0601001."
            )
        return (
            f"arXiv has no paper arXiv:{shown}. Check its digits; a paper announced this evening "
            "reaches arXiv's API only after midnight US Eastern."
        )
    if isinstance(outcome, BudgetSpent):
        return (
            "This chat has asked arXiv for enough papers for now; try again in "
            f"{minutes(outcome.wait)}. Stored papers are still shown at once."
        )
    if isinstance(outcome, TooSlow):
        return f"⚠️ arXiv is slow to answer just now. {TRY_LATER}"
    assert isinstance(outcome, Unreachable), outcome
    return f"⚠️ arXiv could not be asked just now ({html.escape(str(outcome.error))}). {TRY_LATER}"


def _note(outcome: Found | NoSuchVersion) -> str:
    """The line under a paper: where it came from, and which version it is."""
    record = outcome.record
    if isinstance(outcome, NoSuchVersion):
        return (
            f"(arXiv has no v{outcome.asked} of this paper; this is v{record.version}, "
            "the newest I know.)"
        )
    if outcome.newest is not None:
        return f"(This is v{record.version}, from arXiv; the newest is v{outcome.newest}.)"
    if outcome.fetched:
        return "(Fetched from arXiv just now.)"
    return ""
