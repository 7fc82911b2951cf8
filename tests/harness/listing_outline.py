"""The outline of an arXiv listing page (`/list/<archive>/new`): its structure without its papers.

`outline(html)` walks `div#dlpage` (the listing; the site's header, banner and footer around it
are left out) in document order and gives one line per element: tag, id, classes and attribute
names, then the texts that are structure (headings, the index, the paging lines, "No updates
today.", an item's "(cross-list from X)" or "(replaced)", the "Title:"-like descriptors and the
subjects). Two pages of the same papers have the same outline when their markup is the same;
what a paper says (its title, authors' affiliations, comments, abstract and the links arXiv
makes in them) is not compared, nor which download formats a paper has beyond its PDF.
Standard library only (`html.parser`), so it judges the markup independently of lxml, which the
parser under test uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta"})
_OPTIONAL_DOWNLOADS = frozenset({"View HTML", "Other formats"})
_ITEM_KIND = re.compile(r"\((?:cross-list from \S+|replaced)\)")


@dataclass
class _Open:
    tag: str
    classes: frozenset[str]
    line: int | None  # index of its line in the outline; None when it is not outlined
    text: list[str] = field(default_factory=list)


def _is_content(tag: str, classes: frozenset[str]) -> bool:
    """A paper's own text: only its descriptor ("Title:") is structure."""
    if tag == "p" and "mathjax" in classes:
        return True
    return tag == "div" and bool(classes & {"list-title", "list-comments", "list-journal-ref"})


class _Outliner(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.stack: list[_Open] = []
        self.skipping = 0  # depth inside an element left out with its subtree
        self.inside = False  # within div#dlpage

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        classes = frozenset((values.get("class") or "").split())
        if not self.inside:
            if tag == "div" and values.get("id") == "dlpage":
                self.inside = True
                self.stack = []
            else:
                return
        in_content = any(_is_content(o.tag, o.classes) for o in self.stack)
        leave_out = self.skipping > 0 or (tag == "a" and values.get("title") in _OPTIONAL_DOWNLOADS)
        if in_content and not (tag == "span" and "descriptor" in classes):
            leave_out = True
        line = None
        if not leave_out:
            names = ",".join(sorted(values))
            ident = f"#{values['id']}" if values.get("id") else ""
            dots = "".join(f".{c}" for c in sorted(classes))
            line = len(self.lines)
            self.lines.append(f"{tag}{ident}{dots}[{names}]")
        if tag in _VOID:
            return
        if leave_out:
            self.skipping += 1
        self.stack.append(_Open(tag, classes, line))

    def handle_endtag(self, tag: str) -> None:
        if not self.inside or tag in _VOID:
            return
        while self.stack:
            element = self.stack.pop()
            if element.line is None:
                self.skipping -= 1
            else:
                self._close(element)
            if element.tag == tag:
                break
        if not self.stack:
            self.inside = False

    def handle_data(self, data: str) -> None:
        if self.inside and self.stack and self.stack[-1].line is not None:
            self.stack[-1].text.append(data)

    def _close(self, element: _Open) -> None:
        text = " ".join("".join(element.text).split())
        in_item = any(o.tag == "dd" for o in self.stack)
        if element.tag == "dt":
            text = " ".join(_ITEM_KIND.findall(text))
        elif in_item and not (element.classes & {"descriptor", "primary-subject", "list-subjects"}):
            text = ""
        if text and element.line is not None:
            self.lines[element.line] += f" {text!r}"


def outline(html: str) -> list[str]:
    """One line per element of the page's `div#dlpage`, as the module docstring says."""
    outliner = _Outliner()
    outliner.feed(html)
    outliner.close()
    return outliner.lines
