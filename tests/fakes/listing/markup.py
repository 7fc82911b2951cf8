"""The markup of arXiv's `/list/<archive>/new` page, rendered from `Record`s.

The shape follows arXiv/arxiv-browse (`browse/templates/list/new.html`, `list_macros.html`,
filled by `browse/controllers/list_page/__init__.py`), read on 2026-12-01: a heading "Showing
new listings for <weekday>, <day> <Month> <year>", then one `<dl id='articles'>` per section
that has items on this page, headed "<New|Cross|Replacement> submissions for <date> (showing
[first |continued, [last ]]N of M entries )"; each item a `<dt>` (its index anchor, the
`arXiv:ID` link, "(cross-list from X)" or "(replaced)", the download links) and a `<dd>` (title,
author links, comments, journal-ref, "Subjects:" with the primary in `span.primary-subject`, and
the abstract). Items are numbered through the whole listing (new, then cross-lists, then
replacements); `skip` and `show` cut a page out of that numbering.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from html import escape
from typing import Literal
from urllib.parse import quote_plus

from watcher.records import Record
from watcher.taxonomy import category_name

Section = Literal["new", "cross", "rep"]
_HEADINGS = {"new": "New", "cross": "Cross", "rep": "Replacement"}


@dataclass(frozen=True)
class Listed:
    """One item of a listing: the paper and the section it is listed in."""

    record: Record
    section: Section


def archive_of(category: str) -> str:
    """The archive a category is listed under: cs.DC → cs, hep-th → hep-th."""
    return category.split(".", 1)[0]


def _display(category: str) -> str:
    name = category_name(category)
    return f"{name} ({category})" if name else category


def _authors(record: Record, archive: str) -> str:
    links = []
    for author in record.authors:
        query = quote_plus(author.name)
        href = f"https://arxiv.org/search/{archive}?searchtype=author&amp;query={query}"
        links.append(f'<a href="{href}" rel="nofollow">{escape(author.name)}</a>')
    return ", \n".join(links)


def _item(index: int, listed: Listed, archive: str) -> str:
    record = listed.record
    arxiv_id = record.arxiv_id
    kind = ""
    if listed.section == "cross":
        kind = f"(cross-list from {record.primary_category})"
    elif listed.section == "rep":
        kind = "(replaced)"
    optional = ""
    if record.comment:
        optional += (
            "        <div class='list-comments mathjax'><span class='descriptor'>Comments:</span>\n"
            f"          {escape(record.comment)}\n        </div>\n"
        )
    if record.journal_ref:
        optional += (
            "        <div class='list-journal-ref'><span class='descriptor'>Journal-ref:</span>\n"
            f"          {escape(record.journal_ref)}\n        </div>\n"
        )
    secondaries = "".join(f"; {_display(c)}" for c in record.categories[1:])
    abstract = "<br>\n".join(escape(line) for line in record.abstract.split("\n"))
    return f"""    <dt>
      <a name='item{index}'>[{index}]</a>
      <a href ="/abs/{arxiv_id}" title="Abstract" id="{arxiv_id}">
        arXiv:{arxiv_id}
      </a>
      {kind}
      [<a href="/pdf/{arxiv_id}" title="Download PDF" id="pdf-{arxiv_id}" aria-labelledby="pdf-{arxiv_id}">pdf</a>, <a href="https://arxiv.org/html/{arxiv_id}v1" title="View HTML" id="html-{arxiv_id}" aria-labelledby="html-{arxiv_id}" rel="noopener noreferrer" target="_blank">html</a>]
    </dt>
    <dd>
      <div class='meta'>
        <div class='list-title mathjax'><span class='descriptor'>Title:</span>
          {escape(record.title)}
        </div>
        <div class='list-authors'>{_authors(record, archive)}</div>
{optional}        <div class='list-subjects'><span class='descriptor'>Subjects:</span>
          <span class="primary-subject">{_display(record.primary_category)}</span>{secondaries}
        </div>
        <p class='mathjax'>
          {abstract}
        </p>
      </div>
    </dd>
"""  # noqa: E501


def _showing(continued: bool, last: bool) -> str:
    showing = "showing "
    if continued:
        showing = "continued, " + showing
        if last:
            showing += "last "
    if not last and not continued:
        showing += "first "
    return showing


def render_new(
    archive: str,
    mailing: date,
    items: list[Listed],
    *,
    skip: int,
    show: int,
    broken: Literal["markup", "counts"] | None = None,
) -> str:
    """The page `/list/<archive>/new?skip=<skip>&show=<show>` for the listing `items` (in
    section order). `broken`: "markup" renders items in markup the parser does not know (as
    if arXiv redesigned the page), "counts" drops the last item of each section, counts kept."""
    when = f"{mailing:%A}, {mailing.day} {mailing:%B %Y}"
    totals = {s: sum(1 for i in items if i.section == s) for s in ("new", "cross", "rep")}
    numbered = list(enumerate(items, start=1))
    page = numbered[skip : skip + show]
    new_count, cross_count = totals["new"], totals["cross"]
    bounds = {
        "new": (skip > 0, skip >= new_count - show),
        "cross": (skip + 1 > new_count + 1, skip >= new_count + cross_count + 1 - show),
        "rep": (skip + 1 > new_count + cross_count + 1, skip + show >= len(items)),
    }
    index = ["<ul>"]
    for section, label, first in (
        ("new", "New submissions", 0),
        ("cross", "Cross-lists", new_count + 1),
        ("rep", "Replacements", new_count + cross_count + 1),
    ):
        if totals[section]:
            index.append(f'  <li><a href="#item{first}" rel="nofollow">{label}</a></li>')
    index.append("</ul>")
    body = []
    for section in ("new", "cross", "rep"):
        shown = [(n, i) for n, i in page if i.section == section]
        if not shown:
            continue
        if broken == "counts":
            shown = shown[:-1]
        continued, last = bounds[section]
        heading = (
            f"{_HEADINGS[section]} submissions for {when} "
            f"({_showing(continued, last)}{len(shown) + (broken == 'counts')} "
            f"of {totals[section]} entries )"
        )
        entries = "".join(_item(n, i, archive) for n, i in shown)
        if broken == "markup":
            entries = entries.replace("<dt>", "<li class='entry'>").replace("</dd>", "</li>")
            entries = entries.replace("<dd>", "").replace("</dt>", "")
        body.append(f"<dl id='articles'>\n    <h3>{heading}</h3>\n{entries}</dl>\n")
    if not any(totals.values()):
        body.append("<p>No updates today.</p>\n")
    total = len(items)
    name = escape(archive)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <title>{name} new submissions</title>
  <meta charset="utf-8">
</head>
<body>
<div id='content-inner'>
<div id='dlpage'>
  <h1>{name}</h1>
{chr(10).join(index)}
<p>See <a id="recent-{name}" aria-labelledby="recent-{name}" href="/list/{name}/recent">recent</a> articles</p>
<h3>Showing new listings for {when}</h3>
<div class='paging'>Total of {total} entries</div>
<div class='morefewer'>Showing up to {show} entries per page</div>
{"".join(body)}
<div class='paging'>Total of {total} entries</div>
</div>
</div>
</body>
</html>
"""  # noqa: E501
