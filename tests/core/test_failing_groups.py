"""The plan of a cycle's OR-groups when some keep failing (`watcher.polling.failing_groups`):
suspects apart, halved per failure down to one name, within a budget of split queries a cycle."""

from __future__ import annotations

import pytest

from watcher.arxiv.queries import group_queries
from watcher.polling.failing_groups import (
    ALONE_AFTER,
    SPLIT_AFTER,
    SPLIT_BUDGET,
    plan_groups,
    split_size,
)

NAMES = [[f"Given{n:03d} Family"] for n in range(200)]


def test_the_size_halves_per_failure_down_to_one_whatever_the_count() -> None:
    counts = [0, SPLIT_AFTER - 1, 3, 4, 5, 6, 7, 8, 1000, 10**9]
    assert [split_size(n) for n in counts] == [None, None, 16, 8, 4, 2, 1, 1, 1, 1]
    assert split_size(ALONE_AFTER) == 1 and split_size(ALONE_AFTER - 1) == 2


def test_without_failures_the_groups_are_the_usual_ones() -> None:
    plan = plan_groups(NAMES[:60], [0, 1, 2] * 20)
    assert plan.groups == group_queries(NAMES[:60])
    assert (plan.split, plan.extra_requests) == ([], 0)


@pytest.mark.parametrize(
    ("failures", "split", "pooled"),
    [(3, [16, 4], []), (4, [8, 8, 4], []), (ALONE_AFTER, [1] * SPLIT_BUDGET, [12])],
)
def test_suspects_go_apart_and_halve_until_alone(
    failures: int, split: list[int], pooled: list[int]
) -> None:
    counts = [failures] * 20 + [0] * 8
    plan = plan_groups(NAMES[:28], counts)
    assert plan.groups[0] == list(range(20, 28))  # the healthy ones, in a query of their own
    assert [len(g) for g in plan.split] == split
    assert [len(g) for g in plan.groups[1 + len(split) :]] == pooled  # beyond the budget
    assert sorted(i for g in plan.groups for i in g) == list(range(28))


def test_a_name_failing_alone_stays_alone() -> None:
    counts = [0] * 28
    counts[4] = 1000
    plan = plan_groups(NAMES[:28], counts)
    assert plan.split == [[4]] and plan.groups[-1] == [4] and plan.extra_requests == 1


@pytest.mark.parametrize("failures", [3, 5, ALONE_AFTER, 1000, 10**9])
def test_when_everyone_fails_the_split_costs_at_most_the_budget(failures: int) -> None:
    plan = plan_groups(NAMES, [failures] * len(NAMES))
    unsplit = len(group_queries(NAMES))
    assert len(plan.split) <= SPLIT_BUDGET
    assert len(plan.groups) <= unsplit + SPLIT_BUDGET
    assert plan.extra_requests == len(plan.groups) - unsplit
    assert sorted(i for g in plan.groups for i in g) == list(range(len(NAMES)))


def test_fewer_failures_are_split_first_and_the_plan_is_the_same_every_time() -> None:
    counts = [ALONE_AFTER + 5] * 10 + [0] * 10 + [SPLIT_AFTER] * 20
    plan = plan_groups(NAMES[:40], counts)
    assert plan.split[:2] == [list(range(20, 36)), list(range(36, 40))]
    assert plan.split[2:] == [[i] for i in range(SPLIT_BUDGET - 2)]
    assert plan.groups[-1] == list(range(SPLIT_BUDGET - 2, 10))  # beyond the budget: together
    assert plan_groups(NAMES[:40], counts) == plan


def test_a_group_never_has_more_authors_than_asked() -> None:
    assert group_queries(NAMES[:5], max_authors=2) == [[0, 1], [2, 3], [4]]
    assert group_queries(NAMES[:3], max_authors=1) == [[0], [1], [2]]
