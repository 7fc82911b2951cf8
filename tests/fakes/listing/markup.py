"""The markup of arXiv's `/list/<archive>/new` page, rendered from `Record`s.

The shape follows arXiv/arxiv-browse at commit 26f634fb (2026-06-29): `browse/templates/list/
new.html`, `list/base.html` and `list/list_macros.html`, filled by `browse/controllers/
list_page/__init__.py` and `list_page/paging.py`. `tests/core/test_fake_listing_markup.py`
holds this page's outline against pages rendered from those templates (`tests/data/arxiv-listing/`).

Inside `div#dlpage`: the archive's name as `<h1>`, an index of the sections present, the page
heading "Showing new listings for <weekday>, <day> <Month> <year>", the paging lines ("Total of
N entries", the page links when not all is shown, "Showing up to S entries per page: fewer |
more | all"; both left out when the listing is empty), then one `<dl id='articles'>` per section
with items on this page, headed "<New|Cross|Replacement> submissions (showing [first |continued,
[last ]]N of M entries)" (no date since arxiv-browse 1813b455, 2024-09-12), or "No updates
today."; each item a `<dt>` (its index anchor, the `arXiv:ID` link, "(cross-list from X)" or
"(replaced)", the download links) and a `<dd>` (title, author links, comments, journal-ref,
"Subjects:" with the primary in `span.primary-subject` and the others sorted by id, and the
abstract). Items are numbered through the whole listing (new, then cross-lists, then
replacements); `skip` and `show` cut a page out of that numbering. What differs on purpose is in
`tests/fakes/README.md`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from html import escape
from typing import Literal
from urllib.parse import quote_plus

from watcher.arxiv.records import Record
from watcher.arxiv.taxonomy import category_name

Section = Literal["new", "cross", "rep"]
_HEADINGS = {"new": "New", "cross": "Cross", "rep": "Replacement"}
_SHOW_VALUES = (25, 50, 100, 250, 500, 1000, 2000)  # arXiv's "fewer/more/all" steps
_NEIGHBOUR_PAGES = 3  # page links shown on each side of the current page
# The archives' names as arXiv's taxonomy (arXiv/arxiv-base, arxiv/taxonomy) gives them.
ARCHIVE_NAMES = {
    "astro-ph": "Astrophysics",
    "cond-mat": "Condensed Matter",
    "cs": "Computer Science",
    "econ": "Economics",
    "eess": "Electrical Engineering and Systems Science",
    "gr-qc": "General Relativity and Quantum Cosmology",
    "hep-ex": "High Energy Physics - Experiment",
    "hep-lat": "High Energy Physics - Lattice",
    "hep-ph": "High Energy Physics - Phenomenology",
    "hep-th": "High Energy Physics - Theory",
    "math": "Mathematics",
    "math-ph": "Mathematical Physics",
    "nlin": "Nonlinear Sciences",
    "nucl-ex": "Nuclear Experiment",
    "nucl-th": "Nuclear Theory",
    "physics": "Physics",
    "q-bio": "Quantitative Biology",
    "q-fin": "Quantitative Finance",
    "quant-ph": "Quantum Physics",
    "stat": "Statistics",
}


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


def _authors(record: Record) -> str:
    links = []
    for author in record.authors:
        # arXiv searches by "Surname, I" in the primary's archive; the text is the name
        parts = author.name.split()
        query = ", ".join([parts[-1], " ".join(p[0] for p in parts[:-1])]) if parts else ""
        href = (
            f"https://arxiv.org/search/{archive_of(record.primary_category)}?searchtype=author"
            f"&amp;query={quote_plus(query.strip(', '), safe=',')}"
        )
        links.append(f'<a href="{href}">{escape(author.name)}</a>')
    return ", ".join(links)


def _abstract(text: str) -> str:
    # arXiv breaks the line (`<br />`) where a stored line opens a paragraph
    return "\n<br />".join(escape(line) for line in text.split("\n"))


def _item(index: int, listed: Listed) -> str:
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
    others = sorted(c for c in record.categories if c != record.primary_category)
    secondaries = "".join(f"; {_display(c)}" for c in others)
    return f"""    <dt>
      <a name='item{index}'>[{index}]</a>
      <a href ="/abs/{arxiv_id}" title="Abstract" id="{arxiv_id}">
        arXiv:{arxiv_id}
      </a>
      {kind}
      [<a href="/pdf/{arxiv_id}" title="Download PDF" id="pdf-{arxiv_id}" aria-labelledby="pdf-{arxiv_id}">pdf</a>, <a href="https://arxiv.org/html/{arxiv_id}v{record.version}" title="View HTML" id="html-{arxiv_id}" aria-labelledby="html-{arxiv_id}" rel="noopener noreferrer" target="_blank">html</a>]
    </dt>
    <dd>
      <div class='meta'>
        <div class='list-title mathjax'><span class='descriptor'>Title:</span>
          {escape(record.title)}
        </div>
        <div class='list-authors'>{_authors(record)}</div>
{optional}        <div class='list-subjects'><span class='descriptor'>Subjects:</span>
          <span class="primary-subject">{_display(record.primary_category)}</span>{secondaries}
        </div>
        <p class='mathjax'>
          {_abstract(record.abstract)}
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


def _page_link(archive: str, skip: int, show: int) -> str:
    return f"/list/{archive}/new?skip={skip}&amp;show={show}"


def _paging(archive: str, count: int, skip: int, show: int) -> str:
    """The page links as arXiv's `list_page/paging.py` lays them out: this page unlinked;
    below 11 entries every page (this one shown as its `skip`), else the first page, three on
    each side and the last, with "..." around the three."""
    starts = range(0, count, show)

    def link(start: int) -> str:
        label = f"{start + 1}-{min(count, start + show)}"
        return f"<a href={_page_link(archive, start, show)}>{label}</a>"

    if count < 11:
        parts = [link(s) for s in starts if s < skip] + [f"<span>{skip}</span>"]
        parts += [link(s) for s in starts if s > skip]
        return ":\n" + "\n".join(parts)
    parts = [link(0)] if skip >= show else []
    before = [s for s in starts if 0 < s < skip and s >= skip - _NEIGHBOUR_PAGES * show]
    if before and before[0] > _NEIGHBOUR_PAGES * show:
        parts.append("<span>...</span>")
    parts += [link(s) for s in before]
    parts.append(f"<span>{skip + 1}-{min(count, skip + show)}</span>")
    after = [s for s in starts if skip < s <= skip + _NEIGHBOUR_PAGES * show]
    parts += [link(s) for s in after]
    if after and after[-1] < starts[-1]:
        parts += ["<span>...</span>", link(starts[-1])]
    return ":\n" + "\n".join(parts)


def _more_fewer(archive: str, count: int, skip: int, show: int) -> str:
    fewer = max((v for v in _SHOW_VALUES if v < show), default=None)
    more = min((v for v in _SHOW_VALUES if show < v < count), default=None)
    every = _SHOW_VALUES[-1] if count > show and show < _SHOW_VALUES[-1] else None

    def link(text: str, to: int | None) -> str:
        if to is None:
            return f'<span style="color: #454545">{text}</span>'
        return f'<a href={_page_link(archive, skip, to)} rel="nofollow">\n      {text}</a>'

    return " |\n".join(link(t, to) for t, to in (("fewer", fewer), ("more", more), ("all", every)))


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
    for section, label, before in (
        ("new", "New submissions", 0),
        ("cross", "Cross-lists", new_count),
        ("rep", "Replacements", new_count + cross_count),
    ):
        if totals[section]:
            # arXiv points "New submissions" at #item0, the others at their first item, with
            # the page that holds it when the sections before fill more than a page
            first = before + 1 if section != "new" else 0
            elsewhere = skip != 0 if section == "new" else before > show
            there = _page_link(archive, before // show * show, show) if elsewhere else ""
            index.append(f'  <li><a href="{there}#item{first}">{label}</a></li>')
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
            f"{_HEADINGS[section]} submissions "
            f"({_showing(continued, last)}{len(shown) + (broken == 'counts')} "
            f"of {totals[section]} entries)"
        )
        entries = "".join(_item(n, i) for n, i in shown)
        if broken == "markup":
            entries = entries.replace("<dt>", "<li class='entry'>").replace("</dd>", "</li>")
            entries = entries.replace("<dd>", "").replace("</dt>", "")
        body.append(f"<dl id='articles'>\n    <h3>{heading}</h3>\n{entries}</dl>\n")
    if not body:
        body.append("<p>No updates today.</p>\n")
    count = len(items)
    paging = ""
    if count:
        links = _paging(archive, count, skip, show) if show < count else ""
        paging = (
            f"<div class='paging'>Total of {count} entries {links}\n</div>\n"
            f"<div class='morefewer'>Showing up to {show} entries per page:\n"
            f"{_more_fewer(archive, count, skip, show)}\n</div>\n"
        )
    name = escape(archive)
    full_name = escape(ARCHIVE_NAMES.get(archive, archive))
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <title>{full_name} </title>
</head>
<body>
<main>
<div id="content">
<div id='content-inner'>
<div id='dlpage'>
  <h1>{full_name}</h1>
{chr(10).join(index)}
<p>See <a id="recent-{name}" aria-labelledby="recent-{name}" href="/list/{name}/recent">recent</a> articles</p>
<h3>Showing new listings for {when}</h3>
{paging}{"".join(body)}{paging}</div>
</div>
</div>
</main>
</body>
</html>
"""  # noqa: E501
