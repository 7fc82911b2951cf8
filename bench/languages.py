"""What speaking a chat's language costs: loading a catalog, and composing the messages the bot
sends most (news of a paper in full, a digest of 20 papers) in English, the source, against
Simplified Chinese, looked up in its catalog.

The catalog is read from its `.po` and compiled in memory the first time a language speaks
(`bot.i18n.catalogs`); measured cold, in a fresh process, with the memory Python allocates for
it (tracemalloc). Each render
runs `--rounds` times per language, interleaved, and the median of five passes is kept: the
machine is shared, so compare the ratios of one run.

    .venv/bin/python bench/languages.py [--rounds 2000]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bot.i18n import speaking  # noqa: E402
from bot.render import render_digest, render_paper  # noqa: E402
from tests.fakes.corpus import dezun_dong_records  # noqa: E402
from watcher.arxiv.taxonomy import category_name  # noqa: E402
from watcher.kinds import NewsKind  # noqa: E402

_LOAD = """
import sys, time, tracemalloc
from bot.i18n import _, speaking
if sys.argv[1] == "memory":
    tracemalloc.start()
with speaking("zh-Hans"):
    start = time.perf_counter()
    _("Commands")
    took = time.perf_counter() - start
kept, peak = tracemalloc.get_traced_memory()
print(f"{took * 1000:.1f} {kept / 2**20:.2f} {peak / 2**20:.2f}")
"""


def cold_load() -> tuple[float, float, float]:
    """Milliseconds, and MB kept and at the peak (Python's allocations, tracemalloc), to read
    and compile the zh-Hans catalog."""

    def load(what: str) -> list[str]:
        return subprocess.run(
            [sys.executable, "-c", _LOAD, what],
            capture_output=True,
            text=True,
            check=True,
            cwd=REPO,
        ).stdout.split()

    took = statistics.median(float(load("time")[0]) for _run in range(5))
    memory = load("memory")  # tracemalloc slows the load down: timed apart
    return took, float(memory[1]), float(memory[2])


def per_call(render: Callable[[], object], language: str, rounds: int) -> float:
    with speaking(language):
        render()  # the catalog is loaded, the caches warm
        start = time.perf_counter()
        for _round in range(rounds):
            render()
        return (time.perf_counter() - start) / rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    args = parser.parse_args()
    records = dezun_dong_records()
    record = max(records, key=lambda r: len(r.abstract))

    def paper() -> object:
        return render_paper(
            record, marked=lambda name: name == "Dezun Dong", category_name=category_name
        )

    def digest() -> object:
        papers = [(r, NewsKind.NEW) for r in (records * 2)[:20]]
        return render_digest(
            papers, since="Fri 4 Dec", marked=lambda n: False, category_name=category_name
        )

    took, kept, peak = cold_load()
    print(
        f"zh-Hans catalog, read and compiled cold: {took:.1f} ms; {kept:.2f} MB kept, "
        f"{peak:.2f} MB at the peak"
    )
    for name, render, rounds in [
        ("paper in full", paper, args.rounds),
        ("digest of 20", digest, args.rounds // 10),
    ]:
        passes: dict[str, list[float]] = {"en": [], "zh-Hans": []}
        for _pass in range(5):
            for language in passes:
                passes[language].append(per_call(render, language, rounds))
        en, zh = (statistics.median(passes[language]) for language in passes)
        print(
            f"{name}: en {en * 1e6:.0f} µs, zh-Hans {zh * 1e6:.0f} µs a message; "
            f"zh-Hans/en {zh / en:.2f}"
        )


if __name__ == "__main__":
    main()
