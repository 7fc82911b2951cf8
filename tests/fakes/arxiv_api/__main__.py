"""Run the fake arXiv by hand for a demo, then point `ARXIV_API_URL` at the URL it prints:
`python -m tests.fakes.arxiv_api --port 8099 --corpus dezun-dong` (or `dezun-dong+lookalikes`,
or `empty`)."""

from __future__ import annotations

import argparse
import contextlib
import threading

from tests.fakes.arxiv_api.fake import FakeArxiv
from watcher.arxiv.records import Record


def _corpus(name: str) -> list[Record]:
    from tests.fakes.corpus import dezun_dong_records, lookalike_records

    if name == "dezun-dong":
        return dezun_dong_records()
    if name == "dezun-dong+lookalikes":
        return dezun_dong_records() + lookalike_records()
    return []


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve a fake arXiv API on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=8099)
    parser.add_argument(
        "--corpus", choices=["dezun-dong", "dezun-dong+lookalikes", "empty"], default="dezun-dong"
    )
    args = parser.parse_args(argv)
    with FakeArxiv(_corpus(args.corpus), port=args.port) as fake:
        print(f"Fake arXiv API serving {len(fake.records)} records at {fake.url}", flush=True)
        print(f"  ARXIV_API_URL={fake.url}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
