"""The store: every table and every transaction of the service. Nothing outside this package
opens a database session (`watcher.runtime.db` only opens the engine and runs the migrations).

One module per thing it owns:
- `tables`: the tables (SQLModel), `DeliveryStatus`, and the column types they share, with
  `dialects` (what differs between SQLite and PostgreSQL: partial indexes, upserts);
- `follow_state`: follow rules (persons, identities, topics) and their poll state;
- `papers`: saving records (new, revised, silent) and the harvest's high-water mark, with
  `saving` (the rows a batch of records writes) and `rows` (records read back from rows);
- `announce`: the deliveries a save owes, queued in the save's own transaction (the outbox's
  write half);
- `outbox`: the deliveries owed, read and confirmed by the front end, and pruned (the read half);
- `chats`: chats, their subscriptions and settings, with `parking` (destinations that refuse
  messages for a while) and `digests` (held deliveries claimed into one message a day or week);
- `budgets`: each chat's budget of follows and look-ups that cost arXiv requests;
- `offers`: the homonym questions asked and not answered yet, for their buttons;
- `applied_imports`: an imported follow list applied in one transaction, with
  `exported_settings` (the settings an export writes and an import sets);
- `lists`: the lists and counts the bot and the CLI ask for;
- `search`: /search, through the databases' own full-text index (migration 0027);
- `by_name`: inline mode's reads: a person's newest papers by exact name, a chat's newest
  announced papers;
- `mailings`: which source showed each arXiv mailing first, when, and the listing's probes;
- `destinations` (with `speaking` and `quiet`): how each chat or topic wants to be spoken to:
  paused, quiet hours, silent, compact;
- `gauges`: the counts a Prometheus scrape shows (`watcher.metrics`), in one short read;
- `source_health`: which of arXiv's interfaces stopped parsing, and the admin notices owed;
- `reading_list`: each chat's saved papers (🔖 Save, /saved), at most 500 a chat;
- `arrivals`: everything /why reads of one chat or topic, in one transaction: what it was
  queued since an instant by follow, and the other modules' reads in that one session.
- `exclusions`: each chat's excluded words (/exclude), and the papers they held back;
- "Suggested for you" (issue 32): `suggestion_tables` (its tables), `paper_terms` (each paper's
  terms and the document frequencies, kept by a batch or when first needed), `profiles` (each
  chat's profile, updated as papers are announced), `suggesting` (the setting, a batch ranked
  in pages, 👍/👎, with `kept_records`: a batch's papers as kept, and `suggestion_queue`: the
  messages a page queues) and `suggestion_outbox` (the messages as the sender drains them, a
  digest's section, the daily prune).

`Store` joins follows, papers, questions, search, inline mode's reads, mailings and source health
over one engine, so callers hold one object; `Chats`, `Outbox`, `LookupBudgets`, `OfferStore`,
`ImportStore`, `ReadingLists` and `Exclusions` stand apart, each over the same engine.
"""

from __future__ import annotations

from sqlalchemy import Engine

import watcher.store.destinations  # (its table is on the metadata)
import watcher.store.suggestion_tables  # noqa: F401  (their tables are on the metadata)
from watcher.store.by_name import NameStore
from watcher.store.follow_state import FollowStore, key_of
from watcher.store.lists import QuestionStore
from watcher.store.mailings import MailingStore
from watcher.store.papers import MatchedRecord, PaperStore, SaveResult, storable
from watcher.store.reading_list import ReadingLists
from watcher.store.search import SearchStore
from watcher.store.source_health import SourceHealthStore

__all__ = [
    "MatchedRecord",
    "ReadingLists",
    "SaveResult",
    "Store",
    "key_of",
    "storable",
]


class Store(
    FollowStore,
    PaperStore,
    QuestionStore,
    SearchStore,
    NameStore,
    MailingStore,
    SourceHealthStore,
):
    """Every read and write of papers and followed authors. Each method is one transaction."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
