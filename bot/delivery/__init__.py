"""Delivery: the outbox drained into Telegram, each announcement once per chat, surviving
crashes. `DeliverySender` is its face; the front end starts it and wakes it.

- `sender`: the scheduling loop (refill from the outbox, start sends, idle, stop, forget);
- `messages`: what one send carries, decided before it goes (a digest part, a summary, a compact
  message of several papers, or one paper) and which deliveries it confirms;
- `compose`: each kind of message rendered, with its keyboard, and how it goes out;
- `answers`: what Telegram's answer to a send means (sent, retry, park, fail, migrate,
  deactivate);
- `confirmations`: the group commit that marks confirmed sends sent, many to a transaction;
- `counting`: the sender's part of the metrics (each answer counted, each confirmed send's delay);
- `admin_notices`: the notices the core owes the admin chats (a source stopped parsing, or reads
  again), each marked sent once Telegram confirmed it;
- `suggestions`: the "Suggested for you" messages, sent in the slots announcements leave free;
- `pace`: how many sends run at once for a rate, and what ends one send.
"""

from bot.delivery.sender import DeliverySender

__all__ = ["DeliverySender"]
