"""What PyStemmer's cache of stemmed words costs and saves (issue 32): the terms of a 2,000-paper
batch (the sample's newest papers) counted as a batch counts them (`paper_terms`), with a
stemmer whose cache holds 10,000 words (PyStemmer's default), 1,000, or none
(`watcher.follows.stemming`'s). Each size in a fresh process: what the counting left held, the
results let go (tracemalloc's current size: the cache's words and stems; resident memory is no
measure here, as the sample just read and let go leaves the allocator room to fill), and the CPU
seconds of three rounds, timed apart.

    .venv/bin/python bench/stemmer_cache.py
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

SIZES = (10_000, 1_000, 0)
PAPERS = 2_000


def measure(size: int) -> dict[str, float]:
    import Stemmer

    from bench.suggestions import SAMPLE, records
    from watcher.follows import stemming
    from watcher.suggestions.terms import paper_terms

    newest = sorted(records(SAMPLE), key=lambda r: (str(r["published"]), str(r["id"])))
    texts = [(str(r["title"]), str(r["abstract"])) for r in newest[-PAPERS:]]
    del newest
    stemming._local.stemmer = Stemmer.Stemmer(stemming.LANGUAGE, maxCacheSize=size)
    gc.collect()
    tracemalloc.start()
    for title, abstract in texts:
        paper_terms(title, abstract)
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] / 2**20
    tracemalloc.stop()
    stemming._local.stemmer = Stemmer.Stemmer(stemming.LANGUAGE, maxCacheSize=size)
    started = time.process_time()
    for _ in range(3):
        for title, abstract in texts:
            paper_terms(title, abstract)
    return {"size": size, "held_mb": held, "cpu_s": time.process_time() - started}


def main() -> None:
    if len(sys.argv) > 1:
        print(json.dumps(measure(int(sys.argv[1]))))
        return
    print(f"{PAPERS:,} papers' terms counted 3 times; a fresh process for each cache size")
    for size in SIZES:
        out = subprocess.run(
            [sys.executable, __file__, str(size)], check=True, capture_output=True, text=True
        ).stdout
        found = json.loads(out)
        print(
            f"cache of {size:>6,} words: {found['held_mb']:.2f} MB held after one batch, "
            f"{found['cpu_s']:.2f} CPU s for three"
        )


if __name__ == "__main__":
    main()
