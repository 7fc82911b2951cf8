"""Take the follows elsewhere, or bring them here: /export [opml] and /import.

/export sends a file of this chat's (forum topic's) follows and settings: plain text, or with
`opml` an OPML of arXiv feeds (`watcher.core.takeout`). Anyone may ask, as anyone may see
/subscriptions.

/import reads such a file, or an OPML of arXiv feeds from another reader: sent as a reply to the
file, or as the file's caption. The file is fetched with getFile and downloaded from the Bot API
server `TELEGRAM_API_URL` names (PTB's `base_file_url`, set from it in `bot.app`), whose address
holds the token: it is never logged. A file refused (wrong type, too large, not UTF-8, malformed
XML, entities) gets one sentence saying why. Otherwise the answer, a reply to the file, says what
will be followed, what is skipped and why, which settings change, and asks with two buttons.
An author id nobody follows is first asked of arXiv, as /subscribe asks (each question one of
the chat's look-ups, `watcher.core.identity_check`): one arXiv does not know is skipped, with the
reason /subscribe gives.

The question is stateless: "Import" carries the plan's digest, and a press reads the file again
(the message the question replies to) and plans again; a plan that differs (the chat changed
meanwhile, or the import was done) is answered "out of date" and changes nothing, so a question
still works after a restart. Only a group's administrators may import, and only a group's or
channel's administrators may press (`bot.handlers.permissions`).
"""

from __future__ import annotations

import html
import logging

from telegram import Document, ReplyParameters, Update
from telegram import Message as TelegramMessage
from telegram.constants import ParseMode
from telegram.error import TelegramError

from bot.arguments import Refused
from bot.handlers.common import (
    NO_PREVIEW,
    Context,
    DeliveryEvents,
    ServiceHandlers,
    bold_list,
    capped_lines,
    edit_answer,
    fit_reply,
    keyboard,
    managed_press,
    papers,
    place_of,
    quoting,
    refusal,
    refuse_non_admin,
    reply,
    reply_usage,
)
from bot.i18n import N_, _, ngettext, say, sayer
from bot.render import MAX_MESSAGE_LENGTH, Button, Message
from watcher.core import Core
from watcher.core.imports import ImportOutdated
from watcher.core.takeout import MAX_FILE_BYTES, FileRefused, ImportPlan, read_file
from watcher.follows.follow_list import ReadList

log = logging.getLogger(__name__)

PREFIX = "x:"
_GO = f"{PREFIX}ok:"
_CANCEL = f"{PREFIX}no"
STALE = N_("This question is out of date; send /import again.")
CANCELLED = N_("Cancelled: nothing was imported.")
NO_FILE = N_(
    "Send /import as a reply to the file /export made (or an OPML of arXiv feeds), "
    "or send the file with /import as its caption."
)
_TEXT_TYPES = ("text/", "application/xml", "application/opml", "application/octet-stream")
_SUFFIXES = (".txt", ".opml", ".xml")
# The settings an import may change that the sender must read again (the zone moves both).
_SPEAKING = frozenset({"paused", "quiet", "silent", "format", "preview", "timezone", "language"})
_DIGEST = frozenset({"digest", "timezone"})


class Takeout(ServiceHandlers):
    """/export, /import and the import question's buttons."""

    def __init__(self, service: Core, *, events: DeliveryEvents) -> None:
        super().__init__(service)
        self.events = events
        self.imports = service.imports

    async def export(self, update: Update, context: Context) -> None:
        """/export [opml]: this chat's follows and settings, as a file."""
        args = [arg.casefold() for arg in context.args or []]
        if args not in ([], ["opml"]):
            await reply_usage(
                update, context, Refused(_("/export takes nothing, or opml."), "/export opml")
            )
            return
        place = place_of(update)
        exported = await self.imports.export(
            place.chat_id, place.thread_id, opml=bool(args), say=sayer()
        )
        await context.bot.send_document(
            place.chat_id,
            document=exported.data,
            filename=exported.name,
            caption=_(
                "{here}'s follows and settings. /import this file in another chat "
                "to follow the same.",
                here=place.here,
            ),
            message_thread_id=place.thread_id or None,
            reply_parameters=quoting(update),  # in a group, whose /export it answers
        )

    async def import_file(self, update: Update, context: Context) -> None:
        """/import, as a reply to a file or as a file's caption: plan it, and ask."""
        message = update.effective_message
        assert message is not None
        caption = (message.caption or "").split(maxsplit=1)
        addressee = caption[0].partition("@")[2] if caption else ""
        if addressee and addressee.casefold() != context.bot.username.casefold():
            return  # /import@otherbot as a caption
        source = message if message.document is not None else message.reply_to_message
        if source is None or source.document is None:
            await reply(
                update,
                context,
                refusal(html.escape(_(NO_FILE)), "/export", lead=_("Make one with:")),
            )
            return
        if await refuse_non_admin(update, context, example="/export"):
            return
        read = await self._read(context, source.document)
        if isinstance(read, str):
            await reply(update, context, html.escape(read))
            return
        place = place_of(update)
        plan = await self.imports.plan(read, place.chat_id, place.thread_id)
        question = ask(plan, place.here)
        await self._reply_to(context, source, question)

    async def press(self, update: Update, context: Context) -> None:
        """A button of the import question: import what it showed, or cancel."""
        query = update.callback_query
        assert query is not None
        data = await managed_press(
            update, context, stale=_(STALE), declined=(_CANCEL, _(CANCELLED))
        )
        if data is None:
            return
        message = query.message
        source = message.reply_to_message if isinstance(message, TelegramMessage) else None
        if not data.startswith(_GO) or source is None or source.document is None:
            await query.answer(_(STALE), show_alert=True)
            return
        read = await self._read(context, source.document)
        if isinstance(read, str):
            await query.answer(_(STALE), show_alert=True)
            return
        place = place_of(update)
        imported = await self.imports.apply(
            read, place.chat_id, place.thread_id, data.removeprefix(_GO)
        )
        if isinstance(imported, ImportOutdated):
            await query.answer(_(STALE), show_alert=True)
            return
        plan = imported.plan
        if _SPEAKING.intersection(plan.settings):
            self.events.speaking_changed()
        if _DIGEST.intersection(plan.settings):
            self.events.digest_changed()
        await query.answer()
        await edit_answer(update, context, done(plan, place.here))

    async def _read(self, context: Context, document: Document) -> ReadList | str:
        """The file's contents read (`ReadList`), or the sentence refusing it."""
        mime = (document.mime_type or "").casefold()
        name = (document.file_name or "").casefold()
        if not (mime.startswith(_TEXT_TYPES) or name.endswith(_SUFFIXES) or not mime):
            if not mime:
                return _(
                    "That file is not text, not a follow list: send the .txt or .opml "
                    "file /export made, or an OPML of arXiv feeds."
                )
            return _(
                "That file is {mime}, not a follow list: send the .txt or .opml "
                "file /export made, or an OPML of arXiv feeds.",
                mime=mime,
            )
        if document.file_size is not None and document.file_size > MAX_FILE_BYTES:
            return _(
                "That file is too large ({size} KB); a follow list is at most {most} KB.",
                size=document.file_size // 1024,
                most=MAX_FILE_BYTES // 1024,
            )
        try:
            file = await context.bot.get_file(document.file_id)
            data = bytes(await file.download_as_bytearray())
        except TelegramError as error:
            # The download address holds the token: only the kind of failure is logged.
            log.warning("could not download a file to import: %s", type(error).__name__)
            return _("I could not download that file from Telegram; send /import again.")
        try:
            return read_file(data)
        except FileRefused as error:
            return say(error.sentence)

    async def _reply_to(self, context: Context, source: TelegramMessage, answer: Message) -> None:
        """Send `answer` as a reply to the file's message (the question's press reads it)."""
        await context.bot.send_message(
            source.chat.id,
            fit_reply(answer.html),
            message_thread_id=source.message_thread_id if source.is_topic_message else None,
            parse_mode=ParseMode.HTML,
            link_preview_options=NO_PREVIEW,
            reply_parameters=ReplyParameters(source.message_id, allow_sending_without_reply=True),
            reply_markup=keyboard(answer),
        )


def ask(plan: ImportPlan, here: str) -> Message:
    """The question: what will be followed and set, what is skipped and why, two buttons."""
    lines = []
    small = here.lower()
    if plan.adds:
        names = bold_list([str(e.rule) for e in plan.adds])
        lines.append(_("📥 {here} will follow {names}.", here=here, names=names))
        if plan.new_follows:
            lines.append(
                ngettext(
                    "{n} of them starts a history, from {here}'s allowance of new follows.",
                    "{n} of them start a history, from {here}'s allowance of new follows.",
                    plan.new_follows,
                    here=small,
                )
            )
    if plan.settings:
        lines.append(_("It will set {settings}.", settings=_settings_text(plan)))
    if plan.saves:
        lines.append(
            _(
                "🔖 It will save {papers} to {here}'s /saved.",
                papers=papers(len(plan.saves)),
                here=small,
            )
        )
    if plan.excludes:
        words = html.escape(", ".join(word.shown for word in plan.excludes))
        lines.append(_("🔇 It will exclude {words} in {here} (/exclude).", words=words, here=small))
    if plan.saved_already:
        lines.append(
            ngettext(
                "{n} paper of the file is saved here already.",
                "{n} papers of the file are saved here already.",
                plan.saved_already,
            )
        )
    paused = plan.settings.get("paused")
    if paused == "yes":
        lines.append(
            _("⏸ The file says paused: {here} will get no messages until /resume.", here=small)
        )
    elif paused == "no":
        lines.append(_("▶️ The file says not paused: what waits for {here} comes then.", here=small))
    skipped = [*plan.skipped, *plan.settings_skipped]
    if plan.empty:
        lines.insert(0, _("Nothing to import from that file."))
    if skipped:
        lines.append(_("Skipped ({count}):", count=len(skipped)))
    room = MAX_MESSAGE_LENGTH - 200 - sum(len(line) for line in lines)
    entries = [
        f"• {html.escape(say(s.where))}, <b>{html.escape(s.text)}</b>: {html.escape(say(s.reason))}"
        for s in skipped
    ]
    text = "\n".join([*lines, *capped_lines(entries, room=room)])
    if plan.empty:
        return Message.from_html(text)
    buttons = (
        (
            Button(
                _("Import {count}", count=len(plan.adds)) if plan.adds else _("Import"),
                callback_data=_GO + plan.digest,
            ),
            Button(_("Cancel"), callback_data=_CANCEL),
        ),
    )
    return Message.from_html(text, buttons)


def done(plan: ImportPlan, here: str) -> str:
    """The question's answer once imported."""
    parts = []
    if plan.adds:
        parts.append(_("now follows {names}", names=bold_list([str(e.rule) for e in plan.adds])))
    if plan.settings:
        parts.append(_("has {settings}", settings=_settings_text(plan)))
    if plan.saves:
        parts.append(_("saved {papers}", papers=papers(len(plan.saves))))
    if plan.excludes:
        parts.append(
            ngettext("excludes {n} more word", "excludes {n} more words", len(plan.excludes))
        )
    said = parts[0] if parts else ""
    for part in parts[1:]:
        # What was done, one part after another: "now follows A and has B".
        said = _("{done} and {more}", done=said, more=part)
    return _("✅ Imported: {here} {done}.", here=here.lower(), done=said)


def _settings_text(plan: ImportPlan) -> str:
    return ", ".join(
        f"<b>{html.escape(key)}</b> {html.escape(value)}" for key, value in plan.settings.items()
    )
