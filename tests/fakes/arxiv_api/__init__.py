"""A fake arXiv API over real HTTP on 127.0.0.1, for tests, benchmarks and manual demos.

`FakeArxiv` serves its `records` as Atom in the exact shape of arXiv's own answers, checked
against the real answers recorded in `tests/data/arxiv-api/` (tests/core/test_fake_arxiv.py:
written back byte for byte, apart from the answer time and text our parser normalises): the same
namespaces, element order, links and opensearch totals. tests/fakes/README.md says what each
part of the fake was checked against. It understands what the watcher sends: `search_query`
(fields `au ti abs co jr cat id all`, quoted phrases, `AND`/`OR`/`ANDNOT`, parentheses,
`submittedDate:[A TO B]`), `id_list`, `sortBy`, `sortOrder`, `start` and `max_results`. An
`au:` term matches like arXiv's: every word of the name in ONE author's name, in any order,
case- and accent-folded. A malformed query answers HTTP 400 with arXiv's error feed. Error
messages other than arXiv's "incorrect id format for X" are invented.

Faults queued in `faults` apply to the next API requests, one each: see `Fault`. A standing fault
(`fail_queries`) applies to every query mentioning a given text until `heal` lifts it, so one
author's query can fail while the others' succeed. Every request is logged in `requests`, and
the peak numbers of open connections and in-flight requests are kept.
`url_for(NAME)` is the endpoint under `/client-NAME/`, its requests logged as NAME's: a test
running several watcher processes against one fake tells them apart so.

Like arXiv, the fake lists a record's ACM and MSC classes as extra `<category term=...>` elements.

It also serves arXiv's OAI-PMH harvest at `/oai` (`oai_url`) from the same records, each with a
datestamp (the day of its last change; `touch` makes a metadata-only change): `ListRecords` in
format `arXiv` with `from`/`until`/`set`, pages of `oai_page_size`, resumption tokens that
`expire_tokens` invalidates (`badResumptionToken`), `noRecordsMatch`, and faults from
`oai_faults`. `hold_oai` makes it sit on a later OAI request until `release_oai`, so that a test
can kill a client mid-harvest. The layout is in `tests/fakes/oai.py`.

And arXiv's per-person author feeds at `/a/<id>.atom` (`author_feed_url` is the base, like
`https://arxiv.org/a/`): `claim(ID, arxiv_ids)` makes ID (an arXiv author id such as `dong_d_1`,
or an ORCID iD) list those papers, the whole list in one Atom feed with no OpenSearch totals and
no paging, newest first, in the shape arxiv-browse writes it (26f634fb,
`browse/controllers/list_page/author.py`), which is NOT the API's: https ids, "+00:00" dates, no
ACM or MSC classes, labelled categories (`author_names` gives the name it is titled with). An id
nobody claimed answers `unknown_author_status` (400 and an HTML page, as arXiv does today; older
arXiv answered 404). Faults for these requests are queued in `author_faults`.

Modules: `fake` (FakeArxiv: the data, the faults, and how each service answers), `query` (the
search_query language), `atom` (the API's and the author feeds' Atom), `answers` (Fault,
SeenRequest, the refusals all services share), `http_server` (HTTP framing, connection faults);
the OAI-PMH layout is in `tests/fakes/oai.py`. Run it by hand for a demo (then point
`ARXIV_API_URL` at the printed URL):

    python -m tests.fakes.arxiv_api --port 8099 --corpus dezun-dong
"""

from tests.fakes.arxiv_api.answers import Fault, FaultKind, SeenRequest
from tests.fakes.arxiv_api.fake import FakeArxiv

__all__ = ["FakeArxiv", "Fault", "FaultKind", "SeenRequest"]
