"""Every file /import reads gets an answer (issue 29, item 6): over 2,000 seeded text and OPML
files (`tests.harness.import_corpus`), each is refused in one sentence (`FileRefused`) or read;
nothing else escapes, so the bot never answers "Something went wrong". What was read is then
planned on the real database and asked about (`bot.handlers.takeout.ask`), as /import does: every
100th file whole, and, so that planning meets everything the corpus holds at a fraction of 2,000
plans, each distinct follow in one plan and each distinct setting value in a few. In-process, the
layers /import calls in turn; the same path through the fake Bot API is in
`tests/bot/test_takeout.py`."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import UTC, datetime
from itertools import zip_longest

from sqlalchemy import Engine

from bot.handlers.takeout import ask
from tests.harness.import_corpus import import_files
from watcher.core.takeout import FileRefused, Target, plan_import, read_file
from watcher.follows.follow_list import ReadList
from watcher.store import Store
from watcher.store.applied_imports import ImportStore
from watcher.store.budgets import LookupBudgets
from watcher.store.chats import Chats

CHAT = 42
NOW = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)


def read_all(files: list[bytes]) -> tuple[list[ReadList], Counter[str]]:
    """Each file read as /import reads it; what escaped other than a refusal fails the test."""
    reads: list[ReadList] = []
    refusals: list[str] = []
    outcomes: Counter[str] = Counter()
    for number, data in enumerate(files):
        try:
            read = read_file(data)
        except FileRefused as refused:  # the bot answers with its sentence
            refusals.append(str(refused))
            continue
        except Exception as error:  # what the bot would answer "Something went wrong" to
            raise AssertionError(f"file {number} escaped with {error!r}: {data[:400]!r}") from None
        reads.append(read)
        outcomes["followed" if read.entries else "nothing followed"] += 1
        outcomes["with skips"] += bool(read.skipped)
        outcomes["with settings"] += bool(read.settings)
    assert all(sentence.startswith("That ") and sentence.endswith(".") for sentence in refusals)
    outcomes["refused"] = len(refusals)
    return reads, outcomes


def test_2000_fuzzed_files_are_each_answered(engine: Engine) -> None:
    files = list(import_files(2000, seed=29))
    reads, outcomes = read_all(files)
    # The corpus reaches each kind of answer, not one of them 2,000 times.
    assert min(outcomes.values()) > 100, outcomes

    store, chats = Store(engine), Chats(engine)
    imports = ImportStore(engine, budgets=LookupBudgets(engine, per_hour=5))
    chats.seen(CHAT, kind="private")
    values: defaultdict[str, set[str]] = defaultdict(set)
    for read in reads:
        for key, value in read.settings.items():
            values[key].add(value)
    everything = ReadList(
        tuple(entry for read in reads for entry in read.entries),
        {},
        tuple(skipped for read in reads for skipped in read.skipped),
    )
    by_setting = [
        ReadList((), {key: value for key, value in row if key is not None})
        for row in zip_longest(
            *([(key, value) for value in sorted(found)] for key, found in values.items()),
            fillvalue=(None, ""),
        )
    ]
    for read in [*reads[::100], everything, *by_setting]:
        plan = plan_import(store, chats, imports, read, Target(CHAT), now=NOW)
        assert ask(plan, "This chat").html.strip()
