"""The fake arXiv's Atom: the API's, in the exact shape of arXiv's own answers (checked against
the recorded files in `tests/data/arxiv-api/`: an entry, a results page with its OpenSearch
totals, the HTTP 400 error feed), and a person's author feed, in the shape arxiv-browse's newest
code writes (a different writer from the API's; see `render_author_feed` and
tests/fakes/README.md).
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from xml.sax.saxutils import escape

from watcher.arxiv.records import Record
from watcher.arxiv.taxonomy import category_name

_FEED_OPEN = (
    "<?xml version='1.0' encoding='UTF-8'?>\n"
    '<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
    'xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">\n'
)


_ORCID = re.compile(r"\d{4}-\d{4}-\d{4}-\d{3}[\dX]")


def quoteattr(value: str) -> str:
    """A double-quoted attribute value, as arXiv's XML writer produces it."""
    return '"' + escape(value, {'"': "&quot;"}) + '"'


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def render_entry(record: Record) -> str:
    """One `<entry>`, element for element in arXiv's order."""
    lines = [
        "  <entry>",
        f"    <id>http://arxiv.org/abs/{record.versioned_id}</id>",
        f"    <title>{escape(record.title)}</title>",
        f"    <updated>{_stamp(record.updated)}</updated>",
        f'    <link href={quoteattr(record.abs_url)} rel="alternate" type="text/html"/>',
        f"    <link href={quoteattr(record.pdf_url)} "
        'rel="related" type="application/pdf" title="pdf"/>',
        f"    <summary>{escape(record.abstract)}</summary>",
    ]
    # arXiv lists the authors' ACM and MSC classes as categories too, after the real ones.
    classes = [c for c in (record.acm_class, record.msc_class) if c is not None]
    lines += [
        f'    <category term={quoteattr(c)} scheme="http://arxiv.org/schemas/atom"/>'
        for c in [*record.categories, *classes]
    ]
    lines.append(f"    <published>{_stamp(record.published)}</published>")
    if record.comment is not None:
        lines.append(f"    <arxiv:comment>{escape(record.comment)}</arxiv:comment>")
    lines.append(f"    <arxiv:primary_category term={quoteattr(record.primary_category)}/>")
    if record.journal_ref is not None:
        lines.append(f"    <arxiv:journal_ref>{escape(record.journal_ref)}</arxiv:journal_ref>")
    for author in record.authors:
        lines.append("    <author>")
        lines.append(f"      <name>{escape(author.name)}</name>")
        lines += [
            f"      <arxiv:affiliation>{escape(a)}</arxiv:affiliation>" for a in author.affiliations
        ]
        lines.append("    </author>")
    if record.doi is not None:
        lines.append(f"    <arxiv:doi>{escape(record.doi)}</arxiv:doi>")
        lines.append(
            f'    <link rel="related" href={quoteattr("https://doi.org/" + record.doi)} '
            'title="doi"/>'
        )
    lines.append("  </entry>")
    return "\n".join(lines) + "\n"


def render_feed(
    records: Iterable[Record],
    *,
    search_query: str,
    id_list: str,
    start: int,
    max_results: int,
    total_results: int,
    now: datetime,
) -> bytes:
    """A whole results page, header as arXiv writes it."""
    title = f"search_query={search_query}&id_list={id_list}&start={start}&max_results={max_results}"
    link = (
        "https://arxiv.org/api/query?"
        f"search_query={search_query}&start={start}&max_results={max_results}&id_list={id_list}"
    )
    digest = hashlib.sha1(title.encode(), usedforsecurity=False).digest()
    feed_id = base64.b64encode(digest).decode().rstrip("=")
    head = (
        f"  <id>https://arxiv.org/api/{feed_id}</id>\n"
        f"  <title>arXiv Query: {escape(title)}</title>\n"
        f"  <updated>{_stamp(now)}</updated>\n"
        f'  <link href={quoteattr(link)} type="application/atom+xml"/>\n'
        f"  <opensearch:itemsPerPage>{max_results}</opensearch:itemsPerPage>\n"
        f"  <opensearch:totalResults>{total_results}</opensearch:totalResults>\n"
        f"  <opensearch:startIndex>{start}</opensearch:startIndex>\n"
    )
    entries = "".join(render_entry(r) for r in records)
    return (_FEED_OPEN + head + entries + "</feed>\n").encode()


def render_author_feed(
    author_id: str,
    records: Iterable[Record],
    *,
    now: datetime,
    display_name: str | None = None,
) -> bytes:
    """A person's author feed as arxiv-browse writes it (26f634fb,
    `browse/controllers/list_page/author.py`): NOT the API's Atom. No OpenSearch, the feed
    titled with the person's name, ids and links over https, each entry's dates in
    `isoformat()` ("+00:00"), no ACM or MSC classes, categories with a `label`, the pdf link
    `rel="alternate"`, and the elements in that code's order."""
    base = "https://arxiv.org/a/"
    name = display_name or author_id
    # An ORCID iD's feed describes that iD; an author id's, the ORCID iD its owner gave, if any.
    orcid = f"https://orcid.org/{author_id}" if _ORCID.fullmatch(author_id) else ""
    midnight = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    head = (
        f"  <title>{escape(name)}'s articles on arXiv</title>\n"
        f'  <link rel="describes" href={quoteattr(orcid)} />\n'
        f"  <updated>{midnight.isoformat()}</updated>\n"
        f"  <id>{escape(base + author_id)}</id>\n"
        f'  <link href={quoteattr(f"{base}{author_id}.atom")} rel="self" '
        'type="application/atom+xml" />\n'
        f'  <link rel="describes" href={quoteattr(base + author_id)} />\n'
    )
    entries = "".join(_author_feed_entry(r) for r in records)
    return (
        "<?xml version='1.0' encoding='utf-8'?>\n"
        '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">\n'
        + head
        + entries
        + "</feed>"
    ).encode()


def _labelled(tag: str, category: str) -> str:
    label = f"{category_name(category) or category} ({category})"
    return (
        f"    <{tag} term={quoteattr(category)} "
        f'scheme="http://arxiv.org/schemas/atom" label={quoteattr(label)} />'
    )


def _author_feed_entry(record: Record) -> str:
    abs_url = f"https://arxiv.org/abs/{record.versioned_id}"
    lines = [
        "  <entry>",
        f"    <id>{abs_url}</id>",
        f"    <updated>{record.updated.astimezone(UTC).isoformat()}</updated>",
        f"    <published>{record.published.astimezone(UTC).isoformat()}</published>",
        f"    <title>{escape(record.title)}</title>",
        f"    <summary>{escape(record.abstract.strip())}</summary>",
    ]
    for author in record.authors:
        lines.append("    <author>")
        lines.append(f"      <name>{escape(author.name)}</name>")
        lines += [
            f"      <arxiv:affiliation>{escape(a)}</arxiv:affiliation>" for a in author.affiliations
        ]
        lines.append("    </author>")
    for tag, value in (
        ("doi", record.doi),
        ("comment", record.comment),
        ("journal_ref", record.journal_ref),
    ):
        if value is not None:
            lines.append(f"    <arxiv:{tag}>{escape(value)}</arxiv:{tag}>")
    lines += [
        f'    <link href={quoteattr(abs_url)} rel="alternate" type="text/html" />',
        f'    <link title="pdf" href="https://arxiv.org/pdf/{record.versioned_id}" '
        'rel="alternate" type="application/pdf" />',
        _labelled("arxiv:primary_category", record.primary_category),
        *(_labelled("category", c) for c in record.categories),
        "  </entry>",
    ]
    return "\n".join(lines) + "\n"


def render_error_feed(message: str, *, now: datetime) -> bytes:
    """arXiv's HTTP 400 answer: a feed with one entry titled `Error` that says why."""
    anchor = "https://arxiv.org/api/errors#" + re.sub(r"\s+", "_", message)
    stamp = _stamp(now)
    return (
        _FEED_OPEN
        + "  <id>https://arxiv.org/</id>\n"
        + "  <title>arXiv Search Results</title>\n"
        + f"  <updated>{stamp}</updated>\n"
        + "  <opensearch:itemsPerPage>1</opensearch:itemsPerPage>\n"
        + "  <opensearch:totalResults>1</opensearch:totalResults>\n"
        + "  <opensearch:startIndex>0</opensearch:startIndex>\n"
        + "  <entry>\n"
        + f"    <id>{escape(anchor)}</id>\n"
        + "    <title>Error</title>\n"
        + f"    <updated>{stamp}</updated>\n"
        + f'    <link href={quoteattr(anchor)} rel="alternate" type="text/html"/>\n'
        + f"    <summary>{escape(message)}</summary>\n"
        + "    <author>\n      <name>arXiv api core</name>\n    </author>\n"
        + "  </entry>\n</feed>\n"
    ).encode()
