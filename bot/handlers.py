"""The Telegram commands: each handler parses its arguments, asks the core, renders and replies.

Every store, chats and outbox call goes through `in_db_thread` (the database is synchronous).
Replies are HTML with link previews off; anything a user typed is escaped before it is echoed.
Wrong arguments get a one-line usage answer (see `bot.arguments`); failures go to `on_error`,
which logs them and tells the user something went wrong, never how.
"""

from __future__ import annotations

import html
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from telegram import (
    Chat,
    ChatMember,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    Update,
)
from telegram.constants import ChatMemberStatus, ChatType, ParseMode
from telegram.error import BadRequest, Forbidden, RetryAfter, TelegramError
from telegram.ext import ApplicationHandlerStop, ContextTypes

from bot import arguments
from bot.arguments import UsageError
from bot.render import MAX_PER_PAGE, Message, render_paper, render_paper_list
from watcher.aio import in_db_thread
from watcher.chats import MAX_SUBSCRIPTIONS
from watcher.match import is_same_person
from watcher.records import Record
from watcher.service import ServiceContext
from watcher.store import Followed
from watcher.taxonomy import category_name

log = logging.getLogger(__name__)

Context = ContextTypes.DEFAULT_TYPE

NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
SORRY = "Something went wrong on our side; please try again."
SLOW_DOWN = "Slow down, please: too many commands at once. I will answer again in a few seconds."
_MANAGERS = frozenset({ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR})
_GONE = frozenset({ChatMemberStatus.BANNED, ChatMemberStatus.LEFT})
_MAX_LISTED_CATEGORIES = 40


def keyboard(message: Message) -> InlineKeyboardMarkup | None:
    """The PTB inline keyboard for a rendered message's buttons (None when it has none)."""
    if not message.buttons:
        return None
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    button.text, url=button.url, callback_data=button.callback_data
                )
                for button in row
            ]
            for row in message.buttons
        ]
    )


# --- flood control for commands ---------------------------------------------------------------

Verdict = Literal["serve", "warn", "drop"]


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float
    warned: bool = False


class CommandBudget:
    """A token bucket per chat: `burst` commands at once, then one per `1/refill_per_second` s.

    Over budget, a chat gets one "slow down" notice (`warn`) and is then ignored (`drop`) until
    it has a token again, so one flooding chat costs the others almost nothing.
    """

    def __init__(
        self,
        *,
        burst: int = 10,
        refill_per_second: float = 1 / 3,
        clock: Callable[[], float] = time.monotonic,
        max_chats: int = 10_000,
    ) -> None:
        self.burst = burst
        self.refill_per_second = refill_per_second
        self.clock = clock
        self.max_chats = max_chats
        self._buckets: dict[int, _Bucket] = {}

    def take(self, chat_id: int) -> Verdict:
        now = self.clock()
        bucket = self._buckets.get(chat_id)
        if bucket is None:
            self._forget_idle(now)
            bucket = self._buckets[chat_id] = _Bucket(float(self.burst), now)
        bucket.tokens = min(
            float(self.burst), bucket.tokens + (now - bucket.updated) * self.refill_per_second
        )
        bucket.updated = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            bucket.warned = False
            return "serve"
        if bucket.warned:
            return "drop"
        bucket.warned = True
        return "warn"

    def _forget_idle(self, now: float) -> None:
        """Keep memory bounded: a chat whose bucket has refilled is the same as a new one."""
        if len(self._buckets) < self.max_chats:
            return
        full_after = self.burst / self.refill_per_second
        for chat_id in [c for c, b in self._buckets.items() if now - b.updated >= full_after]:
            del self._buckets[chat_id]


# --- small helpers ----------------------------------------------------------------------------


def _when(moment: datetime | None) -> str:
    return f"{moment:%Y-%m-%d %H:%M} UTC" if moment else "never"


def _papers(n: int) -> str:
    return f"{n} paper{'' if n == 1 else 's'}"


def _names(followed: Sequence[Followed]) -> str:
    return ", ".join(f"<b>{html.escape(f.name)}</b>" for f in followed)


def _chat_title(chat: Chat) -> str | None:
    title = chat.title or chat.full_name or chat.username
    return title[:255] if title else None


def _is_interaction(update: Update) -> bool:
    """Whether the update asks the bot something (and so counts against the chat's budget)."""
    if update.callback_query is not None:
        return True
    message = update.message or update.channel_post
    if message is None or message.text is None:
        return False
    return message.text.startswith("/") or message.chat.type == ChatType.PRIVATE


def _addressed_to_other_bot(update: Update, bot_username: str) -> bool:
    message = update.effective_message
    if message is None or not message.text:
        return False
    command = message.text.split(maxsplit=1)[0]
    _, at, suffix = command.partition("@")
    if at:
        return suffix.casefold() != bot_username.casefold()
    # In groups and channels other bots may share unaddressed commands: stay quiet there.
    return message.chat.type != ChatType.PRIVATE


class Commands:
    """The handlers, bound to the core through a `ServiceContext`."""

    def __init__(self, service: ServiceContext, *, budget: CommandBudget | None = None) -> None:
        self.service = service
        self.settings = service.settings
        self.store = service.store
        self.chats = service.chats
        self.budget = budget or CommandBudget()

    # --- plumbing -----------------------------------------------------------------------------

    async def _say(
        self, update: Update, context: Context, text: str, message: Message | None = None
    ) -> None:
        chat = update.effective_chat
        assert chat is not None
        await context.bot.send_message(
            chat.id,
            message.html if message else text,
            parse_mode=ParseMode.HTML,
            link_preview_options=NO_PREVIEW,
            reply_markup=keyboard(message) if message else None,
        )

    async def _usage(self, update: Update, context: Context, error: UsageError) -> None:
        await self._say(update, context, html.escape(str(error)))

    async def _may_manage(self, update: Update, context: Context) -> bool:
        """Whether the sender may change what this chat follows: in groups, admins only."""
        chat = update.effective_chat
        message = update.effective_message
        assert chat is not None
        assert message is not None
        if chat.type in (ChatType.PRIVATE, ChatType.CHANNEL):
            return True  # in a channel only administrators can post at all
        if message.sender_chat is not None and message.sender_chat.id == chat.id:
            return True  # an anonymous administrator speaks as the group itself
        user = update.effective_user
        if user is None:
            return False
        member: ChatMember = await context.bot.get_chat_member(chat.id, user.id)
        return member.status in _MANAGERS

    async def _refuse_non_admin(self, update: Update, context: Context) -> bool:
        if await self._may_manage(update, context):
            return False
        await self._say(
            update, context, "Only this group's administrators can change what it follows."
        )
        return True

    def _watched(self) -> list[Followed]:
        """The service's watched authors (WATCH_AUTHORS) as stored. Database thread."""
        found = (self.store.find_followed(spec[0]) for spec in self.settings.followed_specs)
        return [followed for followed in found if followed is not None]

    def _scope(self, chat_id: int) -> tuple[list[Followed], bool]:
        """The authors a chat's questions are about: its own, else the watched ones (False)."""
        ids = self.chats.subscribed_ids(chat_id)
        if ids:
            return self.store.followed(ids), True
        return self._watched(), False

    # --- the gate: before every handler -------------------------------------------------------

    async def gate(self, update: Update, context: Context) -> None:
        """Throttle a flooding chat, and note that a chat which asks something is reachable."""
        chat = update.effective_chat
        if chat is None or not _is_interaction(update):
            return
        verdict = self.budget.take(chat.id)
        if verdict != "serve":
            if verdict == "warn":
                log.info("chat %s is over its command budget; ignoring it for a while", chat.id)
            query = update.callback_query
            if query is not None:
                await query.answer(SLOW_DOWN if verdict == "warn" else None)
            elif verdict == "warn":
                await self._say(update, context, SLOW_DOWN)
            raise ApplicationHandlerStop
        if update.callback_query is None:
            await in_db_thread(self.chats.seen, chat.id, kind=chat.type, title=_chat_title(chat))

    # --- commands -----------------------------------------------------------------------------

    async def start(self, update: Update, context: Context) -> None:
        """/start: what the bot does, whom it watches, how to subscribe."""
        chat = update.effective_chat
        assert chat is not None
        following = await in_db_thread(self.chats.subscribed_ids, chat.id)
        watched = ", ".join(
            f"<b>{html.escape(spec[0])}</b>" for spec in self.settings.followed_specs
        )
        lines = [
            "👋 I watch arXiv for new papers by the authors you follow, and post each new "
            "abstract here once.",
            f"I watch {watched}." if watched else "I watch nobody yet.",
            "",
        ]
        if following:
            lines.append(
                f"This chat follows {len(following)} author{'s' if len(following) > 1 else ''}: "
                "see /subscriptions."
            )
        else:
            lines.append("• /subscribe: follow the authors I watch, in this chat")
        lines += [
            "• /subscribe NAME: follow anyone, e.g. /subscribe Dezun Dong",
            "• /recent: the newest papers",
            "• /help: every command",
        ]
        await self._say(update, context, "\n".join(lines))

    async def help(self, update: Update, context: Context) -> None:
        """/help: every command with an example."""
        await self._say(update, context, HELP)

    async def subscribe(self, update: Update, context: Context) -> None:
        """/subscribe [NAME]: follow the watched authors, or one more author."""
        try:
            name = arguments.author_name(context.args or [], command="subscribe")
        except UsageError as error:
            await self._usage(update, context, error)
            return
        if await self._refuse_non_admin(update, context):
            return
        chat = update.effective_chat
        assert chat is not None
        if name is None:
            await self._say(update, context, await in_db_thread(self._subscribe_watched, chat.id))
            return
        # Fetching a history waits on arXiv (3 s a request): run it aside, so that every other
        # chat is served meanwhile. Its errors still reach `on_error` through the update.
        context.application.create_task(
            self._subscribe_author(update, context, chat.id, name),
            update=update,
            name=f"subscribe-{chat.id}",
        )

    def _subscribe_watched(self, chat_id: int) -> str:
        """Database thread: subscribe the chat to every watched author; the answer."""
        subscribed = set(self.chats.subscribed_ids(chat_id))
        watched = [self.store.follow(spec)[0] for spec in self.settings.followed_specs]
        missing = [f for f in watched if f.id not in subscribed]
        if not watched:
            return "I watch nobody yet; follow someone with /subscribe NAME."
        if not missing:
            return f"This chat already follows {_names(watched)}. /recent shows the newest papers."
        if len(subscribed) + len(missing) > MAX_SUBSCRIPTIONS:
            return _full_message()
        for followed in missing:
            self.chats.subscribe(chat_id, followed.id)
        details = "; ".join(
            f"<b>{html.escape(f.name)}</b> ({_papers(f.record_count)} on record)"
            if f.backfilled
            else f"<b>{html.escape(f.name)}</b> (papers not fetched yet)"
            for f in missing
        )
        return f"✅ This chat now follows {details}. New papers will be posted here."

    async def _subscribe_author(
        self, update: Update, context: Context, chat_id: int, name: str
    ) -> None:
        prepared = await in_db_thread(self._prepare_follow, chat_id, name)
        if isinstance(prepared, str):
            await self._say(update, context, prepared)
            return
        followed, created = prepared
        shown = f"<b>{html.escape(followed.name)}</b>"
        failure: str | None = None
        if not followed.backfilled:
            await self._say(
                update, context, f"🔎 Looking for {shown} on arXiv; this takes a few seconds…"
            )
            report = await self.service.poller.poll(only=[followed.id], force=True)
            failure = report.failures.get(followed.name)
            refreshed = await in_db_thread(self.store.followed, [followed.id])
            if refreshed:
                followed = refreshed[0]
        if failure is not None and not followed.backfilled:
            await in_db_thread(self.chats.subscribe, chat_id, followed.id)
            await self._say(
                update,
                context,
                f"⚠️ I could not reach arXiv just now ({html.escape(failure[:200])}). This chat "
                f"follows {shown} anyway; I will keep trying and post new papers as they appear.",
            )
            return
        if followed.record_count == 0:
            if created:
                # Nobody asked for this name before and arXiv has nothing: leave no trace of it.
                await in_db_thread(self.store.unfollow, followed.id)
            await self._say(
                update,
                context,
                f"No arXiv papers by {shown} were found, so this chat does not follow it. "
                "Check the spelling: the full name as arXiv lists it, e.g. /subscribe Dezun Dong.",
            )
            return
        await in_db_thread(self.chats.subscribe, chat_id, followed.id)
        await self._say(
            update,
            context,
            f"✅ This chat now follows {shown}: {_papers(followed.record_count)} found on arXiv. "
            "New ones will be posted here; /recent shows the newest.",
        )

    def _prepare_follow(self, chat_id: int, name: str) -> str | tuple[Followed, bool]:
        """Database thread: the author to follow (created if new), or the answer why not."""
        subscribed = self.chats.subscribed_ids(chat_id)
        existing = self.store.find_followed(name)
        if existing is not None and existing.id in subscribed:
            return (
                f"This chat already follows <b>{html.escape(existing.name)}</b>. "
                "/subscriptions lists what it follows."
            )
        if len(subscribed) >= MAX_SUBSCRIPTIONS:
            return _full_message()
        if existing is not None:
            return existing, False
        return self.store.follow([name])

    async def unsubscribe(self, update: Update, context: Context) -> None:
        """/unsubscribe [NAME]: stop following one author, or everything."""
        try:
            name = arguments.author_name(context.args or [], command="unsubscribe")
        except UsageError as error:
            await self._usage(update, context, error)
            return
        if await self._refuse_non_admin(update, context):
            return
        chat = update.effective_chat
        assert chat is not None
        await self._say(update, context, await in_db_thread(self._unsubscribe, chat.id, name))

    def _unsubscribe(self, chat_id: int, name: str | None) -> str:
        """Database thread. Authors stay followed by the service: others may still want them."""
        subscribed = self.chats.subscribed_ids(chat_id)
        if name is None:
            if not subscribed:
                return "This chat follows nobody; nothing to stop."
            followed = self.store.followed(subscribed)
            self.chats.unsubscribe(chat_id, None)
            return f"✅ This chat no longer follows {_names(followed)}."
        found = self.store.find_followed(name)
        if found is None or found.id not in subscribed:
            return (
                f"This chat does not follow <b>{html.escape(name)}</b>. "
                "/subscriptions lists what it follows."
            )
        self.chats.unsubscribe(chat_id, found.id)
        return f"✅ This chat no longer follows <b>{html.escape(found.name)}</b>."

    async def subscriptions(self, update: Update, context: Context) -> None:
        """/subscriptions: what this chat follows, with counts and last successful poll."""
        chat = update.effective_chat
        assert chat is not None
        await self._say(update, context, await in_db_thread(self._subscriptions, chat.id))

    def _subscriptions(self, chat_id: int) -> str:
        followed = self.store.followed(self.chats.subscribed_ids(chat_id))
        info = self.chats.get(chat_id)
        if not followed:
            return (
                "This chat follows nobody yet. /subscribe follows the authors I watch; "
                "/subscribe NAME follows anyone."
            )
        lines = [f"This chat follows {len(followed)} author{'s' if len(followed) > 1 else ''}:"]
        for f in followed:
            line = f"• <b>{html.escape(f.name)}</b>: {_papers(f.record_count)}, "
            line += f"last checked {_when(f.last_success)}" if f.backfilled else "not fetched yet"
            if f.consecutive_failures:
                line += f" (⚠️ the last {f.consecutive_failures} tries failed; retrying)"
            lines.append(line)
        revisions = info is not None and info.notify_revisions
        lines.append(
            f"New versions of papers: {'on' if revisions else 'off'} "
            f"(/revisions {'off' if revisions else 'on'} to change)."
        )
        return "\n".join(lines)

    async def recent(self, update: Update, context: Context) -> None:
        """/recent [N]: the newest stored papers of this chat's authors."""
        try:
            number = arguments.count(context.args or [], command="recent")
        except UsageError as error:
            await self._usage(update, context, error)
            return
        await self._send_list(update, context, None, number)

    async def subject(self, update: Update, context: Context) -> None:
        """/subject CATEGORY [N]: the newest stored papers in a category."""
        try:
            wanted = arguments.subject(context.args or [])
        except UsageError as error:
            await self._usage(update, context, error)
            return
        await self._send_list(update, context, wanted.category, wanted.count)

    async def _send_list(
        self, update: Update, context: Context, category: str | None, number: int
    ) -> None:
        chat = update.effective_chat
        assert chat is not None
        # The renderer fits at most MAX_PER_PAGE entries in one message; more page on.
        per_page = min(number, MAX_PER_PAGE)
        answer = await in_db_thread(self._list, chat.id, category, per_page, 0)
        if isinstance(answer, str):
            await self._say(update, context, answer)
        else:
            await self._say(update, context, "", answer)

    def _list(self, chat_id: int, category: str | None, per_page: int, page: int) -> Message | str:
        """Database thread: one page of /recent or /subject, or the answer why there is none."""
        followed, own = self._scope(chat_id)
        if not followed:
            return "Nobody is followed yet: /subscribe NAME follows an author."
        ids = [f.id for f in followed]
        whose = _names(followed) if len(followed) <= 3 else f"{len(followed)} authors"
        if category is None:
            total = self.store.count(followed_ids=ids)
            records = self.store.recent(limit=per_page, offset=page * per_page, followed_ids=ids)
            title = f"Newest papers of {_plain(followed)}"
        else:
            total = self.store.count_category(category, followed_ids=ids)
            records = self.store.by_category(
                category, limit=per_page, offset=page * per_page, followed_ids=ids
            )
            title = f"{category} ({category_name(category) or 'arXiv'}), {_plain(followed)}"
        if total == 0 and category is None:
            return (
                f"No papers of {whose} are stored yet; the first fetch from arXiv may still be "
                "running. Try again in a minute."
            )
        if total == 0:
            assert category is not None
            return self._empty_category(category, ids, whose)
        hint = "" if own else " (the authors I watch; /subscribe to follow them here)"
        return render_paper_list(
            records,
            title=title + hint,
            page=page,
            per_page=per_page,
            total=total,
            callback_prefix=arguments.list_prefix(category, per_page),
        )

    def _empty_category(self, category: str, ids: list[int], whose: str) -> str:
        counts = self.store.category_counts(followed_ids=ids)
        have = ", ".join(f"{name} ({n})" for name, n in counts[:10])
        named = category_name(category)
        label = f"{category} ({html.escape(named)})" if named else category
        return f"No stored papers of {whose} are in {label}. " + (
            f"Categories with papers: {have}." if have else "No papers are stored yet."
        )

    async def page(self, update: Update, context: Context) -> None:
        """A "Newer"/"Older" button under a list: edit that message to the asked page."""
        query = update.callback_query
        chat = update.effective_chat
        assert query is not None
        wanted = arguments.list_button(query.data or "")
        if wanted is None or chat is None or query.message is None:
            await query.answer("This button no longer works; send /recent again.")
            return
        await query.answer()
        answer = await in_db_thread(
            self._list, chat.id, wanted.category, wanted.per_page, wanted.page
        )
        text = answer if isinstance(answer, str) else answer.html
        try:
            await query.edit_message_text(
                text,
                parse_mode=ParseMode.HTML,
                link_preview_options=NO_PREVIEW,
                reply_markup=None if isinstance(answer, str) else keyboard(answer),
            )
        except BadRequest as error:
            if "not modified" not in str(error).lower():
                raise  # a double press asks for the page already shown: nothing to do

    async def subjects(self, update: Update, context: Context) -> None:
        """/subjects: the categories of the stored papers, with names and counts."""
        chat = update.effective_chat
        assert chat is not None
        await self._say(update, context, await in_db_thread(self._subjects, chat.id))

    def _subjects(self, chat_id: int) -> str:
        followed, _ = self._scope(chat_id)
        counts = self.store.category_counts(followed_ids=[f.id for f in followed])
        if not counts:
            return "No papers are stored yet, so there are no categories to show."
        lines = [f"Categories of the papers of {html.escape(_plain(followed))}:"]
        for category, n in counts[:_MAX_LISTED_CATEGORIES]:
            named = category_name(category)
            label = f" {html.escape(named)}" if named else ""
            lines.append(f"• <code>{html.escape(category)}</code>{label}: {n}")
        if len(counts) > _MAX_LISTED_CATEGORIES:
            lines.append(f"… and {len(counts) - _MAX_LISTED_CATEGORIES} more.")
        lines.append("/subject CATEGORY shows the newest papers of one, e.g. /subject cs.DC")
        return "\n".join(lines)

    async def paper(self, update: Update, context: Context) -> None:
        """/paper ID: one stored paper in full."""
        try:
            wanted = arguments.paper(context.args or [])
        except UsageError as error:
            await self._usage(update, context, error)
            return
        found = await in_db_thread(self._paper, wanted.arxiv_id)
        if found is None:
            await self._say(
                update,
                context,
                f"arXiv:{html.escape(wanted.arxiv_id)} is not among the stored papers (I keep "
                "only papers of followed authors). arXiv has it at "
                f"https://arxiv.org/abs/{html.escape(wanted.arxiv_id)} if it exists.",
            )
            return
        record, names = found
        message = render_paper(
            record,
            marked=lambda author: is_same_person(author, names),
            kind="new" if record.version == 1 else "revision",
            category_name=category_name,
        )
        message = Message(_as_lookup(message.html, record), message.buttons)
        note = ""
        if wanted.version is not None and wanted.version != record.version:
            note = f"\n\n(You asked for v{wanted.version}; I keep only v{record.version}.)"
        await self._say(update, context, "", Message(message.html + note, message.buttons))

    def _paper(self, arxiv_id: str) -> tuple[Record, list[str]] | None:
        record = self.store.paper(arxiv_id)
        if record is None:
            return None
        followed = self.store.followed(self.store.paper_followed_ids(arxiv_id))
        return record, [name for f in followed for name in f.names]

    async def revisions(self, update: Update, context: Context) -> None:
        """/revisions on|off: whether this chat hears about new versions of papers."""
        chat = update.effective_chat
        assert chat is not None
        try:
            enabled = arguments.on_off(context.args or [])
        except UsageError as error:
            await self._usage(update, context, error)
            return
        if enabled is None:
            info = await in_db_thread(self.chats.get, chat.id)
            now = info is not None and info.notify_revisions
            await self._say(
                update,
                context,
                f"New versions of papers are {'on' if now else 'off'} for this chat. "
                f"{arguments.USAGE['revisions']}",
            )
            return
        if await self._refuse_non_admin(update, context):
            return
        await in_db_thread(self.chats.set_notify_revisions, chat.id, enabled)
        await self._say(
            update,
            context,
            "✅ This chat will now be told about new versions of papers."
            if enabled
            else "✅ This chat will no longer be told about new versions of papers.",
        )

    async def stats(self, update: Update, context: Context) -> None:
        """/stats: the service's health, for ADMIN_CHAT_IDS only."""
        chat = update.effective_chat
        assert chat is not None
        if chat.id not in self.settings.admin_chat_ids:
            await self._say(update, context, "Sorry, /stats is not allowed here: admins only.")
            return
        await self._say(update, context, await in_db_thread(self._stats))

    def _stats(self) -> str:
        chats, active, subscriptions = self.chats.counts()
        deliveries = self.service.outbox.stats()
        lines = [
            "<b>arxiv-watcher</b>",
            f"Chats: {chats} ({active} active); subscriptions: {subscriptions}",
            f"Papers stored: {self.store.count()}",
            f"Deliveries: {deliveries.pending} pending, {deliveries.parked} parked, "
            f"{deliveries.sent} sent, {deliveries.failed} failed",
            "",
            "<b>Authors</b>",
        ]
        for f in self.store.followed():
            line = (
                f"• {html.escape(f.name)}: {_papers(f.record_count)}, "
                f"last success {_when(f.last_success)}"
            )
            if f.consecutive_failures:
                line += (
                    f"; {f.consecutive_failures} failures, last: "
                    f"{html.escape((f.last_error or '')[:120])}"
                )
            lines.append(line)
        failures = self.service.outbox.failures(limit=5)
        if failures:
            lines += ["", "<b>Latest failed deliveries</b>"]
            lines += [
                f"• chat {chat_id}, {html.escape(arxiv_id)}: {html.escape(reason[:120])}"
                for chat_id, arxiv_id, reason in failures
            ]
        return "\n".join(lines)

    async def unknown_command(self, update: Update, context: Context) -> None:
        """A command this bot does not have: point at /help (unless it was for another bot)."""
        if _addressed_to_other_bot(update, context.bot.username):
            return
        message = update.effective_message
        command = message.text.split(maxsplit=1)[0] if message and message.text else "That"
        await self._say(
            update,
            context,
            f"I do not know {html.escape(command[:40])}. /help lists the commands.",
        )

    async def plain_text(self, update: Update, context: Context) -> None:
        """Plain text in a private chat: point at /help."""
        await self._say(update, context, "I answer commands only. /help lists them.")

    async def membership(self, update: Update, context: Context) -> None:
        """The bot was blocked, removed, unblocked or added: park or resume the chat."""
        change = update.my_chat_member
        if change is None:
            return
        chat = change.chat
        status = change.new_chat_member.status
        if status in _GONE:
            reason = (
                "the user blocked the bot"
                if chat.type == ChatType.PRIVATE
                else f"the bot was removed from the {chat.type}"
            )
            log.info("chat %s is gone: %s", chat.id, reason)
            await in_db_thread(self.chats.deactivate, chat.id, reason=reason)
        else:
            await in_db_thread(self.chats.seen, chat.id, kind=chat.type, title=_chat_title(chat))

    async def migrated(self, update: Update, context: Context) -> None:
        """A group became a supergroup: its chat id changes, and so must ours."""
        message = update.effective_message
        if message is not None and message.migrate_to_chat_id is not None:
            await in_db_thread(self.chats.migrate, message.chat.id, message.migrate_to_chat_id)

    async def on_error(self, update: object, context: Context) -> None:
        """The one error handler: log it, and tell the user (never the details)."""
        error = context.error
        chat = update.effective_chat if isinstance(update, Update) else None
        if isinstance(error, Forbidden) and chat is not None:
            log.info("chat %s refused a reply: %s", chat.id, error)
            await in_db_thread(self.chats.deactivate, chat.id, reason=str(error))
            return
        log.error("handling an update failed", exc_info=error)
        if chat is None or isinstance(error, RetryAfter):
            return  # no one to tell, or Telegram asked for quiet
        try:
            await context.bot.send_message(chat.id, SORRY, link_preview_options=NO_PREVIEW)
        except TelegramError as again:
            log.warning("could not tell chat %s about the error: %s", chat.id, again)


def _full_message() -> str:
    return (
        f"This chat already follows {MAX_SUBSCRIPTIONS} authors, the most allowed. "
        "/unsubscribe NAME one of them first."
    )


def _plain(followed: Sequence[Followed]) -> str:
    if not followed:
        return "nobody"
    if len(followed) <= 3:
        return ", ".join(f.name for f in followed)
    return f"{len(followed)} authors"


def _as_lookup(rendered: str, record: Record) -> str:
    """Swap the notification's "New paper"/"Updated" first line for a plain heading: a looked-up
    paper is not news."""
    first, newline, rest = rendered.partition("\n")
    if not newline or "arXiv:" not in first:
        return rendered
    return f"📄 <b>Paper</b> · arXiv:<code>{html.escape(record.versioned_id)}</code>\n{rest}"


HELP = "\n".join(
    [
        "<b>Commands</b>",
        "/start: what I do and whom I watch",
        "/subscribe: follow the authors I watch in this chat",
        "/subscribe NAME: follow an author, e.g. <code>/subscribe Dezun Dong</code>",
        "/unsubscribe NAME: stop one, e.g. <code>/unsubscribe Dezun Dong</code>; "
        "/unsubscribe alone stops everything",
        "/subscriptions: what this chat follows",
        "/recent [N]: the N newest papers (default 5, at most 20), e.g. <code>/recent 10</code>",
        "/subject CATEGORY [N]: the newest papers in a category, e.g. "
        "<code>/subject cs.DC 5</code>",
        "/subjects: the categories of the stored papers",
        "/paper ID: one paper in full, e.g. <code>/paper 2604.01234</code> or an arxiv.org link",
        "/revisions on|off: tell this chat about new versions of papers, e.g. "
        "<code>/revisions on</code>",
        "/stats: the service's health (administrators only)",
        "/help: this list",
        "",
        "In groups, only administrators can subscribe or unsubscribe; anyone can ask.",
    ]
)
