"""How long does each question the bot and the CLI ask take at 10k, 100k and 1M stored papers?

For each size N this loads N papers straight into a fresh database with bulk SQL (executemany on
SQLite, COPY on PostgreSQL; never the save path, which is benchmarked by `pipeline.py`), in the
shape of a big public instance: N/5 distinct authors with a skewed popularity, 4 authors a paper,
1-3 categories a paper from a skewed mix of the arXiv taxonomy, v1 dates spread over 15 years,
and min(2,000, N/10) followed authors with their `paper_match` rows. A chat follows 50 of them.
Titles and abstracts (8 and 60 words) are drawn from a Zipf-like vocabulary of 30,000 made-up
words, with a few real ones at set shares of the papers (`SEARCHED`), which /search looks for.
Then it times every question through `Store`, exactly as the handlers call it, RUNS times each
after a warm-up, and prints p50 and p99 in ms, and the ratio of the largest N to the smallest.

    .venv/bin/python bench/queries.py --sizes 10000 100000
    .venv/bin/python bench/queries.py --sizes 10000 1000000 \\
        --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test
    .venv/bin/python bench/queries.py --sizes 10000 --explain   # the plans as well
    .venv/bin/python bench/queries.py --sizes 1000000 --keep    # loaded once, kept...
    .venv/bin/python bench/queries.py --sizes 1000000 --loaded URL   # ...and asked again

`ANALYZE` runs after the load on PostgreSQL only, as autovacuum would; the service never runs it
on SQLite, so neither does this. SQLite runs on a file in a temporary folder; a PostgreSQL URL
gets a fresh schema per size, dropped afterwards. The loader fills the `published` copies in the
link tables only when the schema has them (and `paper_count` only when it exists), so the same
script measures the code before 0009 and before 0012.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sqlalchemy import Engine, inspect, text  # noqa: E402

from bench.kept_databases import kept_database, loaded_database  # noqa: E402
from bench.why_query import why  # noqa: E402
from tests.harness.databases import empty_database  # noqa: E402
from tests.harness.query_plans import plans  # noqa: E402
from watcher.follows.names import name_key  # noqa: E402
from watcher.follows.rules import rule_key  # noqa: E402
from watcher.runtime.db import open_database  # noqa: E402
from watcher.store import Store  # noqa: E402

CHAT_AUTHORS = 50
AUTHORS_A_PAPER = 4
YEARS = 15
CATEGORY = "cs.DC"
PAGE = 50  # the paging buttons' page asked for
PER_PAGE = 5
START = datetime(2011, 1, 1, tzinfo=UTC)
CHUNK = 20_000
BUDGET = 20.0  # seconds of runs a question gets at most
# The words /search looks for, and the share of papers whose abstract holds each (as "allreduce"
# is rare on arXiv, and "networks" and "learning" common).
SEARCHED = {"allreduce": 0.001, "gradient": 0.03, "networks": 0.1, "learning": 0.2}
VOCABULARY = 30_000
TITLE_WORDS = 8
ABSTRACT_WORDS = 60


def name_digest(name: str) -> str:
    """As `watcher.store.saving.name_digest` (repeated here so this runs on older code too)."""
    return hashlib.sha256(name.encode("utf-8")).hexdigest()


def key_digest(name: str) -> str:
    """As `watcher.store.saving.key_digest` (migration 0035; repeated here as `name_digest`)."""
    return hashlib.sha256(" ".join(name_key(name)).encode("utf-8")).hexdigest()


def categories() -> list[str]:
    """The taxonomy, most popular first: cs.DC ranks 12th, as a busy but not top category."""
    table = REPO / "src/watcher/data/arxiv-taxonomy.tsv"
    with table.open() as handle:
        names = [row["id"] for row in csv.DictReader(handle, delimiter="\t")]
    rng = random.Random(7)
    rng.shuffle(names)
    names.remove(CATEGORY)
    names.insert(11, CATEGORY)
    return names


class Shape:
    """The random data of one size, reproducible from its seed."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.authors = max(n // 5, 1000)
        self.rng = random.Random(n)
        self.followed = sorted(self.rng.sample(range(self.authors), min(2000, n // 10)))
        self.followed_row = {author: i + 1 for i, author in enumerate(self.followed)}
        self.categories = categories()
        self.weights = [1 / (rank + 1) for rank in range(len(self.categories))]
        self.span = timedelta(days=365 * YEARS).total_seconds()
        self.words = [f"w{rank}x" for rank in range(VOCABULARY)]
        self.word_weights = [0.0] * VOCABULARY
        total = 0.0
        for rank in range(VOCABULARY):
            total += 1 / (rank + 10)
            self.word_weights[rank] = total

    def text(self, words: int) -> str:
        return " ".join(self.rng.choices(self.words, cum_weights=self.word_weights, k=words))

    def abstract(self) -> str:
        searched = [word for word, share in SEARCHED.items() if self.rng.random() < share]
        return f"{self.text(ABSTRACT_WORDS - len(searched))} {' '.join(searched)}".strip() + "."

    def author(self) -> int:
        # Popularity skewed by a power: a few authors write many papers, most write few.
        return int(self.authors * self.rng.random() ** 2.5)

    def papers(self) -> Iterator[tuple[int, datetime, list[str], list[int], str, str]]:
        for paper_id in range(1, self.n + 1):
            published = START + timedelta(seconds=int(self.rng.random() * self.span))
            wanted = self.rng.choice((1, 1, 2, 2, 3))
            cats = list(dict.fromkeys(self.rng.choices(self.categories, self.weights, k=wanted)))
            authors: list[int] = []
            while len(authors) < AUTHORS_A_PAPER:
                author = self.author()
                if author not in authors:
                    authors.append(author)
            yield paper_id, published, cats, authors, self.text(TITLE_WORDS), self.abstract()


def load(engine: Engine, shape: Shape) -> None:
    """Fill an empty, migrated database with `shape` in bulk."""
    linked_dates = "published" in {c["name"] for c in inspect(engine).get_columns("paper_match")}
    author_dates = "published" in {c["name"] for c in inspect(engine).get_columns("paper_author")}
    author_keys = "key_digest" in {c["name"] for c in inspect(engine).get_columns("author")}
    kept_counts = inspect(engine).has_table("paper_count")
    postgres = engine.dialect.name == "postgresql"
    raw = engine.raw_connection()
    try:
        cursor: Any = raw.cursor()
        if not postgres:
            cursor.execute("PRAGMA synchronous=OFF")

        def stamp(moment: datetime) -> object:
            return moment if postgres else moment.strftime("%Y-%m-%d %H:%M:%S.000000")

        def put(table: str, columns: tuple[str, ...], rows: list[tuple[object, ...]]) -> None:
            if not rows:
                return
            if postgres:
                with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
            else:
                marks = ", ".join("?" for _ in columns)
                cursor.executemany(
                    f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows
                )

        put(
            "author",
            ("id", "name", "name_digest") + (("key_digest",) if author_keys else ()),
            [
                (i + 1, name, name_digest(name)) + ((key_digest(name),) if author_keys else ())
                for i in range(shape.authors)
                for name in (f"Author {i}",)
            ],
        )
        now = stamp(datetime(2026, 11, 30, tzinfo=UTC))
        put(
            "followed_author",
            ("id", "name", "rule_key", "aliases", "watched", "created"),
            [
                (row, f"Author {a}", rule_key(f"Author {a}"), "", True, now)
                for a, row in shape.followed_row.items()
            ],
        )
        put(
            "poll_state",
            ("followed_author_id", "last_success", "consecutive_failures"),
            [(row, now, 0) for row in shape.followed_row.values()],
        )
        paper_cols = ("id", "arxiv_id", "version", "title", "abstract", "primary_category",
                      "published", "updated", "abs_url", "pdf_url", "first_seen")  # fmt: skip
        category_cols = ("paper_id", "category", "position") + (
            ("published",) if linked_dates else ()
        )
        link_cols = ("paper_id", "position", "author_id") + (("published",) if author_dates else ())
        match_cols = ("paper_id", "followed_author_id", "version") + (
            ("published",) if linked_dates else ()
        )
        papers: list[tuple[object, ...]] = []
        cats: list[tuple[object, ...]] = []
        links: list[tuple[object, ...]] = []
        matches: list[tuple[object, ...]] = []

        def flush() -> None:
            put("paper", paper_cols, papers)
            put("paper_category", category_cols, cats)
            put("paper_author", link_cols, links)
            put("paper_match", match_cols, matches)
            for rows in (papers, cats, links, matches):
                rows.clear()

        for paper_id, published, categories_of, authors, title, abstract in shape.papers():
            when = stamp(published)
            arxiv_id = f"{published:%y%m}.{paper_id:07d}"
            abs_url = f"https://arxiv.org/abs/{arxiv_id}v1"
            title = f"Paper {paper_id} on {categories_of[0]}: {title}"
            papers.append((paper_id, arxiv_id, 1, title, abstract, categories_of[0], when, when,
                           abs_url, abs_url.replace("abs", "pdf"), when))  # fmt: skip
            dated = (when,) if linked_dates else ()
            cats.extend((paper_id, c, p, *dated) for p, c in enumerate(categories_of))
            link_date = (when,) if author_dates else ()
            links.extend((paper_id, p, a + 1, *link_date) for p, a in enumerate(authors))
            matches.extend(
                (paper_id, shape.followed_row[a], 1, *dated)
                for a in authors
                if a in shape.followed_row
            )
            if len(papers) >= CHUNK:
                flush()
        flush()
        if kept_counts:  # as the save path keeps them (and migration 0012 fills them)
            cursor.execute("DELETE FROM paper_count")
            cursor.execute("INSERT INTO paper_count SELECT '', count(*) FROM paper")
            cursor.execute(
                "INSERT INTO paper_count SELECT category, count(*) FROM paper_category "
                "GROUP BY category"
            )
        if postgres:  # the tables' sizes, so the join below is planned on them, not guessed
            cursor.execute("ANALYZE paper_match, paper_category")
        if inspect(engine).has_table("paper_match_category"):  # as the save path keeps it
            cursor.execute(
                "INSERT INTO paper_match_category (followed_author_id, category, published, "
                "paper_id) SELECT m.followed_author_id, c.category, c.published, c.paper_id "
                "FROM paper_match m JOIN paper_category c ON c.paper_id = m.paper_id"
            )
        raw.commit()
        if postgres:
            for table in ("author", "paper", "followed_author"):
                cursor.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                    f"(SELECT max(id) FROM {table}))"
                )
            raw.commit()
    finally:
        raw.close()
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        if postgres:
            connection.execute(text("VACUUM ANALYZE"))


def questions(store: Store) -> tuple[list[int], dict[str, Callable[[], object]]]:
    """Each question as the bot's handlers (or the CLI) ask it of the store."""
    rng = random.Random(1)
    # The chat follows 50 followed authors picked among those with papers.
    with store.engine.connect() as connection:
        having = [
            row[0]
            for row in connection.execute(
                text("SELECT DISTINCT followed_author_id FROM paper_match ORDER BY 1")
            )
        ]
    chat = rng.sample(having, min(CHAT_AUTHORS, len(having)))
    with store.engine.connect() as connection:
        stored = [
            row[0]
            for row in connection.execute(
                text("SELECT arxiv_id FROM paper WHERE id % 997 = 1 ORDER BY id")
            )
        ]
    later = PAGE * PER_PAGE
    (name,) = store.followed(chat[:1])[0].names
    return chat, {
        "recent, all": lambda: store.recent(limit=PER_PAGE),
        "recent, chat": lambda: store.recent(limit=PER_PAGE, followed_ids=chat),
        "recent, chat, page 50": lambda: store.recent(
            limit=PER_PAGE, offset=later, followed_ids=chat
        ),
        "recent, all, page 50": lambda: store.recent(limit=PER_PAGE, offset=later),
        "count, chat": lambda: store.count(followed_ids=chat),
        "subject, all": lambda: store.by_category(CATEGORY, limit=PER_PAGE),
        "subject, chat": lambda: store.by_category(CATEGORY, limit=PER_PAGE, followed_ids=chat),
        "subject, all, page 50": lambda: store.by_category(CATEGORY, limit=PER_PAGE, offset=later),
        "subject, chat, page 50": lambda: store.by_category(
            CATEGORY, limit=PER_PAGE, offset=later, followed_ids=chat
        ),
        "count subject, chat": lambda: store.count_category(CATEGORY, followed_ids=chat),
        "count subject, all": lambda: store.count_category(CATEGORY),
        "subjects, chat": lambda: store.category_counts(followed_ids=chat),
        "subjects, all (CLI)": lambda: store.category_counts(),
        "count, all (/stats)": lambda: store.count(),
        "paper": lambda: store.paper(rng.choice(stored)),
        # Every command of a chat reads the follows it asks about; /subscribe NAME, /unsubscribe
        # NAME and `recent --author` find a follow by name.
        "the chat's follows": lambda: store.followed(chat),
        "a follow by name": lambda: store.find_followed(name),
        **searches(store, later),
        **why(store, chat),
        **by_name(store, name),
    }


def by_name(store: Store, followed: str) -> dict[str, Callable[[], object]]:
    """Inline mode's `@bot NAME` (`watcher.store.by_name`): a followed person, the most prolific
    author ("Author 0", followed or not), a middling one, and a name nobody has."""
    if not hasattr(store, "papers_by_name"):
        return {}  # code before inline mode
    prolific = "author 0"  # typed in lower case: found by its capitalised spelling
    with store.engine.connect() as connection:
        middling = connection.execute(text("SELECT name FROM author WHERE id = 5000")).scalar()
    return {
        "inline name, followed": lambda: store.papers_by_name(followed, limit=10),
        "inline name, prolific": lambda: store.papers_by_name(prolific, limit=10),
        "inline name, middling": lambda: store.papers_by_name(str(middling), limit=10),
        "inline name, nobody": lambda: store.papers_by_name("Nobody Known", limit=10),
    }


def searches(store: Store, later: int) -> dict[str, Callable[[], object]]:
    """/search of a rare, a middling and a common word, of two common ones, within a category,
    and a later page; on code before migration 0027, none (0027: a generated column of `paper`
    on PostgreSQL; 0030: a table of its own)."""
    if not _has_search(store.engine):
        return {}
    from watcher.follows.search_words import parse_search

    def search(words: str, offset: int = 0) -> Callable[[], object]:
        query = parse_search(words)
        return lambda: store.search(query, limit=PER_PAGE, offset=offset)

    return {
        "search, rare word": search("allreduce"),
        "search, 3% word": search("gradient"),
        "search, 10% word": search("network"),
        "search, 10% and 20%": search("networks learning"),
        "search, rare in cs.DC": search(f"allreduce in {CATEGORY}"),
        "search, 10% in cs.DC": search(f"network in {CATEGORY}"),
        "search, 10%, page 50": search("network", later),
    }


def _has_search(engine: Engine) -> bool:
    if engine.dialect.name == "sqlite":
        return inspect(engine).has_table("paper_search")
    return inspect(engine).has_table("paper_search") or "search_words" in {
        c["name"] for c in inspect(engine).get_columns("paper")
    }


def timed(question: Callable[[], object], runs: int) -> tuple[float, float, int]:
    """p50 and p99 in ms of up to `runs` runs after 3 warm-ups, and how many ran: a question
    slower than BUDGET seconds in all stops early (after at least 5 runs)."""
    for _ in range(3):
        question()
    times: list[float] = []
    began = time.perf_counter()
    while len(times) < runs and (len(times) < 5 or time.perf_counter() - began < BUDGET):
        started = time.perf_counter()
        question()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    return statistics.median(times), p99, len(times)


def peak_rss_mb() -> float:
    """This process's peak resident memory so far (VmHWM), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


def memory_probe(url: str, chat: list[int]) -> None:
    """Run in a fresh process (`--memory-probe`): the peak RSS after opening the database as the
    service does, then after `/subjects` of the chat, then after `subjects` over all papers."""
    store = Store(open_database(url))
    store.count(followed_ids=chat[:1])  # the first query builds the ORM mappers
    opened = peak_rss_mb()
    store.category_counts(followed_ids=chat)
    chat_done = peak_rss_mb()
    store.category_counts()
    print(f"{opened:.1f} {chat_done:.1f} {peak_rss_mb():.1f}")


def measure_memory(url: str, chat: list[int]) -> tuple[float, float, float]:
    """`memory_probe` in a subprocess: peak RSS in MB when open, after /subjects of the chat,
    after subjects of all papers."""
    answer = subprocess.run(
        [sys.executable, __file__, "--memory-probe", url, "--chat", ",".join(map(str, chat))],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    opened, chat_done, all_done = (float(value) for value in answer)
    return opened, chat_done, all_done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--explain", action="store_true", help="print each question's plans")
    parser.add_argument(
        "--only", default="", metavar="PREFIX", help="ask only the questions named PREFIX..."
    )
    parser.add_argument(
        "--loaded",
        metavar="URL",
        help="ask a database loaded before (of one size, --sizes N): migrate it to this code's "
        "newest migration (timed, as the load) and ask it; nothing is loaded or dropped",
    )
    parser.add_argument(
        "--keep",
        action="store_true",
        help="load into a database kept afterwards (schema bench_kept_N of --database-url, or "
        "/tmp/bench-kept-N.db) and print its URL for --loaded",
    )
    parser.add_argument("--memory-probe", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--chat", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_probe:
        memory_probe(args.memory_probe, [int(value) for value in args.chat.split(",")])
        return
    memory: dict[int, tuple[float, float, float]] = {}
    results: dict[int, dict[str, tuple[float, float, int]]] = {}
    for n in args.sizes:
        if args.loaded:
            database = loaded_database(args.loaded)
        elif args.keep:
            database = kept_database(args.database_url, n)
        else:
            database = empty_database(args.database_url)
        with database as url:
            started = time.perf_counter()
            engine = open_database(url)
            if not args.loaded:
                started = time.perf_counter()
                load(engine, Shape(n))
            loaded = time.perf_counter() - started
            store = Store(engine)
            chat, asked = questions(store)
            asked = {name: q for name, q in asked.items() if name.startswith(args.only)}
            print(
                f"N = {n:,} ({engine.dialect.name}): loaded in {loaded:.1f} s; the chat's "
                f"authors have {store.count(followed_ids=chat):,} papers; load average "
                f"{os.getloadavg()[0]:.1f}",
                flush=True,
            )
            results[n] = {name: timed(q, args.runs) for name, q in asked.items()}
            memory[n] = measure_memory(url, chat)
            if args.explain:
                for name, question in asked.items():
                    print(f"-- {name}")
                    for plan in plans(store, lambda _store, _ids, q=question: q()):  # type: ignore[misc]
                        print(plan, end="\n\n")
            engine.dispose()
        for name, (p50, p99, ran) in results[n].items():
            print(f"  {name:<24} p50 {p50:8.2f} ms   p99 {p99:8.2f} ms   ({ran} runs)", flush=True)
        opened, chat_done, all_done = memory[n]
        print(
            f"  peak RSS of a fresh process: {opened:.1f} MB with the database open, "
            f"{chat_done:.1f} MB after /subjects of the chat, {all_done:.1f} MB after "
            "subjects of all papers",
            flush=True,
        )
    if len(args.sizes) > 1:
        small, large = min(args.sizes), max(args.sizes)
        print(f"\n| question | p50 {small:,} | p50 {large:,} | p99 {large:,} | ratio of p50 |")
        print("|---|---|---|---|---|")
        for name in results[large]:
            p50_small = results[small][name][0]
            p50_large, p99_large, _ = results[large][name]
            print(f"| {name} | {p50_small:.2f} | {p50_large:.2f} | {p99_large:.2f} | "
                  f"{p50_large / p50_small:.1f}× |")  # fmt: skip


if __name__ == "__main__":
    main()
