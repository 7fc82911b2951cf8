"""OR-queries that keep failing, split by halves until the name arXiv fails on stands alone.

People followed by name share OR-queries of about 30 names (`watcher.arxiv.queries`). When arXiv
keeps failing one query because of one name in it, every name of that query goes unpolled with
it. So a follow whose polls failed `SPLIT_AFTER` times in a row is a suspect: suspects are
grouped apart from the other names, in groups of at most `FIRST_SPLIT` names, a size that
halves with each further failure (16, 8, 4, 2, then alone from `ALONE_AFTER` failures on). A
group that succeeds clears its follows' failures, so its names are back in full queries at
their next poll; the name that keeps failing ends alone, with its own backoff
(`watcher.polling.failures`) and its own line wherever poll failures are shown.

The plan keeps no state of its own: it is read from each follow's count of failures in a row
(`PollState.consecutive_failures`), so it survives a restart mid-split, and any process reading
the same poll states plans the same groups (authors in the order given, suspects with fewer
failures first).

Splitting costs requests, and when arXiv fails every query every name becomes a suspect. So at
most `SPLIT_BUDGET` groups a cycle are cut to a suspect's size; the suspects beyond that share
full-size queries (still apart from the other names) until the budget reaches them. The
suspects thus cost at most `SPLIT_BUDGET` requests a cycle more than packed in full queries,
however many queries fail and for however long: when arXiv fails everyone, a cycle costs at
most `SPLIT_BUDGET` requests more than before the failures. (Packing the suspects apart from
the other names can cost one partial query more, with names of similar lengths.) Suspects
with fewer failures come first: a query that began failing lately has the most names to free,
and one whose names are all known to fail hurts no one by waiting.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from watcher.arxiv.queries import group_queries

SPLIT_AFTER = 3  # failures in a row before a follow's query is split
FIRST_SPLIT = 16  # names at most in a suspect's group at SPLIT_AFTER failures; halved after
ALONE_AFTER = SPLIT_AFTER + FIRST_SPLIT.bit_length() - 1  # failures from which a suspect is alone
SPLIT_BUDGET = 8  # suspects' groups cut to their size, a cycle


def split_size(failures: int) -> int | None:
    """The most names a follow with `failures` failures in a row shares a query with: None (a
    full query) below `SPLIT_AFTER`, then `FIRST_SPLIT` halved per further failure, down to 1.
    The shift is capped, so any count of failures gives 1."""
    if failures < SPLIT_AFTER:
        return None
    return max(1, FIRST_SPLIT >> min(failures - SPLIT_AFTER, FIRST_SPLIT.bit_length()))


@dataclass(frozen=True, slots=True)
class GroupPlan:
    """A cycle's OR-groups (indexes into the authors planned): every group, healthy names'
    first; the suspects' groups cut to their size (`split`); and the requests all the groups
    cost beyond the same names packed unsplit (`extra_requests`)."""

    groups: list[list[int]] = field(default_factory=list)
    split: list[list[int]] = field(default_factory=list)
    extra_requests: int = 0


def plan_groups(
    name_lists: Sequence[Sequence[str]],
    failures: Sequence[int],
    *,
    budget: int = SPLIT_BUDGET,
    max_query_length: int = 1000,
) -> GroupPlan:
    """Group these authors (their names, and each one's failures in a row) into OR-queries:
    the healthy ones packed as usual, the suspects apart and split within `budget`."""
    healthy = [i for i, count in enumerate(failures) if count < SPLIT_AFTER]
    suspects = sorted(
        (i for i, count in enumerate(failures) if count >= SPLIT_AFTER),
        key=lambda i: (failures[i], i),
    )

    def packed(indexes: Sequence[int], max_authors: int | None = None) -> list[list[int]]:
        names = [name_lists[i] for i in indexes]
        groups = group_queries(names, max_query_length=max_query_length, max_authors=max_authors)
        return [[indexes[i] for i in group] for group in groups]

    groups = packed(healthy)
    if not suspects:
        return GroupPlan(groups)
    split: list[list[int]] = []
    pooled: list[int] = []
    by_size: dict[int, list[int]] = {}
    for index in suspects:  # fewer failures (a larger size) first
        size = split_size(failures[index])
        assert size is not None
        by_size.setdefault(size, []).append(index)
    for size, members in by_size.items():
        for group in packed(members, size):
            if len(split) < budget:
                split.append(group)
            else:
                pooled.extend(group)
    groups += split + packed(sorted(pooled))
    unsplit = len(group_queries(name_lists, max_query_length=max_query_length))
    return GroupPlan(groups, split, max(0, len(groups) - unsplit))
