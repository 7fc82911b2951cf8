"""Pure renderers: stored `Record`s in, Telegram messages (HTML text, its plain-text fallback,
and buttons) out.

Nothing here does I/O or touches python-telegram-bot: a `Message` is a plain dataclass that the
sending code turns into PTB objects. Every message is built once, as lines of styled spans, and
its HTML and its plain text are two views of those lines (`styled`), so they say the same thing
and the visible length Telegram counts is exact. One module per kind of message:

- `paper`: one paper in full, as news (`render_paper`) or looked up (`render_paper_lookup`);
- `lists`: many papers in one message: a page of a list, a summary, a digest;
- `compact`: one line per paper, several papers to a message (`/format compact`);
- `card`: one paper's compact card, as inline mode offers it for any chat;
- `actions`: the buttons under a paper, and the callback data they carry;
- `saved`: a page of /saved, the chat's reading list, with its buttons;
- `suggested`: a batch's "Suggested for you" message, with 👍/👎 buttons, and a digest's section;
- `styled`: the lines and spans, their two views, lengths and cutting; `Message` and `Button`.
"""

from bot.render.compact import CompactEntry, CompactMessage, render_compact
from bot.render.lists import (
    MAX_DIGEST_MESSAGES,
    MAX_PER_PAGE,
    DigestPage,
    Finder,
    page_from_callback,
    render_digest,
    render_paper_list,
    render_summary,
)
from bot.render.paper import render_paper, render_paper_lookup
from bot.render.styled import (
    MAX_CALLBACK_DATA_BYTES,
    MAX_MESSAGE_LENGTH,
    Button,
    Message,
    visible_length,
)

__all__ = [
    "MAX_CALLBACK_DATA_BYTES",
    "MAX_DIGEST_MESSAGES",
    "MAX_MESSAGE_LENGTH",
    "MAX_PER_PAGE",
    "Button",
    "CompactEntry",
    "CompactMessage",
    "DigestPage",
    "Finder",
    "Message",
    "page_from_callback",
    "render_compact",
    "render_digest",
    "render_paper",
    "render_paper_list",
    "render_paper_lookup",
    "render_summary",
    "visible_length",
]
