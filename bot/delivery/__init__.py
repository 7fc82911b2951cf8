"""Delivery: the outbox drained into Telegram, each announcement once per chat, surviving
crashes. `DeliverySender` is its face; the front end starts it and wakes it.

- `sender`: the scheduling loop (refill from the outbox, start sends, idle, stop, forget);
- `compose`: what each send carries (a paper, a summary, a digest part) and how it goes out;
- `answers`: what Telegram's answer to a send means (sent, retry, park, fail, migrate,
  deactivate);
- `confirmations`: the group commit that marks confirmed sends sent, many to a transaction;
- `admin_notices`: the notices the core owes the admin chats (a source stopped parsing, or reads
  again), each marked sent once Telegram confirmed it.
"""

from bot.delivery.sender import DeliverySender

__all__ = ["DeliverySender"]
