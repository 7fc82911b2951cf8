"""How `batch-200.jsonl`, `next-day.jsonl` and `days-frequencies.json` were made (run once from
the repository's root; the output is committed): real arXiv records of the cs sample in
../shared/data/arxiv-cs-sample/ (its SOURCE.md says where they come from; arXiv metadata is CC0).

- batch-200.jsonl: a day of 200 papers, five of them on interconnection networks and
  high-performance communication (primary cs.DC, cs.NI or cs.AR, their titles naming
  interconnects or collective communication), then 195 of May 2026 in vision, language,
  security, software, HCI and robotics that name none of that (a fixed random draw);
- next-day.jsonl: the next day, the other two such papers and 48 more of the others;
- days-frequencies.json: the document frequencies, over the whole sample (31,097 papers), of
  the terms of these papers and of Dezun Dong's (tests.fakes.corpus), as a store that has
  counted a year of batches holds them.
"""

import gzip
import json
import random
import re
import sys
from pathlib import Path

sys.path[:0] = ["src", "."]
from tests.fakes.corpus import dezun_dong_records  # noqa: E402
from watcher.suggestions.terms import paper_terms  # noqa: E402

SAMPLE = Path(
    sys.argv[1] if len(sys.argv) > 1 else "../shared/data/arxiv-cs-sample/arxiv-cs-sample.jsonl.gz"
)
HERE = Path("tests/data/suggestions")
NETWORKS = re.compile(r"interconnect|collective communication|\bNCCL\b", re.IGNORECASE)
KEEP = ("id", "title", "abstract", "authors", "categories", "primary", "published")

with gzip.open(SAMPLE, "rt", encoding="utf-8") as sample:
    papers = [json.loads(line) for line in sample]
on_networks = sorted(
    (
        p
        for p in papers
        if p["primary"] in ("cs.NI", "cs.DC", "cs.AR") and NETWORKS.search(p["title"])
    ),
    key=lambda p: p["id"],
)
first, second = on_networks[:5], on_networks[5:7]
others = sorted(
    (
        p
        for p in papers
        if p["published"].startswith("2026-05")
        and p["primary"] in ("cs.CV", "cs.CL", "cs.CR", "cs.SE", "cs.HC", "cs.RO")
        and not NETWORKS.search(p["title"] + " " + p["abstract"])
        and "interconnect" not in p["abstract"].lower()
    ),
    key=lambda p: p["id"],
)
drawn = random.Random(32).sample(others, 243)
days = {"batch-200.jsonl": first + drawn[:195], "next-day.jsonl": second + drawn[195:]}
wanted: set[str] = set()
for name, day in days.items():
    with (HERE / name).open("w", encoding="utf-8") as out:
        for p in day:
            out.write(json.dumps({k: p[k] for k in KEEP}, ensure_ascii=False) + "\n")
            wanted |= set(paper_terms(p["title"], p["abstract"]).counts)
for record in dezun_dong_records():
    wanted |= set(paper_terms(record.title, record.abstract).counts)
counts: dict[str, int] = dict.fromkeys(sorted(wanted), 0)
for p in papers:
    for term in set(paper_terms(p["title"], p["abstract"]).counts) & wanted:
        counts[term] += 1
frequencies = {"papers": len(papers), "counts": {t: n for t, n in counts.items() if n}}
(HERE / "days-frequencies.json").write_text(json.dumps(frequencies, sort_keys=True) + "\n")
print([p["id"] for p in first], [p["id"] for p in second])
