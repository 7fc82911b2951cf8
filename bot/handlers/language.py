"""/language: which language the bot speaks in this chat (or forum topic), and changing it.

`/language` shows the current one with a button per language; `/language zh` or `/language en`
(or a usual name: 中文, chinese, english...) sets it, and an unknown one gets "did you mean".
Anyone may ask; in groups only administrators may change it, by command or button. The answer
comes in the new language. After a change, the chat's own command menu is set in that language
(`bot.menus.MenuPublisher.chat_changed`); a forum topic shares its chat's menu, which follows the
latest change.
"""

from __future__ import annotations

import html
from typing import Protocol

from telegram import Update
from telegram.constants import ParseMode
from telegram.error import BadRequest

from bot.handlers.common import (
    Context,
    DeliveryEvents,
    ServiceHandlers,
    keyboard,
    place_of,
    refuse_non_admin,
    refuse_press,
    reply,
)
from bot.i18n import (
    N_,
    _,
    current_language,
    known_languages,
    language_name,
    parse_language,
    speaking,
)
from bot.render import Button, Message
from watcher.core import Core

LANGUAGE_PREFIX = "lang:"  # callback data: lang:<tag>
_WHAT = N_("its language")
_EXAMPLE = "/language zh"


class MenuChanged(Protocol):
    """What /language tells when a chat's language changed (the chat's command menu follows)."""

    async def chat_changed(self, chat_id: int, language: str) -> None: ...


class NoMenus:
    """`MenuChanged` when no menu follows (the handlers alone)."""

    async def chat_changed(self, chat_id: int, language: str) -> None:
        return None


class LanguageCommands(ServiceHandlers):
    """/language and its buttons."""

    def __init__(
        self, service: Core, *, events: DeliveryEvents, menus: MenuChanged | None = None
    ) -> None:
        super().__init__(service)
        self.chat_settings = service.chat_settings
        self.events = events
        self.menus: MenuChanged = menus or NoMenus()

    async def language(self, update: Update, context: Context) -> None:
        """/language [LANGUAGE]: show it with its buttons, or set it."""
        text = " ".join(context.args or [])
        if not text:
            await reply(update, context, _shown())
            return
        choice = parse_language(text[:64])
        if choice.language is None:
            await reply(update, context, _unknown(text[:40], choice.closest))
            return
        if await refuse_non_admin(update, context, what=_(_WHAT), example="/language"):
            return
        await self._set(update, choice.language)
        await reply(update, context, _changed(choice.language))

    async def press(self, update: Update, context: Context) -> None:
        """A language button under /language's answer: set it, then show the answer again."""
        query = update.callback_query
        assert query is not None
        wanted = (query.data or "").removeprefix(LANGUAGE_PREFIX)
        if wanted not in known_languages():
            await query.answer(_("That button is from an older version; send /language again."))
            return
        if await refuse_press(update, context, what=_(_WHAT)):
            return
        await self._set(update, wanted)
        with speaking(wanted):
            await query.answer(_changed(wanted))
            shown = _shown()
        if query.message is not None:
            try:
                await query.edit_message_text(
                    shown.html, parse_mode=ParseMode.HTML, reply_markup=keyboard(shown)
                )
            except BadRequest as error:
                if "not modified" not in str(error).lower():
                    raise  # pressing the language already chosen changes nothing

    async def _set(self, update: Update, language: str) -> None:
        place = place_of(update)
        await self.chat_settings.set_language(place.chat_id, place.thread_id, language)
        self.events.speaking_changed()  # what the sender composed in the old language: again
        await self.menus.chat_changed(place.chat_id, language)


def _shown() -> Message:
    """The current language, and a button per language (the current one marked)."""
    here = current_language()
    buttons = tuple(
        Button(
            ("✓ " if language == here else "") + language_name(language),
            callback_data=LANGUAGE_PREFIX + language,
        )
        for language in known_languages()
    )
    text = _(
        "🌐 I speak {language} here. Choose another below, or send "
        "<code>/language zh</code> or <code>/language en</code>.",
        language=language_name(here),
    )
    return Message.from_html(text, (buttons,))


def _changed(language: str) -> str:
    """The answer to a change, in the new language."""
    with speaking(language):
        return _("✅ From now on I speak {language} here.", language=language_name(language))


def _unknown(typed: str, closest: str | None) -> str:
    """The refusal of a language the bot does not speak, with the closest it does."""
    names = ", ".join(f"{language_name(tag)} (<code>{tag}</code>)" for tag in known_languages())
    if closest is not None:
        return _(
            "I do not speak “{typed}”. Did you mean <code>/language {closest}</code>? "
            "I speak: {names}.",
            typed=html.escape(typed),
            closest=closest,
            names=names,
        )
    return _(
        "I do not speak “{typed}”. I speak: {names}. For example: <code>{example}</code>",
        typed=html.escape(typed),
        names=names,
        example=_EXAMPLE,
    )
