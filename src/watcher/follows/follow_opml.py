"""The OPML follow list that `/export opml` writes and /import reads, and OPMLs of arXiv feeds
that other feed readers export.

Writing: one `<outline type="rss">` a follow, whose `xmlUrl` is a feed an RSS reader can poll:
a person's own arXiv feed (`https://arxiv.org/a/ID.atom`) for an author id or ORCID iD, arXiv's
listing feed (`https://rss.arxiv.org/rss/cs.DC+cs.NI`) for a whole category, an arXiv API query
for a name or a topic (the same query the service asks, newest first). Each outline
also carries the rule as the text list writes it (`rule`), so an import reads back exactly the
follow exported, aliases and categories included; the chat's settings are `<setting>` elements
in the head, and its reading list (/saved) `<saved id="2604.01234" title="..."/>` elements after
them, newest saved first (readers ignore elements they do not know).

Reading: every outline with a `rule` is read as that line
(`watcher.follows.follow_list.parse_rule`); otherwise its `xmlUrl` says what it is: an author feed
(`arxiv.org/a/ID.atom`, `.atom2`, `.rss`) is that identity; a category feed
(`rss.arxiv.org/rss/cs.DC`, `/atom/`, `export.arxiv.org/rss/`, categories joined with `+`) is a
whole-category watch (`watch in cs.DC`, as `/watch in cs.DC` follows it; one /watch would refuse is
skipped with /watch's reason); an API query of one quoted author (`au:"Dezun Dong"`) is that name.
Anything else is skipped, with why.

XML is parsed with defusedxml: a document declaring entities (an entity bomb) is refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from email.utils import format_datetime
from urllib.parse import parse_qs, quote, urlencode, urlsplit
from xml.etree.ElementTree import Element, ParseError, SubElement, indent, tostring

from watcher.arxiv.queries import person_query
from watcher.errors import WatcherError
from watcher.follows.follow_list import (
    MAX_TITLE,
    Entry,
    FollowRule,
    ReadList,
    SavedLine,
    Skipped,
    clip,
    parse_rule,
    rule_line,
    saved_line,
    why_not,
)
from watcher.follows.identity import Identity, IdentityError, parse_identity
from watcher.follows.rules import BadRule
from watcher.follows.topics import Topic
from watcher.sentences import SaysSentence, sentence

API_URL = "https://export.arxiv.org/api/query"
AUTHOR_FEED = "https://arxiv.org/a/{}.atom"
CATEGORY_FEED = "https://rss.arxiv.org/rss/{}"
MAX_OUTLINES = 1000
_CATEGORY_FEED = re.compile(
    r"(?:rss\.arxiv\.org|(?:export\.)?arxiv\.org)/(?:rss|atom)/(?P<categories>[^/?#]+)/?",
    re.IGNORECASE,
)
_QUOTED_AUTHOR = re.compile(r'au:"(?P<name>[^"]+)"')


class BadOpml(SaysSentence, WatcherError):
    """A file that is no readable OPML; the message says why, in a few words (a
    `watcher.sentences.Sentence`, `error.sentence`)."""


def feed_url(rule: FollowRule) -> str:
    """The feed an RSS reader polls for `rule`: the person's arXiv feed, arXiv's listing feed of
    a whole category, or an API query."""
    if isinstance(rule, Identity):
        return AUTHOR_FEED.format(quote(rule.feed_id))
    if isinstance(rule, Topic) and rule.whole:
        return CATEGORY_FEED.format("+".join(rule.categories))
    query = rule.query if isinstance(rule, Topic) else person_query(rule.names, rule.categories)
    parameters = {"search_query": query, "sortBy": "submittedDate", "sortOrder": "descending"}
    return f"{API_URL}?{urlencode(parameters)}"


def render_opml(
    rules: Iterable[tuple[FollowRule, str | None]],
    settings: Mapping[str, str],
    *,
    title: str,
    now: datetime,
    saved: Iterable[tuple[str, str]] = (),
) -> bytes:
    """The OPML document (UTF-8): each rule an outline, the settings and the saved papers
    (arXiv id, title) in the head."""
    root = Element("opml", version="2.0")
    head = SubElement(root, "head")
    SubElement(head, "title").text = f"arxiv-watcher follows: {title}"
    SubElement(head, "dateCreated").text = format_datetime(now)
    for key, value in settings.items():
        SubElement(head, "setting", name=key, value=value)
    for arxiv_id, paper_title in saved:
        SubElement(head, "saved", id=arxiv_id, title=" ".join(paper_title.split()))
    body = SubElement(root, "body")
    for rule, name in rules:
        label = name or str(rule)
        SubElement(
            body,
            "outline",
            text=label,
            title=label,
            type="rss",
            xmlUrl=feed_url(rule),
            rule=rule_line(rule),
        )
    indent(root)
    document: bytes = tostring(root, encoding="unicode").encode("utf-8")
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + document + b"\n"


def read_opml(text: str) -> ReadList:
    """The follows, settings and skipped outlines of an OPML document; BadOpml when the
    document is malformed, declares entities, or is no OPML."""
    # Imported at the first OPML file read (an /import): no other path needs it.
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import fromstring

    try:
        root = fromstring(text)
    except DefusedXmlException:
        raise BadOpml(sentence("it declares XML entities or a DTD, which I refuse")) from None
    except ParseError as error:
        raise BadOpml(
            sentence("it is not well-formed XML ({problem})", problem=str(error))
        ) from None
    if root.tag != "opml":
        raise BadOpml(
            sentence(
                "its root element is {element}, not {opml}",
                element="<" + clip(str(root.tag), 30) + ">",
                opml="<opml>",
            )
        )
    settings = {
        str(element.get("name")): str(element.get("value") or "")
        for element in root.iterfind("head/setting")
        if element.get("name")
    }
    entries: list[Entry] = []
    skipped: list[Skipped] = []
    saved: list[SavedLine] = []
    saved_elements = list(root.iterfind("head/saved"))[:MAX_OUTLINES]
    for number, element in enumerate(saved_elements, start=1):
        where = sentence("saved {number}", number=number)
        arxiv_id = str(element.get("id") or "")
        try:
            line = saved_line(where, arxiv_id)
        except WatcherError as error:
            skipped.append(Skipped(where, clip(f"save {arxiv_id}"), why_not(error)))
            continue
        title = " ".join(str(element.get("title") or "").split())
        saved.append(SavedLine(where, line.arxiv_id, title[:MAX_TITLE]))
    outlines = [outline for outline in root.iter("outline") if outline.get("xmlUrl") is not None]
    for number, outline in enumerate(outlines[:MAX_OUTLINES], start=1):
        where = sentence("outline {number}", number=number)
        shown = outline.get("title") or outline.get("text") or outline.get("xmlUrl") or ""
        try:
            entries.append(Entry(where, _outline_rule(outline)))
        except WatcherError as error:
            skipped.append(Skipped(where, clip(shown), why_not(error)))
    if len(outlines) > MAX_OUTLINES:
        more = len(outlines) - MAX_OUTLINES
        why = sentence(
            "{count} more outlines not read (at most {most})", count=more, most=MAX_OUTLINES
        )
        skipped.append(Skipped(sentence("…"), "…", why))
    return ReadList(tuple(entries), settings, tuple(skipped), tuple(saved))


def _outline_rule(outline: Element) -> FollowRule:
    """The follow an outline stands for; WatcherError (the reason) when it stands for none."""
    written = outline.get("rule")
    if written:
        return parse_rule(written)
    url = (outline.get("xmlUrl") or "").strip()
    address = url.split("://", 1)[-1]
    if re.match(r"(?:www\.)?arxiv\.org/a/", address, re.IGNORECASE):
        try:
            identity = parse_identity(url)
        except IdentityError as error:
            raise BadRule(error.sentence) from None
        if identity is None:
            raise BadRule(sentence("not an arXiv author feed"))
        return identity
    category = _CATEGORY_FEED.fullmatch(address)
    if category is not None:
        # A whole-category watch, refused with the topic parser's reason (an unknown category,
        # more than three) as /watch would refuse it.
        return parse_rule(f"watch in {category['categories'].replace('+', ',')}")
    try:
        parts = urlsplit(url)
    except ValueError:  # a bracket that opens no IPv6 address: "http://[::1", "http://[x]/"
        raise BadRule(sentence("not a valid feed address")) from None
    if parts.netloc.casefold().endswith("arxiv.org") and parts.path.endswith("/api/query"):
        query = " ".join(parse_qs(parts.query).get("search_query", []))
        author = _QUOTED_AUTHOR.fullmatch(query.strip())
        if author is not None:
            return parse_rule(f"subscribe {author['name']}")
        raise BadRule(sentence("an arXiv API query other than one author's name"))
    raise BadRule(sentence("not an arXiv author or category feed"))
