"""The store: every read and write of papers, follows and their state, one transaction a call.

It is split by what each part owns:
- `follows`: followed authors and their poll state;
- `papers`: saving records (new, revised, silent) and the harvest's high-water mark;
- `questions`: the lists and counts the bot and the CLI ask for.

`Store` joins them over one engine, so callers hold one object.
"""

from __future__ import annotations

from sqlalchemy import Engine

from watcher.followed import Followed
from watcher.store.follows import FollowStore, key_of
from watcher.store.papers import MatchedRecord, PaperStore, SaveResult, storable
from watcher.store.questions import QuestionStore

__all__ = ["Followed", "MatchedRecord", "SaveResult", "Store", "key_of", "storable"]


class Store(FollowStore, PaperStore, QuestionStore):
    """Every read and write of papers and followed authors. Each method is one transaction."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
