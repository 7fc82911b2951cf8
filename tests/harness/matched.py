"""`matched`: a record as the matcher hands it to the store, with the ids of the followed authors
it matched.
"""

from __future__ import annotations

from watcher.store import MatchedRecord


def matched(record, *ids: int) -> MatchedRecord:  # type: ignore[no-untyped-def]
    return MatchedRecord(record, frozenset(ids))
